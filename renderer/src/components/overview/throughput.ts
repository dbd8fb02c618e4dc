/** The series the overview's throughput charts draw from each metrics sample. */
import type { MetricsView } from '../../../../app/api/contract.js';
import { bytes, rate } from '../../lib/format.js';

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
