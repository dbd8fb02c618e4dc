/**
 * `records.fill` (spread into `contract` in contract.ts): synthetic records, many partitions at
 * once, as a load generator writes them — what a twin (twin-contract.ts) fills each partition with
 * so that its sizes and copy times mean something. Each partition gets `records` records without a
 * key, with a value of `valueBytes` bytes, produced with acks=all in batches of at most
 * RECORDS_FILL_BATCH_RECORDS records and RECORDS_FILL_BATCH_BYTES value bytes (the batches
 * `records.produce` calls of that size would make); each round sends one Produce request per
 * leader with one batch for each of its partitions, so the brokers append and replicate them as
 * any producer's. A local cluster writes a partition that is empty and fully in sync on every
 * replica at once instead, with the same bytes, offsets, epochs and high watermarks
 * (app/core/cluster/synthetic-fill.ts).
 */
import { z } from 'zod';
import type { KafkaErrorName } from './errors.js';
import { method, returns } from './contract-kit.js';

/** The most records, and value bytes, one batch of `records.fill` holds. */
export const RECORDS_FILL_BATCH_RECORDS = 1_000;
export const RECORDS_FILL_BATCH_BYTES = 1_000_000;

/** One partition's outcome of `records.fill`. */
export interface FillResultView {
  topic: string;
  partition: number;
  /** NONE, or the first error a batch of this partition met (later batches were not sent). */
  errorCode: KafkaErrorName;
  message?: string;
  /** Records appended (acknowledged by the whole ISR). */
  records: number;
  /** The offset after the last record appended; -1 when none was. */
  nextOffset: number;
}

export const recordsFillMethods = {
  /** Produce `records` synthetic records of `valueBytes` bytes to each partition (acks=all). */
  'records.fill': method(
    z.strictObject({
      partitions: z
        .array(z.strictObject({ topic: z.string().min(1), partition: z.int().min(0), records: z.int().min(1), valueBytes: z.int().min(0).max(RECORDS_FILL_BATCH_BYTES) }))
        .min(1)
        .refine((ps) => new Set(ps.map((p) => `${p.topic}\u0000${p.partition}`)).size === ps.length, 'A partition is named more than once.'),
      timeoutMs: z.int().min(0).max(300_000).optional(),
    }),
    returns<FillResultView[]>(),
  ),
} as const;
