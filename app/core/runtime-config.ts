import type { CleanerRuntimeConfig } from './log/cleaner/log-cleaner.js';
import { brokerConfigBoolean, brokerConfigNumber, topicConfigBoolean, topicConfigList, topicConfigNumber, topicConfigValue } from './configs/resolve.js';

/**
 * The typed, effective configuration the engine runs with: what a topic or broker config
 * resolves to (topic override > dynamic cluster default > static broker config > Kafka's default),
 * parsed once per metadata change rather than on every produce.
 */
export interface TopicRuntimeConfig {
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
  flushMessages: number;
  flushMs: number;
  maxMessageBytes: number;
  /** cleanup.policy contains "delete": retention.ms and retention.bytes apply. */
  cleanupPolicyDelete: boolean;
  retentionMs: number;
  retentionBytes: number;
  segmentBytes: number;
  segmentMs: number;
  messageTimestampType: 'CreateTime' | 'LogAppendTime';
  /** How far before / after the broker's clock a CreateTime timestamp may be (INVALID_TIMESTAMP). */
  messageTimestampBeforeMaxMs: number;
  messageTimestampAfterMaxMs: number;
  /** `producer` keeps a client's codec; anything else is what the log stores. */
  compressionType: CompressionType;
  /** cleanup.policy contains "compact": the log cleaner compacts it, and every record needs a key. */
  cleanupPolicyCompact: boolean;
  /** The log cleaner's per-topic settings (app/core/log/cleaner). */
  minCleanableDirtyRatio: number;
  minCompactionLagMs: number;
  maxCompactionLagMs: number;
  deleteRetentionMs: number;
  leaderReplicationThrottledReplicas: string;
  followerReplicationThrottledReplicas: string;
}

export interface BrokerRuntimeConfig {
  replicaLagTimeMaxMs: number;
  brokerSessionTimeoutMs: number;
  brokerHeartbeatIntervalMs: number;
  replicaFetchWaitMaxMs: number;
  replicaFetchMaxBytes: number;
  replicaFetchResponseMaxBytes: number;
  replicaFetchBackoffMs: number;
  replicaSocketTimeoutMs: number;
  highWatermarkCheckpointIntervalMs: number;
  logRetentionCheckIntervalMs: number;
  autoLeaderRebalanceEnable: boolean;
  leaderImbalanceCheckIntervalMs: number;
  uncleanLeaderElectionIntervalMs: number;
  uncleanLeaderElectionEnable: boolean;
  controllerQuorumFetchTimeoutMs: number;
  controllerQuorumElectionTimeoutMs: number;
  leaderReplicationThrottledRate: number;
  followerReplicationThrottledRate: number;
  replicationQuotaWindowNum: number;
  replicationQuotaWindowSizeMs: number;
  deleteTopicEnable: boolean;
  defaultReplicationFactor: number;
  numPartitions: number;
  minInsyncReplicas: number;
  autoCreateTopicsEnable: boolean;
  /** KIP-227: how many consumers' fetch sessions a broker keeps. */
  maxIncrementalFetchSessionCacheSlots: number;
  /** The Kafka listener's limits. */
  socketRequestMaxBytes: number;
  maxConnections: number;
  /** The group coordinator's (GroupCoordinatorConfig). */
  groups: GroupCoordinatorRuntimeConfig;
  /** The log cleaner's (Kafka's CleanerConfig). */
  cleaner: CleanerRuntimeConfig;
  /** The transaction coordinator's (Kafka's TransactionConfig). */
  txn: TxnCoordinatorRuntimeConfig;
}

export interface TxnCoordinatorRuntimeConfig {
  transactionalIdExpirationMs: number;
  maxTimeoutMs: number;
  abortTimedOutIntervalMs: number;
  removeExpiredIntervalMs: number;
  partitionVerificationEnable: boolean;
  topicNumPartitions: number;
  topicReplicationFactor: number;
  topicSegmentBytes: number;
  topicMinIsr: number;
  loadBufferSize: number;
}

export interface GroupCoordinatorRuntimeConfig {
  initialRebalanceDelayMs: number;
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  maxSize: number;
  offsetMetadataMaxBytes: number;
  offsetCommitTimeoutMs: number;
  offsetsRetentionCheckIntervalMs: number;
  offsetsRetentionMs: number;
  offsetsTopicNumPartitions: number;
  offsetsTopicReplicationFactor: number;
  offsetsTopicSegmentBytes: number;
}

type ConfigMap = Readonly<Record<string, string>>;

/** Kafka's compression.type values. */
export type CompressionType = 'producer' | 'uncompressed' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
const COMPRESSION_TYPES: readonly string[] = ['producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'];

/** Resolve a topic's runtime config from its overrides, the dynamic cluster defaults and static configs. */
export function resolveTopicRuntimeConfig(topicOverrides: ConfigMap, clusterDefaults: ConfigMap, staticConfigs: ConfigMap): TopicRuntimeConfig {
  const num = (n: string): number => topicConfigNumber(n, topicOverrides, clusterDefaults, staticConfigs);
  const str = (n: string): string => topicConfigValue(n, topicOverrides, clusterDefaults, staticConfigs);
  return {
    minInsyncReplicas: num('min.insync.replicas'),
    uncleanLeaderElectionEnable: topicConfigBoolean('unclean.leader.election.enable', topicOverrides, clusterDefaults, staticConfigs),
    flushMessages: num('flush.messages'),
    flushMs: num('flush.ms'),
    maxMessageBytes: num('max.message.bytes'),
    cleanupPolicyDelete: topicConfigList('cleanup.policy', topicOverrides, clusterDefaults, staticConfigs).includes('delete'),
    retentionMs: num('retention.ms'),
    retentionBytes: num('retention.bytes'),
    segmentBytes: num('segment.bytes'),
    segmentMs: num('segment.ms'),
    messageTimestampType: str('message.timestamp.type') === 'LogAppendTime' ? 'LogAppendTime' : 'CreateTime',
    messageTimestampBeforeMaxMs: num('message.timestamp.before.max.ms'),
    messageTimestampAfterMaxMs: num('message.timestamp.after.max.ms'),
    compressionType: COMPRESSION_TYPES.includes(str('compression.type')) ? (str('compression.type') as CompressionType) : 'producer',
    cleanupPolicyCompact: topicConfigList('cleanup.policy', topicOverrides, clusterDefaults, staticConfigs).includes('compact'),
    minCleanableDirtyRatio: num('min.cleanable.dirty.ratio'),
    minCompactionLagMs: num('min.compaction.lag.ms'),
    maxCompactionLagMs: num('max.compaction.lag.ms'),
    deleteRetentionMs: num('delete.retention.ms'),
    leaderReplicationThrottledReplicas: str('leader.replication.throttled.replicas'),
    followerReplicationThrottledReplicas: str('follower.replication.throttled.replicas'),
  };
}

/** Resolve one broker's runtime config (per-broker dynamic > cluster dynamic > static > default). */
export function resolveBrokerRuntimeConfig(perBroker: ConfigMap, clusterDefaults: ConfigMap, staticConfigs: ConfigMap): BrokerRuntimeConfig {
  const num = (n: string): number => brokerConfigNumber(n, perBroker, clusterDefaults, staticConfigs);
  const bool = (n: string): boolean => brokerConfigBoolean(n, perBroker, clusterDefaults, staticConfigs);
  return {
    replicaLagTimeMaxMs: num('replica.lag.time.max.ms'),
    brokerSessionTimeoutMs: num('broker.session.timeout.ms'),
    brokerHeartbeatIntervalMs: num('broker.heartbeat.interval.ms'),
    replicaFetchWaitMaxMs: num('replica.fetch.wait.max.ms'),
    replicaFetchMaxBytes: num('replica.fetch.max.bytes'),
    replicaFetchResponseMaxBytes: num('replica.fetch.response.max.bytes'),
    replicaFetchBackoffMs: num('replica.fetch.backoff.ms'),
    replicaSocketTimeoutMs: num('replica.socket.timeout.ms'),
    highWatermarkCheckpointIntervalMs: num('replica.high.watermark.checkpoint.interval.ms'),
    logRetentionCheckIntervalMs: num('log.retention.check.interval.ms'),
    autoLeaderRebalanceEnable: bool('auto.leader.rebalance.enable'),
    leaderImbalanceCheckIntervalMs: num('leader.imbalance.check.interval.seconds') * 1000,
    uncleanLeaderElectionIntervalMs: num('unclean.leader.election.interval.ms'),
    uncleanLeaderElectionEnable: bool('unclean.leader.election.enable'),
    controllerQuorumFetchTimeoutMs: num('controller.quorum.fetch.timeout.ms'),
    controllerQuorumElectionTimeoutMs: num('controller.quorum.election.timeout.ms'),
    leaderReplicationThrottledRate: num('leader.replication.throttled.rate'),
    followerReplicationThrottledRate: num('follower.replication.throttled.rate'),
    replicationQuotaWindowNum: num('replication.quota.window.num'),
    replicationQuotaWindowSizeMs: num('replication.quota.window.size.seconds') * 1000,
    deleteTopicEnable: bool('delete.topic.enable'),
    defaultReplicationFactor: num('default.replication.factor'),
    numPartitions: num('num.partitions'),
    minInsyncReplicas: num('min.insync.replicas'),
    maxIncrementalFetchSessionCacheSlots: num('max.incremental.fetch.session.cache.slots'),
    groups: {
      initialRebalanceDelayMs: num('group.initial.rebalance.delay.ms'),
      minSessionTimeoutMs: num('group.min.session.timeout.ms'),
      maxSessionTimeoutMs: num('group.max.session.timeout.ms'),
      maxSize: num('group.max.size'),
      offsetMetadataMaxBytes: num('offset.metadata.max.bytes'),
      offsetCommitTimeoutMs: num('offsets.commit.timeout.ms'),
      offsetsRetentionCheckIntervalMs: num('offsets.retention.check.interval.ms'),
      offsetsRetentionMs: num('offsets.retention.minutes') * 60_000,
      offsetsTopicNumPartitions: num('offsets.topic.num.partitions'),
      offsetsTopicReplicationFactor: num('offsets.topic.replication.factor'),
      offsetsTopicSegmentBytes: num('offsets.topic.segment.bytes'),
    },
    cleaner: {
      enable: bool('log.cleaner.enable'),
      threads: num('log.cleaner.threads'),
      dedupeBufferSize: num('log.cleaner.dedupe.buffer.size'),
      dedupeBufferLoadFactor: num('log.cleaner.io.buffer.load.factor'),
      ioBufferSize: num('log.cleaner.io.buffer.size'),
      maxIoBytesPerSecond: num('log.cleaner.io.max.bytes.per.second'),
      backoffMs: num('log.cleaner.backoff.ms'),
    },
    txn: {
      transactionalIdExpirationMs: num('transactional.id.expiration.ms'),
      maxTimeoutMs: num('transaction.max.timeout.ms'),
      abortTimedOutIntervalMs: num('transaction.abort.timed.out.transaction.cleanup.interval.ms'),
      removeExpiredIntervalMs: num('transaction.remove.expired.transaction.cleanup.interval.ms'),
      partitionVerificationEnable: bool('transaction.partition.verification.enable'),
      topicNumPartitions: num('transaction.state.log.num.partitions'),
      topicReplicationFactor: num('transaction.state.log.replication.factor'),
      topicSegmentBytes: num('transaction.state.log.segment.bytes'),
      topicMinIsr: num('transaction.state.log.min.isr'),
      loadBufferSize: num('transaction.state.log.load.buffer.size'),
    },
    autoCreateTopicsEnable: bool('auto.create.topics.enable'),
    socketRequestMaxBytes: num('socket.request.max.bytes'),
    maxConnections: num('max.connections'),
  };
}
