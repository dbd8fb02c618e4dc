/**
 * What a partition leader does with the records of one Produce partition entry before they
 * reach the log — Kafka's ProduceRequest.validateRecords, UnifiedLog.analyzeAndValidateRecords
 * and LogValidator, in that order. The rules, each with the error Kafka answers:
 *
 *   request (Produce v3+)  no whole batch, or more than one                       INVALID_RECORD
 *                          magic ≠ 2                                              INVALID_RECORD
 *                          zstd below Produce v7                      UNSUPPORTED_COMPRESSION_TYPE
 *   log                    magic < 2 reaching the log (formats 0/1 are gone) UNSUPPORTED_FOR_MESSAGE_FORMAT
 *                          batch larger than max.message.bytes                 MESSAGE_TOO_LARGE
 *                          bad length or CRC-32C, undecompressable payload       CORRUPT_MESSAGE
 *   batch                  offset range ≠ record count, count ≤ 0, a control
 *                          batch, a producer id without a sequence,
 *                          records that do not parse as the header says          INVALID_RECORD
 *   record (all reported   no key on a compacted topic                           INVALID_RECORD
 *   as RecordErrors)       CreateTime outside [now - before.max.ms,
 *                          now + after.max.ms]; a batch the producer marked
 *                          LogAppendTime                                       INVALID_TIMESTAMP
 *
 * Then offsets: the batch gets `baseOffset` (the log end offset) and the leader's epoch. When
 * the topic's compression.type is `producer` or equals the batch's codec, the client's bytes are
 * kept as they are, with only what Kafka patches in place: base offset and leader epoch (outside
 * the CRC) and, when it changes, the timestamp type and maxTimestamp (CRC resealed) —
 * LogAppendTime topics get the append time as maxTimestamp, the records keep theirs. Otherwise
 * the records are re-encoded with the topic's codec, keeping producer id, epoch and sequence.
 *
 * The records are checked in one scan of the batch's bytes (decompressed when compressed) that
 * builds none of them: it reads what the per-record rules need (null keys, the smallest and
 * largest timestamp). Only a batch those figures say breaks a rule is decoded, to name each
 * broken record as Kafka does, and only a recompressed one is decoded to be encoded again. The
 * result's `records` are decoded from the stored bytes when first read: the log stores and
 * serves the bytes, so most batches are never decoded.
 */
import { KafkaError } from '../../api/errors.js';
import type { LogRecord } from '../../core/log/records.js';
import type { ProtocolErrorName } from '../error-codes.js';
import { type CompressionCodec, type CompressionCodecs, CompressionError } from './compression.js';
import {
  type DecodeContext,
  type RecordBatchHeader,
  type RecordScan,
  type TimestampType,
  RECORD_BATCH_HEADER_SIZE,
  assignOffsetAndEpoch,
  batchHeader,
  decodeRecordBatch,
  encodeRecordBatch,
  hasValidCrc,
  scanRecordBatch,
  setMaxTimestamp,
} from './record-batch.js';

/** The topic configs that govern validation, spelled as Kafka spells them. */
export interface LogValidatorConfig {
  'compression.type': 'producer' | 'uncompressed' | CompressionCodec;
  'max.message.bytes': number;
  'message.timestamp.type': TimestampType;
  'message.timestamp.before.max.ms': number;
  'message.timestamp.after.max.ms': number;
  /** cleanup.policy includes compact: every record needs a key. */
  compacted: boolean;
}

export interface ValidateRecordsInput {
  /** The Records field of the partition entry (null when the client sent none). */
  records: Uint8Array | null;
  produceVersion: number;
  /** The log end offset: the first offset the batch gets. */
  baseOffset: number;
  /** The leader's epoch, stamped into the batch. */
  leaderEpoch: number;
  nowMs: number;
  /** `topic-partition`, named in the keyless-record error as Kafka names it. */
  topicPartition?: string;
}

export interface RecordError {
  batchIndex: number;
  message: string;
}

export type ValidateRecordsResult =
  | {
      ok: true;
      /**
       * The bytes to append, offsets and epoch assigned: the request's own bytes when they fill
       * nearly all of their buffer (see {@link ownedOrCopied}), which they then are patched in,
       * else a private copy.
       */
      batch: Uint8Array;
      header: RecordBatchHeader;
      /** How many records the batch holds (its header's recordCount, checked against its offsets and records). */
      count: number;
      /** The records, decoded, with the timestamps a consumer reads (the append time on LogAppendTime topics): decoded from `batch` when first read. */
      readonly records: LogRecord[];
      /** The append time for LogAppendTime topics, else -1 (ProduceResponse.LogAppendTimeMs). */
      logAppendTimeMs: number;
      /** Whether the records were re-encoded for the topic's codec. */
      recompressed: boolean;
    }
  | { ok: false; error: ProtocolErrorName; message: string; recordErrors: RecordError[] };

const NO_TIMESTAMP = -1;

function fail(error: ProtocolErrorName, message: string, recordErrors: RecordError[] = []): ValidateRecordsResult {
  return { ok: false, error, message, recordErrors };
}

/** The single batch of a Produce v3+ entry, as ProduceRequest.validateRecords finds it. */
function requestBatch(records: Uint8Array | null, version: number): ValidateRecordsResult | Uint8Array {
  const none = fail('INVALID_RECORD', `Produce requests with version ${version} must have at least one record batch per partition`);
  if (records === null || records.length < 17) return none;
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  const magic = view.getInt8(16);
  if (version >= 3 && magic !== 2) {
    return fail('INVALID_RECORD', `Produce requests with version ${version} are only allowed to contain record batches with magic version 2`);
  }
  const size = view.getInt32(8) + 12;
  if (size < RECORD_BATCH_HEADER_SIZE && magic === 2) return fail('CORRUPT_MESSAGE', `Record batch size ${size} is less than the minimum record overhead (${RECORD_BATCH_HEADER_SIZE})`);
  if (size > records.length) return none;
  if (version >= 3 && size < records.length) {
    return fail('INVALID_RECORD', `Produce requests with version ${version} are only allowed to contain exactly one record batch per partition`);
  }
  if (magic === 2 && version < 7 && (view.getInt16(21) & 7) === 4) {
    return fail('UNSUPPORTED_COMPRESSION_TYPE', `Produce requests with version ${version} are not allowed to use ZStandard compression`);
  }
  return records.subarray(0, size);
}

export function validateRecords(input: ValidateRecordsInput, config: LogValidatorConfig, codecs: CompressionCodecs): ValidateRecordsResult {
  const found = requestBatch(input.records, input.produceVersion);
  if (!(found instanceof Uint8Array)) return found;
  const magic = found[16]!;
  if (magic < 2) return fail('UNSUPPORTED_FOR_MESSAGE_FORMAT', `Record batches of magic ${magic} are not supported; only magic 2`);
  if (found.length > config['max.message.bytes']) {
    return fail('MESSAGE_TOO_LARGE', `The record batch is ${found.length} bytes, larger than max.message.bytes (${config['max.message.bytes']})`);
  }
  let header: RecordBatchHeader;
  try {
    header = batchHeader(found);
  } catch (e) {
    return fail('CORRUPT_MESSAGE', (e as Error).message);
  }
  if (!hasValidCrc(found, header)) return fail('CORRUPT_MESSAGE', `Record batch is corrupt (stored crc = ${header.crc}, computed crc differs)`);

  const batchError = checkBatch(header);
  if (batchError) return fail('INVALID_RECORD', batchError);

  const context: DecodeContext = { codecs, maxDecompressedBytes: Math.max(64 * 1024 * 1024, config['max.message.bytes'] * 4), crcChecked: true, denseOffsets: true };
  let scan: RecordScan;
  try {
    scan = scanRecordBatch(found, context);
  } catch (e) {
    const details = e instanceof KafkaError ? (e.details as Record<string, unknown> | undefined) : undefined;
    return fail(details?.['decompression'] ? 'CORRUPT_MESSAGE' : 'INVALID_RECORD', (e as Error).message);
  }
  const lowest = input.nowMs - config['message.timestamp.before.max.ms'];
  const highest = input.nowMs + config['message.timestamp.after.max.ms'];
  const timestampsChecked = config['message.timestamp.type'] === 'CreateTime' && header.timestampType === 'CreateTime';
  // Each of these breaks a per-record rule for at least one record (the count is at least 1).
  if (header.timestampType === 'LogAppendTime' || (config.compacted && scan.nullKeys > 0) || (timestampsChecked && (scan.minTimestamp < lowest || scan.maxTimestamp > highest))) {
    return recordErrors(decodeRecordBatch(found, context).records, header, config, input, lowest, highest);
  }
  // The largest timestamp over every record, -1 counting as any other (Kafka's maxTimestamp).
  const maxTimestamp = Math.max(NO_TIMESTAMP, scan.maxTimestamp);

  const logAppendTime = config['message.timestamp.type'] === 'LogAppendTime';
  const target = config['compression.type'] === 'producer' ? header.compression : config['compression.type'] === 'uncompressed' ? 'none' : config['compression.type'];
  let batch: Uint8Array;
  if (target === header.compression) {
    batch = ownedOrCopied(found);
    assignOffsetAndEpoch(batch, input.baseOffset, input.leaderEpoch);
    setMaxTimestamp(batch, logAppendTime ? 'LogAppendTime' : 'CreateTime', logAppendTime ? input.nowMs : maxTimestamp);
  } else {
    const decoded = decodeRecordBatch(found, context);
    try {
      batch = encodeRecordBatch(
        { ...decoded, baseOffset: input.baseOffset, lastOffset: input.baseOffset + decoded.records.length - 1, leaderEpoch: input.leaderEpoch, appendTimeMs: input.nowMs },
        { compression: target, codecs, timestampType: logAppendTime ? 'LogAppendTime' : 'CreateTime', producer: { id: header.producerId, epoch: header.producerEpoch, baseSequence: header.baseSequence } },
      );
    } catch (e) {
      if (e instanceof CompressionError) return fail('UNSUPPORTED_COMPRESSION_TYPE', `The broker cannot compress with ${target}: ${e.message}`);
      throw e;
    }
    if (batch.length > config['max.message.bytes']) {
      return fail('MESSAGE_TOO_LARGE', `The record batch is ${batch.length} bytes after recompression with ${target}, larger than max.message.bytes (${config['max.message.bytes']})`);
    }
  }
  // Decoding the stored bytes gives what a consumer reads: a LogAppendTime batch's records read
  // its maxTimestamp, the append time.
  const stored = batch;
  let records: LogRecord[] | null = null;
  return {
    ok: true,
    batch,
    header: batchHeader(batch),
    count: header.count,
    get records(): LogRecord[] {
      return (records ??= decodeRecordBatch(stored, { codecs, crcChecked: true, denseOffsets: true }).records);
    },
    logAppendTimeMs: logAppendTime ? input.nowMs : -1,
    recompressed: target !== header.compression,
  };
}

/**
 * A client's batch in place, as Kafka's LogValidator assigns offsets in the request's buffer,
 * when it fills at least 7/8 of the buffer it lies in (a socket read of that one request, or the
 * frame the reader joined from several reads): the log then keeps that buffer for at most 1/7 more
 * than the batch, and the broker allocates and copies no second one. A batch in a larger buffer
 * (several requests read at once) is copied, so the log never holds on to other requests' bytes.
 */
function ownedOrCopied(found: Uint8Array): Uint8Array {
  return found.byteLength * 8 >= found.buffer.byteLength * 7 ? found : found.slice();
}

/** Kafka's per-record rules, each broken one a RecordError: the refusal of a batch the scan found breaks one. */
function recordErrors(records: readonly LogRecord[], header: RecordBatchHeader, config: LogValidatorConfig, input: ValidateRecordsInput, lowest: number, highest: number): ValidateRecordsResult {
  const errors: RecordError[] = [];
  let invalidTimestamp = false;
  records.forEach((record, batchIndex) => {
    if (config.compacted && record.key === null) {
      errors.push({ batchIndex, message: `Compacted topic cannot accept message without key in topic partition ${input.topicPartition ?? ''}`.trimEnd() });
      return;
    }
    const ts = record.timestamp;
    if (config['message.timestamp.type'] === 'CreateTime' && header.timestampType === 'CreateTime' && ts !== NO_TIMESTAMP && (ts < lowest || ts > highest)) {
      invalidTimestamp = true;
      errors.push({ batchIndex, message: `Timestamp ${ts} of message with offset ${input.baseOffset + batchIndex} is out of range. The timestamp should be within [${lowest}, ${highest}]` });
    } else if (header.timestampType === 'LogAppendTime') {
      invalidTimestamp = true;
      errors.push({ batchIndex, message: 'Invalid timestamp type in message. Producer should not set timestamp type to LogAppendTime.' });
    }
  });
  return invalidTimestamp
    ? fail('INVALID_TIMESTAMP', 'One or more records have been rejected due to invalid timestamp', errors)
    : fail('INVALID_RECORD', `One or more records have been rejected due to ${errors.length} record errors`, errors);
}

/** LogValidator.validateBatch for a client's batch; the reason it is invalid, or null. */
function checkBatch(h: RecordBatchHeader): string | null {
  const countFromOffsets = h.lastOffset - h.baseOffset + 1;
  if (countFromOffsets <= 0) return `Batch has an invalid offset range: [${h.baseOffset}, ${h.lastOffset}]`;
  if (h.count <= 0) return `Invalid reported count for record batch: ${h.count}`;
  if (countFromOffsets !== h.count) return `Inconsistent batch offset range [${h.baseOffset}, ${h.lastOffset}] and count of records ${h.count}`;
  if (h.isControl) return 'Clients are not allowed to write control records';
  if (h.producerId >= 0 && h.baseSequence < 0) return `Invalid sequence number ${h.baseSequence} in record batch with producerId ${h.producerId}`;
  return null;
}
