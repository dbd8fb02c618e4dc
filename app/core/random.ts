/**
 * Random is injected into the core so that placement, election jitter and fault schedules are
 * reproducible: the same seed gives the same history. `seededRandom` is the one implementation
 * (xoroshiro128+ from pure-rand, a pure library with no I/O): the product's hosts run the engine
 * on it with a fresh seed, the simulation and the tests with a fixed one — as `ManualScheduler`
 * serves both from app/core/time.ts.
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';

export interface Random {
  /** A uniformly distributed integer in [0, bound). `bound` must be a positive integer. */
  nextInt(bound: number): number;
  /** A uniformly distributed float in [0, 1). */
  nextFloat(): number;
}

/** A seeded, reproducible Random. */
export function seededRandom(seed: number): Random {
  const rng = xoroshiro128plus(seed | 0);
  return {
    nextInt(bound: number): number {
      if (!Number.isInteger(bound) || bound <= 0) throw new RangeError(`bound must be a positive integer, got ${bound}`);
      return uniformInt(rng, 0, bound - 1);
    },
    nextFloat(): number {
      return uniformFloat64(rng);
    },
  };
}
