/**
 * The answers a replica partition gives (partition.ts): to a produce, to a follower's fetch check
 * and to DeleteRecords once its low watermark is reached.
 *
 * A file of its own so the request paths that hand these on (kafka-apis.ts, fetch-purgatory.ts,
 * delete-records.ts) and the partition share one definition; partition.ts re-exports them.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { RecordError } from '../log/produced-batch.js';
import type { DelayedOutcome } from './delayed-produce.js';

export interface ProduceOutcome {
  errorCode: KafkaErrorName;
  baseOffset: number;
  errorMessage?: string;
  /** The records a LogValidator refused, by index in the batch (Produce v8 RecordErrors). */
  recordErrors?: RecordError[];
  /** Once the batch is appended: the epoch it was written in (its partitionLeaderEpoch) and when. */
  leaderEpoch?: number;
  appendTimeMs?: number;
}

/** A DeleteRecords answer once the low watermark reached the requested offset. */
export interface LowWatermarkOutcome extends DelayedOutcome {
  lowWatermark: number;
}

export type FollowerFetchCheck =
  | { ok: true }
  | { ok: false; error: KafkaErrorName }
  | { ok: false; error: 'NONE'; divergingEpoch: { epoch: number; endOffset: number } };

/** The answer of a follower fetch check that passed (shared: it carries nothing). */
export const FETCH_OK: FollowerFetchCheck = Object.freeze({ ok: true });
