/**
 * Events the engine emits, named `noun.pastTense`, for everything the console shows. Every
 * event carries the engine time it happened at (`atMs`).
 */
import type { MetricsView } from './metrics.js';

/** What the console shows for a broker: its process state, or its controller state while running. */
export type BrokerState =
  | 'starting'
  | 'fenced'
  | 'running'
  | 'controlled-shutdown'
  | 'stopped'
  | 'killed'
  | 'power-lost'
  | 'storage-failed';

/** Why a partition's leader or ISR changed. */
export type ChangeReasonView =
  | 'create'
  | 'isr-shrink'
  | 'isr-expand'
  | 'broker-fenced'
  | 'broker-unfenced'
  | 'controlled-shutdown'
  | 'broker-reregistered'
  | 'preferred-election'
  | 'auto-rebalance'
  | 'unclean-election'
  /** KIP-966 "balanced" recovery: the last known leader elected with the ISR and ELR empty (an unclean election). */
  | 'last-known-leader'
  | 'reassignment'
  | 'reassignment-cancel'
  | 'config-change';

/** A classic consumer group's state, as Kafka names it (DescribeGroups, ListGroups). */
export type GroupStateView = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

/** A transactional id's state, as Kafka names it (DescribeTransactions, ListTransactions). */
export type TransactionStateView = 'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort' | 'Dead' | 'PrepareEpochFence';

/** Who created a topic by asking for it (Kafka's topic auto-creation): the API and the client's id. */
export interface TopicCreatorView {
  api: 'Metadata' | 'FindCoordinator';
  clientId: string;
  /** The broker whose listener received the request. */
  brokerId: number;
}

export interface EventMap {
  /** A broker's state changed (process or controller side). */
  'broker.stateChanged': { brokerId: number; state: BrokerState; previous: BrokerState; reason: string };
  /** The active controller moved (failover) or became unavailable (`controllerId` null). */
  'controller.changed': { controllerId: number | null; previousControllerId: number | null; reason: string };
  /** The controller committed a smaller ISR. */
  'isr.shrunk': { topic: string; partition: number; leader: number; isr: number[]; previousIsr: number[]; removed: number[]; partitionEpoch: number; reason: ChangeReasonView };
  /** The controller committed a larger ISR. */
  'isr.expanded': { topic: string; partition: number; leader: number; isr: number[]; previousIsr: number[]; added: number[]; partitionEpoch: number; reason: ChangeReasonView };
  /** A partition got a new leader (or went offline: leader -1). `unclean` when chosen outside the ISR. */
  'leader.changed': { topic: string; partition: number; leader: number; previousLeader: number; leaderEpoch: number; reason: ChangeReasonView; unclean: boolean };
  /** A leader's high watermark moved forward. */
  'highWatermark.advanced': { topic: string; partition: number; brokerId: number; highWatermark: number; previous: number };
  /** A replica removed records from the end of its log. */
  'replica.truncated': { topic: string; partition: number; brokerId: number; fromOffset: number; toOffset: number; leaderEpoch: number; reason: 'diverging-epoch' | 'offset-out-of-range' | 'power-loss' };
  /**
   * A broker's log cleaner finished cleaning its replica of a compacted partition: offsets
   * [firstDirtyOffset, endOffset) were its dirty section, now clean (the log's new checkpoint);
   * the whole log below endOffset was recopied, keeping each key's last record.
   */
  'log.cleaned': {
    topic: string;
    partition: number;
    brokerId: number;
    firstDirtyOffset: number;
    endOffset: number;
    bytesRead: number;
    bytesWritten: number;
    recordsRead: number;
    recordsWritten: number;
    tombstonesRemoved: number;
    tombstonesKept: number;
  };
  /** The log cleaner failed on a replica and will not clean it again until the broker restarts (Kafka's uncleanable partitions). */
  'log.uncleanable': { topic: string; partition: number; brokerId: number; reason: string };
  /** A replica went offline on a broker because its log could not be read (e.g. a CRC mismatch). */
  'replica.offline': { topic: string; partition: number; brokerId: number; errorCode: string; message: string };
  /** A broker's storage failed (disk full, I/O error, corrupt file): like Kafka with its only log directory offline, it halted. */
  'broker.storageFailed': { brokerId: number; errorCode: string; message: string };
  /** A topic was created; `createdBy` when a client's request created it (auto-creation). */
  'topic.created': { topic: string; topicId: string; partitions: number; replicationFactor: number; createdBy?: TopicCreatorView };
  /** A topic was deleted. */
  'topic.deleted': { topic: string; topicId: string };
  /** A topic grew. */
  'partitions.added': { topic: string; previousCount: number; totalCount: number };
  /** A dynamic config changed (value null = deleted, back to its default). */
  'config.changed': { resourceType: 'topic' | 'broker'; resourceName: string; name: string; value: string | null };
  /** A feature's finalized level changed (UpdateFeatures, `kafka-features.sh upgrade|downgrade`). */
  'feature.updated': { feature: string; level: number; previousLevel: number };
  /**
   * The security state in the metadata log changed: an ACL binding created or deleted, a SCRAM
   * credential set or deleted, a client quota set or removed. `description` says which, in words.
   */
  'security.changed': { kind: 'acl' | 'scram-credential' | 'client-quota'; action: 'added' | 'removed' | 'set'; description: string };
  /** How far a moving partition's new replicas have caught up (every second while it changes). */
  'reassignment.progress': {
    topic: string;
    partition: number;
    percent: number;
    leaderLogEndOffset: number;
    addingReplicas: { brokerId: number; logEndOffset: number; inIsr: boolean }[];
  };
  /** A reassignment started, completed or was cancelled for one partition. */
  'reassignment.changed': { topic: string; partition: number; status: 'started' | 'completed' | 'cancelled'; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] };
  /** A consumer group's state changed on its coordinator (`coordinatorId`), e.g. a rebalance began or a generation completed. */
  'group.stateChanged': { groupId: string; coordinatorId: number; state: GroupStateView; previous: GroupStateView; generationId: number; members: number; reason: string };
  /**
   * A transactional id's state changed on its coordinator (`coordinatorId`), once the change was
   * replicated in `__transaction_state` (Kafka's TransactionMetadata states).
   */
  'transaction.stateChanged': {
    transactionalId: string;
    coordinatorId: number;
    producerId: number;
    producerEpoch: number;
    state: TransactionStateView;
    previous: TransactionStateView;
    partitions: number;
    reason: string;
  };
  /** A broker became the transaction coordinator of one `__transaction_state` partition and loaded its transactional ids. */
  'txnCoordinator.loaded': { brokerId: number; txnPartition: number; coordinatorEpoch: number; transactionalIds: string[]; completing: string[] };
  /** A broker became the group coordinator of one `__consumer_offsets` partition and loaded its groups from the log. */
  'coordinator.loaded': { brokerId: number; offsetsPartition: number; leaderEpoch: number; groups: string[] };
  /**
   * Throughput over the last second of engine time, emitted once per second of engine time while
   * the cluster runs (whether or not anything moved). `atMs` is the end of the sampled second.
   * Not kept by `events.recent` (too frequent); `metrics.get` returns the latest.
   */
  'metrics.sampled': Omit<MetricsView, 'atMs'>;
  /** A named `balance.plan` optimised one more goal (`goalsDone` of `goals`; `elapsedMs` since it began, wall time). */
  'balance.progress': { planId: string; goal: string; goalsDone: number; goals: number; elapsedMs: number };
  /**
   * A cluster that takes a while to open (a big data directory) says how far it got: every few
   * seconds while its brokers start (`done` false), and once when every broker that should run
   * does (`done` true). An open that finishes within the first interval emits none.
   * `elapsedMs` is wall time since the host began opening the data directory.
   */
  'cluster.opening': { brokersRunning: number; brokers: number; elapsedMs: number; done: boolean };
  /**
   * A twin being made (`connections.createTwin`) reached its next step: the source read, the
   * twin's brokers started, its topics created, and its partitions filled with synthetic records
   * (`partitionsFilled` of `partitions`, again after each `records.fill` call).
   */
  'twin.progress': { twin: string; source: string; step: TwinStep; partitionsFilled: number; partitions: number };
}

/** A twin's making, in order (`twin.progress`). */
export type TwinStep = 'reading-source' | 'starting-brokers' | 'creating-topics' | 'filling';

export type EventName = keyof EventMap;

/**
 * One emitted event: its name, when, and its payload. `connection` names the cluster it happened
 * in when a host relays events of several (absent: the host's own cluster).
 */
export type EngineEvent = { [K in EventName]: { type: K; atMs: number; connection?: string } & EventMap[K] }[EventName];

export type EventSink = (event: EngineEvent) => void;
