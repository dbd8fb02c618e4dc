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
 * after byte 61 are then one compressed blob); without it, and for control batches, which a
 * RecordBatch cannot hold, decoding fails with INVALID_REQUEST; {@link batchHeader} tells them
 * apart without decoding. Pure: byte arrays and DataViews, no Node Buffer, so the wire protocol
 * and storage share it.
 *
 * One file past 500 lines on purpose: the encoder, the decoder and a leader's in-place patches
 * all lean on the byte layout above and must change together.
 */
import CRC32C from 'crc-32/crc32c.js';
import { KafkaError } from '../../api/errors.js';
import type { LogRecord, RecordBatch, RecordHeader } from '../../core/log/records.js';
import { utf8Decode, utf8Encode } from '../runtime/text.js';
import { CODECS, type CompressionCodec, type CompressionCodecs } from './compression.js';
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
const DELETE_HORIZON_BIT = 0x40;

export type TimestampType = 'CreateTime' | 'LogAppendTime';
export type { CompressionCodec };

export interface EncodeOptions {
  /**
   * CreateTime (default) keeps the records' own timestamps; LogAppendTime sets attribute bit 3
   * and writes `batch.appendTimeMs` as maxTimestamp, as a broker does for such topics.
   */
  timestampType?: TimestampType;
  /** Compress the records with this codec (default none); `codecs` must be given with it. */
  compression?: CompressionCodec;
  codecs?: CompressionCodecs;
  /** The idempotent producer's id, epoch and first sequence (default -1, -1, -1). */
  producer?: { id: number; epoch: number; baseSequence: number };
  /**
   * The header's maxTimestamp of a CreateTime batch without records (the empty batch the log
   * cleaner keeps carries its original's, as Kafka's writeEmptyHeader does); ignored otherwise.
   */
  emptyMaxTimestamp?: number;
  /**
   * Where the batch is written: an array of exactly `size` bytes (default a new, zeroed
   * Uint8Array). It need not be zeroed — the encoder writes every byte — so a host can hand out
   * uninitialized memory (Node's Buffer.allocUnsafe).
   */
  allocate?: (size: number) => Uint8Array;
}

export interface DecodeContext {
  /** Where the bytes came from (a database path); named in error messages. */
  file?: string;
  /** Decompresses compressed batches; without it they fail with INVALID_REQUEST. */
  codecs?: CompressionCodecs;
  /** The most bytes a compressed batch may decompress to (default 64 MiB). */
  maxDecompressedBytes?: number;
  /**
   * An uncompressed batch's records are checked at once, exactly as decoding checks them, but
   * built only when `records` is first read (then kept): a reader that serves the stored bytes
   * (a Fetch, a follower) pays no per-record allocation. The batch then holds on to `buf`.
   */
  lazyRecords?: boolean;
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

const viewOf = (buf: Uint8Array): DataView => new DataView(buf.buffer, buf.byteOffset, buf.byteLength);

/** CRC-32C of `buf[from, to)`, unsigned. */
export function crc32c(buf: Uint8Array, from: number, to: number): number {
  return CRC32C.buf(buf.subarray(from, to)) >>> 0;
}

/** The default bound on what one compressed batch may decompress to. */
const DEFAULT_MAX_DECOMPRESSED = 64 * 1024 * 1024;

// ---- encode ---------------------------------------------------------------------------------

const newBytes = (size: number): Uint8Array => new Uint8Array(size);

function allocated(allocate: (size: number) => Uint8Array, size: number): Uint8Array {
  const out = allocate(size);
  if (out.length !== size) throw new RangeError(`the encoder asked for ${size} bytes and was given ${out.length}`);
  return out;
}

/** Record body sizes between the encoder's two passes, reused (encoding runs to completion, never nested). */
let bodySizeScratch = new Int32Array(1024);

function assertInt32(what: string, value: number): void {
  if ((value | 0) !== value) throw new RangeError(`${what} ${value} is not an int32`);
}

/**
 * Encodes `batch` as one magic-2 record batch, uncompressed unless `options.compression` says
 * otherwise. Record i gets offsetDelta i and timestampDelta `timestamp - records[0].timestamp`.
 * Throws a RangeError when the batch breaks its own invariants (lastOffset ≠ baseOffset +
 * count - 1, non-integer timestamps): that is a bug of the caller, not bad input.
 */
export function encodeRecordBatch(batch: RecordBatch, options: EncodeOptions = {}): Uint8Array {
  const { records } = batch;
  const count = records.length;
  const logAppendTime = options.timestampType === 'LogAppendTime';
  const compression = options.compression ?? 'none';
  const allocate = options.allocate ?? newBytes;
  const lastOffsetDelta = batch.lastOffset - batch.baseOffset;
  if (!Number.isSafeInteger(batch.baseOffset) || batch.baseOffset < 0) {
    throw new RangeError(`baseOffset ${batch.baseOffset} is not a non-negative safe integer`);
  }
  const deltas = batch.offsetDeltas;
  if (deltas) {
    if (deltas.length !== count) throw new RangeError(`batch at ${batch.baseOffset} holds ${count} records but ${deltas.length} offset deltas`);
    for (let i = 0; i < count; i++) {
      const d = deltas[i]!;
      if (!Number.isInteger(d) || d < 0 || d > lastOffsetDelta || (i > 0 && d <= deltas[i - 1]!)) {
        throw new RangeError(`batch at ${batch.baseOffset}: offset delta ${d} of record ${i} is not increasing within [0, ${lastOffsetDelta}]`);
      }
    }
  } else if (count > 0 && lastOffsetDelta !== count - 1) {
    throw new RangeError(`batch at ${batch.baseOffset} holds ${count} records but lastOffset is ${batch.lastOffset}`);
  }
  assertInt32('lastOffsetDelta', lastOffsetDelta);
  assertInt32('leaderEpoch', batch.leaderEpoch);
  if (compression !== 'none' && !options.codecs) throw new RangeError(`compression ${compression} needs codecs`);

  // Pass 1: sizes. Header keys are encoded once and kept for pass 2. A delete horizon takes the
  // base timestamp's place, the records' deltas then count from it (Kafka's MemoryRecordsBuilder).
  const horizon = batch.deleteHorizonMs;
  const baseTimestamp = horizon !== undefined ? horizon : count > 0 ? records[0]!.timestamp : NO_TIMESTAMP;
  let maxTimestamp = NO_TIMESTAMP; // Kafka's MemoryRecordsBuilder starts from NO_TIMESTAMP too
  if (bodySizeScratch.length < count) bodySizeScratch = new Int32Array(Math.max(count, 2 * bodySizeScratch.length));
  const bodySizes = bodySizeScratch;
  const headerKeys: Uint8Array[] = [];
  let recordsSize = 0;
  for (let i = 0; i < count; i++) {
    const r = records[i]!;
    if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
    let body = 1 + sizeOfVarlong(r.timestamp - baseTimestamp) + sizeOfVarint(deltas ? deltas[i]! : i);
    body += r.key === null ? 1 : sizeOfVarint(r.key.length) + r.key.length;
    body += r.value === null ? 1 : sizeOfVarint(r.value.length) + r.value.length;
    const headers = r.headers;
    body += sizeOfVarint(headers.length);
    for (let h = 0; h < headers.length; h++) {
      const header = headers[h]!;
      const key = utf8Encode(header.key);
      headerKeys.push(key);
      body += sizeOfVarint(key.length) + key.length;
      body += header.value === null ? 1 : sizeOfVarint(header.value.length) + header.value.length;
    }
    bodySizes[i] = body;
    recordsSize += sizeOfVarint(body) + body;
  }
  if (logAppendTime) maxTimestamp = batch.appendTimeMs;
  else if (count === 0 && options.emptyMaxTimestamp !== undefined) maxTimestamp = options.emptyMaxTimestamp;

  // Pass 2: the records, in place after the header when uncompressed, else in their own array.
  let out: Uint8Array;
  let size: number;
  if (compression === 'none') {
    size = RECORD_BATCH_HEADER_SIZE + recordsSize;
    assertInt32('batchLength', size - LOG_OVERHEAD);
    out = allocated(allocate, size);
    writeRecords(out, RECORD_BATCH_HEADER_SIZE, records, deltas, bodySizes, headerKeys, baseTimestamp, recordsSize);
  } else {
    const raw = new Uint8Array(recordsSize);
    writeRecords(raw, 0, records, deltas, bodySizes, headerKeys, baseTimestamp, recordsSize);
    const compressed = options.codecs!.compress(compression, raw);
    size = RECORD_BATCH_HEADER_SIZE + compressed.length;
    assertInt32('batchLength', size - LOG_OVERHEAD);
    out = allocated(allocate, size);
    out.set(compressed, RECORD_BATCH_HEADER_SIZE);
  }
  const view = viewOf(out);
  const producer = options.producer ?? { id: -1, epoch: -1, baseSequence: -1 };
  writeInt64BE(view, 0, batch.baseOffset);
  view.setInt32(8, size - LOG_OVERHEAD);
  view.setInt32(12, batch.leaderEpoch);
  view.setInt8(16, MAGIC);
  view.setInt16(ATTRIBUTES_OFFSET, (logAppendTime ? TIMESTAMP_TYPE_BIT : 0) | (horizon !== undefined ? DELETE_HORIZON_BIT : 0) | CODECS.indexOf(compression));
  view.setInt32(23, lastOffsetDelta);
  writeInt64BE(view, 27, baseTimestamp);
  writeInt64BE(view, 35, maxTimestamp);
  writeInt64BE(view, 43, producer.id);
  view.setInt16(51, producer.epoch);
  view.setInt32(53, producer.baseSequence);
  view.setInt32(57, count);
  view.setUint32(CRC_OFFSET, crc32c(out, ATTRIBUTES_OFFSET, size));
  return out;
}

function writeRecords(
  out: Uint8Array,
  start: number,
  records: readonly LogRecord[],
  deltas: readonly number[] | undefined,
  bodySizes: Int32Array,
  headerKeys: readonly Uint8Array[],
  baseTimestamp: number,
  recordsSize: number,
): void {
  let pos = start;
  let nextHeaderKey = 0;
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    pos = writeVarint(out, pos, bodySizes[i]!);
    out[pos++] = 0; // attributes
    pos = writeVarlong(out, pos, r.timestamp - baseTimestamp);
    pos = writeVarint(out, pos, deltas ? deltas[i]! : i);
    pos = writeBytes(out, pos, r.key);
    pos = writeBytes(out, pos, r.value);
    const headers = r.headers;
    pos = writeVarint(out, pos, headers.length);
    for (let h = 0; h < headers.length; h++) {
      const key = headerKeys[nextHeaderKey++]!;
      pos = writeVarint(out, pos, key.length);
      out.set(key, pos);
      pos += key.length;
      pos = writeBytes(out, pos, headers[h]!.value);
    }
  }
  if (pos !== start + recordsSize) throw new Error(`record batch encoder wrote ${pos - start} record bytes of ${recordsSize}`);
}

function writeBytes(out: Uint8Array, pos: number, bytes: Uint8Array | null): number {
  if (bytes === null) return writeVarint(out, pos, -1);
  pos = writeVarint(out, pos, bytes.length);
  out.set(bytes, pos);
  return pos + bytes.length;
}

// ---- in-place changes a broker makes -------------------------------------------------------

/**
 * Sets baseOffset and partitionLeaderEpoch of the batch at the start of `bytes`, as a leader
 * does on append. Neither is covered by the CRC, so the rest of the bytes stay as sent.
 */
export function assignOffsetAndEpoch(bytes: Uint8Array, baseOffset: number, leaderEpoch: number): void {
  const view = viewOf(bytes);
  writeInt64BE(view, 0, baseOffset);
  view.setInt32(12, leaderEpoch);
}

/**
 * Marks the batch LogAppendTime with `appendTimeMs` as its maxTimestamp, leaving the records'
 * own timestamps, and reseals the CRC (Kafka's DefaultRecordBatch.setMaxTimestamp).
 */
export function setLogAppendTime(bytes: Uint8Array, appendTimeMs: number): void {
  setMaxTimestamp(bytes, 'LogAppendTime', appendTimeMs);
}

/**
 * Sets the timestamp type and maxTimestamp, resealing the CRC, unless both are already so
 * (DefaultRecordBatch.setMaxTimestamp: a batch that needs no change keeps its bytes).
 */
export function setMaxTimestamp(bytes: Uint8Array, type: TimestampType, maxTimestamp: number): void {
  const view = viewOf(bytes);
  const attributes = view.getInt16(ATTRIBUTES_OFFSET);
  const wanted = type === 'LogAppendTime' ? attributes | TIMESTAMP_TYPE_BIT : attributes & ~TIMESTAMP_TYPE_BIT;
  if (wanted === attributes && readInt64BE(view, 35) === maxTimestamp) return;
  view.setInt16(ATTRIBUTES_OFFSET, wanted);
  writeInt64BE(view, 35, maxTimestamp);
  const end = view.getInt32(8) + LOG_OVERHEAD;
  view.setUint32(CRC_OFFSET, crc32c(bytes, ATTRIBUTES_OFFSET, end));
}

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
  const unsupported = batchError('INVALID_REQUEST', ctx, header.baseOffset, start, `is compressed with ${header.compression}; only uncompressed batches are decoded`);
  if (!ctx.codecs) throw unsupported;
  try {
    return ctx.codecs.decompress(header.compression, b.subarray(from, end), ctx.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED);
  } catch (e) {
    const error = corrupt(ctx, header.baseOffset, start, (e as Error).message);
    (error.details as Record<string, unknown>)['decompression'] = true;
    throw error;
  }
}

function decodeBody(b: Uint8Array, start: number, header: RecordBatchHeader, ctx: DecodeContext): RecordBatch {
  const { baseOffset, count } = header;
  const fail = (what: string): KafkaError => corrupt(ctx, baseOffset, start, what);

  if (!ctx.crcChecked) {
    const computed = crc32c(b, start + ATTRIBUTES_OFFSET, start + header.sizeBytes);
    if (computed !== header.crc) throw fail(`CRC32C ${hex(computed)} does not match the stored ${hex(header.crc)}`);
  }
  // Valid Kafka that a RecordBatch cannot hold: not corruption, so not CORRUPT_MESSAGE.
  if (header.isControl) {
    throw batchError('INVALID_REQUEST', ctx, baseOffset, start, 'is a control batch (transaction markers), which a RecordBatch cannot hold');
  }
  if (header.compression === 'none' && count > (header.sizeBytes - RECORD_BATCH_HEADER_SIZE) / MIN_RECORD_SIZE) {
    throw fail(`record count ${count} cannot fit in ${header.sizeBytes - RECORD_BATCH_HEADER_SIZE} bytes`);
  }
  const lastOffsetDelta = header.lastOffset - baseOffset;
  if (ctx.denseOffsets ? count > 0 && lastOffsetDelta !== count - 1 : count > lastOffsetDelta + 1) {
    throw fail(`lastOffsetDelta ${lastOffsetDelta} does not match ${count} ${ctx.denseOffsets ? 'dense ' : ''}records`);
  }
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
  const dense = ctx.denseOffsets === true;
  if (ctx.lazyRecords && header.compression === 'none') {
    // The same checks as decoding, with nothing built; so building them later cannot fail.
    const deltas = readRecords(b.subarray(start + RECORD_BATCH_HEADER_SIZE, start + header.sizeBytes), header, fail, dense, false).deltas;
    if (deltas) batch.offsetDeltas = deltas;
    let built: LogRecord[] | null = null;
    Object.defineProperty(batch, 'records', {
      enumerable: true,
      configurable: true,
      get: () => (built ??= readRecords(recordBytes(b, start, header, ctx), header, fail, dense).records),
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

/** The encoder's producer option for a batch an idempotent producer wrote (none otherwise). */
export function producerOption(batch: RecordBatch): EncodeOptions {
  const p = batch.producer;
  return p ? { producer: { id: p.producerId, epoch: p.producerEpoch, baseSequence: p.baseSequence } } : {};
}

/**
 * The records of `owned`, checked, and their offset deltas when they are not 0, 1, 2, … (a
 * cleaned batch; refused when `dense`); with `build` false only checked (no record is built).
 */
function readRecords(
  owned: Uint8Array,
  header: RecordBatchHeader,
  fail: (what: string) => KafkaError,
  dense: boolean,
  build = true,
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
      const key = readBytes(owned, cur, recordEnd, 'key', build);
      const value = readBytes(owned, cur, recordEnd, 'value', build);
      const headerCount = readVarint(owned, cur, recordEnd);
      if (headerCount < 0) throw new RangeError(`negative header count ${headerCount}`);
      const headers: RecordHeader[] = [];
      for (let h = 0; h < headerCount; h++) {
        const keyLength = readVarint(owned, cur, recordEnd);
        if (keyLength < 0) throw new RangeError(`negative header key length ${keyLength}`);
        if (cur.pos + keyLength > recordEnd) throw new RangeError('header key runs past the end of its record');
        const headerKey = build ? utf8Decode(owned, cur.pos, cur.pos + keyLength) : '';
        cur.pos += keyLength;
        const headerValue = readBytes(owned, cur, recordEnd, 'header value', build);
        if (build) headers.push({ key: headerKey, value: headerValue });
      }
      if (cur.pos !== recordEnd) {
        throw new RangeError(`length says ${length} bytes, its fields take ${cur.pos - recordStart}`);
      }
      const timestamp = logAppendTime ? header.maxTimestamp : header.baseTimestamp + timestampDelta;
      if (!Number.isSafeInteger(timestamp)) throw new RangeError(`timestamp ${timestamp} out of range`);
      if (build) records.push({ key, value, headers, timestamp });
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

/** A length-prefixed byte field (-1 = null), as a view of the private record bytes (skipped unless `build`). */
function readBytes(b: Uint8Array, cur: Cursor, end: number, what: string, build: boolean): Uint8Array | null {
  const length = readVarint(b, cur, end);
  if (length < 0) return null; // Kafka's DefaultRecord reads any negative length as null
  const at = cur.pos;
  if (at + length > end) throw new RangeError(`${what} of ${length} bytes runs past the end of the record`);
  cur.pos = at + length;
  return build ? b.subarray(at, at + length) : null;
}
