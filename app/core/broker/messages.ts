/**
 * Requests between clients, brokers and the controller, as they travel on the in-process network.
 *
 * Client → broker requests follow Kafka's client APIs (Produce, Fetch, ListOffsets,
 * OffsetForLeaderEpoch, Metadata) with Kafka's per-partition error codes, in the engine's
 * vocabulary: topics by name, records decoded (`LogRecord`), offsets as numbers. They are the
 * shapes a wire-protocol listener fills from a decoded request and encodes its answer from; the
 * engine's `…Request` methods take and return them. Broker ↔ broker (follower Fetch) and broker →
 * controller requests follow BrokerRegistration, BrokerHeartbeat and AlterPartition.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { BatchCompression } from '../log/produced-batch.js';
import type { LogRecord, RecordBatch } from '../log/records.js';
import type { CommittedRecord, LeaderRecoveryState, PartitionState, TopicOrigin } from '../metadata/records.js';
import type { ImageSnapshot } from '../metadata/snapshot.js';
import type { GroupNetworkRequest } from '../group/messages.js';
import type { TxnNetworkRequest } from '../txn/messages.js';

/** `currentLeaderEpoch` when the client does not check it (Kafka's NO_PARTITION_LEADER_EPOCH). */
export const NO_LEADER_EPOCH = -1;

/** read_committed reads below the last stable offset (KIP-98); read_uncommitted below the HW. */
export type IsolationLevel = 'read_uncommitted' | 'read_committed';

// ------------------------------------------------------------------ client -> broker: Produce (0)

/**
 * One partition's data: records the engine's own client built, or (`wire`) the Records field a
 * Kafka client sent, which the leader validates (LogValidator) and stores as sent.
 */
export type ClientProducePartition =
  | { topic: string; partition: number; records: LogRecord[]; compression?: BatchCompression }
  | { topic: string; partition: number; wire: Uint8Array | null; producer?: ProducerFields };

/** The producer fields of a client batch's header, read before validation (KIP-890 verification needs them). */
export interface ProducerFields {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  transactional: boolean;
}

export interface ClientProduceRequest {
  type: 'produce';
  /** The Produce version the client sent (the batch rules depend on it: zstd from v7); default 8. */
  apiVersion?: number;
  /** 0: nothing is answered; 1: the leader's append; -1: the whole ISR (min.insync.replicas). */
  acks: number;
  /** How long an acks=-1 write waits for the ISR before REQUEST_TIMED_OUT. */
  timeoutMs: number;
  /** Produce v3+: the transactional producer's id (KIP-890 verifies its partitions with its coordinator). */
  transactionalId?: string | null;
  partitions: ClientProducePartition[];
}

export interface ClientProducePartitionResponse {
  topic: string;
  partition: number;
  error: KafkaErrorName;
  message?: string;
  /** Offset of the batch's first record; -1 when it was not appended. */
  baseOffset: number;
  /** The time the leader stamped on a LogAppendTime topic; -1 for CreateTime. */
  logAppendTimeMs: number;
  /** The partition's log start offset on the leader (-1 when it did not answer for the log). */
  logStartOffset: number;
  /** Once appended: the epoch the batch was written in and when the leader appended it. */
  leaderEpoch?: number;
  appendTimeMs?: number;
  /** The records the LogValidator refused, by index in the batch (Produce v8+). */
  recordErrors?: { batchIndex: number; message: string }[];
}

/**
 * acks 1 and -1 get a response once every partition has its outcome; acks=0 gets none, and a
 * refused acks=0 write closes the connection instead (Kafka's answer to an error the client would
 * never read).
 */
export type ClientProduceReply =
  | { kind: 'response'; partitions: ClientProducePartitionResponse[] }
  | { kind: 'no-response' }
  | { kind: 'close-connection'; error: KafkaErrorName };

// ------------------------------------------------------------------ client -> broker: Fetch (1)

export interface ClientFetchPartition {
  topic: string;
  partition: number;
  fetchOffset: number;
  /** The leader epoch the client knows (FENCED/UNKNOWN_LEADER_EPOCH on a mismatch); -1 skips the check. */
  currentLeaderEpoch: number;
  partitionMaxBytes: number;
}

export interface ClientFetchRequest {
  type: 'clientFetch';
  /** Long poll: wait up to this long for `minBytes` to become readable below the HW (0: answer now). */
  maxWaitMs: number;
  minBytes: number;
  /** Limit of the whole response; the first batch is returned even when larger (KIP-74). */
  maxBytes: number;
  isolationLevel: IsolationLevel;
  partitions: ClientFetchPartition[];
  /**
   * KIP-227 (Fetch v7+): the session id and epoch the client sent and the partitions it forgets
   * (client-fetch-sessions.ts). Absent: a fetch without sessions (Fetch v4-6, the in-app consumer).
   */
  session?: { id: number; epoch: number; forgotten: { topic: string; partition: number }[] };
  /**
   * Set by the broker for an incremental fetch (not by a client): the session's partitions that
   * may have news, asked again whenever the fetch is looked at, in place of `partitions`.
   */
  sessionView?: { partitions(): ClientFetchPartition[]; holds(topic: string, partition: number): boolean };
}

export interface ClientFetchPartitionResponse {
  topic: string;
  partition: number;
  error: KafkaErrorName;
  highWatermark: number;
  /** The first offset of a transaction still open (or whose marker the HW has not passed), or the HW (KIP-98). */
  lastStableOffset: number;
  logStartOffset: number;
  /** Not in Kafka's answer: the leader's log end, which the console shows. */
  logEndOffset: number;
  /** Whole batches below the HW (read_committed: the LSO) from the batch holding `fetchOffset` (records before it are the client's to skip). */
  batches: RecordBatch[];
  /** read_committed: the aborted transactions among `batches`, for the client to skip (absent for read_uncommitted). */
  abortedTransactions?: { producerId: number; firstOffset: number }[];
}

export interface ClientFetchResponse {
  /** Only the partitions with news in an incremental fetch session's answer. */
  partitions: ClientFetchPartitionResponse[];
  /** The session (0: none). */
  sessionId?: number;
  /** A session error (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH): no partitions then. */
  error?: KafkaErrorName;
}

// ------------------------------------------------------------------ client -> broker: ListOffsets (2)

/** ListOffsets' special timestamps: the HW (or LSO), the log start, the record with the largest timestamp (KIP-734). */
export const LATEST_TIMESTAMP = -1;
export const EARLIEST_TIMESTAMP = -2;
export const MAX_TIMESTAMP = -3;

export interface ClientListOffsetsPartition {
  topic: string;
  partition: number;
  /** LATEST_TIMESTAMP, EARLIEST_TIMESTAMP, MAX_TIMESTAMP, or a time: the first offset whose timestamp is at or after it. */
  timestamp: number;
  currentLeaderEpoch: number;
}

export interface ClientListOffsetsRequest {
  type: 'listOffsets';
  isolationLevel: IsolationLevel;
  partitions: ClientListOffsetsPartition[];
}

export interface ClientListOffsetsPartitionResponse {
  topic: string;
  partition: number;
  error: KafkaErrorName;
  /** The found record's timestamp; -1 for latest and earliest, and when nothing was found. */
  timestamp: number;
  /** -1 when no record has a timestamp at or after the one asked for. */
  offset: number;
  leaderEpoch: number;
}

export interface ClientListOffsetsResponse {
  partitions: ClientListOffsetsPartitionResponse[];
}

// ------------------------------------------------------------------ client -> broker: OffsetForLeaderEpoch (23)

export interface ClientOffsetForLeaderEpochPartition {
  topic: string;
  partition: number;
  currentLeaderEpoch: number;
  /** The epoch whose end offset the client wants (KIP-320: the epoch of its position). */
  leaderEpoch: number;
}

export interface ClientOffsetForLeaderEpochRequest {
  type: 'offsetForLeaderEpoch';
  partitions: ClientOffsetForLeaderEpochPartition[];
}

export interface ClientOffsetForLeaderEpochPartitionResponse {
  topic: string;
  partition: number;
  error: KafkaErrorName;
  /** The largest epoch at or below the one asked for, and where it ended (the log end for the latest); -1/-1 when unknown. */
  leaderEpoch: number;
  endOffset: number;
}

export interface ClientOffsetForLeaderEpochResponse {
  partitions: ClientOffsetForLeaderEpochPartitionResponse[];
}

// ------------------------------------------------------------------ client -> broker: Metadata (3)

export interface ClientMetadataRequest {
  type: 'metadata';
  /** null: every topic. */
  topics: string[] | null;
  /**
   * The request allows auto-creation (Metadata's allow_auto_topic_creation: always below v4, the
   * request's flag from v4), from this client: missing topics are created when the broker's
   * `auto.create.topics.enable` is true. Absent: never.
   */
  autoCreate?: { clientId: string };
}

export interface ClientMetadataPartition {
  partition: number;
  /** LEADER_NOT_AVAILABLE while the partition has no live leader (leader -1). */
  error: KafkaErrorName;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  /** Replicas on brokers that are not alive, or whose log is offline there. */
  offlineReplicas: number[];
  /** Eligible leader replicas (KIP-966; empty while the feature is off), as DescribeTopicPartitions lists them. */
  elr: number[];
  /** The last ELR members seen before the ELR emptied (KIP-966). */
  lastKnownElr: number[];
}

export interface ClientMetadataTopic {
  name: string;
  /** Empty for a topic that does not exist. */
  topicId: string;
  error: KafkaErrorName;
  isInternal: boolean;
  partitions: ClientMetadataPartition[];
}

export interface ClientMetadataResponse {
  /** Live (registered, unfenced) brokers as the answering broker knows them. */
  brokers: { id: number; rack: string | null }[];
  /**
   * A live broker (KRaft brokers name one, since admin requests are forwarded to the controller
   * quorum); -1 when none is known.
   */
  controllerId: number;
  topics: ClientMetadataTopic[];
}

// ------------------------------------------------------------------ client -> broker: InitProducerId (22)

export interface ClientInitProducerIdRequest {
  type: 'initProducerId';
  /** null: an idempotent producer (a fresh producer id); else its transaction coordinator answers. */
  transactionalId: string | null;
  transactionTimeoutMs: number;
  /** InitProducerId v3+ (KIP-360): the producer's current id and epoch, -1 when it has none. */
  producerId?: number;
  producerEpoch?: number;
  /** The request's version: below 4 PRODUCER_FENCED is answered INVALID_PRODUCER_EPOCH, as Kafka does. */
  apiVersion?: number;
}

export interface ClientInitProducerIdResponse {
  error: KafkaErrorName;
  message?: string;
  producerId: number;
  producerEpoch: number;
}

/** DeleteRecords (21) on one broker: move each partition's log start to `offset` (-1: the high watermark). */
export interface ClientDeleteRecordsRequest {
  type: 'deleteRecords';
  timeoutMs: number;
  partitions: { topic: string; partition: number; offset: number }[];
}

export interface ClientDeleteRecordsPartitionResponse {
  topic: string;
  partition: number;
  error: KafkaErrorName;
  message?: string;
  /** The lowest log start offset over the partition's live replicas (-1 on an error). */
  lowWatermark: number;
}

export interface ClientDeleteRecordsResponse {
  partitions: ClientDeleteRecordsPartitionResponse[];
}

export type ClientRequest =
  | ClientInitProducerIdRequest
  | ClientProduceRequest
  | ClientFetchRequest
  | ClientListOffsetsRequest
  | ClientOffsetForLeaderEpochRequest
  | ClientMetadataRequest
  | ClientDeleteRecordsRequest;

// ------------------------------------------------------------------ broker -> broker: follower Fetch (1, v12+)

export interface FetchPartitionRequest {
  topicId: string;
  partition: number;
  fetchOffset: number;
  /** Epoch of the last batch in the follower's log (-1 = none). */
  lastFetchedEpoch: number;
  currentLeaderEpoch: number;
  /** The follower's log start offset (Fetch v5+ log_start_offset): the leader's low watermark for DeleteRecords. */
  logStartOffset?: number;
}

export interface FetchRequest {
  type: 'fetch';
  replicaId: number;
  brokerEpoch: number;
  maxWaitMs: number;
  /** KIP-227: the session (0 with epoch 0: open a new one) and its epoch; no epoch (or -1): a fetch without a session. */
  sessionId?: number;
  sessionEpoch?: number;
  /** A full fetch: every partition; an incremental one: only those whose position changed. */
  partitions: FetchPartitionRequest[];
  /** Partitions an incremental fetch takes out of its session. */
  forgotten?: { topicId: string; partition: number }[];
}

export interface FetchPartitionResponse {
  topicId: string;
  partition: number;
  error: KafkaErrorName;
  highWatermark: number;
  logStartOffset: number;
  logEndOffset: number;
  batches: RecordBatch[];
  divergingEpoch?: { epoch: number; endOffset: number };
}

export interface FetchResponse {
  /** FETCH_SESSION_ID_NOT_FOUND / INVALID_FETCH_SESSION_EPOCH: the follower starts a new session. */
  error?: 'FETCH_SESSION_ID_NOT_FOUND' | 'INVALID_FETCH_SESSION_EPOCH';
  /** The session this fetch belongs to (a full fetch learns its new session's id here). */
  sessionId?: number;
  /** Every partition of a full fetch; only those with news (records, HW, log start, an error) of an incremental one. */
  partitions: FetchPartitionResponse[];
}

export interface MetadataPush {
  type: 'metadataPush';
  records: CommittedRecord[];
}

export type BrokerRequest = ClientRequest | FetchRequest | MetadataPush | GroupNetworkRequest | TxnNetworkRequest;

// ------------------------------------------------------------------ broker -> controller

export interface RegisterRequest {
  type: 'register';
  brokerId: number;
  incarnationId: string;
  rack: string | null;
  previousBrokerEpoch: number;
}

export interface RegisterResponse {
  error: KafkaErrorName;
  brokerEpoch: number;
}

export interface HeartbeatRequest {
  type: 'heartbeat';
  brokerId: number;
  brokerEpoch: number;
  metadataOffset: number;
  wantFence: boolean;
  wantShutDown: boolean;
}

export interface HeartbeatResponse {
  error: KafkaErrorName;
  isFenced: boolean;
  shouldShutDown: boolean;
  /** The broker was behind the records the controller keeps: load this image first (KRaft's FetchSnapshot). */
  snapshot?: ImageSnapshot;
  /** Records to apply after the broker's offset (or after the snapshot's). */
  records: CommittedRecord[];
  /** The answer held as many records as one may: the log goes on after them. */
  more?: boolean;
}

/** One partition's proposal in an AlterPartition request. */
export interface AlterPartitionItem {
  topicId: string;
  partition: number;
  leaderEpoch: number;
  partitionEpoch: number;
  newIsr: { brokerId: number; brokerEpoch: number }[];
  leaderRecoveryState: LeaderRecoveryState;
}

/**
 * A leader's ISR proposals, batched as Kafka's AlterPartitionManager does: every proposal made in
 * one turn goes in one request, and the controller answers each partition in order and writes
 * the changes as one record batch.
 */
export interface AlterPartitionRequest {
  type: 'alterPartition';
  brokerId: number;
  brokerEpoch: number;
  partitions: AlterPartitionItem[];
}

/** One partition's answer. */
export interface AlterPartitionResponse {
  error: KafkaErrorName;
  state?: PartitionState;
}

/** The answers, one per proposal, in the request's order. */
export interface AlterPartitionBatchResponse {
  partitions: AlterPartitionResponse[];
}

export interface ReplicaOfflineRequest {
  type: 'replicaOffline';
  brokerId: number;
  brokerEpoch: number;
  topicId: string;
  partition: number;
}

/** A broker asks for a topic a client's request needs (`__consumer_offsets`, an auto-created topic), as Kafka's AutoTopicCreationManager does. */
export interface CreateTopicRequest {
  type: 'createTopic';
  name: string;
  partitions: number;
  replicationFactor: number;
  configs: Record<string, string>;
  createdBy: TopicOrigin;
}

export interface CreateTopicResponse {
  error: KafkaErrorName;
  message?: string;
}

/** Kafka's AllocateProducerIds: a broker asks for a block of producer ids to hand out. */
export interface AllocateProducerIdsRequest {
  type: 'allocateProducerIds';
  brokerId: number;
  brokerEpoch: number;
}

export interface AllocateProducerIdsResponse {
  error: KafkaErrorName;
  producerIdStart: number;
  producerIdLen: number;
}

export type ControllerRequest =
  | RegisterRequest
  | HeartbeatRequest
  | AlterPartitionRequest
  | ReplicaOfflineRequest
  | CreateTopicRequest
  | AllocateProducerIdsRequest;
