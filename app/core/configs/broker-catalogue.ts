/**
 * Every broker-level config Replica Studio knows, with Kafka 4.x defaults, validators and update
 * modes (apache/kafka `ServerLogConfigs`, `ReplicationConfigs`, `ServerConfigs`, `KRaftConfigs`,
 * `QuotaConfig`, `DynamicBrokerConfig`; docs/semantics.md#configs).
 *
 * Guarantees:
 * - Every broker synonym of a topic config in `TOPIC_CONFIGS` is listed here.
 * - Update modes follow `DynamicBrokerConfig`: only the *first* synonym of each topic config is
 *   dynamic (`DynamicLogConfig.ReconfigurableConfigs` = `TOPIC_CONFIG_SYNONYMS.values`), so
 *   `log.retention.ms` is cluster-wide while `log.retention.minutes`/`.hours`, `log.roll.hours`,
 *   `log.roll.jitter.hours` and `log.flush.scheduler.interval.ms` are read-only.
 * - `default: null` marks a config Kafka leaves unset so that a later synonym applies.
 * - `importance` is the one Kafka's ConfigDef declares, which is what the generated broker config
 *   table on kafka.apache.org prints: `LogConfig.SERVER_CONFIG_DEF`/`ServerLogConfigs` (log.*,
 *   num.partitions, auto.create.topics.enable, min.insync.replicas), `CleanerConfig`
 *   (log.cleaner.*), `ServerConfigs` (message.max.bytes, compression.*, delete.topic.enable),
 *   `ReplicationConfigs`, `KRaftConfigs`, `QuorumConfig` (controller.quorum.*) and `QuotaConfig`
 *   (replication.quota.window.*, and `brokerQuotaConfigs()` for the dynamic-only throttle rates).
 *   A broker synonym may rank higher than its topic config (log.retention.ms is HIGH,
 *   retention.ms MEDIUM): Kafka declares them separately.
 * - `effect`: see `effects.ts`; a topic config's broker synonyms share its effect.
 *
 * Simulator choices, stated rather than hidden:
 * - There is no `eligible.leader.replicas.enable`: it was a 3.9 controller config, and Kafka 4.x
 *   turns eligible leader replicas on as the feature `eligible.leader.replicas.version`
 *   (kafka-features.sh upgrade; `cluster.updateFeatures` here). The feature is off on a new
 *   cluster, as in 4.0 (4.1 enables it on new clusters).
 * - `default.replication.factor` gets `>= 1`, stricter than Kafka, which has no validator.
 */
import { BROKER_EFFECTS } from './effects.js';
import { LONG_MAX } from './types.js';
import type { BrokerConfigDef, ConfigEffect, ConfigImportance, ConfigRule, ConfigType, UpdateMode } from './types.js';
import { CLEANUP_POLICIES, COMPRESSION_TYPES, TIMESTAMP_TYPES, TOPIC_CONFIGS } from './topic-catalogue.js';

/** A broker synonym is the cluster default of its topic config, so it shares that config's effect. */
const EFFECT_OF_TOPIC_SYNONYM: ReadonlyMap<string, ConfigEffect> = new Map(
  TOPIC_CONFIGS.flatMap(({ effect, brokerSynonyms }) =>
    effect === undefined ? [] : brokerSynonyms.map((s): [string, ConfigEffect] => [s.name, effect]),
  ),
);

function broker(
  name: string,
  importance: ConfigImportance,
  type: ConfigType,
  def: string | null,
  rule: ConfigRule,
  updateMode: UpdateMode,
  doc: string,
): BrokerConfigDef {
  const effect = Object.hasOwn(BROKER_EFFECTS, name) ? BROKER_EFFECTS[name] : EFFECT_OF_TOPIC_SYNONYM.get(name);
  return {
    name,
    scope: 'broker',
    type,
    default: def,
    rule,
    updateMode,
    doc,
    importance,
    ...(effect !== undefined ? { effect } : {}),
    sensitive: false,
  };
}

const atLeast = (min: number): ConfigRule => ({ kind: 'range', min });
const between = (min: number, max: number): ConfigRule => ({ kind: 'range', min, max });
const ANY: ConfigRule = { kind: 'any' };
const HIGH: ConfigImportance = 'high';
const MEDIUM: ConfigImportance = 'medium';
const LOW: ConfigImportance = 'low';
const RO: UpdateMode = 'read-only';
const CW: UpdateMode = 'cluster-wide';
const PB: UpdateMode = 'per-broker';

/** Broker defaults of topic configs (the `log.*` family and friends). */
const LOG_CONFIGS: readonly BrokerConfigDef[] = [
  broker('log.cleanup.policy', MEDIUM, 'list', 'delete', { kind: 'list-subset', values: CLEANUP_POLICIES }, CW,
    'Default cleanup.policy for topics without an override.'),
  broker('compression.type', HIGH, 'string', 'producer', { kind: 'enum', values: COMPRESSION_TYPES }, CW,
    'Default compression.type for topics without an override.'),
  broker('compression.gzip.level', MEDIUM, 'int', '-1', { kind: 'range', min: 1, max: 9, alsoAllowed: -1 }, CW,
    'Default gzip level for topics without an override.'),
  broker('compression.lz4.level', MEDIUM, 'int', '9', between(1, 17), CW, 'Default LZ4 level for topics without an override.'),
  broker('compression.zstd.level', MEDIUM, 'int', '3', between(-131072, 22), CW,
    'Default Zstandard level for topics without an override.'),
  broker('log.cleaner.delete.retention.ms', MEDIUM, 'long', '86400000', atLeast(0), CW, 'Default delete.retention.ms: how long tombstones outlive the cleaning that first reached them.'),
  broker('log.cleaner.max.compaction.lag.ms', MEDIUM, 'long', LONG_MAX, atLeast(1), CW, 'Default max.compaction.lag.ms: past it a dirty log is cleaned whatever its ratio.'),
  broker('log.cleaner.min.cleanable.ratio', MEDIUM, 'double', '0.5', between(0, 1), CW, 'Default min.cleanable.dirty.ratio: the dirty share of a log above which the cleaner takes it.'),
  broker('log.cleaner.min.compaction.lag.ms', MEDIUM, 'long', '0', atLeast(0), CW, 'Default min.compaction.lag.ms: dirty segments younger than this are not cleaned.'),
  broker('log.flush.interval.messages', HIGH, 'long', LONG_MAX, atLeast(1), CW, 'Default flush.messages.'),
  broker('log.flush.offset.checkpoint.interval.ms', HIGH, 'int', '60000', atLeast(0), RO,
    'How often the recovery point (the offset up to which each log is flushed) is written to disk; recovery after a crash starts from it.'),
  broker('log.flush.start.offset.checkpoint.interval.ms', HIGH, 'int', '60000', atLeast(0), RO,
    'How often each log start offset is written to disk. Here the log start offset is stored with the log as it changes, so this interval does not change what a restart sees.'),
  broker('log.flush.interval.ms', HIGH, 'long', null, ANY, CW,
    'Default flush.ms; when unset, log.flush.scheduler.interval.ms applies.'),
  broker('log.flush.scheduler.interval.ms', HIGH, 'long', LONG_MAX, ANY, RO,
    'How often the flusher checks whether any log needs an fsync; also the fallback for flush.ms.'),
  broker('log.index.interval.bytes', MEDIUM, 'int', '4096', atLeast(0), CW, 'Default index.interval.bytes.'),
  broker('log.index.size.max.bytes', MEDIUM, 'int', '10485760', atLeast(4), CW, 'Default segment.index.bytes.'),
  broker('log.message.timestamp.after.max.ms', MEDIUM, 'long', '3600000', atLeast(0), CW,
    'Default message.timestamp.after.max.ms.'),
  broker('log.message.timestamp.before.max.ms', MEDIUM, 'long', LONG_MAX, atLeast(0), CW,
    'Default message.timestamp.before.max.ms.'),
  broker('log.message.timestamp.type', MEDIUM, 'string', 'CreateTime', { kind: 'enum', values: TIMESTAMP_TYPES }, CW,
    'Default message.timestamp.type.'),
  broker('log.preallocate', MEDIUM, 'boolean', 'false', ANY, CW, 'Default preallocate.'),
  broker('log.retention.bytes', HIGH, 'long', '-1', ANY, CW, 'Default retention.bytes (per partition; -1 = no limit).'),
  broker('log.retention.ms', HIGH, 'long', null, ANY, CW,
    'Default retention.ms; when unset, log.retention.minutes then log.retention.hours apply (negative = no limit).'),
  broker('log.retention.minutes', HIGH, 'int', null, ANY, RO,
    'Retention in minutes, used when log.retention.ms is unset.'),
  broker('log.retention.hours', HIGH, 'int', '168', ANY, RO,
    'Retention in hours, used when log.retention.ms and log.retention.minutes are unset.'),
  broker('log.retention.check.interval.ms', MEDIUM, 'long', '300000', atLeast(1), RO,
    'How often each broker looks for log segments that retention.ms or retention.bytes allow it to delete.'),
  broker('log.roll.jitter.ms', HIGH, 'long', null, ANY, CW,
    'Default segment.jitter.ms; when unset, log.roll.jitter.hours applies.'),
  broker('log.roll.jitter.hours', HIGH, 'int', '0', atLeast(0), RO, 'Roll jitter in hours, used when log.roll.jitter.ms is unset.'),
  broker('log.roll.ms', HIGH, 'long', null, ANY, CW, 'Default segment.ms; when unset, log.roll.hours applies.'),
  broker('log.roll.hours', HIGH, 'int', '168', atLeast(1), RO, 'Segment roll age in hours, used when log.roll.ms is unset.'),
  broker('log.segment.bytes', HIGH, 'int', '1073741824', atLeast(1048576), CW, 'Default segment.bytes (at least 1 MiB).'),
  broker('log.segment.delete.delay.ms', HIGH, 'long', '60000', atLeast(0), CW, 'Default file.delete.delay.ms.'),
  broker('message.max.bytes', HIGH, 'int', '1048588', atLeast(0), CW, 'Default max.message.bytes: the largest batch a topic accepts.'),
  broker('num.recovery.threads.per.data.dir', HIGH, 'int', '2', atLeast(1), CW,
    'Threads per data directory that recover logs at startup and flush them at shutdown (2 from Kafka 4.0, KIP-1030). The simulator opens logs in one pass, so the value changes no timing here. Kafka also refuses a dynamic change to less than half or more than double the current value; the simulator takes any value of at least 1.'),
  broker('min.insync.replicas', HIGH, 'int', '1', atLeast(1), CW,
    'Default min.insync.replicas: the ISR size an acks=all write needs.'),
  broker('unclean.leader.election.enable', HIGH, 'boolean', 'false', ANY, CW,
    'Default unclean.leader.election.enable: whether an out-of-sync replica may be elected, losing data.'),
];

/**
 * The log cleaner (apache/kafka `CleanerConfig`; app/core/log/cleaner does what each says): its
 * thread pool, buffers and throttle are cluster-wide dynamic (`LogCleaner.ReconfigurableConfigs`),
 * `log.cleaner.enable` is read-only.
 */
const CLEANER_CONFIGS: readonly BrokerConfigDef[] = [
  broker('log.cleaner.backoff.ms', MEDIUM, 'long', '15000', atLeast(0), CW,
    'How long a cleaner sleeps when no compacted log is dirty enough; it then also applies retention to compact,delete logs.'),
  broker('log.cleaner.dedupe.buffer.size', MEDIUM, 'long', '134217728', ANY, CW,
    'Memory of the offset maps, shared by the cleaner threads: each key takes 24 bytes, so one cleaning covers at most (size / threads / 24 × load factor) keys of the dirty log and cleans the rest later. At least 1 MiB per thread.'),
  broker('log.cleaner.enable', MEDIUM, 'boolean', 'true', ANY, RO,
    'Whether the broker runs the log cleaner, which compacts topics with cleanup.policy=compact (__consumer_offsets among them); without it they keep every record and grow without bound, and compact,delete topics get no retention either.'),
  broker('log.cleaner.io.buffer.load.factor', MEDIUM, 'double', '0.9', ANY, CW,
    'How full an offset map may become before a cleaning stops mapping keys (the rest of the dirty log waits for the next cleaning).'),
  broker('log.cleaner.io.buffer.size', MEDIUM, 'int', '524288', atLeast(0), CW,
    'I/O buffers of all cleaner threads: each reads the log half its share at a time (a larger batch is read alone), and the broker serves requests between two reads.'),
  broker('log.cleaner.io.max.bytes.per.second', MEDIUM, 'double', '1.7976931348623157E308', ANY, CW,
    'Throttle of the bytes all cleaners read and write together: a cleaner waits after a read until the average is back at this rate.'),
  broker('log.cleaner.threads', MEDIUM, 'int', '1', atLeast(0), CW,
    "How many logs are cleaned at once, each by its own cleaner with its share of the buffers (Kafka's dynamic update also refuses fewer than 1, or less than half or more than double the current value; the range here is ConfigDef's)."),
];

/**
 * The transaction coordinator (apache/kafka `TransactionLogConfigs`, `TransactionStateManagerConfigs`):
 * its state topic `__transaction_state`, created with these on the first FindCoordinator for a
 * transactional id, and its timeouts. Read-only as in Kafka, but for partition verification.
 */
const TRANSACTION_CONFIGS: readonly BrokerConfigDef[] = [
  broker('transaction.state.log.load.buffer.size', HIGH, 'int', '5242880', atLeast(1), RO,
    'Batch size for reading the transaction log segments when loading producer ids and transactions into the cache.'),
  broker('transaction.state.log.min.isr', HIGH, 'int', '2', atLeast(1), RO,
    'min.insync.replicas of the transaction topic: a transaction state write needs this many in-sync replicas.'),
  broker('transaction.state.log.num.partitions', HIGH, 'int', '50', atLeast(1), RO,
    'Partitions of the transaction topic (should not change after deployment); a transactional id belongs to the partition its hash names.'),
  broker('transaction.state.log.replication.factor', HIGH, 'short', '3', atLeast(1), RO,
    'Replication factor of the transaction topic; its creation fails until the cluster has this many brokers, and transactional producers wait.'),
  broker('transaction.state.log.segment.bytes', HIGH, 'int', '104857600', atLeast(1), RO,
    'Segment size of the transaction topic, kept small for faster log compaction and cache loads.'),
  broker('transaction.max.timeout.ms', HIGH, 'int', '900000', atLeast(1), RO,
    "The largest transaction.timeout.ms a producer may ask for; a larger one fails InitProducerId with INVALID_TRANSACTION_TIMEOUT, so a client cannot hold the partitions' last stable offset for longer."),
  broker('transactional.id.expiration.ms', HIGH, 'int', '604800000', atLeast(1), RO,
    'How long the coordinator keeps a transactional id whose producer sent no transaction status update; then its state is removed (a tombstone in __transaction_state) and the next producer with that id starts afresh.'),
  broker('transaction.abort.timed.out.transaction.cleanup.interval.ms', LOW, 'int', '10000', atLeast(1), RO,
    'How often the coordinator looks for transactions open longer than their timeout and aborts them (fencing their producer epoch).'),
  broker('transaction.remove.expired.transaction.cleanup.interval.ms', LOW, 'int', '3600000', atLeast(1), RO,
    'How often the coordinator removes transactional ids whose transactional.id.expiration.ms has passed.'),
  broker('transaction.partition.verification.enable', LOW, 'boolean', 'true', ANY, CW,
    'Whether a partition leader asks the transaction coordinator that a partition was added to the transaction before it writes the transaction\'s first records there (KIP-890): a late write of an ended transaction is then refused instead of leaving a hanging transaction.'),
];

/** Replication, liveness and cluster behaviour. */
const SERVER_CONFIGS: readonly BrokerConfigDef[] = [
  broker('auto.create.topics.enable', HIGH, 'boolean', 'true', ANY, RO,
    'Whether a Metadata request for an unknown topic creates it with the default settings.'),
  broker('auto.leader.rebalance.enable', HIGH, 'boolean', 'true', ANY, RO,
    'Whether the controller periodically moves leadership back to preferred replicas.'),
  broker('broker.id', HIGH, 'int', '-1', ANY, RO,
    "The broker's id. In KRaft mode it is the node.id; each broker reports its own."),
  broker('node.id', HIGH, 'int', '-1', ANY, RO,
    'The id of this node in the KRaft cluster (the broker id clients see in Metadata); each broker reports its own.'),
  broker('broker.rack', MEDIUM, 'string', null, ANY, RO,
    "The broker's rack, used by rack-aware replica placement (KIP-36) to spread a partition's replicas over racks. Each broker reports its own (set when the broker is added); a profile sets them in cluster.racks."),
  broker('controlled.shutdown.enable', MEDIUM, 'boolean', 'true', ANY, RO,
    'Whether a stopping broker first asks the controller to move its leaderships away and take it out of every ISR. The simulator always shuts down in this controlled way (brokers.stop); brokers.kill and brokers.powerLoss are the uncontrolled stops.'),
  broker('broker.heartbeat.interval.ms', MEDIUM, 'int', '2000', ANY, RO, 'How often a broker heartbeats to the controller.'),
  broker('broker.session.timeout.ms', MEDIUM, 'int', '9000', ANY, RO,
    'How long the controller waits without a heartbeat before fencing a broker.'),
  broker('controller.quorum.election.timeout.ms', HIGH, 'int', '1000', ANY, RO,
    'How long a controller voter waits before starting a new controller election.'),
  broker('controller.quorum.fetch.timeout.ms', HIGH, 'int', '2000', ANY, RO,
    'How long a controller voter waits for the active controller before it suspects it.'),
  broker('default.replication.factor', MEDIUM, 'int', '1', atLeast(1), RO,
    'Replication factor of topics created without one (including auto-created topics).'),
  broker('delete.topic.enable', HIGH, 'boolean', 'true', ANY, RO,
    'Whether topics may be deleted; otherwise deletion fails with TOPIC_DELETION_DISABLED.'),
  // importance not confirmed in the docs table: MEDIUM is from QuotaConfig.brokerQuotaConfigs(), the
  // ConfigDef of the dynamic-only throttle rates, which the generated broker table may not include.
  broker('follower.replication.throttled.rate', MEDIUM, 'long', LONG_MAX, atLeast(0), PB,
    'Bytes per second available to throttled follower fetches on this broker.'),
  broker('leader.imbalance.check.interval.seconds', HIGH, 'long', '300', atLeast(1), RO,
    'How often the controller checks whether leadership should move back to preferred replicas.'),
  // importance not confirmed in the docs table (see follower.replication.throttled.rate).
  broker('leader.replication.throttled.rate', MEDIUM, 'long', LONG_MAX, atLeast(0), PB,
    'Bytes per second this broker may serve to throttled follower fetches.'),
  broker('max.connections', MEDIUM, 'int', '2147483647', atLeast(0), CW,
    'The most client connections a broker\'s Kafka listener accepts at once; more are closed as they arrive.'),
  broker('num.partitions', MEDIUM, 'int', '1', atLeast(1), RO, 'Partition count of topics created without one.'),
  broker('num.replica.fetchers', HIGH, 'int', '1', atLeast(1), CW, 'Fetcher threads per source broker.'),
  broker('max.incremental.fetch.session.cache.slots', MEDIUM, 'int', '1000', atLeast(0), RO,
    "The most consumers' incremental fetch sessions (KIP-227) a broker keeps; a consumer without one gets full fetch answers."),
  broker('replica.fetch.backoff.ms', MEDIUM, 'int', '1000', atLeast(0), RO, 'Pause after a replica fetch fails.'),
  broker('replica.fetch.max.bytes', MEDIUM, 'int', '1048576', atLeast(0), RO,
    'Bytes a follower asks for per partition in one fetch (a larger first batch is still returned).'),
  broker('replica.fetch.min.bytes', HIGH, 'int', '1', ANY, RO, 'Bytes a replica fetch waits for before the leader answers.'),
  broker('replica.fetch.response.max.bytes', MEDIUM, 'int', '10485760', atLeast(0), RO,
    'Bytes a whole replica fetch response may carry.'),
  broker('replica.fetch.wait.max.ms', HIGH, 'int', '500', ANY, RO,
    'Longest the leader holds a replica fetch while waiting for replica.fetch.min.bytes.'),
  broker('replica.high.watermark.checkpoint.interval.ms', HIGH, 'long', '5000', ANY, RO,
    'How often each broker writes its high watermarks to disk.'),
  broker('replica.lag.time.max.ms', HIGH, 'long', '30000', ANY, RO,
    'A follower that has not caught up within this time is removed from the ISR.'),
  broker('replica.selector.class', MEDIUM, 'string', null, ANY, RO,
    'The ReplicaSelector that lets consumers fetch from the closest replica (KIP-392, with the consumer\'s client.rack); unset, consumers fetch from the leader. Replica Studio\'s consumers always fetch from the leader.'),
  broker('replica.socket.receive.buffer.bytes', HIGH, 'int', '65536', ANY, RO,
    'Socket receive buffer of replica fetch connections. Replication here runs over the simulated network, whose links have their own delay and bandwidth, so this value changes nothing.'),
  broker('replica.socket.timeout.ms', HIGH, 'int', '30000', ANY, RO, 'Network timeout of replica fetch requests.'),
  broker('replication.quota.window.num', LOW, 'int', '11', atLeast(1), RO,
    'Number of samples the replication throttle averages over.'),
  broker('replication.quota.window.size.seconds', LOW, 'int', '1', atLeast(1), RO,
    'Length of each replication throttle sample.'),
  broker('socket.request.max.bytes', HIGH, 'int', '104857600', atLeast(1), RO,
    'The largest request a Kafka listener reads; a larger frame closes the connection.'),
  // importance not confirmed in the docs: Kafka defines this one with defineInternal (MEDIUM in
  // ReplicationConfigs.CONFIG_DEF), so the generated broker table does not list it.
  broker('unclean.leader.election.interval.ms', MEDIUM, 'long', '300000', atLeast(1), RO,
    'How often the controller looks for leaderless partitions it may elect uncleanly.'),
];

/**
 * The group coordinator (apache/kafka `GroupCoordinatorConfig`, Kafka 3.9: the classic protocol).
 * All read-only, as in Kafka. `offsets.topic.*` shape `__consumer_offsets` when it is created, on
 * the first FindCoordinator, and never after. The docs are Kafka's own, shortened where they
 * describe machinery the simulator does not have (the load buffer, compaction).
 */
const GROUP_COORDINATOR_CONFIGS: readonly BrokerConfigDef[] = [
  broker('group.initial.rebalance.delay.ms', MEDIUM, 'int', '3000', ANY, RO,
    'The amount of time the group coordinator will wait for more consumers to join a new group before performing the first rebalance. A longer delay means potentially fewer rebalances, but increases the time until processing begins.'),
  broker('group.max.session.timeout.ms', MEDIUM, 'int', '1800000', ANY, RO,
    'The maximum allowed session timeout for registered consumers. Longer timeouts give consumers more time to process messages in between heartbeats at the cost of a longer time to detect failures.'),
  broker('group.max.size', MEDIUM, 'int', '2147483647', atLeast(1), RO,
    'The maximum number of consumers that a single consumer group can accommodate.'),
  broker('group.min.session.timeout.ms', MEDIUM, 'int', '6000', ANY, RO,
    'The minimum allowed session timeout for registered consumers. Shorter timeouts result in quicker failure detection at the cost of more frequent consumer heartbeating, which can overwhelm broker resources.'),
  broker('offset.metadata.max.bytes', HIGH, 'int', '4096', ANY, RO,
    'The maximum size for a metadata entry associated with an offset commit.'),
  broker('offsets.commit.timeout.ms', HIGH, 'int', '5000', atLeast(1), RO,
    'Offset commit will be delayed until all replicas for the offsets topic receive the commit or this timeout is reached. This is similar to the producer request timeout.'),
  broker('offsets.retention.check.interval.ms', HIGH, 'long', '600000', atLeast(1), RO,
    'Frequency at which to check for stale offsets.'),
  broker('offsets.retention.minutes', HIGH, 'int', '10080', atLeast(1), RO,
    'For subscribed consumers, a committed offset is discarded once this period has elapsed after the group lost all its consumers (became empty), or since its last commit once the group no longer subscribes to its topic; for standalone consumers (manual assignment), this period after the last commit. Deleting a group or a topic removes its offsets at once.'),
  broker('offsets.topic.num.partitions', HIGH, 'int', '50', atLeast(1), RO,
    'The number of partitions for the offset commit topic (should not change after deployment).'),
  broker('offsets.topic.replication.factor', HIGH, 'short', '3', atLeast(1), RO,
    'The replication factor for the offsets topic (set higher to ensure availability). Internal topic creation will fail until the cluster size meets this replication factor requirement.'),
  broker('offsets.topic.segment.bytes', HIGH, 'int', '104857600', atLeast(1), RO,
    'The segment size of the offsets topic, kept small so that a new coordinator loads it quickly.'),
];

/**
 * The authorizer and client quotas (ServerConfigs.AUTHORIZER_CLASS_NAME_CONFIG, StandardAuthorizer's
 * super.users and allow.everyone.if.no.acl.found, BrokerSecurityConfigs, QuotaConfig): static, set
 * in server.properties (`npm run serve -- --broker-config KEY=VALUE`), as in Kafka. The one
 * authorizer available is KRaft's StandardAuthorizer.
 */
const SECURITY_CONFIGS: readonly BrokerConfigDef[] = [
  broker('authorizer.class.name', LOW, 'string', '', { kind: 'enum', values: ['', 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'] }, RO,
    'The authorizer that checks every request against the ACL bindings; empty: none (every request is allowed). org.apache.kafka.metadata.authorizer.StandardAuthorizer keeps the bindings in the metadata log.'),
  broker('super.users', LOW, 'string', null, ANY, RO,
    'Principals the authorizer always allows, separated by semicolons (User:admin;User:ops).'),
  broker('allow.everyone.if.no.acl.found', LOW, 'boolean', 'false', ANY, RO,
    'Whether the authorizer allows a request on a resource that has no ACL binding at all; a resource with bindings for anyone is decided by them alone.'),
  broker('ssl.principal.mapping.rules', LOW, 'string', 'DEFAULT', ANY, RO,
    'Rules that map the distinguished name of a TLS client certificate to a user name (RULE:pattern/replacement/[LU], …, DEFAULT keeps the whole name).'),
  broker('quota.window.num', LOW, 'int', '11', atLeast(1), RO, 'Number of samples a client quota averages a client\'s rate over.'),
  broker('quota.window.size.seconds', LOW, 'int', '1', atLeast(1), RO, 'Length of each client quota sample.'),
  broker('controller.quota.window.num', LOW, 'int', '11', atLeast(1), RO, 'Number of samples of the controller mutation quota.'),
  broker('controller.quota.window.size.seconds', LOW, 'int', '1', atLeast(1), RO, 'Length of each controller mutation quota sample.'),
];

export const BROKER_CONFIGS: readonly BrokerConfigDef[] = [...LOG_CONFIGS, ...CLEANER_CONFIGS, ...SERVER_CONFIGS, ...GROUP_COORDINATOR_CONFIGS, ...TRANSACTION_CONFIGS, ...SECURITY_CONFIGS];
