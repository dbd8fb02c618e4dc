/**
 * The engine's CleanedBatchWriter port (app/core/log/cleaner/cleaned-batch.ts): a batch the log
 * cleaner keeps only some records of, written as Kafka's MemoryRecords.filterTo writes it — the
 * original's base and last offset, leader epoch, producer id, epoch and base sequence, timestamp
 * type and compression, each record at its own offset, and the delete horizon as the base
 * timestamp (attribute bit 6) when set; a batch kept without records is an uncompressed empty
 * header with the original's max timestamp and no horizon. A codec that cannot compress here (zstd
 * without the host's encoder) leaves the batch uncompressed, which every reader reads the same.
 */
import type { CleanedBatchWriter } from '../../core/log/cleaner/cleaned-batch.js';
import { plainCleanedBatch } from '../../core/log/cleaner/cleaned-batch.js';
import type { RecordBatch } from '../../core/log/records.js';
import { type CompressionCodecs, CompressionError, createCompressionCodecs } from './compression.js';
import { type EncodeOptions, batchHeader, encodeRecordBatch, producerOption } from './record-batch.js';

export function createCleanedBatchWriter(codecs: CompressionCodecs = createCompressionCodecs()): CleanedBatchWriter {
  return {
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
