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
 * admin-apis.ts; this file is the controller's log, sessions and requests from brokers.
 */
import { KAFKA_ERRORS, KafkaError, type KafkaErrorName } from '../../api/errors.js';
import type { EngineEvent } from '../../api/events.js';
import type { MetadataStore } from '../log/log-store.js';
import type {
  AllocateProducerIdsRequest,
  AllocateProducerIdsResponse,
  AlterPartitionBatchResponse,
  AlterPartitionItem,
  AlterPartitionRequest,
  AlterPartitionResponse,
  ControllerRequest,
  CreateInternalTopicRequest,
  HeartbeatRequest,
  HeartbeatResponse,
  RegisterRequest,
  RegisterResponse,
  ReplicaOfflineRequest,
} from '../broker/messages.js';
import { clonePartition, MetadataImage, type TopicImage } from '../metadata/image.js';
import { loadSnapshot, snapshotOf, type ImageSnapshot } from '../metadata/snapshot.js';
import type { ChangeReason, CommittedRecord, MetadataRecord, PartitionState } from '../metadata/records.js';
import type { Network, NodeId } from '../network.js';
import type { PlacementStrategy } from '../placement/index.js';
import type { Random } from '../random.js';
import { resolveBrokerRuntimeConfig, resolveTopicRuntimeConfig, type BrokerRuntimeConfig, type TopicRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import { ControllerAdmin, type CreateTopicInput, type ElectionResult, type ReassignmentResult } from './admin-apis.js';
import { elrEnabled, FeatureControl } from './features.js';
import { buildPartitionChange, changeReason, type ChangeContext } from './partition-change.js';

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

interface Session {
  lastHeartbeatMs: number;
  timer: TimerHandle;
  metadataOffset: number;
}

export type { CreateTopicInput, ElectionResult, ReassignmentResult } from './admin-apis.js';

const MAX_ELECTIONS_PER_IMBALANCE = 1000;
const MAX_RECORDS_PER_HEARTBEAT = 5000;
/**
 * Records between two snapshots (KRaft's metadata.log.max.record.bytes.between.snapshots, 20 MB,
 * is some 100,000 records of ours; fewer keeps the tail a broker replays short).
 */
export const SNAPSHOT_INTERVAL_RECORDS = 50_000;
/** Producer ids per AllocateProducerIds block (Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
const PRODUCER_ID_BLOCK_SIZE = 1000;

export class Controller {
  readonly image = new MetadataImage();
  /** The records after `logStartOffset - 1`, in order and without gaps (older ones are in a snapshot). */
  private log: CommittedRecord[] = [];
  private logStartOffset = 0;
  /** The latest snapshot: what a broker behind `logStartOffset` loads. */
  private snapshot: ImageSnapshot | null = null;
  /** Configs resolved once per change, not per check (a check runs per partition of a fencing). */
  private brokerConfig: BrokerRuntimeConfig | null = null;
  private readonly topicConfigs = new Map<string, TopicRuntimeConfig>();
  hostBrokerId: number | null = null;
  private readonly sessions = new Map<number, Session>();
  private readonly shutdownOffsets = new Map<number, number>();
  private generation = 0;
  private rebalanceTimer: TimerHandle | null = null;
  private uncleanTimer: TimerHandle | null = null;
  private readonly admin: ControllerAdmin;
  /** Finalized feature levels (KIP-584): eligible.leader.replicas.version. */
  readonly features: FeatureControl;

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
    this.features = new FeatureControl({
      image: this.image,
      staticConfigs: deps.staticConfigs,
      requireActive: () => this.requireActive(),
      commit: (records) => this.commit(records),
      changeContext: (topic, state) => this.ctx(topic, state),
    });
    // KRaft's MetadataLoader: the latest snapshot, then only the records after it.
    const stored = deps.store.latestSnapshot();
    if (stored) {
      this.snapshot = stored.data as ImageSnapshot;
      loadSnapshot(this.image, this.snapshot);
      this.logStartOffset = this.snapshot.offset + 1;
    }
    for (const r of deps.store.readAfter(this.image.offset)) {
      const rec: CommittedRecord = { offset: r.offset, timestampMs: r.timestampMs, record: r.record as MetadataRecord };
      this.log.push(rec);
      this.image.apply(rec);
    }
  }

  get isActive(): boolean {
    return this.hostBrokerId !== null;
  }

  /** The metadata log's end (offset of the next record). */
  get endOffset(): number {
    return this.image.offset + 1;
  }

  /** The records kept in memory (those after the previous snapshot) from `fromOffset` on. */
  records(fromOffset = 0): CommittedRecord[] {
    return this.log.slice(Math.max(0, fromOffset - this.logStartOffset));
  }

  /**
   * Up to `max` records from `fromOffset` on; null when they start before the records kept in
   * memory (the reader must load the latest snapshot first). The log has no gaps, so the first
   * record's index is its offset minus the log start: no search, no copy of the whole log.
   */
  private recordsFrom(fromOffset: number, max: number): CommittedRecord[] | null {
    if (fromOffset < this.logStartOffset) return null;
    const i = fromOffset - this.logStartOffset;
    return this.log.slice(i, i + max);
  }

  /** The latest metadata snapshot (null before the first). */
  latestSnapshot(): ImageSnapshot | null {
    return this.snapshot;
  }

  /**
   * Write a snapshot of the image (KRaft's SnapshotGenerator) and forget what the one before it
   * covers: the stored log and the records kept in memory start after the previous snapshot, so a
   * broker less than one interval behind still catches up by records. Taken every
   * SNAPSHOT_INTERVAL_RECORDS records and when the cluster closes in order.
   */
  takeSnapshot(): void {
    if (this.snapshot?.offset === this.image.offset || this.image.offset < 0) return;
    const keepFrom = this.snapshot ? this.snapshot.offset + 1 : 0;
    this.snapshot = snapshotOf(this.image);
    this.deps.store.saveSnapshot({ offset: this.snapshot.offset, timestampMs: this.now(), data: this.snapshot }, keepFrom);
    if (keepFrom > this.logStartOffset) {
      this.log = this.log.slice(keepFrom - this.logStartOffset);
      this.logStartOffset = keepFrom;
    }
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
    for (const s of this.sessions.values()) this.deps.scheduler.cancel(s.timer);
    this.sessions.clear();
    for (const b of this.image.brokers.values()) if (!b.fenced) this.touchSession(b.id, -1);
    this.rebalanceTimer = null;
    this.uncleanTimer = null;
    this.maybeScheduleRebalance();
    this.maybeScheduleUncleanCheck();
  }

  deactivate(): void {
    this.generation++;
    this.hostBrokerId = null;
    this.deps.network.unbind('controller', true);
    for (const s of this.sessions.values()) this.deps.scheduler.cancel(s.timer);
    this.sessions.clear();
    this.deps.scheduler.cancel(this.rebalanceTimer);
    this.deps.scheduler.cancel(this.uncleanTimer);
    this.rebalanceTimer = null;
    this.uncleanTimer = null;
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
      events.push(...this.eventsFor(c));
      if (c.record.type === 'RegisterBroker' || c.record.type === 'BrokerRegistrationChange' || c.record.type === 'UnregisterBroker') brokersChanged = true;
      if (c.record.type === 'Partition' || c.record.type === 'PartitionChange') touched?.push(c.record.state);
      else if (c.record.type === 'Config') touched = null;
      this.image.apply(c);
      if (c.record.type === 'Config' || c.record.type === 'RemoveTopic') this.configsChanged();
      this.log.push(c);
    }
    this.deps.store.append(committed.map((c) => ({ offset: c.offset, timestampMs: c.timestampMs, record: c.record })));
    if (this.image.offset - (this.snapshot?.offset ?? -1) >= SNAPSHOT_INTERVAL_RECORDS) this.takeSnapshot();
    for (const id of this.image.brokers.keys()) {
      if (this.deps.network.isUp(id)) this.deps.network.send('controller', id, { type: 'metadataPush', records: committed });
    }
    for (const e of events) this.deps.emit(e);
    if (brokersChanged) this.deps.onChange('registration changed');
    this.maybeScheduleRebalance(touched ?? undefined);
    this.maybeScheduleUncleanCheck(touched ?? undefined);
    return committed;
  }

  private eventsFor(c: CommittedRecord): EngineEvent[] {
    const r = c.record;
    const atMs = c.timestampMs;
    if (r.type === 'Config') return [{ type: 'config.changed', atMs, resourceType: r.resourceType, resourceName: r.resourceName, name: r.name, value: r.value }];
    if (r.type === 'FeatureLevel') return [{ type: 'feature.updated', atMs, feature: r.name, level: r.level, previousLevel: this.image.features.get(r.name) ?? 0 }];
    if (r.type === 'RemoveTopic') {
      const t = this.image.topicsById.get(r.topicId);
      return t ? [{ type: 'topic.deleted', atMs, topic: t.name, topicId: t.topicId }] : [];
    }
    if (r.type !== 'PartitionChange') return [];
    const topic = this.image.topicsById.get(r.state.topicId);
    const prev = this.image.partition(r.state.topicId, r.state.partition);
    if (!topic || !prev) return [];
    const next = r.state;
    const out: EngineEvent[] = [];
    const base = { atMs, topic: topic.name, partition: next.partition };
    const removed = prev.isr.filter((b) => !next.isr.includes(b));
    const added = next.isr.filter((b) => !prev.isr.includes(b));
    if (removed.length > 0) out.push({ type: 'isr.shrunk', ...base, leader: next.leader, isr: [...next.isr], previousIsr: [...prev.isr], removed, partitionEpoch: next.partitionEpoch, reason: r.reason });
    if (added.length > 0) out.push({ type: 'isr.expanded', ...base, leader: next.leader, isr: [...next.isr], previousIsr: [...prev.isr], added, partitionEpoch: next.partitionEpoch, reason: r.reason });
    if (prev.leader !== next.leader) {
      out.push({ type: 'leader.changed', ...base, leader: next.leader, previousLeader: prev.leader, leaderEpoch: next.leaderEpoch, reason: r.reason, unclean: !!r.unclean });
    }
    const wasMoving = prev.addingReplicas.length + prev.removingReplicas.length > 0;
    const isMoving = next.addingReplicas.length + next.removingReplicas.length > 0;
    if (wasMoving !== isMoving || (isMoving && prev.replicas.join() !== next.replicas.join())) {
      const status = isMoving ? 'started' : r.reason === 'reassignment-cancel' ? 'cancelled' : 'completed';
      out.push({ type: 'reassignment.changed', ...base, status, replicas: [...next.replicas], addingReplicas: [...next.addingReplicas], removingReplicas: [...next.removingReplicas] });
    }
    return out;
  }

  // ================================================================ requests from brokers

  private handle(from: NodeId, msg: ControllerRequest, reply: (res: unknown) => void): void {
    if (!this.isActive) return;
    switch (msg.type) {
      case 'register':
        return reply(this.handleRegister(msg));
      case 'heartbeat':
        return reply(this.handleHeartbeat(msg));
      case 'alterPartition':
        return reply(this.handleAlterPartition(msg));
      case 'replicaOffline':
        return reply(this.handleReplicaOffline(msg));
      case 'createInternalTopic':
        return reply(this.handleCreateInternalTopic(msg));
      case 'allocateProducerIds':
        return reply(this.handleAllocateProducerIds(msg));
    }
  }

  /** A broker needs `__consumer_offsets` (CreateTopics forwarded by its AutoTopicCreationManager). */
  private handleCreateInternalTopic(req: CreateInternalTopicRequest): { error: KafkaErrorName } {
    try {
      this.createTopic({ name: req.name, partitions: req.partitions, replicationFactor: req.replicationFactor, configs: req.configs });
      return { error: 'NONE' };
    } catch (e) {
      if (e instanceof KafkaError && e.code in KAFKA_ERRORS) return { error: e.code as KafkaErrorName };
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
      const change = buildPartitionChange(state, { targetIsr: state.isr.filter((b) => b !== req.brokerId) }, this.ctx(topic, state, req.brokerId));
      if (change) records.push({ type: 'PartitionChange', state: change.state, reason: changeReason(change, 'isr-shrink'), unclean: change.unclean });
    }
    this.commit(records);
    return { error: 'NONE' };
  }

  private hasLiveSession(brokerId: number): boolean {
    const s = this.sessions.get(brokerId);
    return !!s && this.now() - s.lastHeartbeatMs < this.config().brokerSessionTimeoutMs;
  }

  private touchSession(brokerId: number, metadataOffset: number): void {
    const old = this.sessions.get(brokerId);
    if (old) this.deps.scheduler.cancel(old.timer);
    const timeout = this.config().brokerSessionTimeoutMs;
    this.sessions.set(brokerId, {
      lastHeartbeatMs: this.now(),
      metadataOffset: Math.max(metadataOffset, old?.metadataOffset ?? -1),
      timer: this.after(timeout, () => this.onSessionExpired(brokerId)),
    });
  }

  private handleRegister(req: RegisterRequest): RegisterResponse {
    const existing = this.image.brokers.get(req.brokerId);
    if (existing && existing.incarnationId !== req.incarnationId && this.hasLiveSession(req.brokerId)) {
      return { error: 'DUPLICATE_BROKER_REGISTRATION', brokerEpoch: -1 };
    }
    if (existing) {
      // 4.0+: a new incarnation is processed as a shutdown of the old one; one that did not shut
      // down cleanly (its previous broker epoch is not the registered one) also leaves every ELR
      // and may not lead (KIP-966, KAFKA-18106).
      const clean = req.previousBrokerEpoch === existing.brokerEpoch;
      this.commit(this.removeFromIsrs(req.brokerId, 'broker-reregistered', !clean));
    }
    const brokerEpoch = this.endOffset;
    this.commit([{ type: 'RegisterBroker', brokerId: req.brokerId, brokerEpoch, incarnationId: req.incarnationId, rack: req.rack, fenced: true }]);
    this.shutdownOffsets.delete(req.brokerId);
    this.touchSession(req.brokerId, -1);
    return { error: 'NONE', brokerEpoch };
  }

  private handleHeartbeat(req: HeartbeatRequest): HeartbeatResponse {
    const reg = this.image.brokers.get(req.brokerId);
    if (!reg || reg.brokerEpoch !== req.brokerEpoch) return { error: 'STALE_BROKER_EPOCH', isFenced: true, shouldShutDown: false, records: [] };
    this.touchSession(req.brokerId, req.metadataOffset);
    let shouldShutDown = false;
    if (reg.fenced) {
      if (req.wantShutDown) shouldShutDown = true;
      else if (!req.wantFence && req.metadataOffset >= reg.brokerEpoch) this.unfence(req.brokerId);
    } else if (req.wantShutDown) {
      if (!reg.inControlledShutdown) {
        const ledBefore = this.leaderCount(req.brokerId);
        this.commit([
          { type: 'BrokerRegistrationChange', brokerId: req.brokerId, brokerEpoch: reg.brokerEpoch, inControlledShutdown: true },
          ...this.removeFromIsrs(req.brokerId, 'controlled-shutdown'),
        ]);
        // A broker that led nothing may go at once; others wait until active brokers caught up.
        this.shutdownOffsets.set(req.brokerId, ledBefore === 0 ? -1 : this.endOffset - 1);
      }
      if (this.mayShutDown(req.brokerId)) {
        shouldShutDown = true;
        this.fence(req.brokerId, 'controlled-shutdown');
        const s = this.sessions.get(req.brokerId);
        if (s) this.deps.scheduler.cancel(s.timer);
        this.sessions.delete(req.brokerId);
      }
    }
    const after = this.image.brokers.get(req.brokerId);
    const isFenced = after?.fenced ?? true;
    const records = this.recordsFrom(req.metadataOffset + 1, MAX_RECORDS_PER_HEARTBEAT);
    if (records) return { error: 'NONE', isFenced, shouldShutDown, records };
    // Behind the records kept: the latest snapshot, then the records after it (KRaft's FetchSnapshot).
    const snapshot = this.snapshot!;
    return { error: 'NONE', isFenced, shouldShutDown, snapshot, records: this.recordsFrom(snapshot.offset + 1, MAX_RECORDS_PER_HEARTBEAT)! };
  }

  private leaderCount(brokerId: number): number {
    let n = 0;
    for (const { state } of this.image.allPartitions()) if (state.leader === brokerId) n++;
    return n;
  }

  private mayShutDown(brokerId: number): boolean {
    if (this.leaderCount(brokerId) > 0) return false;
    const needed = this.shutdownOffsets.get(brokerId) ?? -1;
    for (const b of this.image.brokers.values()) {
      if (b.id === brokerId || b.fenced || b.inControlledShutdown) continue;
      if ((this.sessions.get(b.id)?.metadataOffset ?? -1) < needed) return false;
    }
    return true;
  }

  private onSessionExpired(brokerId: number): void {
    const s = this.sessions.get(brokerId);
    if (!s) return;
    if (this.now() - s.lastHeartbeatMs < this.config().brokerSessionTimeoutMs) return;
    this.sessions.delete(brokerId);
    const reg = this.image.brokers.get(brokerId);
    if (reg && !reg.fenced) this.fence(brokerId, 'broker-fenced');
  }

  /** Fence a broker: one batch that marks it fenced, drops it from every ISR and moves its leaderships. */
  private fence(brokerId: number, reason: ChangeReason): void {
    const reg = this.image.brokers.get(brokerId);
    if (!reg) return;
    this.commit([
      { type: 'BrokerRegistrationChange', brokerId, brokerEpoch: reg.brokerEpoch, fenced: true },
      ...this.removeFromIsrs(brokerId, reason),
    ]);
  }

  private unfence(brokerId: number): void {
    const reg = this.image.brokers.get(brokerId)!;
    this.commit([{ type: 'BrokerRegistrationChange', brokerId, brokerEpoch: reg.brokerEpoch, fenced: false }]);
    // Re-run the election of every leaderless partition (the returning broker may lead them).
    const changes: MetadataRecord[] = [];
    for (const { topic, state } of this.image.allPartitions()) {
      if (state.leader >= 0) continue;
      const change = buildPartitionChange(state, { election: 'online' }, this.ctx(topic, state));
      if (change) changes.push({ type: 'PartitionChange', state: change.state, reason: changeReason(change, 'broker-unfenced'), unclean: change.unclean });
    }
    this.commit(changes);
  }

  /**
   * Partition changes that take `brokerId` out of every ISR it is in and re-elect where it led;
   * after an unclean shutdown also out of every ELR, and it may not lead.
   */
  private removeFromIsrs(brokerId: number, reason: ChangeReason, uncleanShutdown = false): MetadataRecord[] {
    const out: MetadataRecord[] = [];
    for (const { topic, state } of this.image.allPartitions()) {
      if (!state.isr.includes(brokerId) && !(uncleanShutdown && (state.elr ?? []).includes(brokerId))) continue;
      const ctx = this.ctx(topic, state, brokerId, uncleanShutdown ? brokerId : -1);
      const change = buildPartitionChange(state, { targetIsr: state.isr.filter((b) => b !== brokerId) }, ctx);
      if (change) out.push({ type: 'PartitionChange', state: change.state, reason: changeReason(change, reason), unclean: change.unclean });
    }
    return out;
  }

  private ctx(topic: TopicImage, state: PartitionState, excluded = -1, uncleanShutdown = -1): ChangeContext {
    const key = `${state.topicId}:${state.partition}`;
    const base: ChangeContext = {
      isAcceptable: (b: number) => b !== excluded && this.image.isActive(b, key),
      uncleanAllowed: this.topicUncleanAllowed(topic),
    };
    if (!elrEnabled(this.image)) return base;
    const minIsr = resolveTopicRuntimeConfig(topic.configs, this.image.clusterConfigs(), this.deps.staticConfigs).minInsyncReplicas;
    return { ...base, elr: { minIsr: Math.min(minIsr, state.replicas.length), ...(uncleanShutdown >= 0 ? { uncleanShutdown } : {}) } };
  }

  private topicUncleanAllowed(topic: TopicImage): boolean {
    return this.topicConfig(topic).uncleanLeaderElectionEnable;
  }

  /**
   * AlterPartition: each proposal is checked against the image in order, and the accepted changes
   * are committed as one record batch. A partition proposed twice in one request is checked
   * against the first proposal's outcome (the batch so far is committed first).
   */
  private handleAlterPartition(req: AlterPartitionRequest): AlterPartitionBatchResponse {
    const reg = this.image.brokers.get(req.brokerId);
    if (!reg || reg.brokerEpoch !== req.brokerEpoch) return { partitions: req.partitions.map(() => ({ error: 'STALE_BROKER_EPOCH' })) };
    const batch: MetadataRecord[] = [];
    const inBatch = new Set<string>();
    const answers = req.partitions.map((item) => {
      const key = `${item.topicId}:${item.partition}`;
      if (inBatch.has(key)) {
        this.commit(batch.splice(0));
        inBatch.clear();
      }
      const { answer, record } = this.alterOne(req.brokerId, item);
      if (record) {
        batch.push(record);
        inBatch.add(key);
      }
      return answer;
    });
    this.commit(batch);
    return { partitions: answers };
  }

  private alterOne(brokerId: number, req: AlterPartitionItem): { answer: AlterPartitionResponse; record?: MetadataRecord } {
    const fail = (error: KafkaErrorName): { answer: AlterPartitionResponse } => ({ answer: { error } });
    const topic = this.image.topicsById.get(req.topicId);
    const part = topic?.partitions.get(req.partition);
    if (!topic || !part) return fail(topic ? 'UNKNOWN_TOPIC_OR_PARTITION' : 'UNKNOWN_TOPIC_ID');
    if (req.leaderEpoch > part.leaderEpoch || req.partitionEpoch > part.partitionEpoch) return fail('NOT_CONTROLLER');
    if (req.leaderEpoch < part.leaderEpoch) return fail('FENCED_LEADER_EPOCH');
    if (brokerId !== part.leader) return fail('INVALID_REQUEST');
    if (req.partitionEpoch < part.partitionEpoch) return fail('INVALID_UPDATE_VERSION');
    const newIsr = req.newIsr.map((m) => m.brokerId);
    if (!newIsr.includes(part.leader) || newIsr.some((b) => !part.replicas.includes(b))) return fail('INVALID_REQUEST');
    if (req.leaderRecoveryState === 'RECOVERING' && (newIsr.length > 1 || part.leaderRecoveryState === 'RECOVERED')) return fail('INVALID_REQUEST');
    for (const m of req.newIsr) {
      const r = this.image.brokers.get(m.brokerId);
      if (!r || r.fenced || r.inControlledShutdown || (m.brokerEpoch !== -1 && m.brokerEpoch !== r.brokerEpoch)) return fail('INELIGIBLE_REPLICA');
      if (r.offlineReplicas.includes(`${req.topicId}:${req.partition}`)) return fail('INELIGIBLE_REPLICA');
    }
    const reason: ChangeReason = newIsr.length < part.isr.length ? 'isr-shrink' : 'isr-expand';
    const change = buildPartitionChange(part, { targetIsr: newIsr, recoveryState: req.leaderRecoveryState }, this.ctx(topic, part));
    if (!change) return { answer: { error: 'NONE', state: clonePartition(part) } };
    const record: MetadataRecord = { type: 'PartitionChange', state: change.state, reason: change.reassignmentCompleted ? 'reassignment' : reason, unclean: change.unclean };
    if (change.reassignmentCompleted && change.state.leader !== brokerId) return { answer: { error: 'NEW_LEADER_ELECTED', state: clonePartition(change.state) }, record };
    return { answer: { error: 'NONE', state: clonePartition(change.state) }, record };
  }

  // ================================================================ periodic tasks

  /**
   * Arm the imbalance check when some partition is led by another than its preferred replica.
   * Invariant: while active with auto-rebalance on, such a partition exists only with the timer
   * armed; so after a commit only the partitions it `changed` need looking at (all when absent).
   */
  private maybeScheduleRebalance(changed?: readonly PartitionState[]): void {
    if (!this.isActive || this.rebalanceTimer) return;
    if (changed?.length === 0) return;
    const cfg = this.config();
    if (!cfg.autoLeaderRebalanceEnable) return;
    const imbalanced = (state: PartitionState): boolean => state.leader >= 0 && state.leader !== state.replicas[0];
    if (!(changed ? changed.some(imbalanced) : this.image.somePartition(imbalanced))) return;
    this.rebalanceTimer = this.after(cfg.leaderImbalanceCheckIntervalMs, () => this.runRebalance());
  }

  private runRebalance(): void {
    const changes: MetadataRecord[] = [];
    let attempted = 0;
    for (const { topic, state } of this.image.allPartitions()) {
      if (state.leader < 0 || state.leader === state.replicas[0]) continue;
      if (attempted >= MAX_ELECTIONS_PER_IMBALANCE) break;
      attempted++;
      const change = buildPartitionChange(state, { election: 'preferred' }, this.ctx(topic, state));
      if (change && change.state.leader === state.replicas[0]) changes.push({ type: 'PartitionChange', state: change.state, reason: 'auto-rebalance' });
    }
    this.rebalanceTimer = attempted >= MAX_ELECTIONS_PER_IMBALANCE ? this.after(0, () => this.runRebalance()) : null;
    this.commit(changes);
    this.maybeScheduleRebalance();
  }

  /** Arm the unclean-election check when a partition has no leader (same invariant as the rebalance check). */
  private maybeScheduleUncleanCheck(changed?: readonly PartitionState[]): void {
    if (!this.isActive || this.uncleanTimer) return;
    const leaderless = (state: PartitionState): boolean => state.leader < 0;
    if (!(changed ? changed.some(leaderless) : this.image.somePartition(leaderless))) return;
    this.uncleanTimer = this.after(this.config().uncleanLeaderElectionIntervalMs, () => {
      this.uncleanTimer = null;
      const changes: MetadataRecord[] = [];
      for (const { topic, state } of this.image.allPartitions()) {
        if (state.leader >= 0 || !this.topicUncleanAllowed(topic)) continue;
        const change = buildPartitionChange(state, { election: 'online' }, this.ctx(topic, state));
        if (change && change.state.leader >= 0) changes.push({ type: 'PartitionChange', state: change.state, reason: changeReason(change, 'broker-unfenced'), unclean: change.unclean });
      }
      this.commit(changes);
      this.maybeScheduleUncleanCheck();
    });
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
  alterConfigs(resourceType: 'topic' | 'broker', resourceName: string, set: Record<string, string | null>, validateOnly = false): void {
    this.admin.alterConfigs(resourceType, resourceName, set, validateOnly);
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
    this.requireActive();
    const reg = this.image.brokers.get(brokerId);
    if (!reg) throw new KafkaError('BROKER_NOT_FOUND', `Broker ${brokerId} is not registered.`);
    const s = this.sessions.get(brokerId);
    if (s) this.deps.scheduler.cancel(s.timer);
    this.sessions.delete(brokerId);
    this.commit([...this.removeFromIsrs(brokerId, 'broker-fenced'), { type: 'UnregisterBroker', brokerId, brokerEpoch: reg.brokerEpoch }]);
  }
}

/** A committed partition state never changes again: frozen, every image can share it. */
function freezeState(record: MetadataRecord): MetadataRecord {
  if (record.type !== 'Partition' && record.type !== 'PartitionChange') return record;
  const st = record.state;
  for (const list of [st.replicas, st.isr, st.addingReplicas, st.removingReplicas, st.elr, st.lastKnownElr]) if (list) Object.freeze(list);
  Object.freeze(st);
  return record;
}
