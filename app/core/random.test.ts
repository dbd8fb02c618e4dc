import { describe, expect, it } from 'vitest';
import { seededRandom } from './random.js';

describe('seededRandom', () => {
  it('gives the same sequence for the same seed and a different one for another seed', () => {
    const take = (seed: number) => {
      const r = seededRandom(seed);
      return Array.from({ length: 20 }, () => r.nextInt(1000));
    };
    expect(take(7)).toEqual(take(7));
    expect(take(7)).not.toEqual(take(8));
  });
  it('stays inside [0, bound)', () => {
    const r = seededRandom(1);
    for (let i = 0; i < 1000; i++) {
      const v = r.nextInt(3);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(3);
      const f = r.nextFloat();
      expect(f).toBeGreaterThanOrEqual(0);
      expect(f).toBeLessThan(1);
    }
    expect(() => r.nextInt(0)).toThrow(RangeError);
  });
});
