/**
 * The port through which a partition leader validates the record batch a Kafka client sent
 * (Kafka's ProduceRequest.validateRecords, then LogValidator), with its offsets assigned. The
 * rules need CRC-32C and the compression codecs, which the core may not import; app/protocol
 * implements the port (`records/produced-batch-validator.ts`) and the hosts inject it as
 * `EngineOptions.producedBatches`.
 *
 * Contract: `validate` never throws for client input. On success `bytes` is a private copy of
 * the batch exactly as the log stores it (base offset and leader epoch patched in, recompressed
 * when the topic's compression.type asks), `count` its number of records and `records` its records
 * decoded, with the timestamps a consumer will see — decoded from `bytes` only when first read: the
 * log stores and serves the bytes, and building a request's records (which the logs' tails then
 * keep alive) was most of what a produce through the wire allocated. On failure the error is
 * Kafka's for the first broken rule.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { CompressionType, TopicRuntimeConfig } from '../runtime-config.js';
import type { LogRecord, ProducerInfo } from './records.js';

/** The topic configs validation follows, resolved. */
export interface ProducedBatchRules {
  compressionType: CompressionType;
  maxMessageBytes: number;
  timestampType: 'CreateTime' | 'LogAppendTime';
  timestampBeforeMaxMs: number;
  timestampAfterMaxMs: number;
  /** cleanup.policy includes compact: every record needs a key. */
  compacted: boolean;
}

export interface ProducedBatchInput {
  /** The partition entry's Records field as the client sent it (null: none). */
  records: Uint8Array | null;
  /** The Produce request's version (zstd needs v7+; v3+ allows exactly one batch). */
  produceVersion: number;
  /** The first offset the batch gets: the leader's log end offset. */
  baseOffset: number;
  leaderEpoch: number;
  nowMs: number;
  /** `topic-partition`, which Kafka names in some record errors. */
  topicPartition?: string;
}

export interface RecordError {
  /** Index of the record in its batch. */
  batchIndex: number;
  message: string;
}

export type ProducedBatch =
  | {
      ok: true;
      bytes: Uint8Array;
      count: number;
      /** Decoded from `bytes` when first read (then kept). */
      readonly records: LogRecord[];
      /** The idempotent producer's fields, when the batch carries a producer id. */
      producer: ProducerInfo | null;
      /** Attribute bit 4: the client asked for a transaction. */
      transactional: boolean;
      /** The append time for LogAppendTime topics, else -1 (ProduceResponse.LogAppendTimeMs). */
      logAppendTimeMs: number;
    }
  | { ok: false; error: KafkaErrorName; message: string; recordErrors: RecordError[] };

/** A record batch's codec as a producer chooses it (the batch attributes' bits 0–2). */
export type BatchCompression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

export interface ProducedBatchValidator {
  validate(input: ProducedBatchInput, rules: ProducedBatchRules): ProducedBatch;
  /**
   * The batch a plain producer would send for `records` (magic 2, CreateTime with the records'
   * timestamps, no producer id), compressed with `compression` (default none): how records from
   * inside the engine enter the same validation as a client's. A string says why the codec cannot
   * compress here (zstd before the host's compressor has loaded).
   */
  producerBatch(records: readonly LogRecord[], compression?: BatchCompression): Uint8Array | string;
}

/**
 * Kafka's LogValidator.validateKey for records the engine builds itself (the console's produce):
 * on a compacted topic every record needs a key, else INVALID_RECORD with one error per record.
 */
export function keylessRecordErrors(records: readonly LogRecord[], topicPartition: string): { errorMessage: string; recordErrors: RecordError[] } | null {
  const recordErrors: RecordError[] = [];
  records.forEach((r, batchIndex) => {
    if (r.key === null) recordErrors.push({ batchIndex, message: `Compacted topic cannot accept message without key in topic partition ${topicPartition}` });
  });
  if (recordErrors.length === 0) return null;
  return { errorMessage: `One or more records have been rejected due to ${recordErrors.length} record errors`, recordErrors };
}

/** The rules a topic's resolved configs set for clients' batches. */
export function produceRulesOf(cfg: TopicRuntimeConfig): ProducedBatchRules {
  return {
    compressionType: cfg.compressionType,
    maxMessageBytes: cfg.maxMessageBytes,
    timestampType: cfg.messageTimestampType,
    timestampBeforeMaxMs: cfg.messageTimestampBeforeMaxMs,
    timestampAfterMaxMs: cfg.messageTimestampAfterMaxMs,
    compacted: cfg.cleanupPolicyCompact,
  };
}
