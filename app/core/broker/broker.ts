/**
 * One broker process: its lifecycle (register, heartbeat, controlled shutdown, crash, power
 * loss), its copy of the metadata, its replicas, the leader side of Fetch/Produce and its replica
 * fetchers. Its disk (BrokerLogStore) outlives the process; everything else is rebuilt on start.
 *
 * Invariants: a broker acts only on metadata it has applied, in log order; a request that needs
 * leadership is refused with NOT_LEADER_OR_FOLLOWER as soon as its metadata says otherwise; a
 * crashed process writes nothing more (not even checkpoints), an orderly stop flushes every log
 * and marks a clean shutdown.
 */
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import type { EngineEvent } from '../../api/events.js';
import type { BrokerLogStore } from '../log/log-store.js';
import { replicaKey } from '../log/log-store.js';
import { PartitionLog, type StoredBytes } from '../log/partition-log.js';
import type { RecordBatch } from '../log/records.js';
import { MetadataImage, type TopicImage } from '../metadata/image.js';
import { BrokerTraffic } from '../metrics.js';
import type { CommittedRecord, LeaderRecoveryState, PartitionState } from '../metadata/records.js';
import type { Network, NodeId } from '../network.js';
import type { Random } from '../random.js';
import { resolveBrokerRuntimeConfig, resolveTopicRuntimeConfig, type BrokerRuntimeConfig, type TopicRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import { isInternalTopic } from '../topic-names.js';
import type {
  AlterPartitionRequest,
  AlterPartitionResponse,
  BrokerRequest,
  ConsumerFetchRequest,
  ConsumerFetchResponse,
  FetchPartitionResponse,
  FetchRequest,
  FetchResponse,
  HeartbeatRequest,
  HeartbeatResponse,
  ListOffsetsRequest,
  ListOffsetsResponse,
  ProduceRequest,
  ProduceResponse,
  RegisterRequest,
  ReplicaOfflineRequest,
  RegisterResponse,
} from './messages.js';
import { ReplicaPartition, type FollowerFetchCheck, type PartitionHost } from './partition.js';
import { isThrottledReplica, RateMeter } from './quota.js';
import { ReplicaFetcher, type FetcherHost } from './replica-fetcher.js';

export type ProcessState = 'stopped' | 'starting' | 'running' | 'stopping' | 'killed' | 'power-lost' | 'failed';

export interface BrokerDeps {
  id: number;
  rack: string | null;
  scheduler: Scheduler;
  network: Network;
  random: Random;
  disk: BrokerLogStore;
  staticConfigs: Readonly<Record<string, string>>;
  emit: (event: EngineEvent) => void;
  /** Called whenever something the console shows about this broker may have changed. */
  onChange: (reason: string) => void;
}

interface ParkedFetch {
  from: number;
  request: FetchRequest;
  checks: FollowerFetchCheck[];
  reply: (response: FetchResponse) => void;
  timer: TimerHandle | null;
  keys: string[];
  /** Position of each key in `keys`, built the first time new data may complete the fetch. */
  index: Map<string, number> | null;
  done: boolean;
}

/** How long an orderly stop waits for the controller before shutting down anyway. */
const CONTROLLED_SHUTDOWN_TIMEOUT_MS = 30_000;
const CONTROLLER_REQUEST_TIMEOUT_MS = 2_000;
/** Kafka's `log.initial.task.delay.ms` (an internal config): the first retention check after start. */
const LOG_INITIAL_TASK_DELAY_MS = 30_000;

export class Broker implements PartitionHost, FetcherHost {
  readonly brokerId: number;
  readonly rack: string | null;
  readonly scheduler: Scheduler;
  readonly network: Network;
  process: ProcessState = 'stopped';
  brokerEpoch = -1;
  /** As the controller last told us in a heartbeat. */
  fencedByController = true;
  image = new MetadataImage();
  readonly partitions = new Map<string, ReplicaPartition>();
  private localLogs = new Map<string, PartitionLog>();
  private readonly fetchers = new Map<number, ReplicaFetcher>();
  fetcherStalled = false;
  /** Fetches waiting for data (at most one per follower broker), in the order they were parked. */
  private parked = new Set<ParkedFetch>();
  /** Replicas this incarnation cannot serve (key → why). */
  private readonly offline = new Map<string, string>();
  private timers: TimerHandle[] = [];
  private heartbeatTimer: TimerHandle | null = null;
  private wantShutDown = false;
  private generation = 0;
  private topicConfigCache = new Map<string, TopicRuntimeConfig>();
  private brokerConfigCache: BrokerRuntimeConfig | null = null;
  leaderQuota: RateMeter;
  followerQuota: RateMeter;
  /** Produce and replication traffic counters (read by the engine's metrics sampler). */
  readonly traffic = new BrokerTraffic();
  /**
   * Bytes stored by every replica log on this broker's disk, kept by the logs as they change.
   * The logs are closed while the process is down but the count stays (it is what the disk holds);
   * null until this process has opened its logs or read its disk.
   */
  private stored: StoredBytes | null = null;

  constructor(private readonly deps: BrokerDeps) {
    this.brokerId = deps.id;
    this.rack = deps.rack;
    this.scheduler = deps.scheduler;
    this.network = deps.network;
    const cfg = this.brokerConfig();
    this.leaderQuota = new RateMeter(cfg.replicationQuotaWindowNum, cfg.replicationQuotaWindowSizeMs);
    this.followerQuota = new RateMeter(cfg.replicationQuotaWindowNum, cfg.replicationQuotaWindowSizeMs);
  }

  get isAlive(): boolean {
    return this.process === 'starting' || this.process === 'running' || this.process === 'stopping';
  }

  emit(event: EngineEvent): void {
    this.deps.emit(event);
  }

  // ================================================================ configs

  brokerConfig(): BrokerRuntimeConfig {
    if (!this.brokerConfigCache) {
      this.brokerConfigCache = resolveBrokerRuntimeConfig(
        this.image.brokerConfigs.get(String(this.brokerId)) ?? {},
        this.image.clusterConfigs(),
        this.deps.staticConfigs,
      );
    }
    return this.brokerConfigCache;
  }

  topicConfig(topicId: string): TopicRuntimeConfig {
    let cfg = this.topicConfigCache.get(topicId);
    if (!cfg) {
      const overrides = this.image.topicsById.get(topicId)?.configs ?? {};
      cfg = resolveTopicRuntimeConfig(overrides, this.image.clusterConfigs(), this.deps.staticConfigs);
      this.topicConfigCache.set(topicId, cfg);
    }
    return cfg;
  }

  // ================================================================ lifecycle

  /** Start the process: recover logs from disk, then register with the controller. */
  start(): void {
    if (this.isAlive) return;
    this.generation++;
    this.offline.clear();
    this.process = 'starting';
    if (!this.guarded(() => this.recoverLogs())) return;
    this.startProcess();
  }

  /** Open every replica log on disk (a power loss truncates each to its flushed offset). */
  private recoverLogs(): void {
    const disk = this.deps.disk.loadState();
    const now = this.scheduler.now();
    this.image = new MetadataImage();
    this.topicConfigCache.clear();
    this.brokerConfigCache = null;
    this.partitions.clear();
    this.localLogs = new Map();
    this.stored = null;
    const stored: StoredBytes = { bytes: 0 };
    for (const key of this.deps.disk.replicaKeys()) {
      const store = this.deps.disk.replica(key);
      const before = store.endOffset();
      const log = new PartitionLog(store, now, disk.powerLost, stored);
      this.localLogs.set(key, log);
      if (disk.powerLost && log.logEndOffset < before) {
        const [topicId, partition] = splitKey(key);
        this.emit({
          type: 'replica.truncated',
          atMs: now,
          topic: topicId,
          partition,
          brokerId: this.brokerId,
          fromOffset: before,
          toOffset: log.logEndOffset,
          leaderEpoch: -1,
          reason: 'power-loss',
        });
      }
    }
    this.stored = stored;
    this.deps.disk.saveState({ cleanShutdown: false, powerLost: false, lastBrokerEpoch: disk.lastBrokerEpoch });
    this.previousBrokerEpoch = disk.cleanShutdown ? disk.lastBrokerEpoch : -1;
  }

  private startProcess(): void {
    this.process = 'starting';
    this.brokerEpoch = -1;
    this.fencedByController = true;
    this.wantShutDown = false;
    this.incarnationId = `${this.brokerId}-${this.deps.random.nextInt(2 ** 30)}`;
    this.network.bind(this.brokerId, (from, msg, reply) => this.handleRequest(from, msg as BrokerRequest, reply));
    const cfg = this.brokerConfig();
    this.every(cfg.replicaLagTimeMaxMs / 2, () => {
      for (const p of this.partitions.values()) p.maybeShrinkIsr();
    });
    this.every(cfg.highWatermarkCheckpointIntervalMs, () => {
      for (const p of this.partitions.values()) p.log.saveCheckpoint();
    });
    this.after(LOG_INITIAL_TASK_DELAY_MS, () => {
      this.cleanupLogs();
      this.every(cfg.logRetentionCheckIntervalMs, () => this.cleanupLogs());
    });
    this.register();
    this.deps.onChange('started');
  }

  private previousBrokerEpoch = -1;
  private incarnationId = '';

  /**
   * Kafka's LogManager retention task ("kafka-log-retention"): every replica this broker hosts,
   * leader or follower, deletes the segments its topic's retention allows, each below its own HW.
   * Followers also move their log start up to the leader's through fetch responses.
   */
  private cleanupLogs(): void {
    const now = this.scheduler.now();
    for (const p of this.partitions.values()) {
      const cfg = this.topicConfig(p.topicId);
      if (cfg.cleanupPolicyDelete) p.log.deleteOldSegments(now, cfg);
    }
  }

  private every(ms: number, fn: () => void): void {
    const gen = this.generation;
    const tick = (): void => {
      if (gen !== this.generation || !this.isAlive) return;
      this.guarded(fn);
      if (gen !== this.generation || !this.isAlive) return;
      this.timers.push(this.scheduler.schedule(ms, tick));
    };
    this.timers.push(this.scheduler.schedule(ms, tick));
  }

  private after(ms: number, fn: () => void): TimerHandle {
    const gen = this.generation;
    const t = this.scheduler.schedule(ms, () => {
      if (gen === this.generation && this.isAlive) this.guarded(fn);
    });
    this.timers.push(t);
    return t;
  }

  /** Orderly stop: controlled shutdown first (leadership moves away), then flush and exit. */
  stop(): void {
    if (!this.isAlive) return;
    if (this.process === 'starting' || this.brokerEpoch < 0) {
      this.shutdownNow();
      return;
    }
    this.process = 'stopping';
    this.wantShutDown = true;
    this.sendHeartbeat();
    this.after(CONTROLLED_SHUTDOWN_TIMEOUT_MS, () => this.shutdownNow());
    this.deps.onChange('controlled shutdown requested');
  }

  private shutdownNow(): void {
    const now = this.scheduler.now();
    for (const p of this.partitions.values()) p.log.flush(now);
    for (const log of this.localLogs.values()) log.flush(now);
    this.deps.disk.saveState({ cleanShutdown: true, powerLost: false, lastBrokerEpoch: this.brokerEpoch });
    this.teardown(true);
    this.process = 'stopped';
    this.deps.onChange('stopped');
  }

  /** The process dies (SIGKILL): nothing more is written; the OS keeps what was written. */
  kill(): void {
    if (!this.isAlive) return;
    this.teardown(true);
    this.process = 'killed';
    this.deps.onChange('killed');
  }

  /** The machine loses power: like a kill, and the unflushed tail of every log is gone on restart. */
  powerLoss(): void {
    if (!this.isAlive && this.process !== 'killed' && this.process !== 'stopped') return;
    const disk = this.deps.disk.loadState();
    this.deps.disk.saveState({ ...disk, powerLost: true });
    if (this.isAlive) this.teardown(false);
    this.process = 'power-lost';
    this.deps.onChange('power lost');
  }

  private teardown(resetConnections: boolean): void {
    this.generation++;
    for (const t of this.timers) this.scheduler.cancel(t);
    this.timers = [];
    this.scheduler.cancel(this.heartbeatTimer);
    this.heartbeatTimer = null;
    for (const f of this.fetchers.values()) f.close();
    this.fetchers.clear();
    for (const pf of this.parked) this.unpark(pf);
    this.parked.clear();
    for (const p of this.partitions.values()) p.resignLeadership();
    this.network.unbind(this.brokerId, resetConnections);
    this.partitions.clear();
    this.localLogs.clear();
  }

  /**
   * Run broker work. A storage failure (disk full, I/O error, unreadable file) halts the broker,
   * as Kafka halts a broker whose only log directory went offline; the cluster carries on.
   * Returns false when it failed.
   */
  guarded(fn: () => unknown): boolean {
    try {
      fn();
      return true;
    } catch (e) {
      if (!(e instanceof KafkaError) || (e.code !== 'KAFKA_STORAGE_ERROR' && e.code !== 'CORRUPT_MESSAGE')) throw e;
      this.failStorage(e);
      return false;
    }
  }

  private failStorage(e: KafkaError): void {
    if (this.process === 'failed') return;
    this.emit({ type: 'broker.storageFailed', atMs: this.scheduler.now(), brokerId: this.brokerId, errorCode: e.code, message: e.message });
    if (this.isAlive) this.teardown(true);
    this.process = 'failed';
    this.deps.onChange(`storage failed: ${e.message}`);
  }

  /** One replica's log cannot be read (a corrupt batch): stop serving it and tell the controller. */
  private replicaOffline(p: ReplicaPartition, e: KafkaError): void {
    const k = key(p);
    if (this.offline.has(k)) return;
    this.offline.set(k, e.message);
    p.resignLeadership();
    this.fetchers.get(p.leaderId)?.remove(k);
    this.partitions.delete(k);
    this.emit({ type: 'replica.offline', atMs: this.scheduler.now(), topic: p.topic, partition: p.partition, brokerId: this.brokerId, errorCode: e.code, message: e.message });
    this.sendReplicaOffline(p.topicId, p.partition);
  }

  private sendReplicaOffline(topicId: string, partition: number): void {
    const gen = this.generation;
    const retry = (): void => {
      if (gen === this.generation) this.after(this.brokerConfig().replicaFetchBackoffMs, () => this.sendReplicaOffline(topicId, partition));
    };
    if (this.brokerEpoch < 0) return retry();
    const req: ReplicaOfflineRequest = { type: 'replicaOffline', brokerId: this.brokerId, brokerEpoch: this.brokerEpoch, topicId, partition };
    this.network.request(this.brokerId, 'controller', req, CONTROLLER_REQUEST_TIMEOUT_MS, (res) => {
      if ((res as { error: string }).error !== 'NONE') retry();
    }, retry);
  }

  /** Read a replica's log; a corrupt batch takes that replica offline and returns null. */
  private readOrOffline(p: ReplicaPartition, from: number, until: number, maxBytes: number): RecordBatch[] | null {
    try {
      return p.log.read(from, until, maxBytes);
    } catch (e) {
      if (e instanceof KafkaError && e.code === 'CORRUPT_MESSAGE') {
        this.replicaOffline(p, e);
        return null;
      }
      throw e;
    }
  }

  /** Stall (or resume) this broker's replica fetchers; heartbeats continue. */
  setFetcherStalled(stalled: boolean): void {
    this.fetcherStalled = stalled;
    if (!stalled) for (const f of this.fetchers.values()) f.wake();
  }

  isFetchingAllowed(): boolean {
    return this.isAlive && !this.fetcherStalled;
  }

  // ================================================================ controller communication

  private register(): void {
    const gen = this.generation;
    const req: RegisterRequest = {
      type: 'register',
      brokerId: this.brokerId,
      incarnationId: this.incarnationId,
      rack: this.rack,
      previousBrokerEpoch: this.previousBrokerEpoch,
    };
    const retry = (): void => {
      if (gen === this.generation) this.after(this.brokerConfig().brokerHeartbeatIntervalMs / 2, () => this.register());
    };
    this.network.request(
      this.brokerId,
      'controller',
      req,
      CONTROLLER_REQUEST_TIMEOUT_MS,
      (res) => {
        if (gen !== this.generation) return;
        const r = res as RegisterResponse;
        if (r.error !== 'NONE') return retry();
        this.brokerEpoch = r.brokerEpoch;
        const disk = this.deps.disk.loadState();
        this.deps.disk.saveState({ ...disk, lastBrokerEpoch: r.brokerEpoch });
        this.sendHeartbeat();
      },
      retry,
    );
  }

  private scheduleHeartbeat(): void {
    this.scheduler.cancel(this.heartbeatTimer);
    const gen = this.generation;
    this.heartbeatTimer = this.scheduler.schedule(this.brokerConfig().brokerHeartbeatIntervalMs, () => {
      if (gen === this.generation && this.isAlive) this.sendHeartbeat();
    });
  }

  private sendHeartbeat(): void {
    if (this.brokerEpoch < 0) return;
    const gen = this.generation;
    const req: HeartbeatRequest = {
      type: 'heartbeat',
      brokerId: this.brokerId,
      brokerEpoch: this.brokerEpoch,
      metadataOffset: this.image.offset,
      wantFence: this.image.offset < this.brokerEpoch,
      wantShutDown: this.wantShutDown,
    };
    this.scheduleHeartbeat();
    this.network.request(
      this.brokerId,
      'controller',
      req,
      this.brokerConfig().brokerHeartbeatIntervalMs,
      (res) => {
        if (gen !== this.generation) return;
        const r = res as HeartbeatResponse;
        if (r.error === 'STALE_BROKER_EPOCH') {
          // The controller no longer knows this incarnation: register again.
          this.brokerEpoch = -1;
          this.register();
          return;
        }
        if (r.error !== 'NONE') return;
        if (!this.guarded(() => this.applyMetadata(r.records))) return;
        const wasFenced = this.fencedByController;
        this.fencedByController = r.isFenced;
        if (this.process === 'starting' && !r.isFenced) this.process = 'running';
        if (wasFenced !== r.isFenced) this.deps.onChange(r.isFenced ? 'fenced' : 'unfenced');
        if (r.shouldShutDown && this.wantShutDown) {
          this.shutdownNow();
          return;
        }
        // Still catching up on metadata: ask again at once rather than in 2 s.
        if (req.wantFence && this.image.offset >= this.brokerEpoch) this.sendHeartbeat();
      },
      () => {},
    );
  }

  sendAlterPartition(p: ReplicaPartition, proposedIsr: number[], recovery: LeaderRecoveryState): void {
    const gen = this.generation;
    const req: AlterPartitionRequest = {
      type: 'alterPartition',
      brokerId: this.brokerId,
      brokerEpoch: this.brokerEpoch,
      topicId: p.topicId,
      partition: p.partition,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      newIsr: proposedIsr.map((id) => ({ brokerId: id, brokerEpoch: this.memberEpoch(p, id) })),
      leaderRecoveryState: recovery,
    };
    const resendLater = (): void => {
      this.after(this.brokerConfig().replicaFetchBackoffMs, () => {
        if (p.pendingIsr?.proposed === proposedIsr && this.partitions.get(key(p)) === p) this.sendAlterPartition(p, proposedIsr, recovery);
      });
    };
    this.network.request(
      this.brokerId,
      'controller',
      req,
      CONTROLLER_REQUEST_TIMEOUT_MS,
      (res) => {
        if (gen !== this.generation) return;
        const r = res as AlterPartitionResponse;
        p.onAlterPartitionResult(proposedIsr, r);
        if (r.error === 'NOT_CONTROLLER') resendLater();
      },
      () => {
        if (gen === this.generation) resendLater();
      },
    );
  }

  private memberEpoch(p: ReplicaPartition, id: number): number {
    if (id === this.brokerId) return this.brokerEpoch;
    return p.followerBrokerEpoch(id) ?? this.image.brokers.get(id)?.brokerEpoch ?? -1;
  }

  // ================================================================ metadata

  /** Apply committed metadata records in order; a gap waits for the next heartbeat to fill it. */
  applyMetadata(records: readonly CommittedRecord[]): void {
    if (!this.isAlive) return;
    const changed = new Map<string, { topic: TopicImage; state: PartitionState }>();
    const removedTopics: string[] = [];
    let configsChanged = false;
    for (const rec of records) {
      if (rec.offset <= this.image.offset) continue;
      if (rec.offset !== this.image.offset + 1) break;
      const r = rec.record;
      if (r.type === 'RemoveTopic') removedTopics.push(r.topicId);
      this.image.apply(rec);
      if (r.type === 'Partition' || r.type === 'PartitionChange') {
        const topic = this.image.topicsById.get(r.state.topicId);
        if (topic) changed.set(replicaKey(r.state.topicId, r.state.partition), { topic, state: topic.partitions.get(r.state.partition)! });
      } else if (r.type === 'Config') configsChanged = true;
    }
    if (configsChanged) {
      this.topicConfigCache.clear();
      this.brokerConfigCache = null;
    }
    for (const topicId of removedTopics) {
      for (const [k, p] of [...this.partitions]) if (p.topicId === topicId) this.removeReplica(k);
      for (const k of [...this.localLogs.keys()]) if (k.startsWith(`${topicId}:`)) this.removeReplica(k);
    }
    for (const [k, { topic, state }] of changed) this.reconcile(k, topic, state);
    if (configsChanged) for (const p of this.partitions.values()) p.maybeIncrementHighWatermark();
  }

  private reconcile(k: string, topic: TopicImage, state: PartitionState): void {
    if (!state.replicas.includes(this.brokerId)) {
      if (this.partitions.has(k) || this.localLogs.has(k)) this.removeReplica(k);
      return;
    }
    if (this.offline.has(k)) return;
    let p = this.partitions.get(k);
    if (!p) {
      const log = this.localLogs.get(k) ?? new PartitionLog(this.deps.disk.replica(k), this.scheduler.now(), false, (this.stored ??= { bytes: 0 }));
      this.localLogs.set(k, log);
      p = new ReplicaPartition(this, topic.name, log, state);
      this.partitions.set(k, p);
    }
    const previousLeader = p.isLeader ? this.brokerId : p.leaderId;
    if (state.leader === this.brokerId) {
      this.fetchers.get(previousLeader)?.remove(k);
      p.becomeLeader(state);
    } else {
      p.becomeFollower(state);
      if (previousLeader !== state.leader) this.fetchers.get(previousLeader)?.remove(k);
      if (state.leader >= 0) this.fetcherFor(state.leader).add(k);
    }
  }

  private fetcherFor(leaderId: number): ReplicaFetcher {
    let f = this.fetchers.get(leaderId);
    if (!f) {
      f = new ReplicaFetcher(this, leaderId);
      this.fetchers.set(leaderId, f);
    }
    return f;
  }

  private removeReplica(k: string): void {
    const p = this.partitions.get(k);
    if (p) {
      p.resignLeadership();
      this.fetchers.get(p.leaderId)?.remove(k);
      this.partitions.delete(k);
    }
    this.localLogs.get(k)?.release();
    this.localLogs.delete(k);
    this.deps.disk.deleteReplica(k);
  }

  partitionByKey(k: string): ReplicaPartition | undefined {
    return this.partitions.get(k);
  }

  partitionFor(topic: string, partition: number): ReplicaPartition | undefined {
    const t = this.image.topicsByName.get(topic);
    return t ? this.partitions.get(replicaKey(t.topicId, partition)) : undefined;
  }

  // ================================================================ requests

  private handleRequest(from: NodeId, msg: BrokerRequest, reply: (res: unknown) => void): void {
    if (!this.isAlive) return;
    this.guarded(() => this.dispatch(from, msg, reply));
  }

  private dispatch(from: NodeId, msg: BrokerRequest, reply: (res: unknown) => void): void {
    switch (msg.type) {
      case 'fetch':
        return this.handleFetch(from as number, msg, reply);
      case 'produce':
        return this.handleProduce(msg, reply);
      case 'consumerFetch':
        return reply(this.handleConsumerFetch(msg));
      case 'listOffsets':
        return reply(this.handleListOffsets(msg));
      case 'metadataPush':
        return this.applyMetadata(msg.records);
    }
  }

  private handleProduce(req: ProduceRequest, reply: (res: unknown) => void): void {
    const respond = (r: ProduceResponse): void => reply(r);
    if (req.acks !== 0 && req.acks !== 1 && req.acks !== -1) return respond({ error: 'INVALID_REQUIRED_ACKS', baseOffset: -1 });
    const acks = req.acks;
    const fail = (error: KafkaErrorName, message?: string): void => {
      // acks=0: no response; on error the broker closes the connection instead.
      if (acks === 0) reply({ error, baseOffset: -1, connectionClosed: true });
      else respond({ error, baseOffset: -1, ...(message ? { message } : {}) });
    };
    if (isInternalTopic(req.topic)) return fail('INVALID_TOPIC_EXCEPTION', `Cannot append to internal topic ${req.topic}`);
    const topic = this.image.topicsByName.get(req.topic);
    if (!topic || !topic.partitions.has(req.partition)) return fail('UNKNOWN_TOPIC_OR_PARTITION');
    const p = this.partitions.get(replicaKey(topic.topicId, req.partition));
    if (!p || !p.isLeader) return fail('NOT_LEADER_OR_FOLLOWER', `Broker ${this.brokerId} is not the leader of ${req.topic}-${req.partition}`);
    p.appendAsLeader(req.records, acks, req.timeoutMs, (o) => {
      if (acks === 0) {
        if (o.errorCode !== 'NONE') fail(o.errorCode);
        else reply({ error: 'NONE', baseOffset: -1, noResponse: true });
        return;
      }
      const { leaderEpoch, appendTimeMs } = o;
      respond({ error: o.errorCode, baseOffset: o.baseOffset, ...(o.errorMessage ? { message: o.errorMessage } : {}), ...(leaderEpoch !== undefined ? { leaderEpoch, appendTimeMs } : {}) });
    });
  }

  private handleConsumerFetch(req: ConsumerFetchRequest): ConsumerFetchResponse {
    const empty = { batches: [], highWatermark: -1, logStartOffset: -1, logEndOffset: -1, leaderEpoch: -1 };
    const topic = this.image.topicsByName.get(req.topic);
    if (!topic || !topic.partitions.has(req.partition)) return { error: 'UNKNOWN_TOPIC_OR_PARTITION', ...empty };
    const k = replicaKey(topic.topicId, req.partition);
    if (this.offline.has(k)) return { error: 'KAFKA_STORAGE_ERROR', ...empty };
    const p = this.partitions.get(k);
    if (!p || !p.isLeader) return { error: 'NOT_LEADER_OR_FOLLOWER', ...empty };
    const log = p.log;
    const base = { highWatermark: log.highWatermark, logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset, leaderEpoch: p.leaderEpoch };
    if (req.offset < log.logStartOffset || req.offset > log.logEndOffset) return { error: 'OFFSET_OUT_OF_RANGE', batches: [], ...base };
    const batches = this.readOrOffline(p, req.offset, log.highWatermark, req.maxBytes);
    if (!batches) return { error: 'KAFKA_STORAGE_ERROR', ...empty };
    return { error: 'NONE', batches, ...base };
  }

  private handleListOffsets(req: ListOffsetsRequest): ListOffsetsResponse {
    const topic = this.image.topicsByName.get(req.topic);
    if (!topic || !topic.partitions.has(req.partition)) return { error: 'UNKNOWN_TOPIC_OR_PARTITION', offset: -1, leaderEpoch: -1 };
    const p = this.partitions.get(replicaKey(topic.topicId, req.partition));
    if (!p || !p.isLeader) return { error: 'NOT_LEADER_OR_FOLLOWER', offset: -1, leaderEpoch: -1 };
    if (req.timestamp === -2) return { error: 'NONE', offset: p.log.logStartOffset, leaderEpoch: p.leaderEpoch };
    // KIP-207: a new leader whose HW is still below its epoch start cannot answer "latest" yet.
    if (p.log.highWatermark < p.leaderEpochStartOffset) return { error: 'OFFSET_NOT_AVAILABLE', offset: -1, leaderEpoch: p.leaderEpoch };
    return { error: 'NONE', offset: p.log.highWatermark, leaderEpoch: p.leaderEpoch };
  }

  // ---------------------------------------------------------------- follower fetch, leader side

  private handleFetch(from: number, req: FetchRequest, reply: (res: unknown) => void): void {
    const keys = req.partitions.map((fp) => replicaKey(fp.topicId, fp.partition));
    const checks: FollowerFetchCheck[] = req.partitions.map((fp, i) => {
      const p = this.partitions.get(keys[i]!);
      if (!p) return { ok: false, error: this.image.topicsById.has(fp.topicId) ? 'NOT_LEADER_OR_FOLLOWER' : 'UNKNOWN_TOPIC_OR_PARTITION' };
      return p.checkFollowerFetch(req.replicaId, req.brokerEpoch, fp.fetchOffset, fp.lastFetchedEpoch, fp.currentLeaderEpoch);
    });
    const pf: ParkedFetch = { from, request: req, checks, reply: reply as (r: FetchResponse) => void, timer: null, keys, index: null, done: false };
    const now = this.scheduler.now();
    const immediate = checks.some((c, i) => !c.ok || this.hasDataFor(pf, i, now));
    if (immediate || req.maxWaitMs <= 0) return this.completeFetch(pf);
    this.parked.add(pf);
    const gen = this.generation;
    pf.timer = this.scheduler.schedule(req.maxWaitMs, () => {
      if (gen === this.generation) this.completeFetch(pf);
    });
  }

  private hasDataFor(pf: ParkedFetch, i: number, now: number): boolean {
    const fp = pf.request.partitions[i]!;
    const p = this.partitions.get(pf.keys[i]!);
    if (!p || !p.isLeader) return true;
    return p.log.logEndOffset > fp.fetchOffset && !this.leaderThrottled(p, pf.request.replicaId, now);
  }

  private leaderThrottled(p: ReplicaPartition, followerId: number, now: number): boolean {
    const list = this.topicConfig(p.topicId).leaderReplicationThrottledReplicas;
    if (!isThrottledReplica(list, p.partition, this.brokerId)) return false;
    if (p.maximalIsr.includes(followerId)) return false;
    return this.leaderQuota.isExceeded(this.brokerConfig().leaderReplicationThrottledRate, now);
  }

  onPartitionChanged(p: ReplicaPartition): void {
    if (this.parked.size === 0) return;
    const k = key(p);
    const now = this.scheduler.now();
    for (const pf of [...this.parked]) {
      if (pf.done) continue;
      pf.index ??= new Map(pf.keys.map((fk, i) => [fk, i]));
      const i = pf.index.get(k);
      if (i !== undefined && pf.checks[i]!.ok && this.hasDataFor(pf, i, now)) this.completeFetch(pf);
    }
  }

  private unpark(pf: ParkedFetch): void {
    pf.done = true;
    this.scheduler.cancel(pf.timer);
    this.parked.delete(pf);
  }

  private completeFetch(pf: ParkedFetch): void {
    if (pf.done) return;
    this.unpark(pf);
    const cfg = this.brokerConfig();
    const now = this.scheduler.now();
    let budget = cfg.replicaFetchResponseMaxBytes;
    const partitions: FetchPartitionResponse[] = pf.request.partitions.map((fp, i) => {
      const check = pf.checks[i]!;
      const p = this.partitions.get(pf.keys[i]!);
      const answer = (error: KafkaErrorName, batches: RecordBatch[] = []): FetchPartitionResponse => partitionAnswer(fp, p, error, batches);
      if (!check.ok) return 'divergingEpoch' in check ? { ...answer(check.error), divergingEpoch: check.divergingEpoch } : answer(check.error);
      if (!p || !p.isLeader) return answer('NOT_LEADER_OR_FOLLOWER');
      if (budget <= 0 || this.leaderThrottled(p, pf.request.replicaId, now)) return answer('NONE');
      const batches = this.readOrOffline(p, fp.fetchOffset, p.log.logEndOffset, Math.min(cfg.replicaFetchMaxBytes, budget));
      if (!batches) return answer('KAFKA_STORAGE_ERROR');
      const bytes = batches.reduce((s, b) => s + b.sizeBytes, 0);
      budget -= bytes;
      this.traffic.replicationBytesOut += bytes;
      if (bytes > 0 && isThrottledReplica(this.topicConfig(p.topicId).leaderReplicationThrottledReplicas, p.partition, this.brokerId)) {
        this.leaderQuota.record(bytes, now);
      }
      return answer('NONE', batches);
    });
    pf.reply({ partitions });
  }

  // ================================================================ views

  /**
   * Bytes of record batches this broker's disk holds for all its replicas: kept by its logs
   * while they are open; a broker that has not opened them in this run reads its disk once.
   * -1 when that disk cannot be read.
   */
  logBytes(): number {
    if (!this.stored) {
      try {
        this.stored = { bytes: this.deps.disk.totalBytes() };
      } catch (e) {
        if (!(e instanceof KafkaError) || (e.code !== 'KAFKA_STORAGE_ERROR' && e.code !== 'CORRUPT_MESSAGE')) throw e;
        this.stored = { bytes: -1 };
      }
    }
    return this.stored.bytes;
  }

  /** Partitions this broker leads (its own view). */
  leaderCount(): number {
    let n = 0;
    for (const p of this.partitions.values()) if (p.isLeader) n++;
    return n;
  }
}

/** One partition of a fetch response, built as one object literal (this runs for every partition of every fetch). */
function partitionAnswer(fp: { topicId: string; partition: number }, p: ReplicaPartition | undefined, error: KafkaErrorName, batches: RecordBatch[]): FetchPartitionResponse {
  return {
    topicId: fp.topicId,
    partition: fp.partition,
    error,
    highWatermark: p ? p.log.highWatermark : -1,
    logStartOffset: p ? p.log.logStartOffset : -1,
    logEndOffset: p ? p.log.logEndOffset : -1,
    batches,
  };
}

function key(p: ReplicaPartition): string {
  return replicaKey(p.topicId, p.partition);
}

function splitKey(k: string): [string, number] {
  const i = k.lastIndexOf(':');
  return [k.slice(0, i), Number(k.slice(i + 1))];
}
