/** The series the overview's throughput charts draw from each metrics sample. */
import type { MetricsView } from '../../../../app/api/contract.js';
import { bytes, rate } from '../format.js';

export interface Series {
  label: string;
  /** rgba(), so the fill can reuse it with a lower alpha. */
  colour: string;
  value: (s: MetricsView) => number;
}

export const RECORD_SERIES: Series[] = [
  { label: 'Produced', colour: 'rgba(24, 160, 88, 1)', value: (s) => s.produceRecordsPerSec },
  { label: 'Consumed', colour: 'rgba(32, 128, 240, 1)', value: (s) => s.consumeRecordsPerSec },
];

export const BYTE_SERIES: Series[] = [
  { label: 'Produced', colour: 'rgba(24, 160, 88, 1)', value: (s) => s.produceBytesPerSec },
  { label: 'Replication (follower fetch)', colour: 'rgba(240, 160, 32, 1)', value: (s) => s.replicationBytesPerSec },
];

export const recordsPerSec = (n: number): string => rate(n, ' rec/s');
export const bytesPerSec = (n: number): string => `${bytes(Math.round(n))}/s`;

/** The mean of `value` over the samples (0 without samples): what a rate averaged over the chart's window reads. */
export function average(samples: readonly MetricsView[], value: (s: MetricsView) => number): number {
  return samples.length === 0 ? 0 : samples.reduce((n, s) => n + value(s), 0) / samples.length;
}

/** Per broker, bytes in (produce as leader + replication as follower) and out (replication as leader), averaged over the samples. */
export function brokerRates(samples: readonly MetricsView[]): Map<number, { inPerSec: number; outPerSec: number }> {
  const out = new Map<number, { inPerSec: number; outPerSec: number }>();
  for (const s of samples) {
    for (const b of s.brokers) {
      const r = out.get(b.brokerId) ?? { inPerSec: 0, outPerSec: 0 };
      r.inPerSec += (b.produceBytesPerSec + b.replicationBytesInPerSec) / samples.length;
      r.outPerSec += b.replicationBytesOutPerSec / samples.length;
      out.set(b.brokerId, r);
    }
  }
  return out;
}
