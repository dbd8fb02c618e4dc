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
 * transaction marker) is returned as the embedded driver returns it. Data a topic still holds in
 * the message formats before 0.11 (magic 0 and 1), which Kafka's Fetch v4+ serves unconverted
 * among v2 batches, is read by legacy-message-set.ts.
 */
import { KafkaError } from '../api/errors.js';
import { createCompressionCodecs } from '../protocol/records/compression.js';
import { batchHeader, decodeRecordBatch } from '../protocol/records/record-batch.js';
import { LOG_OVERHEAD, RECORD_BATCH_HEADER_SIZE } from '../protocol/records/record-batch-layout.js';
import type { RawFetchedRecord } from './fetched-record.js';
import { legacyRecords } from './legacy-message-set.js';

/** What one batch may decompress to (Kafka's default max.message.bytes is far below). */
const MAX_DECOMPRESSED = 256 * 1024 * 1024;
const MAGIC_AT = 16;

const codecs = createCompressionCodecs();

export type { RawFetchedRecord } from './fetched-record.js';

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
    // Too few bytes left to reach the magic byte: an entry the byte limit cut, whatever its format
    // (a small pre-0.11 message is shorter than a v2 header; ByteBufferLogInputStream stops here too).
    if (bytes.length - pos <= MAGIC_AT) break;
    if (bytes[pos + MAGIC_AT]! < 2) {
      const legacy = legacyRecords(bytes, pos, { where, codecs, maxDecompressedBytes: MAX_DECOMPRESSED });
      if (!legacy) break;
      pos = legacy.next;
      for (const r of legacy.records) if (r.offset >= fromOffset && r.offset < highWatermark) out.push(r);
      continue;
    }
    if (bytes[pos + MAGIC_AT] !== 2) {
      throw new KafkaError('CORRUPT_MESSAGE', `${where}: the batch at offset ${view.getBigInt64(pos)} names message format magic ${bytes[pos + MAGIC_AT]}, which Kafka does not have`);
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
