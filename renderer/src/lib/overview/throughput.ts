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
/** Bytes per second; a rate above 0 but below 1 B/s keeps two digits, so it never reads "0 B/s" beside records that moved. */
export const bytesPerSec = (n: number): string => (n > 0 && n < 1 ? `${+n.toPrecision(2)} B/s` : `${bytes(Math.round(n))}/s`);

/**
 * The rate of `value` over the samples' whole window (0 without samples): what moved in the
 * window over the window's length, each sample weighted by its interval. Every headline rate is
 * one of these over the same samples, so records and bytes are of one window.
 */
export function average(samples: readonly MetricsView[], value: (s: MetricsView) => number): number {
  const ms = samples.reduce((n, s) => n + s.intervalMs, 0);
  return ms <= 0 ? 0 : samples.reduce((n, s) => n + value(s) * s.intervalMs, 0) / ms;
}

/** Per broker, bytes in (produce as leader + replication as follower) and out (replication as leader), averaged over the samples. */
export function brokerRates(samples: readonly MetricsView[]): Map<number, { inPerSec: number; outPerSec: number }> {
  const out = new Map<number, { inPerSec: number; outPerSec: number }>();
  const ms = samples.reduce((n, s) => n + s.intervalMs, 0);
  if (ms <= 0) return out;
  for (const s of samples) {
    for (const b of s.brokers) {
      const r = out.get(b.brokerId) ?? { inPerSec: 0, outPerSec: 0 };
      r.inPerSec += ((b.produceBytesPerSec + b.replicationBytesInPerSec) * s.intervalMs) / ms;
      r.outPerSec += (b.replicationBytesOutPerSec * s.intervalMs) / ms;
      out.set(b.brokerId, r);
    }
  }
  return out;
}
