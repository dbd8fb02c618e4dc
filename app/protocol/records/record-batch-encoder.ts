/**
 * Writing Kafka's v2 record batch (DefaultRecordBatch.java / DefaultRecord.java): the encoder,
 * and the changes a leader makes in place to a batch a client sent (offsets and epoch, the
 * timestamp type), resealing the CRC where it covers what changed.
 *
 * Apart from the decoder (record-batch.ts, which re-exports all of this so callers import one
 * module): writing trusts its input and throws a RangeError on a caller's bug, reading trusts
 * nothing and answers Kafka's errors. Both follow the layout of record-batch-layout.ts.
 */
import type { LogRecord, RecordBatch } from '../../core/log/records.js';
import { utf8Encode } from '../runtime/text.js';
import { CODECS, type CompressionCodec, type CompressionCodecs } from './compression.js';
import {
  ATTRIBUTES_OFFSET,
  CONTROL_BIT,
  CRC_OFFSET,
  DELETE_HORIZON_BIT,
  LOG_OVERHEAD,
  MAGIC,
  RECORD_BATCH_HEADER_SIZE,
  TIMESTAMP_TYPE_BIT,
  TRANSACTIONAL_BIT,
  crc32c,
  viewOf,
  type TimestampType,
} from './record-batch-layout.js';
import { readInt64BE, sizeOfVarint, sizeOfVarlong, writeInt64BE, writeVarint, writeVarlong } from './varint.js';

const NO_TIMESTAMP = -1;

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
  const txnBits = (batch.transactional ? TRANSACTIONAL_BIT : 0) | (batch.control ? CONTROL_BIT : 0);
  view.setInt16(ATTRIBUTES_OFFSET, (logAppendTime ? TIMESTAMP_TYPE_BIT : 0) | (horizon !== undefined ? DELETE_HORIZON_BIT : 0) | txnBits | CODECS.indexOf(compression));
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

/** The encoder's producer option for a batch an idempotent producer wrote (none otherwise). */
export function producerOption(batch: RecordBatch): EncodeOptions {
  const p = batch.producer;
  return p ? { producer: { id: p.producerId, epoch: p.producerEpoch, baseSequence: p.baseSequence } } : {};
}
