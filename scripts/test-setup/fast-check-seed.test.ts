import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CI_FAST_CHECK_SEED, fastCheckSeed } from './fast-check-seed.js';

describe('fast-check seed of a test run', () => {
  it('is fixed in CI, drawn anew locally, and FC_SEED overrides both', () => {
    expect(fastCheckSeed({ CI: 'true' })).toBe(CI_FAST_CHECK_SEED);
    expect(fastCheckSeed({})).toBeUndefined();
    expect(fastCheckSeed({ CI: 'true', FC_SEED: '42' })).toBe(42);
    expect(() => fastCheckSeed({ FC_SEED: 'abc' })).toThrow(/FC_SEED must be an integer/);
  });

  it('with a global seed every property draws the same values, without one they differ', () => {
    const before = fc.readConfigureGlobal();
    const drawn = (): number[] => {
      const seen: number[] = [];
      fc.assert(fc.property(fc.integer(), (n) => void seen.push(n)), { numRuns: 5 });
      return seen;
    };
    try {
      fc.configureGlobal({ ...before, seed: 7 });
      expect(drawn()).toEqual(drawn());
      fc.configureGlobal({ ...before, seed: undefined });
      expect(drawn()).not.toEqual(drawn());
    } finally {
      fc.configureGlobal(before);
    }
  });
});
