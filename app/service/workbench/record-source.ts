/**
 * What the workbench reads records through: one per kind of cluster (the engine's door for a
 * local cluster, kafkajs's connections for an external one), so browsing, filtering and exports
 * run the same code on both.
 */

export interface PartitionBounds {
  partition: number;
  logStartOffset: number;
  highWatermark: number;
}

/** One record with what its batch says, bytes as stored. */
export interface FetchedRecord {
  partition: number;
  offset: number;
  timestamp: number;
  timestampType: 'CreateTime' | 'LogAppendTime' | 'NoTimestampType';
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: { key: string; value: Uint8Array | null }[];
  leaderEpoch: number;
  producerId: number;
  producerEpoch: number;
  sequence: number;
  compression: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd' | null;
  transactional: boolean;
}

export interface RecordSource {
  /** The topic's partitions; UNKNOWN_TOPIC_OR_PARTITION when there is no such topic. */
  partitions(topic: string): Promise<number[]>;
  bounds(topic: string, partitions: readonly number[]): Promise<PartitionBounds[]>;
  /** The first offset whose timestamp is at or after `timestampMs` (the high watermark when none). */
  offsetForTime(topic: string, partition: number, timestampMs: number): Promise<number>;
  /**
   * Records at and after `fromOffset` below the high watermark, in offset order: at least one
   * when there is one, about `maxBytes` of them. Offsets may have gaps (compaction).
   */
  read(topic: string, partition: number, fromOffset: number, maxBytes: number): Promise<FetchedRecord[]>;
}

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

/** What a v2 batch's attributes say (Kafka's DefaultRecordBatch): codec, timestamp type, transactional. */
export function batchAttributes(attributes: number): { compression: FetchedRecord['compression']; timestampType: FetchedRecord['timestampType']; transactional: boolean } {
  return {
    compression: CODECS[attributes & 0x7] ?? null,
    timestampType: (attributes & 0x8) !== 0 ? 'LogAppendTime' : 'CreateTime',
    transactional: (attributes & 0x10) !== 0,
  };
}
