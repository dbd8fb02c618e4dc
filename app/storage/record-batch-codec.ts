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
 *     attributes int16      bits 0-2 codec, 3 LogAppendTime, 4 transactional, 5 control   21
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
 * Invariants. The encoder writes one Buffer of exactly the computed size, and the CRC covers
 * attributes to the end, so baseOffset and partitionLeaderEpoch may be rewritten in place without
 * touching it. The decoder refuses anything Kafka would call corrupt (wrong magic, bad length,
 * CRC mismatch, record fields that overrun or underrun their declared sizes) with
 * CORRUPT_MESSAGE, and, because a {@link RecordBatch} holds dense offsets, record i must carry
 * offsetDelta i. Like Kafka's reader, it gives every record of a LogAppendTime batch the batch's
 * maxTimestamp. Compressed and control batches are valid Kafka that this codec does not decode:
 * they fail with INVALID_REQUEST, and {@link batchHeader} tells them apart without decoding.
 */
import CRC32C from 'crc-32/crc32c.js';
import { KafkaError } from '../api/errors.js';
import type { LogRecord, RecordBatch, RecordHeader } from '../core/log/records.js';
import {
  type Cursor,
  readInt64BE,
  readVarint,
  readVarlong,
  sizeOfVarint,
  sizeOfVarlong,
  writeInt64BE,
  writeVarint,
  writeVarlong,
} from './varint.js';

/** Size of the v2 batch header: every field before the first record. */
export const RECORD_BATCH_HEADER_SIZE = 61;
/** baseOffset and batchLength, which Kafka calls the log overhead. */
const LOG_OVERHEAD = 12;
const MAGIC = 2;
const NO_TIMESTAMP = -1;
/** The smallest record: length, attributes, timestampDelta, offsetDelta, key, value, headers. */
const MIN_RECORD_SIZE = 7;

const CRC_OFFSET = 17;
const ATTRIBUTES_OFFSET = 21;
const COMPRESSION_MASK = 0x07;
const TIMESTAMP_TYPE_BIT = 0x08;
const TRANSACTIONAL_BIT = 0x10;
const CONTROL_BIT = 0x20;

export type TimestampType = 'CreateTime' | 'LogAppendTime';
export type CompressionCodec = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
const CODECS: readonly CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

export interface EncodeOptions {
  /**
   * CreateTime (default) keeps the records' own timestamps; LogAppendTime sets attribute bit 3
   * and writes `batch.appendTimeMs` as maxTimestamp, as a broker does for such topics.
   */
  timestampType?: TimestampType;
}

export interface DecodeContext {
  /** Where the bytes came from (a database path); named in error messages. */
  file?: string;
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

function asBuffer(buf: Uint8Array): Buffer {
  return Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** CRC-32C of `buf[from, to)`, unsigned. */
function crc32c(buf: Buffer, from: number, to: number): number {
  return CRC32C.buf(buf.subarray(from, to)) >>> 0;
}

// ---- encode ---------------------------------------------------------------------------------

function assertInt32(what: string, value: number): void {
  if ((value | 0) !== value) throw new RangeError(`${what} ${value} is not an int32`);
}

/**
 * Encodes `batch` as one uncompressed magic-2 record batch (producer id, epoch and sequence -1).
 * Record i gets offsetDelta i and timestampDelta `timestamp - records[0].timestamp`. Throws a
 * RangeError when the batch breaks its own invariants (lastOffset ≠ baseOffset + count - 1,
 * non-integer timestamps): that is a bug of the caller, not bad input.
 */
export function encodeRecordBatch(batch: RecordBatch, options: EncodeOptions = {}): Buffer {
  const { records } = batch;
  const count = records.length;
  const logAppendTime = options.timestampType === 'LogAppendTime';
  const lastOffsetDelta = batch.lastOffset - batch.baseOffset;
  if (!Number.isSafeInteger(batch.baseOffset) || batch.baseOffset < 0) {
    throw new RangeError(`baseOffset ${batch.baseOffset} is not a non-negative safe integer`);
  }
  if (count > 0 && lastOffsetDelta !== count - 1) {
    throw new RangeError(`batch at ${batch.baseOffset} holds ${count} records but lastOffset is ${batch.lastOffset}`);
  }
  assertInt32('lastOffsetDelta', lastOffsetDelta);
  assertInt32('leaderEpoch', batch.leaderEpoch);

  // Pass 1: sizes. Header key lengths are kept for pass 2 (UTF-8 length needs a scan).
  const baseTimestamp = count > 0 ? records[0]!.timestamp : NO_TIMESTAMP;
  let maxTimestamp = NO_TIMESTAMP; // Kafka's MemoryRecordsBuilder starts from NO_TIMESTAMP too
  const bodySizes = new Int32Array(count);
  const headerKeyLengths: number[] = [];
  let size = RECORD_BATCH_HEADER_SIZE;
  for (let i = 0; i < count; i++) {
    const r = records[i]!;
    if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
    let body = 1 + sizeOfVarlong(r.timestamp - baseTimestamp) + sizeOfVarint(i);
    body += r.key === null ? 1 : sizeOfVarint(r.key.length) + r.key.length;
    body += r.value === null ? 1 : sizeOfVarint(r.value.length) + r.value.length;
    const headers = r.headers;
    body += sizeOfVarint(headers.length);
    for (let h = 0; h < headers.length; h++) {
      const header = headers[h]!;
      const keyLength = Buffer.byteLength(header.key, 'utf8');
      headerKeyLengths.push(keyLength);
      body += sizeOfVarint(keyLength) + keyLength;
      body += header.value === null ? 1 : sizeOfVarint(header.value.length) + header.value.length;
    }
    bodySizes[i] = body;
    size += sizeOfVarint(body) + body;
  }
  if (logAppendTime) maxTimestamp = batch.appendTimeMs;
  assertInt32('batchLength', size - LOG_OVERHEAD);

  // Pass 2: one exactly sized buffer; every byte of it is written below.
  const out = Buffer.allocUnsafe(size);
  writeInt64BE(out, 0, batch.baseOffset);
  out.writeInt32BE(size - LOG_OVERHEAD, 8);
  out.writeInt32BE(batch.leaderEpoch, 12);
  out.writeInt8(MAGIC, 16);
  out.writeInt16BE(logAppendTime ? TIMESTAMP_TYPE_BIT : 0, ATTRIBUTES_OFFSET);
  out.writeInt32BE(lastOffsetDelta, 23);
  writeInt64BE(out, 27, baseTimestamp);
  writeInt64BE(out, 35, maxTimestamp);
  writeInt64BE(out, 43, -1); // producerId
  out.writeInt16BE(-1, 51); // producerEpoch
  out.writeInt32BE(-1, 53); // baseSequence
  out.writeInt32BE(count, 57);
  let pos = RECORD_BATCH_HEADER_SIZE;
  let nextHeaderKey = 0;
  for (let i = 0; i < count; i++) {
    const r = records[i]!;
    pos = writeVarint(out, pos, bodySizes[i]!);
    out[pos++] = 0; // attributes
    pos = writeVarlong(out, pos, r.timestamp - baseTimestamp);
    pos = writeVarint(out, pos, i);
    pos = writeBytes(out, pos, r.key);
    pos = writeBytes(out, pos, r.value);
    const headers = r.headers;
    pos = writeVarint(out, pos, headers.length);
    for (let h = 0; h < headers.length; h++) {
      const header = headers[h]!;
      const keyLength = headerKeyLengths[nextHeaderKey++]!;
      pos = writeVarint(out, pos, keyLength);
      pos += out.write(header.key, pos, keyLength, 'utf8');
      pos = writeBytes(out, pos, header.value);
    }
  }
  if (pos !== size) throw new Error(`record batch encoder wrote ${pos} bytes of ${size}`);
  out.writeUInt32BE(crc32c(out, ATTRIBUTES_OFFSET, size), CRC_OFFSET);
  return out;
}

function writeBytes(out: Buffer, pos: number, bytes: Uint8Array | null): number {
  if (bytes === null) return writeVarint(out, pos, -1);
  pos = writeVarint(out, pos, bytes.length);
  out.set(bytes, pos);
  return pos + bytes.length;
}

// ---- header ---------------------------------------------------------------------------------

/**
 * Reads and checks the header of the batch at `start`: magic, batchLength, that the whole batch
 * lies within `buf`, the attributes, and that the int64 fields are safe integers. No CRC check.
 */
function readHeader(b: Buffer, start: number, ctx: DecodeContext): RecordBatchHeader {
  const available = b.length - start;
  const baseOffset = available >= 8 ? readInt64BE(b, start) : null;
  const fail = (what: string): KafkaError => corrupt(ctx, baseOffset, start, what);
  const shortHeader = (): string => `truncated: ${available} bytes, shorter than the 61-byte v2 batch header`;
  if (available < 17) throw fail(shortHeader());
  const magic = b.readInt8(start + 16);
  if (magic !== MAGIC) throw fail(`magic ${magic}, but only magic ${MAGIC} (v2) record batches are supported`);
  if (available < RECORD_BATCH_HEADER_SIZE) throw fail(shortHeader());
  if (baseOffset === null || baseOffset < 0) throw fail(`baseOffset out of range`);
  const batchLength = b.readInt32BE(start + 8);
  if (batchLength < RECORD_BATCH_HEADER_SIZE - LOG_OVERHEAD) {
    const rest = RECORD_BATCH_HEADER_SIZE - LOG_OVERHEAD;
    throw fail(`batchLength ${batchLength} is less than the ${rest} bytes of the header after it`);
  }
  const sizeBytes = batchLength + LOG_OVERHEAD;
  if (sizeBytes > available) {
    throw fail(`truncated: batchLength says ${sizeBytes} bytes, only ${available} present`);
  }
  const attributes = b.readInt16BE(start + ATTRIBUTES_OFFSET);
  const compression = CODECS[attributes & COMPRESSION_MASK];
  if (compression === undefined) throw fail(`unknown compression codec ${attributes & COMPRESSION_MASK}`);
  const lastOffsetDelta = b.readInt32BE(start + 23);
  const baseTimestamp = readInt64BE(b, start + 27);
  const maxTimestamp = readInt64BE(b, start + 35);
  const producerId = readInt64BE(b, start + 43);
  if (baseTimestamp === null || maxTimestamp === null) throw fail('timestamp out of the safe integer range');
  if (producerId === null) throw fail('producerId out of the safe integer range');
  const count = b.readInt32BE(start + 57);
  if (count < 0) throw fail(`negative record count ${count}`);
  return {
    baseOffset,
    lastOffset: baseOffset + lastOffsetDelta,
    leaderEpoch: b.readInt32BE(start + 12),
    count,
    sizeBytes,
    baseTimestamp,
    maxTimestamp,
    timestampType: attributes & TIMESTAMP_TYPE_BIT ? 'LogAppendTime' : 'CreateTime',
    compression,
    isTransactional: (attributes & TRANSACTIONAL_BIT) !== 0,
    isControl: (attributes & CONTROL_BIT) !== 0,
    producerId,
    producerEpoch: b.readInt16BE(start + 51),
    baseSequence: b.readInt32BE(start + 53),
    crc: b.readUInt32BE(start + CRC_OFFSET),
  };
}

/**
 * The header of the batch at the start of `buf`, for fast scans: checks magic, batchLength and
 * that the whole batch is present, but neither the CRC nor the records. Walk a concatenation
 * with `buf.subarray(header.sizeBytes)`.
 */
export function batchHeader(buf: Uint8Array, context: DecodeContext = {}): RecordBatchHeader {
  return readHeader(asBuffer(buf), 0, context);
}

// ---- decode ---------------------------------------------------------------------------------

/**
 * Decodes exactly one batch filling `buf`. `sizeBytes` is the encoded length; `appendTimeMs` is
 * maxTimestamp for a LogAppendTime batch and 0 otherwise (the store keeps the append time
 * itself). Keys, values and header values never alias `buf`: they are views of one private copy
 * of the batch's record bytes (so one retained value keeps that copy alive).
 */
export function decodeRecordBatch(buf: Uint8Array, context: DecodeContext = {}): RecordBatch {
  const b = asBuffer(buf);
  const header = readHeader(b, 0, context);
  if (header.sizeBytes !== b.length) {
    const what = `batchLength says ${header.sizeBytes} bytes, but ${b.length} were given`;
    throw corrupt(context, header.baseOffset, 0, what);
  }
  return decodeBody(b, 0, header, context);
}

/** Decodes a concatenation of batches, such as the records field of a Fetch response. */
export function decodeRecordBatches(buf: Uint8Array, context: DecodeBatchesContext = {}): RecordBatch[] {
  const b = asBuffer(buf);
  const batches: RecordBatch[] = [];
  let pos = 0;
  while (pos < b.length) {
    if (context.allowPartialTail && isPartialTail(b, pos)) break;
    const header = readHeader(b, pos, context);
    batches.push(decodeBody(b, pos, header, context));
    pos += header.sizeBytes;
  }
  return batches;
}

/** As Kafka's ByteBufferLogInputStream: fewer than 12 bytes left, or a sane length not all there. */
function isPartialTail(b: Buffer, pos: number): boolean {
  const available = b.length - pos;
  if (available < LOG_OVERHEAD) return true;
  const batchLength = b.readInt32BE(pos + 8);
  return batchLength >= RECORD_BATCH_HEADER_SIZE - LOG_OVERHEAD && batchLength + LOG_OVERHEAD > available;
}

function decodeBody(b: Buffer, start: number, header: RecordBatchHeader, ctx: DecodeContext): RecordBatch {
  const { baseOffset, count } = header;
  const end = start + header.sizeBytes;
  const fail = (what: string): KafkaError => corrupt(ctx, baseOffset, start, what);

  const computed = crc32c(b, start + ATTRIBUTES_OFFSET, end);
  if (computed !== header.crc) {
    throw fail(`CRC32C ${hex(computed)} does not match the stored ${hex(header.crc)}`);
  }
  // Valid Kafka that a RecordBatch cannot hold: not corruption, so not CORRUPT_MESSAGE.
  const unsupported = (what: string): KafkaError => batchError('INVALID_REQUEST', ctx, baseOffset, start, what);
  if (header.compression !== 'none') {
    throw unsupported(`is compressed with ${header.compression}; only uncompressed batches are decoded`);
  }
  if (header.isControl) throw unsupported('is a control batch (transaction markers), which a RecordBatch cannot hold');
  const recordBytes = header.sizeBytes - RECORD_BATCH_HEADER_SIZE;
  if (count > recordBytes / MIN_RECORD_SIZE) throw fail(`record count ${count} cannot fit in ${recordBytes} bytes`);
  const lastOffsetDelta = header.lastOffset - baseOffset;
  if (count > 0 && lastOffsetDelta !== count - 1) {
    throw fail(`lastOffsetDelta ${lastOffsetDelta} does not match ${count} dense records`);
  }

  const logAppendTime = header.timestampType === 'LogAppendTime';
  const records: LogRecord[] = [];
  const recordsStart = start + RECORD_BATCH_HEADER_SIZE;
  const cur: Cursor = { pos: recordsStart };
  // One private copy of the record bytes; keys and values are views into it. Allocating one
  // small array per key and value costs ~300 ns each, a view ~15 ns.
  const owned = new Uint8Array(count > 0 ? end - recordsStart : 0);
  if (count > 0) owned.set(b.subarray(recordsStart, end));
  const from: Owned = { bytes: owned.buffer, shift: recordsStart };
  let i = 0;
  try {
    for (; i < count; i++) {
      const length = readVarint(b, cur, end);
      const recordStart = cur.pos;
      const recordEnd = recordStart + length;
      if (length < 0 || recordEnd > end) throw new RangeError(`length ${length} runs past the end of the batch`);
      cur.pos++; // attributes: unused
      const timestampDelta = readVarlong(b, cur, recordEnd);
      const offsetDelta = readVarint(b, cur, recordEnd);
      if (offsetDelta !== i) throw new RangeError(`offsetDelta ${offsetDelta}, expected ${i} (offsets are dense)`);
      const key = readBytes(b, cur, recordEnd, from, 'key');
      const value = readBytes(b, cur, recordEnd, from, 'value');
      const headerCount = readVarint(b, cur, recordEnd);
      if (headerCount < 0) throw new RangeError(`negative header count ${headerCount}`);
      const headers: RecordHeader[] = [];
      for (let h = 0; h < headerCount; h++) {
        const keyLength = readVarint(b, cur, recordEnd);
        if (keyLength < 0) throw new RangeError(`negative header key length ${keyLength}`);
        if (cur.pos + keyLength > recordEnd) throw new RangeError('header key runs past the end of its record');
        const headerKey = b.toString('utf8', cur.pos, cur.pos + keyLength);
        cur.pos += keyLength;
        headers.push({ key: headerKey, value: readBytes(b, cur, recordEnd, from, 'header value') });
      }
      if (cur.pos !== recordEnd) {
        throw new RangeError(`length says ${length} bytes, its fields take ${cur.pos - recordStart}`);
      }
      const timestamp = logAppendTime ? header.maxTimestamp : header.baseTimestamp + timestampDelta;
      if (!Number.isSafeInteger(timestamp)) throw new RangeError(`timestamp ${timestamp} out of range`);
      records.push({ key, value, headers, timestamp });
    }
  } catch (e) {
    // varint.ts and the checks above throw RangeError; anything else is a bug, passed on as is.
    if (e instanceof RangeError) throw fail(`record ${i} (offset ${baseOffset + i}): ${e.message}`);
    throw e;
  }
  if (cur.pos !== end) throw fail(`${end - cur.pos} bytes left after the ${count} records`);

  return {
    baseOffset,
    lastOffset: header.lastOffset,
    leaderEpoch: header.leaderEpoch,
    appendTimeMs: logAppendTime ? header.maxTimestamp : 0,
    records,
    sizeBytes: header.sizeBytes,
  };
}

/** The private copy of a batch's records, and where its byte 0 lies in the input. */
interface Owned {
  bytes: ArrayBuffer;
  shift: number;
}

/** A length-prefixed byte field (-1 = null), as a view of the private copy. */
function readBytes(b: Buffer, cur: Cursor, end: number, owned: Owned, what: string): Uint8Array | null {
  const length = readVarint(b, cur, end);
  if (length < 0) return null; // Kafka's DefaultRecord reads any negative length as null
  const at = cur.pos;
  if (at + length > end) throw new RangeError(`${what} of ${length} bytes runs past the end of the record`);
  cur.pos = at + length;
  return new Uint8Array(owned.bytes, at - owned.shift, length);
}
