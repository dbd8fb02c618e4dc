/**
 * What the one door (engine.ts) exports besides the Engine itself: the types of the requests,
 * answers and options its methods take, and the constants their callers need (Kafka's special
 * timestamps, the offsets topic, the feature names, kafka-reassign-partitions.sh's own rules).
 *
 * engine.ts re-exports all of it, so the product still imports everything from the door; the
 * list lives apart so the class reads as its methods, and a new engine API adds its names here.
 */
export type * from './cluster/types.js';
export type { BrokerProduceResult, ConsumeInput, ListOffsetsResult } from './cluster/client.js';
export type { BrokerAnswer, ProduceAnswer, Unreachable } from './cluster/kafka-requests.js';
export { DEFAULT_REQUEST_TIMEOUT_MS } from './cluster/kafka-requests.js';
export type {
  ClientDeleteRecordsPartitionResponse,
  ClientDeleteRecordsRequest,
  ClientDeleteRecordsResponse,
  ClientFetchPartition,
  ClientFetchPartitionResponse,
  ClientFetchRequest,
  ClientFetchResponse,
  ClientInitProducerIdRequest,
  ClientInitProducerIdResponse,
  ClientListOffsetsPartition,
  ClientListOffsetsPartitionResponse,
  ClientListOffsetsRequest,
  ClientListOffsetsResponse,
  ClientMetadataPartition,
  ClientMetadataRequest,
  ClientMetadataResponse,
  ClientMetadataTopic,
  ClientOffsetForLeaderEpochPartition,
  ClientOffsetForLeaderEpochPartitionResponse,
  ClientOffsetForLeaderEpochRequest,
  ClientOffsetForLeaderEpochResponse,
  ClientProducePartition,
  ClientProducePartitionResponse,
  ClientProduceRequest,
  IsolationLevel,
  ProducerFields,
} from './broker/messages.js';
export { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP, NO_LEADER_EPOCH } from './broker/messages.js';
export type { VerifyResult } from './cluster/reassignment-admin.js';
export type { SyntheticFill, SyntheticFillResult } from './cluster/synthetic-fill.js';
export type { GroupAnswer } from './cluster/group-requests.js';
export type * from './group/messages.js';
export type { GroupRecordCodec, OffsetAndMetadata, StoredGroup, TopicPartitions } from './group/record-codec.js';
export { COORDINATOR_TYPE_GROUP } from './group/messages.js';
export type {
  ActiveProducer,
  AddOffsetsToTxnRequest,
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnResponse,
  DescribedTransaction,
  DescribeProducersRequest,
  DescribeProducersResponse,
  DescribeTransactionsRequest,
  DescribeTransactionsResponse,
  EndTxnRequest,
  ListedTransaction,
  ListTransactionsRequest,
  ListTransactionsResponse,
  TxnApiRequest,
  TxnErrorResponse,
  TxnResponseOf,
  WriteTxnMarkersRequest,
  WriteTxnMarkersResponse,
} from './txn/messages.js';
export type { TxnRecordCodec } from './txn/record-codec.js';
export { COORDINATOR_TYPE_TRANSACTION } from './txn/coordinator.js';
export { TRANSACTION_STATE_TOPIC } from './txn/host.js';
export { OFFSETS_TOPIC } from './group/host.js';
export type { ListenerAddress } from './cluster/listeners.js';
export type { ProducedBatchValidator } from './log/produced-batch.js';
export type { CreateTopicInput, ElectionResult, ReassignmentResult } from './controller/controller.js';
export type { ReassignmentTarget } from './controller/reassign-command.js';
export type { FeatureDescription, FeatureUpdate, FeatureUpdateResult } from './controller/features.js';
export type { ClusterSecurity } from './cluster/security.js';
export type { AclCreateResult, AclCreation, AclDeleteResult } from './controller/security-control.js';
export { ALL_FEATURES_FAILED, ELR_FEATURE, METADATA_VERSION_FEATURE, SUPPORTED_FEATURES } from './controller/features.js';
/** kafka-reassign-partitions.sh's own rules (pure), for drivers of clusters this engine does not run. */
export {
  BROKER_THROTTLE_CONFIGS,
  TOPIC_THROTTLE_CONFIGS,
  followerThrottles,
  leaderThrottles,
  mergeThrottledReplicas,
  proposedMoveMap,
  reassigningBrokers,
  validateReassignmentTargets,
  verifyLine,
} from './controller/reassign-command.js';
