/**
 * The active controller (KRaft's QuorumController, hosted on one broker): it owns the metadata
 * log, registers brokers and tracks their sessions, fences brokers whose heartbeats stop, applies
 * the ISR changes leaders propose, elects leaders, creates and deletes topics, runs
 * reassignments and the two periodic tasks (auto leader rebalance, unclean election).
 *
 * Invariants:
 * - Every decision is a record committed to the metadata log first; the controller's image and
 *   every broker's image are the log applied in order.
 * - A fenced, unregistered or shutting-down broker is removed from every ISR in one batch
 *   (except where it is the last member), and its leaderships move by clean election.
 * - Heartbeat times are soft state: a newly activated controller gives every registered,
 *   unfenced broker a fresh session.
 * The admin APIs (CreateTopics, CreatePartitions, configs, ElectLeaders, reassignments) live in
 * admin-apis.ts, AlterPartition's checks in alter-partition.ts, the auto leader rebalance and the
 * unclean election in periodic-tasks.ts, the events each record means in record-events.ts,
 * registration, heartbeats, sessions, controlled shutdown and fencing in broker-lifecycle.ts; this
 * file is the controller's log, snapshots, activation, the one commit path (append, apply to the
 * image and to BrokersToIsrs, push to brokers, snapshot) and the requests from brokers.
 */
import { KAFKA_ERRORS, KafkaError, type KafkaErrorName } from '../../api/errors.js';
import type { EngineEvent } from '../../api/events.js';
import type { MetadataStore } from '../log/log-store.js';
import type {
  AllocateProducerIdsRequest,
  AllocateProducerIdsResponse,
  ControllerRequest,
  CreateTopicRequest,
  CreateTopicResponse,
  ReplicaOfflineRequest,
} from '../broker/messages.js';
import { MetadataImage, type TopicImage } from '../metadata/image.js';
import type { ImageSnapshot } from '../metadata/snapshot.js';
import type { CommittedRecord, MetadataRecord, PartitionState } from '../metadata/records.js';
import type { Network, NodeId } from '../network.js';
import type { PlacementStrategy } from '../placement/index.js';
import type { Random } from '../random.js';
import { resolveBrokerRuntimeConfig, resolveTopicRuntimeConfig, type BrokerRuntimeConfig, type TopicRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import { BrokerLifecycle } from './broker-lifecycle.js';
import { ControllerAdmin, type AlterConfigsOptions, type CreateTopicInput, type ElectionResult, type ReassignmentResult } from './admin-apis.js';
import { handleAlterPartition } from './alter-partition.js';
import { BrokersToIsrs } from './brokers-to-isrs.js';
import { LeaderlessPartitions } from './leaderless.js';
import { MetadataLog } from './metadata-log.js';
import { FeatureControl } from './features.js';
import { PeriodicTasks } from './periodic-tasks.js';
import { SecurityControl } from './security-control.js';
import { eventsFor } from './record-events.js';
import { changeReason, type ChangeContext } from './partition-change.js';
import { acceptableLeaders, changeContextFor, leaveIsrChange } from './change-context.js';

export interface ControllerDeps {
  scheduler: Scheduler;
  network: Network;
  random: Random;
  store: MetadataStore;
  staticConfigs: Readonly<Record<string, string>>;
  placement: PlacementStrategy;
  emit: (event: EngineEvent) => void;
  onChange: (reason: string) => void;
}

export type { AlterConfigsOptions, CreateTopicInput, ElectionResult, ReassignmentResult } from './admin-apis.js';

export { SNAPSHOT_INTERVAL_RECORDS } from './metadata-log.js';
/** Producer ids per AllocateProducerIds block (Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
const PRODUCER_ID_BLOCK_SIZE = 1000;

export class Controller {
  readonly image = new MetadataImage();
  private readonly metadataLog: MetadataLog;
  /** Configs resolved once per change, not per check (a check runs per partition of a fencing). */
  private brokerConfig: BrokerRuntimeConfig | null = null;
  private readonly topicConfigs = new Map<string, TopicRuntimeConfig>();
  hostBrokerId: number | null = null;
  private generation = 0;
  private readonly periodic: PeriodicTasks;
  private readonly admin: ControllerAdmin;
  /** Finalized feature levels (KIP-584): eligible.leader.replicas.version. */
  readonly features: FeatureControl;
  /** ACL bindings, SCRAM credentials and client quotas (security-control.ts). */
  readonly security: SecurityControl;
  readonly leaderless = new LeaderlessPartitions(); // what an unfence re-elects from (leaderless.ts)
  /** Each broker's ISR and ELR memberships, leaderships and replicas (brokers-to-isrs.ts). */
  readonly brokersToIsrs = new BrokersToIsrs();
  /** Registration, heartbeats, sessions, controlled shutdown and fencing (broker-lifecycle.ts). */
  private readonly brokerLifecycle: BrokerLifecycle;

  constructor(private readonly deps: ControllerDeps) {
    this.admin = new ControllerAdmin({
      image: this.image,
      random: deps.random,
      placement: deps.placement,
      now: () => this.now(),
      config: () => this.config(),
      requireActive: () => this.requireActive(),
      commit: (records) => this.commit(records),
      emit: (event) => deps.emit(event),
      changeContext: (topic, state, excluded) => this.ctx(topic, state, excluded),
      topicUncleanAllowed: (topic) => this.topicUncleanAllowed(topic),
      minIsrChange: (type, name, set) => this.features.minIsrChange(type, name, set),
    });
    this.periodic = new PeriodicTasks({
      image: this.image,
      scheduler: deps.scheduler,
      isActive: () => this.isActive,
      config: () => this.config(),
      after: (ms, fn) => this.after(ms, fn),
      commit: (records) => this.commit(records),
      changeContext: (topic, state) => this.ctx(topic, state),
      topicUncleanAllowed: (topic) => this.topicUncleanAllowed(topic),
    });
    this.features = new FeatureControl({
      image: this.image,
      staticConfigs: deps.staticConfigs,
      requireActive: () => this.requireActive(),
      commit: (records) => this.commit(records),
      changeContext: (topic, state) => this.ctx(topic, state),
    });
    this.security = new SecurityControl({ image: this.image, random: deps.random, requireActive: () => this.requireActive(), commit: (records) => this.commit(records) });
    this.metadataLog = new MetadataLog(this.image, deps.store);
    this.brokerLifecycle = new BrokerLifecycle({
      image: this.image,
      scheduler: deps.scheduler,
      metadataLog: this.metadataLog,
      leaderless: this.leaderless,
      brokersToIsrs: this.brokersToIsrs,
      config: () => this.config(),
      after: (ms, fn) => this.after(ms, fn),
      requireActive: () => this.requireActive(),
      commit: (records) => this.commit(records),
      endOffset: () => this.endOffset,
      changeContext: (topic, state, excluded, uncleanShutdown) => this.ctx(topic, state, excluded, uncleanShutdown),
    });
    this.metadataLog.load();
    this.leaderless.rebuild(this.image);
    this.brokersToIsrs.rebuild(this.image);
  }

  get isActive(): boolean {
    return this.hostBrokerId !== null;
  }

  /** The metadata log's end (offset of the next record). */
  get endOffset(): number {
    return this.image.offset + 1;
  }

  /** The records after the previous snapshot from `fromOffset` on (from memory or the store). */
  records(fromOffset = 0): CommittedRecord[] {
    return this.metadataLog.records(fromOffset);
  }

  /** How many metadata records the controller keeps in memory (metadata-log.ts). */
  get recordsInMemory(): number {
    return this.metadataLog.recordsInMemory;
  }

  /** The latest metadata snapshot (null before the first). */
  latestSnapshot(): ImageSnapshot | null {
    return this.metadataLog.latestSnapshot();
  }

  /** Write a snapshot of the image now (metadata-log.ts; also when the cluster closes in order). */
  takeSnapshot(): void {
    this.metadataLog.takeSnapshot(this.now());
  }

  private now(): number {
    return this.deps.scheduler.now();
  }

  config(): BrokerRuntimeConfig {
    return (this.brokerConfig ??= resolveBrokerRuntimeConfig({}, this.image.clusterConfigs(), this.deps.staticConfigs));
  }

  private topicConfig(topic: TopicImage): TopicRuntimeConfig {
    let cfg = this.topicConfigs.get(topic.topicId);
    if (!cfg) {
      cfg = resolveTopicRuntimeConfig(topic.configs, this.image.clusterConfigs(), this.deps.staticConfigs);
      this.topicConfigs.set(topic.topicId, cfg);
    }
    return cfg;
  }

  private configsChanged(): void {
    this.brokerConfig = null;
    this.topicConfigs.clear();
  }

  // ================================================================ activation

  activate(hostBrokerId: number): void {
    this.generation++;
    this.hostBrokerId = hostBrokerId;
    this.deps.network.bind('controller', (from, msg, reply) => this.handle(from, msg as ControllerRequest, reply));
    // Heartbeat times are soft state: every registered, unfenced broker gets a fresh session.
    this.brokerLifecycle.freshSessions();
    this.periodic.reset();
    this.periodic.afterCommit();
  }

  deactivate(): void {
    this.generation++;
    this.hostBrokerId = null;
    this.deps.network.unbind('controller', true);
    this.brokerLifecycle.endSessions();
    this.periodic.reset();
  }

  private after(ms: number, fn: () => void): TimerHandle {
    const gen = this.generation;
    return this.deps.scheduler.schedule(ms, () => {
      if (gen === this.generation) fn();
    });
  }

  requireActive(): void {
    if (!this.isActive) throw new KafkaError('NOT_CONTROLLER', 'No active controller: a controller election is in progress. Retry in a few seconds.');
  }

  // ================================================================ commit

  /** Append records to the metadata log, apply them, persist them, and push them to brokers. */
  commit(records: MetadataRecord[]): CommittedRecord[] {
    if (records.length === 0) return [];
    const now = this.now();
    let offset = this.endOffset;
    const committed = records.map((record) => ({ offset: offset++, timestampMs: now, record: freezeState(record) }));
    const events: EngineEvent[] = [];
    let brokersChanged = false;
    // Partition states only change through Partition/PartitionChange records, so the checks
    // below need only look at those (a full scan per commit made creating 2,000 topics quadratic);
    // a config change may switch auto-rebalance on, so it checks every partition.
    let touched: PartitionState[] | null = [];
    for (const c of committed) {
      eventsFor(this.image, c, events);
      if (c.record.type === 'RegisterBroker' || c.record.type === 'BrokerRegistrationChange' || c.record.type === 'UnregisterBroker') brokersChanged = true;
      if (c.record.type === 'Partition' || c.record.type === 'PartitionChange') touched?.push(c.record.state);
      else if (c.record.type === 'Config') touched = null;
      this.image.apply(c);
      this.leaderless.note(c.record);
      this.brokersToIsrs.note(this.image, c.record);
      if (c.record.type === 'Config' || c.record.type === 'RemoveTopic') this.configsChanged();
    }
    this.metadataLog.append(committed, now);
    for (const id of this.image.brokers.keys()) {
      if (this.deps.network.isUp(id)) this.deps.network.send('controller', id, { type: 'metadataPush', records: committed });
    }
    for (const e of events) this.deps.emit(e);
    if (brokersChanged) this.deps.onChange('registration changed');
    this.periodic.afterCommit(touched ?? undefined);
    return committed;
  }

  // ================================================================ requests from brokers

  private handle(from: NodeId, msg: ControllerRequest, reply: (res: unknown) => void): void {
    if (!this.isActive) return;
    switch (msg.type) {
      case 'register':
        return reply(this.brokerLifecycle.handleRegister(msg));
      case 'heartbeat':
        return reply(this.brokerLifecycle.handleHeartbeat(msg));
      case 'alterPartition':
        return reply(handleAlterPartition({ image: this.image, commit: (records) => this.commit(records), changeContext: (topic, state) => this.ctx(topic, state) }, msg));
      case 'replicaOffline':
        return reply(this.handleReplicaOffline(msg));
      case 'createTopic':
        return reply(this.handleCreateTopic(msg));
      case 'allocateProducerIds':
        return reply(this.handleAllocateProducerIds(msg));
    }
  }

  /** A broker needs a topic a client asked for (CreateTopics forwarded by its AutoTopicCreationManager). */
  private handleCreateTopic(req: CreateTopicRequest): CreateTopicResponse {
    try {
      this.createTopic({ name: req.name, partitions: req.partitions, replicationFactor: req.replicationFactor, configs: req.configs, createdBy: req.createdBy });
      return { error: 'NONE' };
    } catch (e) {
      if (e instanceof KafkaError && e.code in KAFKA_ERRORS) return { error: e.code as KafkaErrorName, message: e.message };
      throw e;
    }
  }

  /**
   * Kafka's AllocateProducerIds: the next block of producer ids goes to the asking broker, and
   * the metadata log records where the following block starts, so ids are never handed out twice,
   * across controller failovers and restarts.
   */
  private handleAllocateProducerIds(req: AllocateProducerIdsRequest): AllocateProducerIdsResponse {
    const reg = this.image.brokers.get(req.brokerId);
    if (!reg || reg.brokerEpoch !== req.brokerEpoch || reg.fenced) return { error: 'STALE_BROKER_EPOCH', producerIdStart: -1, producerIdLen: 0 };
    const start = this.image.nextProducerId;
    this.commit([{ type: 'ProducerIds', brokerId: req.brokerId, brokerEpoch: req.brokerEpoch, nextProducerId: start + PRODUCER_ID_BLOCK_SIZE }]);
    return { error: 'NONE', producerIdStart: start, producerIdLen: PRODUCER_ID_BLOCK_SIZE };
  }

  /** A broker lost one replica's log: mark it offline, take it out of the ISR and re-elect if it led. */
  private handleReplicaOffline(req: ReplicaOfflineRequest): { error: KafkaErrorName } {
    const reg = this.image.brokers.get(req.brokerId);
    if (!reg || reg.brokerEpoch !== req.brokerEpoch) return { error: 'STALE_BROKER_EPOCH' };
    const topic = this.image.topicsById.get(req.topicId);
    const state = topic?.partitions.get(req.partition);
    const records: MetadataRecord[] = [{ type: 'ReplicaOffline', brokerId: req.brokerId, brokerEpoch: reg.brokerEpoch, topicId: req.topicId, partition: req.partition }];
    if (topic && state && state.isr.includes(req.brokerId)) {
      const change = leaveIsrChange(state, req.brokerId, this.ctx(topic, state, req.brokerId));
      if (change) records.push({ type: 'PartitionChange', state: change.state, reason: changeReason(change, 'isr-shrink'), unclean: change.unclean });
    }
    this.commit(records);
    return { error: 'NONE' };
  }

  private ctx(topic: TopicImage, state: PartitionState, excluded = -1, uncleanShutdown = -1): ChangeContext {
    return changeContextFor(this.image, this.topicConfig(topic), state, acceptableLeaders(this.image, excluded, state), uncleanShutdown);
  }

  private topicUncleanAllowed(topic: TopicImage): boolean {
    return this.topicConfig(topic).uncleanLeaderElectionEnable;
  }

  // ================================================================ admin APIs (admin-apis.ts)

  /** CreateTopics. Returns the partitions it would create (validateOnly) or created. */
  createTopic(input: CreateTopicInput): { topicId: string; partitions: PartitionState[] } {
    return this.admin.createTopic(input);
  }

  deleteTopic(name: string): void {
    this.admin.deleteTopic(name);
  }

  /** CreatePartitions: grow a topic to `totalCount` partitions. */
  createPartitions(name: string, totalCount: number, assignments?: number[][], validateOnly = false): PartitionState[] {
    return this.admin.createPartitions(name, totalCount, assignments, validateOnly);
  }

  /** IncrementalAlterConfigs for one resource (broker name '' = the cluster-wide default). */
  alterConfigs(resourceType: 'topic' | 'broker', resourceName: string, set: Record<string, string | null>, validateOnly = false, options: AlterConfigsOptions = {}): void {
    this.admin.alterConfigs(resourceType, resourceName, set, validateOnly, options);
  }

  /** ElectLeaders (KIP-460). `partitions` undefined = every partition. */
  electLeaders(type: 'preferred' | 'unclean', partitions: { topic: string; partition: number }[] | undefined, validateOnly = false): ElectionResult[] {
    return this.admin.electLeaders(type, partitions, validateOnly);
  }

  /** AlterPartitionReassignments (KIP-455): `replicas` null cancels. */
  alterReassignments(items: { topic: string; partition: number; replicas: number[] | null }[]): ReassignmentResult[] {
    return this.admin.alterReassignments(items);
  }

  listReassignments(): { topic: string; partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }[] {
    return this.admin.listReassignments();
  }

  /** UnregisterBroker: the broker leaves the cluster (it must be stopped first). */
  unregisterBroker(brokerId: number): void {
    this.brokerLifecycle.unregisterBroker(brokerId);
  }
}

/**
 * A committed partition state is frozen: every image shares it. Its lists are not (their type is
 * readonly instead): V8 (Node 20) takes a slow path for the array builtins on a frozen array —
 * filter, some and find run several times slower and for-of allocates — and these run for every
 * partition a fence or a reopen touches.
 */
function freezeState(record: MetadataRecord): MetadataRecord {
  if (record.type === 'Partition' || record.type === 'PartitionChange') Object.freeze(record.state);
  return record;
}
