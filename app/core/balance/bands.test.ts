import { describe, expect, it } from 'vitest';
import { balancePercentage, balancednessScore, balancednessWeights, countBand, innerCountBand, resourceBand, topicReplicaBand } from './bands.js';

describe('Cruise Control distribution bands', () => {
  it('5 brokers with 36 partitions × RF 3 give a replica band of [19, 24] and a leader band of [6, 8]', () => {
    expect(countBand(108 / 5, 1.1)).toEqual({ lower: 19, upper: 24 });
    expect(countBand(36 / 5, 1.1)).toEqual({ lower: 6, upper: 8 });
  });

  it('3 brokers leading 100 partitions give a leader band of [30, 37]', () => {
    expect(countBand(100 / 3, 1.1)).toEqual({ lower: 30, upper: 37 });
  });

  it('reproduces the IEEE rounding: (1.10 − 1) × 0.9 is 0.09000000000000008, so avg 100 gives [90, 110]', () => {
    expect(balancePercentage(1.1)).toBe(0.09000000000000008);
    expect(countBand(100, 1.1)).toEqual({ lower: 90, upper: 110 });
  });

  it('resource bands do not round', () => {
    const band = resourceBand(1000, 1.1);
    expect(band.lower).toBeCloseTo(910, 9);
    expect(band.upper).toBeCloseTo(1090, 9);
    expect(resourceBand(0, 1.1)).toEqual({ lower: 0, upper: 0 });
  });

  it('clamps the topic replica band with the gaps: threshold 3.0 at avg 4 gives [0, 12]', () => {
    expect(topicReplicaBand(4, 3, 2, 40)).toEqual({ lower: 0, upper: 12 });
    // The small-cluster default (1.5, min gap 1, max gap 40).
    expect(topicReplicaBand(15, 1.5, 1, 40)).toEqual({ lower: 8, upper: 22 });
    // The min gap keeps room even when the band would be narrower: avg 1 → upper ≥ 2.
    expect(topicReplicaBand(1, 1.5, 1, 40)).toEqual({ lower: 0, upper: 2 });
    // The max gap caps a very loose band.
    expect(topicReplicaBand(100, 3, 2, 40)).toEqual({ lower: 60, upper: 140 });
  });

  it('the inner band rounds inward, stays inside the outer band and holds floor(avg)..ceil(avg)', () => {
    expect(innerCountBand(15, 1.1, countBand(15, 1.1))).toEqual({ lower: 14, upper: 16 });
    expect(innerCountBand(100, 1.1, countBand(100, 1.1))).toEqual({ lower: 91, upper: 109 });
    expect(innerCountBand(5, 1.1, countBand(5, 1.1))).toEqual({ lower: 5, upper: 5 });
    for (let total = 0; total <= 400; total += 7) {
      for (const brokers of [1, 2, 3, 5, 6, 9]) {
        const avg = total / brokers;
        const outer = countBand(avg, 1.1);
        const inner = innerCountBand(avg, 1.1, outer);
        expect(inner.lower).toBeGreaterThanOrEqual(outer.lower);
        expect(inner.upper).toBeLessThanOrEqual(outer.upper);
        expect(inner.lower).toBeLessThanOrEqual(Math.floor(avg));
        expect(inner.upper).toBeGreaterThanOrEqual(Math.ceil(avg));
      }
    }
  });
});

describe('balancedness', () => {
  const sevenGoals = [true, true, true, false, false, false, false].map((hard) => ({ hard }));

  it('weighs 7 goals (3 hard) as 22.31, 20.28, 18.44, 11.18, 10.16, 9.24, 8.40', () => {
    const weights = balancednessWeights(sevenGoals);
    [22.31, 20.28, 18.44, 11.18, 10.16, 9.24, 8.4].forEach((w, i) => expect(weights[i]).toBeCloseTo(w, 2));
    expect(weights.reduce((a, b) => a + b, 0)).toBeCloseTo(100, 9);
  });

  it('scores 100 minus the weights of the violated goals', () => {
    const weights = balancednessWeights(sevenGoals);
    expect(balancednessScore(weights, [false, false, false, false, false, false, false])).toBe(100);
    expect(balancednessScore(weights, [false, false, false, true, false, false, true])).toBeCloseTo(100 - 11.18 - 8.4, 1);
    expect(balancednessScore(weights, sevenGoals.map(() => true))).toBe(0);
  });
});
