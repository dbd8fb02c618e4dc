import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import type { Random } from '../core/random.js';

/** A seeded, reproducible Random (xoroshiro128+ from pure-rand). */
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
