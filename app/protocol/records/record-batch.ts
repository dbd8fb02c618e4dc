/**
 * Kafka's record batch, magic 2 (DefaultRecordBatch.java / DefaultRecord.java), byte for byte:
 * the form replica logs are stored in and the form a Kafka listener serves as-is.
 *
 *   RecordBatch =>                                    offset
 *     baseOffset int64                                 0
 *     batchLength int32     bytes after this field     8
 *     partitionLeaderEpoch int32                      12
 *     magic int8 = 2                                  16
 *     crc uint32            CRC-32C of bytes 21…end   17
 *     attributes int16      bits 0-2 codec, 3 LogAppendTime, 4 transactional, 5 control,
 *                           6 delete horizon (baseTimestamp is then the delete horizon, KIP-534)   21
 *     lastOffsetDelta int32                           23
 *     baseTimestamp int64   the first record's       27
 *     maxTimestamp int64    LogAppendTime: the append time   35
 *     producerId int64 producerEpoch int16 baseSequence int32   (-1 -1 -1: not idempotent)   43
 *     recordCount int32                               57
 *     records [Record]                                61
 *   Record =>
 *     length varint (bytes after it) attributes int8 = 0 timestampDelta varlong offsetDelta varint
 *     keyLength varint (-1 = null) key  valueLength varint (-1 = null) value
 *     headerCount varint [headerKeyLength varint, key (UTF-8), headerValueLength varint (-1 = null), value]
 *
 * Invariants. The encoder writes one array of exactly the computed size, and the CRC covers
 * attributes to the end, so baseOffset and partitionLeaderEpoch may be rewritten in place without
 * touching it. The decoder refuses anything Kafka would call corrupt (wrong magic, bad length,
 * CRC mismatch, record fields that overrun or underrun their declared sizes) with
 * CORRUPT_MESSAGE. Offsets: a batch as produced has record i at offsetDelta i; one the log
 * cleaner rewrote keeps fewer records at their own offsets (offsetDeltas strictly increasing, at
 * most lastOffsetDelta, possibly none), decoded into {@link RecordBatch.offsetDeltas};
 * {@link DecodeContext.denseOffsets} refuses them (a client's batch must be dense). Like Kafka's
 * reader, it gives every record of a LogAppendTime batch the batch's
 * maxTimestamp. Compressed batches decode when {@link DecodeContext.codecs} is given (the records
 * after byte 61 are then one compressed blob); without it decoding fails with INVALID_REQUEST;
 * {@link batchHeader} tells them apart without decoding. The transactional and control bits
 * travel as {@link RecordBatch.transactional} and {@link RecordBatch.control} both ways: a
 * control batch (a transaction marker) decodes with its control record as its one record. Pure: byte arrays and DataViews, no Node Buffer, so the wire protocol
 * and storage share it.
 *
 * This file reads batches; the encoder and a leader's in-place patches are in
 * record-batch-encoder.ts and the byte positions in record-batch-layout.ts, all re-exported
 * here so callers import one module.
 */
import { KafkaError } from '../../api/errors.js';
import type { LogRecord, RecordBatch, RecordHeader } from '../../core/log/records.js';
import { utf8Decode } from '../runtime/text.js';
import { CODECS, type CompressionCodec, type CompressionCodecs } from './compression.js';
import {
  ATTRIBUTES_OFFSET,
  COMPRESSION_MASK,
  CONTROL_BIT,
  CRC_OFFSET,
  DELETE_HORIZON_BIT,
  LOG_OVERHEAD,
  MAGIC,
  MIN_RECORD_SIZE,
  RECORD_BATCH_HEADER_SIZE,
  TIMESTAMP_TYPE_BIT,
  TRANSACTIONAL_BIT,
  crc32c,
  viewOf,
  type TimestampType,
} from './record-batch-layout.js';
import { type Cursor, readInt64BE, readVarint, readVarlong } from './varint.js';

export { RECORD_BATCH_HEADER_SIZE, crc32c, type TimestampType } from './record-batch-layout.js';
export { assignOffsetAndEpoch, encodeRecordBatch, producerOption, setLogAppendTime, setMaxTimestamp, type EncodeOptions } from './record-batch-encoder.js';
export type { CompressionCodec };

export interface DecodeContext {
  /** Where the bytes came from (a database path); named in error messages. */
  file?: string;
  /** Decompresses compressed batches; without it they fail with INVALID_REQUEST. */
  codecs?: CompressionCodecs;
  /** The most bytes a compressed batch may decompress to (default 64 MiB). */
  maxDecompressedBytes?: number;
  /**
   * The records are checked at once, exactly as decoding checks them (a compressed batch's after
   * decompressing them), but built only when `records` is first read (then kept): a reader that
   * serves the stored bytes (a Fetch, a follower, a scan of producer fields) pays no per-record
   * allocation. The batch then holds on to `buf`.
   */
  lazyRecords?: boolean;
  /**
   * With `lazyRecords`: the records are neither checked nor (when compressed) decompressed until
   * `records` is first read, which then checks them as decoding does and may throw; until then a
   * cleaned batch's `offsetDeltas` are not known (left unset). For a scan of header fields only.
   */
  recordsUnchecked?: boolean;
  /** The caller has just checked these very bytes' CRC-32C ({@link hasValidCrc}): not again. */
  crcChecked?: boolean;
  /** Record i must carry offsetDelta i (a batch a client produced), else CORRUPT_MESSAGE. */
  denseOffsets?: boolean;
}

export interface DecodeBatchesContext extends DecodeContext {
  /**
   * Stop quietly at an incomplete last batch, as a consumer does with a Fetch response cut at
   * its byte limit. Off by default: a stored concatenation must be whole.
   */
  allowPartialTail?: boolean;
}

/** The fixed fields of a batch, read without the CRC check or record decoding. */
export interface RecordBatchHeader {
  baseOffset: number;
  /** baseOffset + lastOffsetDelta. */
  lastOffset: number;
  /** partitionLeaderEpoch. */
  leaderEpoch: number;
  /** recordCount. */
  count: number;
  /** The whole batch's length in bytes: batchLength + 12. */
  sizeBytes: number;
  baseTimestamp: number;
  maxTimestamp: number;
  timestampType: TimestampType;
  compression: CompressionCodec;
  isTransactional: boolean;
  isControl: boolean;
  /** The delete horizon the log cleaner set (attribute bit 6: the base timestamp), or null. */
  deleteHorizonMs: number | null;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** The stored CRC-32C, unsigned. */
  crc: number;
}

// ---- errors ---------------------------------------------------------------------------------

function corrupt(ctx: DecodeContext, baseOffset: number | null, position: number, what: string): KafkaError {
  return batchError('CORRUPT_MESSAGE', ctx, baseOffset, position, `is corrupt: ${what}`);
}

function batchError(
  code: 'CORRUPT_MESSAGE' | 'INVALID_REQUEST',
  ctx: DecodeContext,
  baseOffset: number | null,
  position: number,
  what: string,
): KafkaError {
  const byte = position > 0 ? ` (byte ${position})` : '';
  const at = baseOffset === null ? `at byte ${position}` : `at offset ${baseOffset}${byte}`;
  const where = ctx.file === undefined ? '' : ` in ${ctx.file}`;
  const details: Record<string, unknown> = { position };
  if (baseOffset !== null) details['baseOffset'] = baseOffset;
  if (ctx.file !== undefined) details['file'] = ctx.file;
  return new KafkaError(code, `Record batch ${at}${where} ${what}`, details);
}

const hex = (n: number): string => `0x${n.toString(16).padStart(8, '0')}`;

/** The default bound on what one compressed batch may decompress to. */
const DEFAULT_MAX_DECOMPRESSED = 64 * 1024 * 1024;

// ---- header ---------------------------------------------------------------------------------

/**
 * Reads and checks the header of the batch at `start`: magic, batchLength, that the whole batch
 * lies within `buf`, the attributes, and that the int64 fields are safe integers. No CRC check.
 */
function readHeader(b: Uint8Array, v: DataView, start: number, ctx: DecodeContext): RecordBatchHeader {
  const available = b.length - start;
  const baseOffset = available >= 8 ? readInt64BE(v, start) : null;
  const fail = (what: string): KafkaError => corrupt(ctx, baseOffset, start, what);
  const shortHeader = (): string => `truncated: ${available} bytes, shorter than the 61-byte v2 batch header`;
  if (available < 17) throw fail(shortHeader());
  const magic = v.getInt8(start + 16);
  if (magic !== MAGIC) throw fail(`magic ${magic}, but only magic ${MAGIC} (v2) record batches are supported`);
  if (available < RECORD_BATCH_HEADER_SIZE) throw fail(shortHeader());
  if (baseOffset === null || baseOffset < 0) throw fail(`baseOffset out of range`);
  const batchLength = v.getInt32(start + 8);
  if (batchLength < RECORD_BATCH_HEADER_SIZE - LOG_OVERHEAD) {
    const rest = RECORD_BATCH_HEADER_SIZE - LOG_OVERHEAD;
    throw fail(`batchLength ${batchLength} is less than the ${rest} bytes of the header after it`);
  }
  const sizeBytes = batchLength + LOG_OVERHEAD;
  if (sizeBytes > available) {
    throw fail(`truncated: batchLength says ${sizeBytes} bytes, only ${available} present`);
  }
  const attributes = v.getInt16(start + ATTRIBUTES_OFFSET);
  const compression = CODECS[attributes & COMPRESSION_MASK];
  if (compression === undefined) throw fail(`unknown compression codec ${attributes & COMPRESSION_MASK}`);
  const lastOffsetDelta = v.getInt32(start + 23);
  const baseTimestamp = readInt64BE(v, start + 27);
  const maxTimestamp = readInt64BE(v, start + 35);
  const producerId = readInt64BE(v, start + 43);
  if (baseTimestamp === null || maxTimestamp === null) throw fail('timestamp out of the safe integer range');
  if (producerId === null) throw fail('producerId out of the safe integer range');
  const count = v.getInt32(start + 57);
  if (count < 0) throw fail(`negative record count ${count}`);
  return {
    baseOffset,
    lastOffset: baseOffset + lastOffsetDelta,
    leaderEpoch: v.getInt32(start + 12),
    count,
    sizeBytes,
    baseTimestamp,
    maxTimestamp,
    timestampType: attributes & TIMESTAMP_TYPE_BIT ? 'LogAppendTime' : 'CreateTime',
    compression,
    isTransactional: (attributes & TRANSACTIONAL_BIT) !== 0,
    isControl: (attributes & CONTROL_BIT) !== 0,
    deleteHorizonMs: attributes & DELETE_HORIZON_BIT ? baseTimestamp : null,
    producerId,
    producerEpoch: v.getInt16(start + 51),
    baseSequence: v.getInt32(start + 53),
    crc: v.getUint32(start + CRC_OFFSET),
  };
}

/**
 * The header of the batch at the start of `buf`, for fast scans: checks magic, batchLength and
 * that the whole batch is present, but neither the CRC nor the records. Walk a concatenation
 * with `buf.subarray(header.sizeBytes)`.
 */
export function batchHeader(buf: Uint8Array, context: DecodeContext = {}): RecordBatchHeader {
  return readHeader(buf, viewOf(buf), 0, context);
}

/** Whether the batch's stored CRC-32C matches its bytes (the batch must be whole). */
export function hasValidCrc(buf: Uint8Array, header: RecordBatchHeader): boolean {
  return crc32c(buf, ATTRIBUTES_OFFSET, header.sizeBytes) === header.crc;
}

// ---- decode ---------------------------------------------------------------------------------

/**
 * Decodes exactly one batch filling `buf`. `sizeBytes` is the encoded length; `appendTimeMs` is
 * maxTimestamp for a LogAppendTime batch and 0 otherwise (the store keeps the append time
 * itself). Keys, values and header values never alias `buf`: they are views of one private copy
 * of the batch's record bytes (so one retained value keeps that copy alive).
 */
export function decodeRecordBatch(buf: Uint8Array, context: DecodeContext = {}): RecordBatch {
  const view = viewOf(buf);
  const header = readHeader(buf, view, 0, context);
  if (header.sizeBytes !== buf.length) {
    const what = `batchLength says ${header.sizeBytes} bytes, but ${buf.length} were given`;
    throw corrupt(context, header.baseOffset, 0, what);
  }
  return decodeBody(buf, 0, header, context);
}

/** Decodes a concatenation of batches, such as the records field of a Fetch response. */
export function decodeRecordBatches(buf: Uint8Array, context: DecodeBatchesContext = {}): RecordBatch[] {
  const view = viewOf(buf);
  const batches: RecordBatch[] = [];
  let pos = 0;
  while (pos < buf.length) {
    if (context.allowPartialTail && isPartialTail(buf, view, pos)) break;
    const header = readHeader(buf, view, pos, context);
    batches.push(decodeBody(buf, pos, header, context));
    pos += header.sizeBytes;
  }
  return batches;
}

/** As Kafka's ByteBufferLogInputStream: fewer than 12 bytes left, or a sane length not all there. */
function isPartialTail(b: Uint8Array, v: DataView, pos: number): boolean {
  const available = b.length - pos;
  if (available < LOG_OVERHEAD) return true;
  const batchLength = v.getInt32(pos + 8);
  return batchLength >= RECORD_BATCH_HEADER_SIZE - LOG_OVERHEAD && batchLength + LOG_OVERHEAD > available;
}

/** The record bytes of a batch: a private copy, or the decompressed blob (private already). */
function recordBytes(b: Uint8Array, start: number, header: RecordBatchHeader, ctx: DecodeContext): Uint8Array {
  const from = start + RECORD_BATCH_HEADER_SIZE;
  const end = start + header.sizeBytes;
  if (header.compression === 'none') {
    // A plain Uint8Array even when `b` is a Buffer (whose slice() would make another Buffer).
    const copy = new Uint8Array(end - from);
    copy.set(b.subarray(from, end));
    return copy;
  }
  if (!ctx.codecs) throw batchError('INVALID_REQUEST', ctx, header.baseOffset, start, `is compressed with ${header.compression}; only uncompressed batches are decoded`);
  try {
    return ctx.codecs.decompress(header.compression, b.subarray(from, end), ctx.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED);
  } catch (e) {
    const error = corrupt(ctx, header.baseOffset, start, (e as Error).message);
    (error.details as Record<string, unknown>)['decompression'] = true;
    throw error;
  }
}

/** What decoding checks of a batch before its records: the CRC (unless checked), a count that fits, offsets that fit the count. */
function checkBody(b: Uint8Array, start: number, header: RecordBatchHeader, ctx: DecodeContext, fail: (what: string) => KafkaError): void {
  const { baseOffset, count } = header;
  if (!ctx.crcChecked) {
    const computed = crc32c(b, start + ATTRIBUTES_OFFSET, start + header.sizeBytes);
    if (computed !== header.crc) throw fail(`CRC32C ${hex(computed)} does not match the stored ${hex(header.crc)}`);
  }
  if (header.compression === 'none' && count > (header.sizeBytes - RECORD_BATCH_HEADER_SIZE) / MIN_RECORD_SIZE) {
    throw fail(`record count ${count} cannot fit in ${header.sizeBytes - RECORD_BATCH_HEADER_SIZE} bytes`);
  }
  const lastOffsetDelta = header.lastOffset - baseOffset;
  if (ctx.denseOffsets ? count > 0 && lastOffsetDelta !== count - 1 : count > lastOffsetDelta + 1) {
    throw fail(`lastOffsetDelta ${lastOffsetDelta} does not match ${count} ${ctx.denseOffsets ? 'dense ' : ''}records`);
  }
}

/** What a leader's validation needs of a batch's records (LogValidator's per-record rules), read without building them. */
export interface RecordScan {
  /** Records whose key is null. */
  nullKeys: number;
  /** The smallest and largest record timestamp other than -1 (none: Infinity and -Infinity). */
  minTimestamp: number;
  maxTimestamp: number;
}

/**
 * Checks the one batch filling `buf` exactly as {@link decodeRecordBatch} does with the same
 * context (a compressed one is decompressed to be checked), and returns what validation needs of
 * its records without building any: a leader stores and serves a client's bytes as they are.
 */
export function scanRecordBatch(buf: Uint8Array, context: DecodeContext = {}): RecordScan {
  const header = readHeader(buf, viewOf(buf), 0, context);
  const fail = (what: string): KafkaError => corrupt(context, header.baseOffset, 0, what);
  if (header.sizeBytes !== buf.length) throw fail(`batchLength says ${header.sizeBytes} bytes, but ${buf.length} were given`);
  checkBody(buf, 0, header, context, fail);
  // Nothing read here outlives the scan, so an uncompressed batch's records are read in place.
  const bytes = header.compression === 'none' ? buf.subarray(RECORD_BATCH_HEADER_SIZE) : recordBytes(buf, 0, header, context);
  if (header.count > bytes.length / MIN_RECORD_SIZE) throw fail(`record count ${header.count} cannot fit in ${bytes.length} record bytes`);
  const scan: RecordScan = { nullKeys: 0, minTimestamp: Infinity, maxTimestamp: -Infinity };
  readRecords(bytes, header, fail, context.denseOffsets === true, false, scan);
  return scan;
}

function decodeBody(b: Uint8Array, start: number, header: RecordBatchHeader, ctx: DecodeContext): RecordBatch {
  const { baseOffset, count } = header;
  const fail = (what: string): KafkaError => corrupt(ctx, baseOffset, start, what);
  checkBody(b, start, header, ctx, fail);
  const batch: RecordBatch = {
    baseOffset,
    lastOffset: header.lastOffset,
    leaderEpoch: header.leaderEpoch,
    appendTimeMs: header.timestampType === 'LogAppendTime' ? header.maxTimestamp : 0,
    records: [],
    sizeBytes: header.sizeBytes,
  };
  if (header.producerId >= 0) batch.producer = { producerId: header.producerId, producerEpoch: header.producerEpoch, baseSequence: header.baseSequence };
  if (header.deleteHorizonMs !== null) batch.deleteHorizonMs = header.deleteHorizonMs;
  if (header.isTransactional) batch.transactional = true;
  if (header.isControl) batch.control = true;
  const dense = ctx.denseOffsets === true;
  if (ctx.lazyRecords) {
    // The same checks as decoding, with nothing built; so building them later cannot fail. A
    // compressed batch is decompressed to be checked and again if its records are read: keeping
    // the decompressed bytes would hold several times the batch for as long as the batch lives.
    if (!ctx.recordsUnchecked) {
      const checked = header.compression === 'none' ? b.subarray(start + RECORD_BATCH_HEADER_SIZE, start + header.sizeBytes) : recordBytes(b, start, header, ctx);
      if (count > checked.length / MIN_RECORD_SIZE) throw fail(`record count ${count} cannot fit in ${checked.length} record bytes`);
      const deltas = readRecords(checked, header, fail, dense, false).deltas;
      if (deltas) batch.offsetDeltas = deltas;
    }
    const build = (): LogRecord[] => {
      const owned = recordBytes(b, start, header, ctx);
      if (count > owned.length / MIN_RECORD_SIZE) throw fail(`record count ${count} cannot fit in ${owned.length} record bytes`);
      return readRecords(owned, header, fail, dense).records;
    };
    let built: LogRecord[] | null = null;
    Object.defineProperty(batch, 'records', {
      enumerable: true,
      configurable: true,
      get: () => (built ??= build()),
      set: (records: LogRecord[]) => void (built = records),
    });
    return batch;
  }
  // One private array of the record bytes; keys and values are views into it. Allocating one
  // small array per key and value costs ~300 ns each, a view ~15 ns.
  const owned = recordBytes(b, start, header, ctx);
  if (count > owned.length / MIN_RECORD_SIZE) throw fail(`record count ${count} cannot fit in ${owned.length} record bytes`);
  const read = readRecords(owned, header, fail, dense);
  batch.records = read.records;
  if (read.deltas) batch.offsetDeltas = read.deltas;
  return batch;
}

/**
 * The records of `owned`, checked, and their offset deltas when they are not 0, 1, 2, … (a
 * cleaned batch; refused when `dense`); with `build` false only checked (no record is built), and
 * what validation needs of them counted into `scan` when given.
 */
function readRecords(
  owned: Uint8Array,
  header: RecordBatchHeader,
  fail: (what: string) => KafkaError,
  dense: boolean,
  build = true,
  scan?: RecordScan,
): { records: LogRecord[]; deltas: number[] | undefined } {
  const { baseOffset, count } = header;
  const lastOffsetDelta = header.lastOffset - baseOffset;
  let deltas: number[] | undefined;
  const logAppendTime = header.timestampType === 'LogAppendTime';
  const end = owned.length;
  const records: LogRecord[] = [];
  const cur: Cursor = { pos: 0 };
  let i = 0;
  try {
    for (; i < count; i++) {
      const length = readVarint(owned, cur, end);
      const recordStart = cur.pos;
      const recordEnd = recordStart + length;
      if (length < 0 || recordEnd > end) throw new RangeError(`length ${length} runs past the end of the batch`);
      cur.pos++; // attributes: unused
      const timestampDelta = readVarlong(owned, cur, recordEnd);
      const offsetDelta = readVarint(owned, cur, recordEnd);
      if (offsetDelta !== i || deltas) {
        if (dense) throw new RangeError(`offsetDelta ${offsetDelta}, expected ${i} (offsets are dense)`);
        const previous = deltas ? deltas[i - 1]! : i - 1;
        if (offsetDelta <= previous || offsetDelta > lastOffsetDelta) {
          throw new RangeError(`offsetDelta ${offsetDelta} does not follow ${previous} within the batch's ${lastOffsetDelta + 1} offsets`);
        }
        if (!deltas) deltas = Array.from({ length: i }, (_, k) => k);
        deltas.push(offsetDelta);
      }
      let key: Uint8Array | null = null;
      let value: Uint8Array | null = null;
      if (build) {
        key = readBytes(owned, cur, recordEnd, 'key');
        value = readBytes(owned, cur, recordEnd, 'value');
      } else {
        if (skipBytes(owned, cur, recordEnd, 'key') < 0 && scan) scan.nullKeys++;
        skipBytes(owned, cur, recordEnd, 'value');
      }
      const headerCount = readVarint(owned, cur, recordEnd);
      if (headerCount < 0) throw new RangeError(`negative header count ${headerCount}`);
      const headers: RecordHeader[] = build ? [] : NO_HEADERS;
      for (let h = 0; h < headerCount; h++) {
        const keyLength = readVarint(owned, cur, recordEnd);
        if (keyLength < 0) throw new RangeError(`negative header key length ${keyLength}`);
        if (cur.pos + keyLength > recordEnd) throw new RangeError('header key runs past the end of its record');
        if (build) {
          const headerKey = utf8Decode(owned, cur.pos, cur.pos + keyLength);
          cur.pos += keyLength;
          headers.push({ key: headerKey, value: readBytes(owned, cur, recordEnd, 'header value') });
        } else {
          cur.pos += keyLength;
          skipBytes(owned, cur, recordEnd, 'header value');
        }
      }
      if (cur.pos !== recordEnd) {
        throw new RangeError(`length says ${length} bytes, its fields take ${cur.pos - recordStart}`);
      }
      const timestamp = logAppendTime ? header.maxTimestamp : header.baseTimestamp + timestampDelta;
      if (!Number.isSafeInteger(timestamp)) throw new RangeError(`timestamp ${timestamp} out of range`);
      if (build) records.push({ key, value, headers, timestamp });
      else if (scan && timestamp !== NO_TIMESTAMP) {
        if (timestamp < scan.minTimestamp) scan.minTimestamp = timestamp;
        if (timestamp > scan.maxTimestamp) scan.maxTimestamp = timestamp;
      }
    }
  } catch (e) {
    // varint.ts and the checks above throw RangeError; anything else is a bug, passed on as is.
    if (e instanceof RangeError) throw fail(`record ${i}${deltas ? '' : ` (offset ${baseOffset + i})`}: ${e.message}`);
    throw e;
  }
  if (cur.pos !== end) throw fail(`${end - cur.pos} bytes left after the ${count} records`);
  // A dense prefix that is all the batch has, with offsets left over at its end, is sparse too.
  if (!deltas && count > 0 && count !== lastOffsetDelta + 1) deltas = Array.from({ length: count }, (_, k) => k);
  if (!deltas && count === 0 && lastOffsetDelta >= 0) deltas = [];
  return { records, deltas };
}

/** A record without timestamp (Kafka's RecordBatch.NO_TIMESTAMP). */
const NO_TIMESTAMP = -1;

/** The headers of records only checked, never built (shared: nothing is ever added to it). */
const NO_HEADERS: RecordHeader[] = [];

/** Skips a length-prefixed byte field; its length, negative for null (Kafka's DefaultRecord reads any negative length so). */
function skipBytes(b: Uint8Array, cur: Cursor, end: number, what: string): number {
  const length = readVarint(b, cur, end);
  if (length < 0) return length;
  const at = cur.pos;
  if (at + length > end) throw new RangeError(`${what} of ${length} bytes runs past the end of the record`);
  cur.pos = at + length;
  return length;
}

/** A length-prefixed byte field (null when its length is negative), as a view of the private record bytes. */
function readBytes(b: Uint8Array, cur: Cursor, end: number, what: string): Uint8Array | null {
  const length = skipBytes(b, cur, end, what);
  return length < 0 ? null : b.subarray(cur.pos - length, cur.pos);
}
