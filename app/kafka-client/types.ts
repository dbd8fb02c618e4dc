/**
 * What the Kafka admin client answers: Kafka's data in plain numbers and strings, error codes by
 * Kafka's names. The service's Kafka driver builds the contract's views from these.
 */
import type { KafkaErrorName } from '../api/errors.js';

export interface BrokerData {
  id: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface PartitionMetadataData {
  partition: number;
  /** -1 when offline. */
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
  errorCode: KafkaErrorName;
}

export interface TopicMetadataData {
  name: string;
  /** Kafka's topic id (all zeros before Metadata v10). */
  topicId: string;
  isInternal: boolean;
  errorCode: KafkaErrorName;
  partitions: PartitionMetadataData[];
}

export interface ClusterMetadataData {
  clusterId: string | null;
  /** A live broker's id (KRaft reports a broker: clients never talk to controllers), -1 when none. */
  controllerId: number;
  brokers: BrokerData[];
  topics: TopicMetadataData[];
}

/** A config resource: a topic, a broker by id, or the cluster-wide broker default (''). */
export interface ConfigResourceData {
  type: 'topic' | 'broker';
  name: string;
}

export interface ConfigEntryData {
  name: string;
  value: string | null;
  readOnly: boolean;
  /** Kafka's ConfigSource number: 1 dynamic topic, 2 dynamic broker, 3 dynamic default broker, 4 static broker, 5 default, 6 dynamic broker logger, 7 client metrics, 8 group. */
  source: number;
  isDefault: boolean;
  sensitive: boolean;
  synonyms: { name: string; value: string | null; source: number }[];
  documentation: string | null;
}

export interface DescribedConfigsData {
  resource: ConfigResourceData;
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  entries: ConfigEntryData[];
}

export interface TopicSpecData {
  name: string;
  partitions?: number;
  replicationFactor?: number;
  /** assignments[p] = partition p's replicas (then no counts). */
  assignments?: number[][];
  configs?: Record<string, string>;
}

export interface PartitionOutcomeData {
  topic: string;
  partition: number;
  errorCode: KafkaErrorName;
  message: string | null;
}

export interface OngoingReassignmentData {
  topic: string;
  partition: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export interface LogDirsData {
  brokerId: number;
  logDirs: {
    logDir: string;
    errorCode: KafkaErrorName;
    replicas: { topic: string; partition: number; sizeBytes: number; offsetLag: number; isFuture: boolean }[];
  }[];
}
