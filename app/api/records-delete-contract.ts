/**
 * `records.delete` (spread into `contract` in contract.ts): Kafka's DeleteRecords, what
 * `kafka-delete-records.sh --offset-json-file` does. Its input is that tool's JSON (`partitions`
 * of topic, partition, offset; offset -1 = the high watermark), its result one line per partition.
 */
import { z } from 'zod';
import type { KafkaErrorName } from './errors.js';
import { method, returns } from './contract-kit.js';

/** One partition's outcome of `records.delete`. */
export interface DeleteRecordsResultView {
  topic: string;
  partition: number;
  /**
   * The partition's new low watermark — the lowest log start offset over its live replicas, once
   * every one has reached the requested offset; -1 when `errorCode` is not NONE.
   */
  lowWatermark: number;
  /** NONE, or Kafka's error: OFFSET_OUT_OF_RANGE (past the high watermark), POLICY_VIOLATION, REQUEST_TIMED_OUT, … */
  errorCode: KafkaErrorName;
}

export const recordsDeleteMethods = {
  /**
   * Delete every record below `offset` in each partition (-1: below the high watermark): each
   * leader moves its log start offset there and followers follow. Answered per partition once
   * every live replica has followed, or REQUEST_TIMED_OUT after `timeoutMs` (default 30 s).
   */
  'records.delete': method(
    z.strictObject({
      version: z.literal(1).optional(),
      partitions: z
        .array(z.strictObject({ topic: z.string().min(1), partition: z.int().min(0), offset: z.int().min(-1) }))
        .min(1),
      timeoutMs: z.int().min(0).max(300_000).optional(),
    }),
    returns<DeleteRecordsResultView[]>(),
  ),
} as const;
