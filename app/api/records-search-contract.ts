/**
 * `records.search` (spread into `contract` in contract.ts): the Messages workbench's read. Browse
 * a topic across all or chosen partitions from the beginning, the end, an offset, a time or the
 * last N, oldest or newest first, filtered on the console's server side (the engine's service or
 * the Kafka driver, never the page): key, value and header text or regex, offset and time
 * ranges, and a CEL expression. Every read is bounded — at most `limit` matches and `maxScan`
 * records examined within `timeBudgetMs` — and says how many records it scanned, why it stopped
 * and, per partition, where to continue (`next`, sent back as `from: { positions }`). A live
 * tail is the same read repeated from `next`, oldest first.
 *
 * CEL (Common Expression Language, the filter language kafka-ui uses) sees `key` and `value`
 * (decoded: a schema-registry payload as its JSON, JSON text parsed, other text as a string,
 * other bytes as null), `headers` (a map of header key to its UTF-8 text), `partition`,
 * `offset`, `timestamp` (ms since the epoch) and `size` (bytes). An expression that does not
 * parse or check is INVALID_INPUT naming its position, with the path ["filter", "cel"].
 */
import { z } from 'zod';
import { method, returns } from './contract-kit.js';

/** Text a key, value or header must contain, or a regular expression (JavaScript syntax) it must match. */
export const textMatchSchema = z.union([
  z.strictObject({ contains: z.string().min(1), caseSensitive: z.boolean().optional() }),
  z.strictObject({ regex: z.string().min(1).max(2000), flags: z.string().regex(/^[imsu]*$/).optional() }),
]);

/** How to show a key or value: `auto` tries the schema registry's framing, then JSON, then text, then bytes. */
export const decodeAsSchema = z.enum(['auto', 'text', 'json', 'schema-registry', 'bytes']);

export const searchFilterSchema = z.strictObject({
  key: textMatchSchema.optional(),
  value: textMatchSchema.optional(),
  /** A header with this key (any key when absent) whose value matches (any value when absent). */
  header: z.strictObject({ key: z.string().min(1).optional(), value: textMatchSchema.optional() }).optional(),
  /** Offsets in [from, to] (inclusive), in every partition read. */
  offsets: z.strictObject({ from: z.int().min(0).optional(), to: z.int().min(0).optional() }).optional(),
  /** Timestamps in [fromMs, toMs] (inclusive). */
  time: z.strictObject({ fromMs: z.int().optional(), toMs: z.int().optional() }).optional(),
  /** A CEL expression that must be true. */
  cel: z.string().min(1).max(10_000).optional(),
});

export const searchFromSchema = z.union([
  z.strictObject({ beginning: z.literal(true) }),
  z.strictObject({ end: z.literal(true) }),
  /** The same offset in every partition read (clamped to [log start, high watermark]). */
  z.strictObject({ offset: z.int().min(0) }),
  /** In each partition, the first record at or after this time (ListOffsets by timestamp). */
  z.strictObject({ timestamp: z.int().min(0) }),
  /** The last N records of each partition read. */
  z.strictObject({ lastN: z.int().min(1).max(10_000_000) }),
  /** Continue where an earlier read stopped: its `next`. */
  z.strictObject({ positions: z.array(z.strictObject({ partition: z.int().min(0), offset: z.int().min(0) })).min(1) }),
]);

export const recordsSearchInputSchema = z.strictObject({
  topic: z.string().min(1),
  /** Partitions to read (all when absent). */
  partitions: z.array(z.int().min(0)).min(1).optional(),
  from: searchFromSchema,
  /**
   * Oldest first (default) reads forward; newest first reads each partition backwards (from the
   * beginning or the end alike: the whole log, newest first). Across partitions, records come in
   * timestamp order.
   */
  order: z.enum(['oldest-first', 'newest-first']).optional(),
  /** Most matching records to return (default 100). */
  limit: z.int().min(1).max(5000).optional(),
  /** Most records to examine (default 100,000). */
  maxScan: z.int().min(1).max(100_000_000).optional(),
  /** Most wall time to spend before answering with what was found (default 5 s). */
  timeBudgetMs: z.int().min(10).max(600_000).optional(),
  filter: searchFilterSchema.optional(),
  decode: z.strictObject({ key: decodeAsSchema.optional(), value: decodeAsSchema.optional() }).optional(),
});

/** A key, value or header value as the workbench shows it. */
export interface PayloadView {
  /** Size in bytes. */
  size: number;
  /** The bytes as base64, up to 64 KiB (`truncated` when there were more): the page's hex view. */
  base64: string;
  truncated: boolean;
  /** The bytes as UTF-8 text when they are valid UTF-8 (up to 64 KiB), else null. */
  text: string | null;
  /** What the bytes were read as. */
  format: 'text' | 'json' | 'schema' | 'bytes';
  /** The JSON value: parsed JSON text, or what a schema decoded (format json or schema). */
  json?: unknown;
  /** Format `schema`, or a framed payload whose schema could not decode it (`error`). */
  schema?: { id: number; type?: 'AVRO' | 'PROTOBUF' | 'JSON'; subject?: string; version?: number; messageIndexes?: number[]; error?: string };
}

/** One record as the workbench shows it, with what its batch says. */
export interface WorkbenchRecordView {
  partition: number;
  offset: number;
  timestamp: number;
  /** NoTimestampType: data an external topic kept in message format 0, which has no timestamp (timestamp -1). */
  timestampType: 'CreateTime' | 'LogAppendTime' | 'NoTimestampType';
  key: PayloadView | null;
  value: PayloadView | null;
  headers: { key: string; value: PayloadView | null }[];
  /** Key, value and header bytes. */
  sizeBytes: number;
  /** Epoch of the leader that appended the batch. */
  leaderEpoch: number;
  /** The idempotent producer that wrote it (-1 when none), its epoch and this record's sequence. */
  producerId: number;
  producerEpoch: number;
  sequence: number;
  /** The batch's compression codec as stored (null when the driver cannot see it). */
  compression: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd' | null;
  transactional: boolean;
}

/** Where one partition stands after a read. */
export interface SearchPositionView {
  partition: number;
  /** Oldest first: the next offset to read. Newest first: the read continues below this offset. */
  offset: number;
  /** Nothing more to read in this direction (up to the high watermark, or down to the log start). */
  done: boolean;
  logStartOffset: number;
  highWatermark: number;
}

export interface RecordsSearchView {
  records: WorkbenchRecordView[];
  /** Records examined (read and tested against the filter). */
  scanned: number;
  /** Why the read stopped: enough matches, enough examined, out of time, or nothing left. */
  stoppedBecause: 'limit' | 'max-scan' | 'time-budget' | 'end';
  /** Per partition read: where the read stopped; send back as `from: { positions }` to continue. */
  next: SearchPositionView[];
  order: 'oldest-first' | 'newest-first';
  elapsedMs: number;
  /** Records the CEL expression could not be evaluated on (a missing field, a wrong type): they do not match. */
  filterErrors: number;
  /** The first of those errors, to show beside the expression. */
  firstFilterError?: string;
}

export const recordsSearchMethods = {
  /** Browse and filter a topic's records (see the file's header). */
  'records.search': method(recordsSearchInputSchema, returns<RecordsSearchView>()),
} as const;
