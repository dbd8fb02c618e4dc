/**
 * The shapes the engine's public methods take and return. They are the core's own (engine
 * vocabulary, Kafka's names); the contract's DTOs (`…View` in app/api) are built from them by the
 * service, so neither side borrows the other's names.
 */
import type { TxnRecordCodec } from '../txn/record-codec.js';
import type { BrokerState } from '../../api/events.js';
import type { KafkaErrorName } from '../../api/errors.js';
import type { OngoingReassignment } from '../controller/reassign-command.js';
import type { CleanedBatchWriter } from '../log/cleaner/cleaned-batch.js';
import type { CompactionStatus } from '../log/cleaner/compaction-status.js';
import type { BatchCompression, ProducedBatchValidator } from '../log/produced-batch.js';
import type { LogRecord } from '../log/records.js';
import type { PartitionState } from '../metadata/records.js';
import type { PlacementStrategy } from '../placement/index.js';
import type { Random } from '../random.js';
import type { StorageProvider } from '../log/log-store.js';
import type { DeliveryPort } from '../network.js';
import type { Scheduler } from '../time.js';
import type { GroupRecordCodec } from '../group/record-codec.js';
import type { ScramCredential } from '../security/types.js';

export interface EngineOptions {
  scheduler: Scheduler;
  random: Random;
  storage: StorageProvider;
  /** Brokers of a new cluster (ignored when the metadata log already names brokers). */
  brokers: { id: number; rack?: string | null }[];
  /** The brokers' static configuration (server.properties); Kafka's defaults otherwise. */
  staticConfigs?: Record<string, string>;
  /** How the controller places new replicas: 'striped' (default, Kafka 4.x's KRaft placer) or 'classic'. */
  placement?: PlacementStrategy;
  /** One-way network latency in ms (default 0). */
  networkDelayMs?: number;
  /** Where messages between nodes are delivered (default: on the scheduler after the delay); a model checker's hook. */
  deliveries?: DeliveryPort;
  /**
   * The codecs of the group coordinator's records in `__consumer_offsets` (Kafka's schemas; the
   * product passes app/protocol's `groupRecordCodec`).
   */
  groupRecords: GroupRecordCodec;
  /**
   * The codecs of the transaction coordinator's records in `__transaction_state` (Kafka's
   * schemas; the product passes app/protocol's `txnRecordCodec`). Without it no transactional id
   * is served (FindCoordinator answers COORDINATOR_NOT_AVAILABLE).
   */
  txnRecords?: TxnRecordCodec;
  /**
   * Validates the record batches Kafka clients produce (app/protocol implements it; a host
   * serving the wire protocol must pass one). Without it, client batches are refused.
   */
  producedBatches?: ProducedBatchValidator;
  /**
   * SCRAM credentials a new cluster starts with (Kafka's `kafka-storage.sh format --add-scram`):
   * the first records of its metadata log. Ignored when the log already has records.
   */
  bootstrapScramCredentials?: readonly ScramCredential[];
  /**
   * Writes the batches the log cleaner keeps part of, keeping their compression and timestamp
   * type (app/protocol implements it); without it a cleaned batch is stored uncompressed.
   */
  cleanedBatches?: CleanedBatchWriter;
}

/** One batch for the in-app producer. */
export interface ProduceInput {
  topic: string;
  /** Unset: by key (murmur2, as Kafka's default partitioner), else round robin. */
  partition?: number;
  acks: number | 'all';
  records: LogRecord[];
  timeoutMs?: number;
  /** The batch's codec, as a producer's compression.type (default none); the topic's compression.type then applies. */
  compression?: BatchCompression;
}

export interface ProduceResult {
  topic: string;
  partition: number;
  baseOffset: number;
  errorCode: KafkaErrorName;
  errorMessage?: string;
  /** The records the leader refused, by index in the batch (Produce v8 RecordErrors, e.g. a keyless record on a compacted topic). */
  recordErrors?: { batchIndex: number; message: string }[];
  /** acks=0 only: the broker closed the connection (it refused the write). */
  connectionClosed?: boolean;
  /** Set once the leader appended the batch: the epoch it was written in and the leader's append time. */
  leaderEpoch?: number;
  appendTimeMs?: number;
}

export interface ConsumedRecord extends LogRecord {
  offset: number;
  leaderEpoch: number;
}

export interface ConsumeResult {
  errorCode: KafkaErrorName;
  records: ConsumedRecord[];
  /**
   * Where the next read starts: after the last record returned, or after the last batch read
   * when every record was returned — past offsets a compacted log no longer has, which may leave
   * a read with no record at all (Kafka's consumer moves on by the batch's next offset too).
   */
  nextOffset: number;
  highWatermark: number;
  logStartOffset: number;
  logEndOffset: number;
}

/** One replica's log cleaner state (each replica compacts its own log). */
export interface ReplicaCompaction extends CompactionStatus {
  brokerId: number;
  leader: boolean;
}

/** One replica's log as its broker holds it (read from its disk while the broker is down). */
export interface ReplicaLogState {
  brokerId: number;
  logEndOffset: number;
  highWatermark: number;
  logStartOffset: number;
  flushedOffset: number;
}

/** A partition as the controller records it, with every replica's log state. */
export interface PartitionDescription extends PartitionState {
  highWatermark: number;
  logStartOffset: number;
  replicaStates: ReplicaLogState[];
}

/** One in-flight reassignment (as the controller lists it) with how far its new replicas have caught up. */
export interface ReassignmentProgress extends OngoingReassignment {
  removingReplicas: number[];
  progress: CatchUp;
}

/** The leader's log end and each adding replica's, with the share the slowest one holds. */
export interface CatchUp {
  leaderLogEndOffset: number;
  addingReplicas: { brokerId: number; logEndOffset: number; inIsr: boolean }[];
  percent: number;
}

/** A broker: membership, process and controller state, and what it hosts. */
export interface BrokerInfo {
  id: number;
  rack: string | null;
  state: BrokerState;
  isolated: boolean;
  fetcherStalled: boolean;
  isController: boolean;
  brokerEpoch: number;
  partitionCount: number;
  leaderCount: number;
  /** Bytes of record batches its disk holds for all its replicas; -1 when unreadable. */
  logBytes: number;
  /** Where its Kafka listener is (null when no host serves the wire protocol). */
  listener: { host: string; port: number } | null;
}

/** A member broker: its id and rack. */
export interface BrokerMember {
  id: number;
  rack: string | null;
}
