/**
 * What the quota drill draws: the drill producer's byte rate as the broker measures it, against
 * its quota, and the throttle_time_ms the broker answered it with, sampled from `quotas.throttles`
 * once a second while the drill runs. Pure, so the sampling is tested without a page.
 *
 * The producer sends everything to the partition's leader, so its sensor there is the one that
 * throttles; when the leader is not known, the broker measuring the highest rate stands for it.
 * A sample's throttle is the one answered since the previous sample (0 when none was): the chart
 * shows when the client was held back, not only the last time it was.
 */
import type { ClientThrottleView } from '../../../../app/api/contract.js';
import type { TimeLine } from '../charts/time-line.js';

/** The drill's producer: its client.id (security-scenarios.ts). */
export const drillProducerId = (topic: string): string => `${topic}-producer`;

export interface QuotaSample {
  atMs: number;
  brokerId: number;
  /** Bytes/s over the quota window. */
  rate: number;
  /** Bytes/s (null: no quota applies). */
  limit: number | null;
  /** throttle_time_ms answered since the previous sample. */
  throttleMs: number;
}

export function quotaSample(rows: readonly ClientThrottleView[], clientId: string, leader: number | null, atMs: number, previous: QuotaSample | null): QuotaSample | null {
  const mine = rows.filter((r) => r.key === 'producer_byte_rate' && r.clientId === clientId);
  const row = mine.find((r) => r.brokerId === leader) ?? mine.reduce<ClientThrottleView | undefined>((a, b) => (a && a.rate >= b.rate ? a : b), undefined);
  if (!row) return null;
  const since = previous?.atMs ?? -Infinity;
  const throttled = row.lastThrottleAtMs !== null && row.lastThrottleAtMs > since;
  return { atMs, brokerId: row.brokerId, rate: row.rate, limit: row.limit, throttleMs: throttled ? row.lastThrottleMs : 0 };
}

export function quotaLines(samples: readonly QuotaSample[]): { rate: TimeLine[]; throttle: TimeLine[] } {
  return {
    rate: [
      { label: 'producer rate', colour: 'rgba(32, 128, 240, 1)', points: samples.map((s) => ({ atMs: s.atMs, value: s.rate })) },
      { label: 'quota (producer_byte_rate)', colour: 'rgba(208, 48, 80, 1)', points: samples.filter((s) => s.limit !== null).map((s) => ({ atMs: s.atMs, value: s.limit! })) },
    ],
    throttle: [{ label: 'throttle_time_ms', colour: 'rgba(240, 160, 32, 1)', points: samples.map((s) => ({ atMs: s.atMs, value: s.throttleMs })) }],
  };
}
