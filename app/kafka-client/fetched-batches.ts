/**
 * The records of one partition's Fetch answer, decoded by our own record-batch decoder
 * (app/protocol/records/record-batch.ts) instead of kafkajs's: kafkajs hands back records
 * without their batch's codec, and the workbench shows each record's batch compression,
 * timestamp type, producer id/epoch/sequence and leader epoch on an external cluster exactly as
 * the embedded driver reports them from the bytes it stores.
 *
 * A Fetch answer is a concatenation of v2 batches (magic 2) whose last one may be cut at the
 * byte limit (Kafka's ByteBufferLogInputStream stops there quietly; so does this). A record's
 * offset is its batch's base offset plus its offset delta (a batch the log cleaner rewrote keeps
 * fewer records at their own offsets), and its sequence is the batch's base sequence plus that
 * delta, wrapping at 2^31 (Kafka's DefaultRecordBatch). A control batch's one record (a
 * transaction marker) is returned as the embedded driver returns it. Older message formats
 * (magic 0 and 1) are refused with a message saying so: Kafka's Fetch v4+ serves them unconverted.
 */
import { KafkaError } from '../api/errors.js';
import { createCompressionCodecs, type CompressionCodec } from '../protocol/records/compression.js';
import { batchHeader, decodeRecordBatch } from '../protocol/records/record-batch.js';
import { LOG_OVERHEAD, RECORD_BATCH_HEADER_SIZE } from '../protocol/records/record-batch-layout.js';

/** What one batch may decompress to (Kafka's default max.message.bytes is far below). */
const MAX_DECOMPRESSED = 256 * 1024 * 1024;
const MAGIC_AT = 16;

const codecs = createCompressionCodecs();

/** A record with its bytes and its batch's fields, as the workbench reads it. */
export interface RawFetchedRecord {
  offset: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: { key: string; value: Uint8Array | null }[];
  timestamp: number;
  timestampType: 'CreateTime' | 'LogAppendTime';
  leaderEpoch: number;
  producerId: number;
  producerEpoch: number;
  sequence: number;
  transactional: boolean;
  compression: CompressionCodec;
}

/**
 * The records of `bytes` (a Fetch answer's records field) at and after `fromOffset` and below
 * `highWatermark`, in offset order. A corrupt batch fails with CORRUPT_MESSAGE naming the offset.
 */
export function recordsOfFetch(bytes: Uint8Array | null, fromOffset: number, highWatermark: number, where: string): RawFetchedRecord[] {
  const out: RawFetchedRecord[] = [];
  if (!bytes) return out;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  while (bytes.length - pos >= LOG_OVERHEAD) {
    const batchLength = view.getInt32(pos + 8);
    // A sane length not all there: the batch the byte limit cut (a consumer skips it).
    if (batchLength >= RECORD_BATCH_HEADER_SIZE - LOG_OVERHEAD && pos + LOG_OVERHEAD + batchLength > bytes.length) break;
    if (bytes.length - pos > MAGIC_AT && bytes[pos + MAGIC_AT] !== 2) {
      throw new KafkaError('CORRUPT_MESSAGE', `${where}: the batch at offset ${view.getBigInt64(pos)} is in message format magic ${bytes[pos + MAGIC_AT]}; the console reads magic 2 record batches (Kafka 0.11 and later).`);
    }
    const one = bytes.subarray(pos);
    const header = batchHeader(one, { file: where });
    pos += header.sizeBytes;
    if (header.lastOffset < fromOffset || header.baseOffset >= highWatermark) continue;
    const batch = decodeRecordBatch(one.subarray(0, header.sizeBytes), { file: where, codecs, maxDecompressedBytes: MAX_DECOMPRESSED });
    const hasProducer = header.producerId >= 0;
    batch.records.forEach((r, i) => {
      const delta = batch.offsetDeltas ? batch.offsetDeltas[i]! : i;
      const offset = header.baseOffset + delta;
      if (offset < fromOffset || offset >= highWatermark) return;
      out.push({
        offset,
        key: r.key,
        value: r.value,
        headers: r.headers.map((h) => ({ key: h.key, value: h.value })),
        timestamp: r.timestamp,
        timestampType: header.timestampType,
        leaderEpoch: header.leaderEpoch,
        producerId: hasProducer ? header.producerId : -1,
        producerEpoch: hasProducer ? header.producerEpoch : -1,
        sequence: hasProducer && header.baseSequence >= 0 ? (header.baseSequence + delta) % 0x80000000 : -1,
        transactional: header.isTransactional,
        compression: header.compression,
      });
    });
  }
  return out;
}
