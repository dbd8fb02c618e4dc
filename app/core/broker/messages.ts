/**
 * Requests between brokers, the controller and clients, as they travel on the in-process
 * network. Shapes follow the Kafka APIs they model (Fetch v12+, Produce, AlterPartition,
 * BrokerRegistration, BrokerHeartbeat, ListOffsets).
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { LogRecord, RecordBatch } from '../log/records.js';
import type { CommittedRecord, LeaderRecoveryState, PartitionState } from '../metadata/records.js';

export interface FetchPartitionRequest {
  topicId: string;
  partition: number;
  fetchOffset: number;
  /** Epoch of the last batch in the follower's log (-1 = none). */
  lastFetchedEpoch: number;
  currentLeaderEpoch: number;
}

export interface FetchRequest {
  type: 'fetch';
  replicaId: number;
  brokerEpoch: number;
  maxWaitMs: number;
  partitions: FetchPartitionRequest[];
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
  partitions: FetchPartitionResponse[];
}

export interface ProduceRequest {
  type: 'produce';
  topic: string;
  partition: number;
  acks: number;
  timeoutMs: number;
  records: LogRecord[];
}

export interface ProduceResponse {
  error: KafkaErrorName;
  baseOffset: number;
  message?: string;
  /** Set once the batch was appended: the leader epoch it was written in and the leader's append time. */
  leaderEpoch?: number;
  appendTimeMs?: number;
}

export interface ConsumerFetchRequest {
  type: 'consumerFetch';
  topic: string;
  partition: number;
  offset: number;
  maxBytes: number;
}

export interface ConsumerFetchResponse {
  error: KafkaErrorName;
  batches: RecordBatch[];
  highWatermark: number;
  logStartOffset: number;
  logEndOffset: number;
  leaderEpoch: number;
}

export interface ListOffsetsRequest {
  type: 'listOffsets';
  topic: string;
  partition: number;
  /** -1 latest (HW), -2 earliest. */
  timestamp: -1 | -2;
}

export interface ListOffsetsResponse {
  error: KafkaErrorName;
  offset: number;
  leaderEpoch: number;
}

export type BrokerRequest = FetchRequest | ProduceRequest | ConsumerFetchRequest | ListOffsetsRequest | MetadataPush;

export interface MetadataPush {
  type: 'metadataPush';
  records: CommittedRecord[];
}

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
  records: CommittedRecord[];
}

export interface AlterPartitionRequest {
  type: 'alterPartition';
  brokerId: number;
  brokerEpoch: number;
  topicId: string;
  partition: number;
  leaderEpoch: number;
  partitionEpoch: number;
  newIsr: { brokerId: number; brokerEpoch: number }[];
  leaderRecoveryState: LeaderRecoveryState;
}

export interface AlterPartitionResponse {
  error: KafkaErrorName;
  state?: PartitionState;
}

export interface ReplicaOfflineRequest {
  type: 'replicaOffline';
  brokerId: number;
  brokerEpoch: number;
  topicId: string;
  partition: number;
}

export type ControllerRequest = RegisterRequest | HeartbeatRequest | AlterPartitionRequest | ReplicaOfflineRequest;
