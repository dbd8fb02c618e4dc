import { describe, expect, it } from 'vitest';
import type { ClientThrottleView } from '../../../../app/api/contract.js';
import { quotaLines, quotaSample } from './quota-chart.js';

const row = (brokerId: number, rate: number, lastThrottleAtMs: number | null, lastThrottleMs = 0, clientId = 'drill-1-producer'): ClientThrottleView => ({
  brokerId,
  key: 'producer_byte_rate',
  user: '',
  clientId,
  entity: { 'client-id': clientId },
  limit: 20_480,
  rate,
  lastThrottleMs,
  lastThrottleAtMs,
  throttledNow: false,
});

describe('the quota drill chart', () => {
  it("samples the producer's sensor on the leader, and a throttle only when one was answered since the previous sample", () => {
    const rows = [row(1, 100, null), row(2, 21_000, 5_000, 640), row(2, 9_999, 5_000, 1, 'drill-1-app')];
    const first = quotaSample(rows, 'drill-1-producer', 2, 5_200, null)!;
    expect(first).toEqual({ atMs: 5_200, brokerId: 2, rate: 21_000, limit: 20_480, throttleMs: 640 });
    // The same throttle read again a second later: nothing new was answered.
    const again = quotaSample(rows, 'drill-1-producer', 2, 6_200, first)!;
    expect(again.throttleMs).toBe(0);
    // Leader unknown: the broker measuring the most stands for it; another client is never it.
    expect(quotaSample(rows, 'drill-1-producer', null, 7_000, again)!.brokerId).toBe(2);
    expect(quotaSample(rows, 'drill-9-producer', 2, 7_000, null)).toBeNull();
  });

  it('draws the rate against the quota, and the throttle time', () => {
    const a = quotaSample([row(1, 30_000, 900, 300)], 'drill-1-producer', 1, 1_000, null)!;
    const b = quotaSample([row(1, 21_000, 1_900, 450)], 'drill-1-producer', 1, 2_000, a)!;
    const lines = quotaLines([a, b]);
    expect(lines.rate.map((l) => l.points.map((p) => p.value))).toEqual([[30_000, 21_000], [20_480, 20_480]]);
    expect(lines.throttle[0]!.points).toEqual([{ atMs: 1_000, value: 300 }, { atMs: 2_000, value: 450 }]);
  });
});
