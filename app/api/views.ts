/**
 * The DTOs of the public contract: what every method returns, serialisable as JSON (numbers,
 * strings, booleans, null, arrays, plain objects). Names end in `View`; fields are camelCase and
 * use Kafka's vocabulary (`isr`, `leaderEpoch`, `highWatermark`, `logEndOffset`); config keys keep
 * Kafka's spelling. Offsets and times are plain numbers (ms on the engine's clock).
 */
import type { ErrorCode, KafkaErrorName } from './errors.js';
import type { BrokerState } from './events.js';
import type { Capability } from './capabilities.js';
import type { QuorumComparisonView } from './profile-views.js';

/** One broker as `brokers.list` shows it. */
export interface BrokerView {
  id: number;
  /** `broker.rack`, or null when the broker has none. */
  rack: string | null;
  /** Process state, or the controller's view of it while the process runs. */
  state: BrokerState;
  /** Replicas this broker hosts, per the controller's metadata. */
  partitionCount: number;
  /** Partitions this broker leads, per the controller's metadata. */
  leaderCount: number;
  /** Every network link of the broker is cut (`brokers.isolate`). */
  isolated: boolean;
  /** Its replica fetchers are stalled (`brokers.stallFollower`). */
  fetcherStalled: boolean;
  /** It hosts the active controller. */
  isController: boolean;
  /** The epoch of its current registration, -1 when unregistered. */
  brokerEpoch: number;
  /**
   * Disk use: bytes of the record batches this broker stores for all its replicas (Kafka's
   * `kafka.log:type=Log,name=Size` summed over the broker). A broker that is down reports what
   * its storage holds; -1 when its storage cannot be read.
   */
  logBytes: number;
  /**
   * Where its Kafka listener is (127.0.0.1 and a port of its own), also while it is down: a
   * stopped or killed broker refuses connections there, an isolated one accepts and never
   * answers. Null when the host serves no Kafka protocol (a simulated cluster).
   */
  listener: { host: string; port: number } | null;
}

/** The cluster at a glance (`cluster.describe`). */
export interface ClusterView {
  clusterId: string;
  /**
   * `bootstrap.servers` for Kafka clients: every broker's listener, `127.0.0.1:P1,127.0.0.1:P2,…`
   * in broker id order; empty when the host serves no Kafka protocol.
   */
  bootstrapServers: string;
  /**
   * Whether a client's request for a missing topic creates it (the brokers'
   * auto.create.topics.enable); absent where it is not known (an external cluster).
   */
  autoCreateTopics?: boolean;
  /**
   * Broker hosting the active controller; null while a controller election is in progress, or
   * when the connection cannot tell (`unreported.controller` then says why).
   */
  controllerId: number | null;
  brokers: BrokerView[];
  topicCount: number;
  partitionCount: number;
  /**
   * Registered brokers the controller has fenced (a session that expired, a broker that stopped
   * or is still starting), Kafka's `FencedBrokerCount`.
   */
  fencedBrokers: number;
  /** Partitions with no leader (leader -1), Kafka's `OfflinePartitionsCount`. */
  offlinePartitions: number;
  /**
   * What the connection does not report, with the reason (an external cluster): `controller` —
   * a KRaft broker's Metadata and DescribeCluster name any live broker as controller, so the
   * active controller is not known and `controllerId` is null.
   */
  unreported?: { controller?: string };
  /**
   * Partitions whose ISR is smaller than their replica set without the replicas being added by a
   * reassignment (Kafka's `UnderReplicatedPartitions`).
   */
  underReplicatedPartitions: number;
  /**
   * Partitions with a leader whose ISR is smaller than the topic's `min.insync.replicas`
   * (Kafka's `UnderMinIsrPartitionCount`, reported by leaders: offline partitions are not counted).
   */
  underMinIsrPartitions: number;
}

/** One replica's log as its broker sees it (read from disk when the broker is down). */
export interface ReplicaStateView {
  brokerId: number;
  /** Offset of the next record this replica would append. */
  logEndOffset: number;
  /** The replica's own high watermark (a follower's lags the leader's). */
  highWatermark: number;
  logStartOffset: number;
  /** Records below this offset survive a power loss. */
  flushedOffset: number;
}

/** One partition of a topic, as the controller records it plus each replica's log state. */
export interface PartitionView {
  partition: number;
  /** Leader broker id, -1 when the partition is offline. */
  leader: number;
  leaderEpoch: number;
  partitionEpoch: number;
  /** Replica set; `replicas[0]` is the preferred leader. */
  replicas: number[];
  isr: number[];
  /** Replicas a reassignment is adding (empty when none is in progress). */
  addingReplicas: number[];
  /** Replicas a reassignment is removing (empty when none is in progress). */
  removingReplicas: number[];
  /** RECOVERING after an unclean election until the new leader has settled its log. */
  leaderRecoveryState: 'RECOVERED' | 'RECOVERING';
  /**
   * Eligible leader replicas (KIP-966, with `eligible.leader.replicas.version` 1): replicas that
   * left the ISR while it was below min.insync.replicas, so they hold every committed record and
   * may be elected cleanly when the ISR is empty. Empty when the feature is off.
   */
  eligibleLeaderReplicas: number[];
  /** The last known leader, kept while the ISR is empty (KIP-966's LastKnownElr). */
  lastKnownElr: number[];
  /** The leader's high watermark: consumers read below it. */
  highWatermark: number;
  logStartOffset: number;
  replicaStates: ReplicaStateView[];
  /**
   * Bytes of the leader's log (record batches as stored, Kafka's `kafka.log:type=Log,name=Size` of
   * that replica); absent where it was not read (a planned partition, a leader that cannot say).
   */
  sizeBytes?: number;
}

/** A topic a client's request created (Kafka's topic auto-creation): which API, which client, when. */
export interface TopicCreatedByView {
  api: 'Metadata' | 'FindCoordinator';
  /** The client id of the request ('' when it sent none). */
  clientId: string;
  /** The broker whose listener received it. */
  brokerId: number;
  atMs: number;
}

/** A topic with its partitions (`topics.describe`, `topics.create`). */
export interface TopicView {
  name: string;
  topicId: string;
  /** Present when a client's request created the topic rather than an admin. */
  createdBy?: TopicCreatedByView;
  /** The topic's own overrides (dynamic topic configs); `configs.describe` shows every value. */
  configs: Record<string, string>;
  partitions: PartitionView[];
  /**
   * What this connection cannot show, with the reason: an external cluster reports no replica
   * log states (`replicaStates` is then empty because it is unknown, not because there are none).
   */
  unavailable?: Partial<Record<Capability, string>>;
  /**
   * Fields the connection does not report, with the reason (an external cluster): `topicId` —
   * Metadata below v10 carries none and the cluster does not serve DescribeTopicPartitions (the id
   * is then the zero uuid); `partitionEpoch` — Metadata carries no partition epoch (it is then -1).
   */
  unreported?: { topicId?: string; partitionEpoch?: string };
}

/** `cluster.describe` and `topics.describeMany` of every topic, from one read of the cluster (`cluster.snapshot`). */
export interface ClusterSnapshotView {
  cluster: ClusterView;
  /** Every topic, sorted by name, as `topics.describeMany` without `names` shows them. */
  topics: TopicView[];
}

/** One line of `topics.list`. */
export interface TopicSummaryView {
  name: string;
  topicId: string;
  /** Present when a client's request created the topic (auto-creation). */
  createdBy?: TopicCreatedByView;
  partitionCount: number;
  /** Replica count of partition 0 without adding replicas (Kafka's notion of the topic's RF). */
  replicationFactor: number;
  offlinePartitions: number;
  underReplicatedPartitions: number;
  underMinIsrPartitions: number;
}

/** What `topics.delete` removed. */
export interface DeletedTopicView {
  name: string;
  topicId: string;
}

/** Where a described config value came from (Kafka's DescribeConfigs `ConfigSource`). */
export type ConfigSourceView =
  | 'DYNAMIC_TOPIC_CONFIG'
  | 'DYNAMIC_BROKER_CONFIG'
  | 'DYNAMIC_DEFAULT_BROKER_CONFIG'
  | 'STATIC_BROKER_CONFIG'
  | 'DEFAULT_CONFIG';

/** One config of a broker or topic, as `configs.describe` shows it. */
export interface ConfigEntryView {
  /** Kafka's key, verbatim (`min.insync.replicas`). */
  name: string;
  /** The effective value, as Kafka prints it ('' where Kafka reports none). */
  value: string;
  /** Kafka's default ('' where Kafka has none and defers to a synonym). */
  default: string;
  /** The layer the value comes from. */
  source: ConfigSourceView;
  /** A broker config that only the static configuration (plus a restart) can change. */
  readOnly: boolean;
  sensitive: boolean;
  /** One line on what it does. */
  doc: string;
  /** Kafka's ConfigDef type. */
  type: 'boolean' | 'short' | 'int' | 'long' | 'double' | 'string' | 'list';
  /** The validity rule in the notation of Kafka's docs (`[1,...]`), '' when any value of the type goes. */
  validValues: string;
  /** Kafka's importance for the config, as its documentation lists it (`ConfigDef.Importance`). */
  importance: 'high' | 'medium' | 'low';
  /** What the config does to the cluster's guarantees; absent where the catalogue states nothing. */
  effect?: ConfigEffectView;
  /**
   * Every layer that sets this config, most specific first (Kafka's DescribeConfigs synonyms),
   * where the connection reports them (an external cluster does).
   */
  synonyms?: { name: string; value: string; source: ConfigSourceView }[];
  /**
   * The value and layer this config would take without the resource's own setting — a topic
   * without its override, a broker without its dynamic config, the cluster-wide default without
   * its dynamic default: deleting the override gives exactly this. What the console calls the
   * config's default. Absent where the connection reports no synonyms to tell it from.
   */
  inherited?: { value: string; source: ConfigSourceView };
}

/** A config's effect, one plain sentence per aspect (each absent where it has none). */
export interface ConfigEffectView {
  /** Whether acknowledged data survives failures (and how long it is kept). */
  durability?: string;
  /** Whether clients can keep writing and reading, and how fast the cluster recovers. */
  availability?: string;
  /** Throughput, latency and resource use. */
  performance?: string;
}

/** The outcome of one partition's leader election (`leaders.elect`). */
export interface ElectionResultView {
  topic: string;
  partition: number;
  /** The leader after the election (or that it would elect, with validateOnly); -1 when none. */
  leader: number;
  /** The leader before the election; -1 when the partition had none. */
  previousLeader: number;
  /** `NONE`, or why this partition was not elected (`ELECTION_NOT_NEEDED`, …). */
  errorCode: KafkaErrorName;
  message?: string;
}

/** The outcome of one partition's reassignment request (`reassignments.execute` / `.cancel`). */
export interface ReassignmentResultView {
  topic: string;
  partition: number;
  errorCode: KafkaErrorName;
  message?: string;
}

/** One ongoing reassignment (`reassignments.list`), Kafka's ListPartitionReassignments entry. */
export interface ReassignmentView {
  topic: string;
  partition: number;
  /** The full replica set while moving: target replicas first, then the ones being removed. */
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
  /**
   * How far the new replicas have caught up with the leader (the slowest one counts). `basis`
   * `bytes` (an external cluster: the protocol reports replica sizes, not follower offsets): the
   * percent compares sizes, and the log end offsets read -1.
   */
  progress: {
    leaderLogEndOffset: number;
    addingReplicas: { brokerId: number; logEndOffset: number; inIsr: boolean; sizeBytes?: number }[];
    percent: number;
    basis?: 'offsets' | 'bytes';
    leaderSizeBytes?: number;
  };
}

/** Where one partition's reassignment stands (`reassignments.verify`, like `--verify`). */
export interface ReassignmentVerifyView {
  topic: string;
  partition: number;
  /**
   * `completed`: the replica set is the target; `in-progress`: still moving; `mismatch`: no
   * reassignment runs but the replica set differs from the target (a partition that does not
   * exist reads as a mismatch with an empty replica set, as in Kafka's tool).
   */
  status: 'completed' | 'in-progress' | 'mismatch';
  /** The current replica set ([] when the partition does not exist). */
  replicas: number[];
  /** Kafka's wording of the status. */
  message: string;
}

/** What one partition's batch of a `records.produce` request came to. */
export interface ProduceBatchResultView {
  partition: number;
  /** Offset of the batch's first record; -1 when it failed or with acks=0. */
  baseOffset: number;
  /** `NONE` on success, else Kafka's error name (`NOT_ENOUGH_REPLICAS`, `REQUEST_TIMED_OUT`, …). */
  errorCode: KafkaErrorName;
  errorMessage?: string;
  /**
   * Epoch of the leader that appended the batch (the batch's partitionLeaderEpoch, which a later
   * truncation compares with); -1 when nothing was appended or with acks=0 (no answer).
   */
  leaderEpoch: number;
  /** Cluster time at which the leader appended the batch; -1 when nothing was appended or with acks=0. */
  appendedAtMs: number;
}

/**
 * The outcome of `records.produce`. With a partition named, every record goes there as one
 * batch. Without one, each record is partitioned as Kafka's producer does (by the murmur2 hash of
 * its own key; records without a key stick to one partition until `batch.size` bytes), and each
 * partition's records travel as one batch: `batches` has one entry per partition, in the order
 * the partitions first appear among the records.
 *
 * The top-level fields describe the first batch that failed, or the first batch when all
 * succeeded, so a caller that sent to one partition reads them as before.
 */
export interface ProduceResultView extends ProduceBatchResultView {
  batches: (ProduceBatchResultView & {
    /** Indexes of the request's records in this batch, in order: record `records[k]` has offset `baseOffset + k`. */
    records: number[];
  })[];
}

/** A record header: the key is a string, the value UTF-8 text or null. */
export interface HeaderView {
  key: string;
  value: string | null;
}

/** One consumed record; key and value are decoded as UTF-8 (null stays null). */
export interface ConsumedRecordView {
  offset: number;
  key: string | null;
  value: string | null;
  headers: HeaderView[];
  timestamp: number;
  /** Epoch of the leader that appended it. */
  leaderEpoch: number;
}

/** What `records.consume` read: records below the high watermark. */
export interface ConsumeResultView {
  records: ConsumedRecordView[];
  /**
   * Where the next read starts: after the last record returned, or after the last batch read —
   * past offsets a compacted log no longer has, which may leave a read with no record at all
   * (Kafka's consumer moves on by the batch's next offset too).
   */
  nextOffset: number;
  highWatermark: number;
  logStartOffset: number;
}

/** Metrics are event payloads as well as views: they live in metrics.ts, which events.ts imports too. */
export type { BrokerMetricsView, MetricsView, MetricsWithHistoryView, TopicStatsView } from './metrics.js';
export type * from './groups.js';

/** The engine's clock (`clock.get`, `clock.setScale`). */
export interface ClockView {
  /** Engine time in ms. */
  nowMs: number;
  /** Virtual ms per real ms (1–60) in real-time mode; null when the clock is driven by hand. */
  scale: number | null;
  /** `realtime`: a driver advances the clock from real time; `manual`: tests or drills step it. */
  mode: 'realtime' | 'manual';
}

/** The serialisable error inside a failed result envelope (re-exported for one import site). */
export type { ErrorView } from './errors.js';
/** Every error code the contract can return (re-exported for one import site). */
export type { ErrorCode };

// ================================================================ admin (issue 4)

/** Leadership per broker, as `leaders.balance` reports it. */
export interface BrokerLeadershipView {
  brokerId: number;
  /** Partitions this broker leads now. */
  leaders: number;
  /** Partitions whose preferred leader (replicas[0]) is this broker. */
  preferredLeaders: number;
  /** Replicas this broker hosts. */
  replicas: number;
  /** Partitions it should lead (preferred) but another broker leads: Kafka's ZK-era imbalance ratio numerator. */
  preferredButNotLeading: number;
}

/** A partition not led by its preferred replica. */
export interface NotPreferredView {
  topic: string;
  partition: number;
  leader: number;
  preferredLeader: number;
  /** Whether a preferred election could move it now (preferred replica in the ISR and active). */
  electable: boolean;
}

/** Leader distribution, the partitions off their preferred leader, and the auto-rebalance settings. */
export interface LeaderBalanceView {
  brokers: BrokerLeadershipView[];
  notPreferred: NotPreferredView[];
  autoLeaderRebalanceEnable: boolean;
  leaderImbalanceCheckIntervalSeconds: number;
}

/** `leaders.elect` as a preview: per-partition outcomes and leader counts per broker before and after. */
export interface ElectionPreviewView {
  results: ElectionResultView[];
  leadersBefore: Record<string, number>;
  leadersAfter: Record<string, number>;
}

/** One topic of a bulk create or delete. */
export interface TopicBulkResultView {
  name: string;
  errorCode: ErrorCode;
  message?: string;
}

/** Kafka's reassignment JSON (`kafka-reassign-partitions.sh` format, version 1). */
export interface ReassignmentJsonView {
  version: 1;
  partitions: { topic: string; partition: number; replicas: number[]; log_dirs: string[] }[];
}

/** A replication-factor change planned as a reassignment. */
export interface ReplicationFactorChangeView {
  topic: string;
  replicationFactor: number;
  /** Exactly what `reassignments.execute` takes. */
  partitions: { topic: string; partition: number; replicas: number[]; currentReplicas: number[] }[];
  /** Per-partition results when executed (absent with validateOnly). */
  results?: ReassignmentResultView[];
}

// ================================================================ profiles and durability (issue 4)

export type * from './profile-views.js';

/** How many broker failures a topic's settings tolerate, in one sentence each. */
export interface DurabilityView {
  replicationFactor: number;
  minInsyncReplicas: number;
  effectiveMinIsr: number;
  acks: 'all' | 1 | 0;
  uncleanLeaderElectionEnable: boolean;
  writes: { brokerFailures: number; explanation: string };
  reads: { brokerFailures: number; explanation: string };
  acknowledgedWrites: { brokerFailures: number; explanation: string };
  summary: string;
  warnings: { code: string; message: string }[];
  /** The same setup beside a majority-vote quorum. */
  quorum: QuorumComparisonView;
  /**
   * Eligible leader replicas (KIP-966) for this topic: the cluster's finalized
   * `eligible.leader.replicas.version`, what it changes in one paragraph, and the partitions that
   * have eligible replicas or a last known leader now.
   */
  eligibleLeaderReplicas: {
    featureLevel: number;
    explanation: string;
    partitions: { partition: number; eligibleLeaderReplicas: number[]; lastKnownElr: number[] }[];
  };
}

// ================================================================ balance.plan (issue 4)
