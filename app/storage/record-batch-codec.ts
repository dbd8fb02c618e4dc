/**
 * Storage's view of the magic-2 record batch codec, which lives in app/protocol/records (pure,
 * shared with the wire protocol): the same functions, with the encoder's output as a Buffer,
 * the form better-sqlite3 binds as a BLOB. Batches the engine produced itself are written
 * uncompressed; a Kafka client's batch is stored as the client compressed it, so reads
 * decompress with {@link STORAGE_CODECS} (decompression needs no host-supplied codec).
 */
import type { RecordBatch } from '../core/log/records.js';
import { createCompressionCodecs } from '../protocol/records/compression.js';
import { type EncodeOptions, encodeRecordBatch as encodePure, producerOption } from '../protocol/records/record-batch.js';

/** The codecs storage decodes stored batches with (every codec decompresses in pure JS). */
export const STORAGE_CODECS = createCompressionCodecs();

/** The bytes a batch is stored as: its own (a client's batch) or a fresh uncompressed encoding. */
export function storedBytes(batch: RecordBatch): Buffer {
  // The encoder writes every byte, so the buffer need not be zeroed first.
  const bytes = batch.encoded ?? encodePure(batch, { ...producerOption(batch), allocate: allocateUnzeroed });
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export {
  RECORD_BATCH_HEADER_SIZE,
  type CompressionCodec,
  type DecodeBatchesContext,
  type DecodeContext,
  type EncodeOptions,
  type RecordBatchHeader,
  type TimestampType,
  batchHeader,
  decodeRecordBatch,
  decodeRecordBatches,
} from '../protocol/records/record-batch.js';

const allocateUnzeroed = (size: number): Buffer => Buffer.allocUnsafe(size);

/** {@link encodePure}, as a Buffer over the same bytes. */
export function encodeRecordBatch(batch: RecordBatch, options: EncodeOptions = {}): Buffer {
  const bytes = encodePure(batch, options);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
