/**
 * Storage's view of the magic-2 record batch codec, which lives in app/protocol/records (pure,
 * shared with the wire protocol): the same functions, with the encoder's output as a Buffer,
 * the form better-sqlite3 binds as a BLOB. Stored batches are written uncompressed, so storage
 * decodes without codecs.
 */
import type { RecordBatch } from '../core/log/records.js';
import { type EncodeOptions, encodeRecordBatch as encodePure } from '../protocol/records/record-batch.js';

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

/** {@link encodePure}, as a Buffer over the same bytes. */
export function encodeRecordBatch(batch: RecordBatch, options: EncodeOptions = {}): Buffer {
  const bytes = encodePure(batch, options);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
