/** A fetched record of an external cluster, in either message format (fetched-batches.ts). */
import type { CompressionCodec } from '../protocol/records/compression.js';

/** A record with its bytes and its batch's fields, as the workbench reads it. */
export interface RawFetchedRecord {
  offset: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: { key: string; value: Uint8Array | null }[];
  timestamp: number;
  /** NoTimestampType: message format 0, which has no timestamp (Kafka's TimestampType.NO_TIMESTAMP_TYPE). */
  timestampType: 'CreateTime' | 'LogAppendTime' | 'NoTimestampType';
  leaderEpoch: number;
  producerId: number;
  producerEpoch: number;
  sequence: number;
  transactional: boolean;
  compression: CompressionCodec;
}
