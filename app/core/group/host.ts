/**
 * What the group coordinator needs from the broker it runs on, and how it treats the internal
 * topic. The coordinator of a group is the leader of the group's `__consumer_offsets` partition:
 * it keeps the group's state in memory and every change that must survive a failover (a
 * generation's assignment, a committed offset, a deletion) as a record in that partition, written
 * through the partition's own replication (acks=all, `offsets.commit.timeout.ms`).
 *
 * `__consumer_offsets` in this engine: created on the first FindCoordinator with
 * `offsets.topic.num.partitions` partitions and `offsets.topic.replication.factor` replicas and
 * the configs Kafka's GroupMetadataManager gives it — `cleanup.policy=compact`,
 * `compression.type=producer`, `segment.bytes=offsets.topic.segment.bytes` — so each replica's log
 * cleaner keeps only the latest record per key: a group's last metadata and each partition's last
 * committed offset, until a tombstone (DeleteGroups, OffsetDelete, an offset expired by
 * offsets.retention.minutes, a group left with nothing) removes it and then ages out after
 * delete.retention.ms. A new coordinator replays the compacted log, later records (and
 * tombstones) replacing earlier ones per key. A data directory made before compaction existed
 * keeps the `cleanup.policy=delete`, `retention.ms=-1` it was created with (nothing is deleted;
 * `kafka-configs --alter --add-config cleanup.policy=compact` turns the cleaner on for it).
 */
import type { EngineEvent } from '../../api/events.js';
import type { KafkaErrorName } from '../../api/errors.js';
import type { LogRecord, RecordBatch } from '../log/records.js';
import type { MetadataImage } from '../metadata/image.js';
import type { Random } from '../random.js';
import type { BrokerRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import type { GroupRecordCodec } from './record-codec.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

/** The configs `__consumer_offsets` is created with (Kafka's GroupMetadataManager.offsetsTopicConfigs). */
export function offsetsTopicConfigs(segmentBytes: number): Record<string, string> {
  return { 'cleanup.policy': 'compact', 'compression.type': 'producer', 'segment.bytes': String(segmentBytes) };
}

/** How an append to the offsets partition ended. */
export interface AppendOutcome {
  errorCode: KafkaErrorName;
  baseOffset: number;
}

/** This broker's replica of one `__consumer_offsets` partition. */
export interface OffsetsPartition {
  readonly isLeader: boolean;
  readonly leaderEpoch: number;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  /** Batches from `from` on; null when the replica went offline reading them. */
  read(from: number, maxBytes: number): RecordBatch[] | null;
  /** Append as leader; acks=-1 answers once the high watermark passes the batch. */
  append(records: LogRecord[], acks: -1 | 0, timeoutMs: number, done: (o: AppendOutcome) => void): void;
  /**
   * Append as leader inside a producer's transaction (TxnOffsetCommit), acks=-1; `guard`: the
   * KIP-890 verification the write carries, if any.
   */
  appendTransactional(records: LogRecord[], producer: { producerId: number; producerEpoch: number }, timeoutMs: number, done: (o: AppendOutcome) => void, guard?: object): void;
}

export interface CoordinatorHost {
  readonly brokerId: number;
  readonly scheduler: Scheduler;
  readonly image: MetadataImage;
  readonly random: Random;
  readonly groupRecords: GroupRecordCodec;
  brokerConfig(): BrokerRuntimeConfig;
  /**
   * Run `fn` after `delayMs` as this broker process's work: not at all once the process ended,
   * and a storage failure inside it halts the broker as any other broker work does.
   */
  after(delayMs: number, fn: () => void): TimerHandle;
  /** This broker's replica of `__consumer_offsets-partition`, if it hosts one. */
  offsetsPartition(partition: number): OffsetsPartition | undefined;
  /** Ask the controller to create `__consumer_offsets` for this client (Kafka's AutoTopicCreationManager); fire and forget. */
  requestOffsetsTopic(clientId: string): void;
  /**
   * KIP-890 for TxnOffsetCommit: ask the transactional id's coordinator whether this offsets
   * partition is in the producer's transaction; the guard to write with, or the error.
   */
  verifyTxnPartition(transactionalId: string, producer: { producerId: number; producerEpoch: number }, partition: number, done: (r: { ok: true; guard?: object } | { ok: false; error: KafkaErrorName }) => void): void;
  emit(event: EngineEvent): void;
}
