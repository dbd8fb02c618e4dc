/**
 * The engine's CleanedBatchWriter port (app/core/log/cleaner/cleaned-batch.ts): a batch the log
 * cleaner keeps only some records of, written as Kafka's MemoryRecords.filterTo writes it — the
 * original's base and last offset, leader epoch, producer id, epoch and base sequence, timestamp
 * type and compression, each record at its own offset, and the delete horizon as the base
 * timestamp (attribute bit 6) when set; a batch kept without records is an uncompressed empty
 * header with the original's max timestamp and no horizon. A codec that cannot compress here (zstd
 * without the host's encoder) leaves the batch uncompressed, which every reader reads the same.
 */
import type { CleanedBatchWriter, RecordVisitor } from '../../core/log/cleaner/cleaned-batch.js';
import { plainCleanedBatch, scanRecords } from '../../core/log/cleaner/cleaned-batch.js';
import type { RecordBatch } from '../../core/log/records.js';
import { type CompressionCodecs, CompressionError, createCompressionCodecs } from './compression.js';
import { type EncodeOptions, RECORD_BATCH_HEADER_SIZE, batchHeader, encodeRecordBatch, producerOption } from './record-batch.js';
import { type Cursor, readVarint, readVarlong } from './varint.js';

/**
 * Each record's key and whether its value is null, read straight from an uncompressed batch's
 * bytes (the store checked them, CRC and record layout, when it read the batch): no record is
 * built, so a batch the cleaner keeps whole is never decoded. Keys are views of the bytes.
 */
export function scanStoredRecords(batch: RecordBatch, visit: RecordVisitor): void {
  const bytes = batch.encoded;
  if (!bytes || bytes.length < RECORD_BATCH_HEADER_SIZE || (bytes[22]! & 0x07) !== 0) return scanRecords(batch, visit);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getInt32(57);
  const cur: Cursor = { pos: RECORD_BATCH_HEADER_SIZE };
  const end = bytes.length;
  for (let i = 0; i < count; i++) {
    const length = readVarint(bytes, cur, end);
    const next = cur.pos + length;
    cur.pos++; // attributes
    readVarlong(bytes, cur, next); // timestampDelta
    readVarint(bytes, cur, next); // offsetDelta (the batch's offsetDeltas already say it)
    const keyLength = readVarint(bytes, cur, next);
    const key = keyLength < 0 ? null : bytes.subarray(cur.pos, cur.pos + keyLength);
    if (keyLength > 0) cur.pos += keyLength;
    const tombstone = readVarint(bytes, cur, next) < 0;
    cur.pos = next;
    if (visit(i, key, tombstone) === false) return;
  }
}

export function createCleanedBatchWriter(codecs: CompressionCodecs = createCompressionCodecs()): CleanedBatchWriter {
  return {
    scan: scanStoredRecords,
    retain(original: RecordBatch, keep: readonly number[], deleteHorizonMs: number | undefined): RecordBatch {
      const batch = plainCleanedBatch(original, keep, deleteHorizonMs);
      const header = original.encoded ? batchHeader(original.encoded) : null;
      const options: EncodeOptions = { ...producerOption(original), timestampType: header?.timestampType ?? 'CreateTime' };
      if (keep.length === 0) {
        if (header) options.emptyMaxTimestamp = header.maxTimestamp;
      } else if (header && header.compression !== 'none') {
        options.compression = header.compression;
        options.codecs = codecs;
      }
      if (header?.timestampType === 'LogAppendTime') batch.appendTimeMs = header.maxTimestamp;
      let bytes: Uint8Array;
      try {
        bytes = encodeRecordBatch(batch, options);
      } catch (e) {
        if (!(e instanceof CompressionError)) throw e;
        bytes = encodeRecordBatch(batch, { ...options, compression: 'none' });
      }
      batch.encoded = bytes;
      batch.sizeBytes = bytes.length;
      return batch;
    },
  };
}
