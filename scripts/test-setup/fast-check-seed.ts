/**
 * The seed of every fast-check property in a run (vitest setupFiles, unit project). Locally each
 * run draws a new seed, so repeated runs keep exploring (a failure prints its seed and path).
 * In CI (`CI` set) the seed is fixed, so a landing is never decided by a rare draw: a fuzz seed
 * that made snappyjs loop for minutes hung one CI run past its limit (fixed in compression.ts).
 * FC_SEED=N reproduces a run with seed N anywhere.
 */
import fc from 'fast-check';

export const CI_FAST_CHECK_SEED = 20_261_202;

export function fastCheckSeed(env: NodeJS.ProcessEnv): number | undefined {
  if (env.FC_SEED !== undefined && env.FC_SEED !== '') {
    const seed = Number(env.FC_SEED);
    if (!Number.isSafeInteger(seed)) throw new Error(`FC_SEED must be an integer, not "${env.FC_SEED}"`);
    return seed;
  }
  return env.CI ? CI_FAST_CHECK_SEED : undefined;
}

const seed = fastCheckSeed(process.env);
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
