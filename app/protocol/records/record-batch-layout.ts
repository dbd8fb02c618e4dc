/**
 * The byte layout of Kafka's v2 record batch (the diagram is in record-batch.ts): the field
 * positions, the attribute bits and the batch's CRC-32C.
 *
 * A file of its own because the encoder (record-batch-encoder.ts), the decoder (record-batch.ts)
 * and a leader's in-place patches all lean on these positions and must read one definition of
 * them.
 */
import CRC32C from 'crc-32/crc32c.js';

/** Size of the v2 batch header: every field before the first record. */
export const RECORD_BATCH_HEADER_SIZE = 61;
/** baseOffset and batchLength, which Kafka calls the log overhead. */
export const LOG_OVERHEAD = 12;
export const MAGIC = 2;
/** The smallest record: length, attributes, timestampDelta, offsetDelta, key, value, headers. */
export const MIN_RECORD_SIZE = 7;

export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const COMPRESSION_MASK = 0x07;
export const TIMESTAMP_TYPE_BIT = 0x08;
export const TRANSACTIONAL_BIT = 0x10;
export const CONTROL_BIT = 0x20;
export const DELETE_HORIZON_BIT = 0x40;

export type TimestampType = 'CreateTime' | 'LogAppendTime';

export const viewOf = (buf: Uint8Array): DataView => new DataView(buf.buffer, buf.byteOffset, buf.byteLength);

/** CRC-32C of `buf[from, to)`, unsigned. */
export function crc32c(buf: Uint8Array, from: number, to: number): number {
  return CRC32C.buf(buf.subarray(from, to)) >>> 0;
}
