/**
 * One broker process: its lifecycle (start, controlled shutdown, kill, power loss, a storage
 * failure that halts it), its copy of the metadata and its resolved configs. The parts it is made
 * of follow Kafka's own: `ControllerChannel` (registration, heartbeats, AlterPartition),
 * `ReplicaManager` (replica logs, partitions, fetchers, metadata application), `KafkaApis` (the
 * requests it answers) with its `FetchPurgatory`. Its disk (BrokerLogStore) outlives the process;
 * everything else is rebuilt on start. What it is made from is in broker-deps.ts, what its group
 * and transaction coordinators see of it in coordinator-hosts.ts.
 *
 * Invariants: a broker acts only on metadata it has applied, in log order; a crashed process
 * writes nothing more (not even checkpoints); an orderly stop flushes every log and marks a clean
 * shutdown; work of an ended incarnation (timers, answers to its requests) never runs.
 */
import { KafkaError } from '../../api/errors.js';
import type { EngineEvent } from '../../api/events.js';
import type { BrokerLogStore } from '../log/log-store.js';
import type { ProducedBatchValidator } from '../log/produced-batch.js';
import { type CleanedBatchWriter, PLAIN_CLEANED_BATCHES } from '../log/cleaner/cleaned-batch.js';
import type { RecordBatch } from '../log/records.js';
import type { CompactionStatus } from '../log/cleaner/compaction-status.js';
import { MetadataImage } from '../metadata/image.js';
import { BrokerTraffic } from '../metrics.js';
import type { CommittedRecord, LeaderRecoveryState } from '../metadata/records.js';
import type { ImageSnapshot } from '../metadata/snapshot.js';
import type { Network } from '../network.js';
import { resolveBrokerRuntimeConfig, resolveTopicRuntimeConfig, type BrokerRuntimeConfig, type TopicRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import { GroupCoordinator } from '../group/coordinator.js';
import type { MarkerType } from '../log/control-records.js';
import type { GroupNetworkRequest } from '../group/messages.js';
import { COORDINATOR_TYPE_TRANSACTION, TransactionCoordinator } from '../txn/coordinator.js';
import type { TxnNetworkRequest } from '../txn/messages.js';
import { brokerCoordinatorDeps, groupCoordinatorHost, txnCoordinatorHost } from './coordinator-hosts.js';
import { AutoTopicCreation } from './auto-topic-creation.js';
import { CatchUpGate } from './catch-up-gate.js';
import { ClientFetchSessionCache } from './client-fetch-sessions.js';
import { ControllerChannel, type ChannelHost } from './controller-channel.js';
import { FetchPurgatory, type PurgatoryHost } from './fetch-purgatory.js';
import { KafkaApis, type ApisHost } from './kafka-apis.js';
import type { BrokerRequest, ClientInitProducerIdRequest, ClientInitProducerIdResponse } from './messages.js';
import type { ReplicaPartition } from './partition.js';
import { ProducerIdManager, type ProducerIdAnswer } from './producer-ids.js';
import { RateMeter } from './quota.js';
import type { ReplicaFetcher } from './replica-fetcher.js';
import { ReplicaManager, type LeaderLookup, type ReplicaManagerHost } from './replica-manager.js';
import type { BrokerDeps } from './broker-deps.js';

export type { BrokerDeps } from './broker-deps.js';

export type ProcessState = 'stopped' | 'starting' | 'running' | 'stopping' | 'killed' | 'power-lost' | 'failed';


/** How long an orderly stop waits for the controller before shutting down anyway. */
const CONTROLLED_SHUTDOWN_TIMEOUT_MS = 30_000;
/** Kafka's `log.initial.task.delay.ms` (an internal config): the first retention check after start. */
const LOG_INITIAL_TASK_DELAY_MS = 30_000;

export class Broker implements ReplicaManagerHost, ChannelHost, PurgatoryHost, ApisHost {
  readonly brokerId: number;
  readonly rack: string | null;
  readonly scheduler: Scheduler;
  readonly network: Network;
  readonly disk: BrokerLogStore;
  readonly producedBatches: ProducedBatchValidator | undefined;
  readonly cleanedBatches: CleanedBatchWriter;
  process: ProcessState = 'stopped';
  image = new MetadataImage();
  fetcherStalled = false;
  leaderQuota: RateMeter;
  followerQuota: RateMeter;
  /** Produce and replication traffic counters (read by the engine's metrics sampler). */
  readonly traffic = new BrokerTraffic();
  private readonly channel: ControllerChannel;
  private readonly producerIds: ProducerIdManager;
  private readonly replicas: ReplicaManager;
  private readonly purgatory: FetchPurgatory;
  private readonly apis: KafkaApis;
  private readonly groups: GroupCoordinator;
  private readonly txn: TransactionCoordinator;
  /** Topics clients' requests create (Kafka's AutoTopicCreationManager). */
  readonly autoTopics: AutoTopicCreation;
  /** Consumers' fetch sessions (KIP-227): in memory, gone with the process. */
  private readonly clientSessions: ClientFetchSessionCache;
  /**
   * The timers this incarnation has armed and that have not fired (a periodic task keeps only its
   * next one): cancelled when it ends. Each leaves the set when it fires, so it stays small however
   * long the broker runs.
   */
  private readonly timers = new Set<TimerHandle>();
  private gen = 0;
  /** Clients' requests wait here until this incarnation has caught up (catch-up-gate.ts). */
  private readonly catchUp = new CatchUpGate(() => this.scheduler.now());
  private topicConfigCache = new Map<string, TopicRuntimeConfig>();
  private brokerConfigCache: BrokerRuntimeConfig | null = null;

  constructor(private readonly deps: BrokerDeps) {
    this.brokerId = deps.id;
    this.rack = deps.rack;
    this.scheduler = deps.scheduler;
    this.network = deps.network;
    this.disk = deps.disk;
    this.producedBatches = deps.producedBatches;
    this.cleanedBatches = deps.cleanedBatches ?? PLAIN_CLEANED_BATCHES;
    const cfg = this.brokerConfig();
    this.leaderQuota = new RateMeter(cfg.replicationQuotaWindowNum, cfg.replicationQuotaWindowSizeMs);
    this.followerQuota = new RateMeter(cfg.replicationQuotaWindowNum, cfg.replicationQuotaWindowSizeMs);
    this.channel = new ControllerChannel(this, deps.random);
    this.producerIds = new ProducerIdManager(this.channel);
    this.replicas = new ReplicaManager(this);
    this.purgatory = new FetchPurgatory(this);
    const now = (): number => this.scheduler.now();
    this.clientSessions = new ClientFetchSessionCache({ now, maxSlots: () => this.brokerConfig().maxIncrementalFetchSessionCacheSlots, randomInt: (b) => deps.random.nextInt(b) });
    this.apis = new KafkaApis(this, this.replicas, this.purgatory, this.clientSessions);
    const coordinatorDeps = brokerCoordinatorDeps(this, this.replicas, deps);
    this.groups = new GroupCoordinator(groupCoordinatorHost(coordinatorDeps));
    this.txn = new TransactionCoordinator(txnCoordinatorHost(coordinatorDeps));
    const sendCreateTopic = this.channel.createTopic.bind(this.channel);
    this.autoTopics = new AutoTopicCreation({ brokerId: this.brokerId, brokerConfig: () => this.brokerConfig(), now, sendCreateTopic });
  }

  /** transaction.partition.verification.enable (KIP-890), read per request as Kafka does. */
  verificationEnabled(): boolean {
    return this.brokerConfig().txn.partitionVerificationEnable;
  }

  /** Markers reached these `__consumer_offsets` partitions: the group coordinator completes the producer's offsets. */
  onOffsetsTransactionCompleted(producerId: number, partitions: readonly number[], result: MarkerType): void {
    this.groups.onTransactionCompleted(producerId, partitions, result === 'COMMIT');
  }

  get isAlive(): boolean {
    return this.process === 'starting' || this.process === 'running' || this.process === 'stopping';
  }

  /** Bumped by every start and teardown: the incarnation work belongs to. */
  get generation(): number {
    return this.gen;
  }

  /** The epoch the controller gave this incarnation (-1 until registered). */
  get brokerEpoch(): number {
    return this.channel.brokerEpoch;
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

  configsChanged(): void {
    this.topicConfigCache.clear();
    this.brokerConfigCache = null;
  }

  // ================================================================ lifecycle

  /** Start the process: recover logs from disk, then register with the controller. */
  start(): void {
    if (this.isAlive) return;
    this.gen++;
    this.process = 'starting';
    let previousBrokerEpoch = -1;
    const recovered = this.guarded(() => {
      const disk = this.disk.loadState();
      this.image = new MetadataImage();
      this.configsChanged();
      this.replicas.recover(this.scheduler.now(), disk.powerLost);
      this.disk.saveState({ cleanShutdown: false, powerLost: false, lastBrokerEpoch: disk.lastBrokerEpoch });
      previousBrokerEpoch = disk.cleanShutdown ? disk.lastBrokerEpoch : -1;
    });
    if (!recovered) return;
    this.process = 'starting';
    this.channel.begin(previousBrokerEpoch);
    this.autoTopics.reset();
    this.network.bind(this.brokerId, (from, msg, reply) => {
      if (!this.isAlive) return;
      if (from === 'client' && this.process === 'starting') return this.catchUp.hold(msg as BrokerRequest, reply);
      this.guarded(() => this.apis.handle(from, msg as BrokerRequest, reply));
    });
    const cfg = this.brokerConfig();
    // forEach, not for-of: these walk every replica of the broker, and the iterator allocated per step.
    this.every(cfg.replicaLagTimeMaxMs / 2, () => {
      this.replicas.partitions.forEach((p) => p.maybeShrinkIsr());
    });
    this.every(cfg.highWatermarkCheckpointIntervalMs, () => this.replicas.saveDueCheckpoints());
    this.after(LOG_INITIAL_TASK_DELAY_MS, () => {
      this.replicas.cleanupLogs(this.scheduler.now());
      this.every(cfg.logRetentionCheckIntervalMs, () => this.replicas.cleanupLogs(this.scheduler.now()));
    });
    this.replicas.cleaner.startup();
    this.groups.startup();
    this.txn.startup();
    this.channel.register();
    this.deps.onChange('started');
  }

  /** A broker the user left stopped, killed or powered off when the cluster last closed stays so. */
  restoreDownState(state: 'stopped' | 'killed' | 'power-lost'): void {
    if (!this.isAlive) this.process = state;
  }

  /** Run `fn` every `ms` while this incarnation lives (one timer armed at a time, kept in `timers`). */
  private every(ms: number, fn: () => void): void {
    const gen = this.gen;
    let armed: TimerHandle;
    const tick = (): void => {
      this.timers.delete(armed);
      if (gen !== this.gen || !this.isAlive) return;
      this.guarded(fn);
      if (gen !== this.gen || !this.isAlive) return;
      armed = this.scheduler.schedule(ms, tick);
      this.timers.add(armed);
    };
    armed = this.scheduler.schedule(ms, tick);
    this.timers.add(armed);
  }

  /** Run `fn` once after `ms` if this incarnation still lives; the timer leaves `timers` when it fires. */
  after(ms: number, fn: () => void): TimerHandle {
    const gen = this.gen;
    const t = this.scheduler.schedule(ms, () => {
      this.timers.delete(t);
      if (gen === this.gen && this.isAlive) this.guarded(fn);
    });
    this.timers.add(t);
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
    this.channel.requestShutdown();
    this.after(CONTROLLED_SHUTDOWN_TIMEOUT_MS, () => this.shutdownNow());
    this.deps.onChange('controlled shutdown requested');
  }

  shutdownNow(): void {
    this.replicas.flushAll(this.scheduler.now());
    this.disk.saveState({ cleanShutdown: true, powerLost: false, lastBrokerEpoch: this.brokerEpoch });
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
    const disk = this.disk.loadState();
    this.disk.saveState({ ...disk, powerLost: true });
    if (this.isAlive) this.teardown(false);
    this.process = 'power-lost';
    this.deps.onChange('power lost');
  }

  private teardown(resetConnections: boolean): void {
    this.gen++;
    this.catchUp.clear();
    this.groups.shutdown();
    this.txn.shutdown();
    this.replicas.cleaner.shutdown();
    for (const t of this.timers) this.scheduler.cancel(t);
    this.timers.clear();
    this.channel.close();
    this.producerIds.reset();
    this.replicas.stopFetchers();
    this.purgatory.clear();
    this.clientSessions.clear();
    this.replicas.resignAll();
    this.network.unbind(this.brokerId, resetConnections);
    this.replicas.closeAll();
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

  /** Stall (or resume) this broker's replica fetchers; heartbeats continue. */
  setFetcherStalled(stalled: boolean): void {
    this.fetcherStalled = stalled;
    if (!stalled) this.replicas.wakeFetchers();
  }

  isFetchingAllowed(): boolean {
    return this.isAlive && !this.fetcherStalled;
  }

  // ================================================================ what the parts call back

  registered(brokerEpoch: number): void {
    const disk = this.disk.loadState();
    this.disk.saveState({ ...disk, lastBrokerEpoch: brokerEpoch });
  }

  fenceStateKnown(isFenced: boolean, changed: boolean): void {
    if (this.process === 'starting' && !isFenced) {
      this.process = 'running';
      this.catchUp.open((msg, reply) => this.guarded(() => this.apis.handle('client', msg, reply)), () => this.isAlive);
    }
    if (changed) this.deps.onChange(isFenced ? 'fenced' : 'unfenced');
  }

  /** Apply committed metadata records in order (a gap waits for the next heartbeat), after loading `snapshot` if given. */
  applyMetadata(records: readonly CommittedRecord[], snapshot?: ImageSnapshot): void {
    if (!this.isAlive) return;
    // The coordinator drops the offsets of deleted topics, by name: the image forgets the names
    // of the topics it removes, so applying notes them as it goes (a separate pass over the
    // records cost each broker a walk of 25,000 of them when a broker left a 100,000-partition cluster).
    const removedTopics: string[] = [];
    if (snapshot && snapshot.offset > this.image.offset) this.replicas.loadSnapshot(snapshot, removedTopics);
    this.replicas.applyMetadata(records, removedTopics);
    // A partition that moved away, a topic deleted: consumers' sessions look at everything again.
    if (records.length > 0 || snapshot) this.clientSessions.markAllDirty();
    this.groups.onMetadata(removedTopics);
    this.txn.onMetadata();
  }

  handleGroupRequest(msg: GroupNetworkRequest, reply: (res: unknown) => void): void {
    if (msg.api === 'findCoordinator' && msg.keyType === COORDINATOR_TYPE_TRANSACTION) return reply(this.txn.findCoordinator(msg.keys, msg.clientId ?? ''));
    this.groups.handle(msg, reply);
  }

  /** A transaction request for this broker's transaction coordinator. */
  handleTxnRequest(msg: TxnNetworkRequest, reply: (res: unknown) => void): void {
    this.txn.handle(msg, reply);
  }

  /** InitProducerId with a transactional id: the transaction coordinator answers. */
  txnInitProducerId(req: ClientInitProducerIdRequest, reply: (res: ClientInitProducerIdResponse) => void): void {
    this.txn.initProducerId(req, reply);
  }

  sendAlterPartition(p: ReplicaPartition, proposedIsr: number[], recovery: LeaderRecoveryState): void {
    this.channel.alterPartition(p, proposedIsr, recovery);
  }

  noticeReplicaOffline(topicId: string, partition: number): void {
    this.channel.replicaOffline(topicId, partition);
  }

  isCurrent(p: ReplicaPartition): boolean {
    return this.replicas.partitionByKey(p.key) === p;
  }

  /** New data on a leader: wake the fetches parked on it. */
  onPartitionChanged(p: ReplicaPartition): void {
    this.purgatory.onPartitionChanged(p);
  }

  /** InitProducerId: the next producer id of this broker's block (a new block from the controller when it runs out). */
  generateProducerId(done: (answer: ProducerIdAnswer) => void): void {
    this.producerIds.generate(done);
  }

  onHighWatermarkAdvanced(p: ReplicaPartition): void {
    this.clientSessions.markDirty(p.topic, p.partition);
    this.purgatory.onClientVisibleChange(p);
    this.purgatory.onLeaderStateChanged(p);
  }

  onLeadershipChanged(p: ReplicaPartition): void {
    this.clientSessions.markDirty(p.topic, p.partition);
    this.purgatory.onClientVisibleChange(p);
    this.purgatory.onLeaderStateChanged(p);
  }

  beforeLeaderAppend(p: ReplicaPartition): void {
    this.purgatory.settle(p);
  }

  onLeaderStateChanged(p: ReplicaPartition): void {
    this.clientSessions.markDirty(p.topic, p.partition);
    this.purgatory.onLeaderStateChanged(p);
  }

  recheckFetchSessions(): void {
    this.clientSessions.markAllDirty();
    this.purgatory.recheckAll();
  }

  leaderReplica(topic: string, partition: number, currentLeaderEpoch: number, checkOffline: boolean): LeaderLookup {
    return this.replicas.leaderReplica(topic, partition, currentLeaderEpoch, checkOffline);
  }

  readOrOffline(p: ReplicaPartition, from: number, until: number, maxBytes: number): RecordBatch[] | null {
    return this.replicas.readOrOffline(p, from, until, maxBytes);
  }

  lastStableOffsetOrOffline(p: ReplicaPartition): number | null {
    return this.replicas.lastStableOffsetOrOffline(p);
  }

  // ================================================================ views

  partitionByKey(k: string): ReplicaPartition | undefined {
    return this.replicas.partitionByKey(k);
  }

  partitionFor(topic: string, partition: number): ReplicaPartition | undefined {
    return this.replicas.partitionFor(topic, partition);
  }

  /** The log cleaner's state of this broker's replica of a compacted partition (undefined: none served). */
  compactionStatus(key: string): CompactionStatus | undefined {
    return this.replicas.compactionStatus(key);
  }

  /** Bytes of record batches this broker's disk holds for all its replicas (-1 when unreadable). */
  logBytes(): number {
    return this.replicas.logBytes();
  }

  /** Partitions this broker leads (its own view). */
  leaderCount(): number {
    return this.replicas.leaderCount();
  }

  /** A follower's log was written outside its fetches (cluster/synthetic-fill.ts): its next fetch names the new position. */
  followerMoved(p: ReplicaPartition): void {
    this.replicas.followerMoved(p);
  }

  /** This broker's replica fetchers (white-box checks). */
  fetcherViews(): readonly ReplicaFetcher[] {
    return this.replicas.fetcherViews();
  }

  /** Forget every follower's fetch session, as a leader whose session cache evicted them (white-box checks). */
  forgetFetchSessions(): void {
    this.purgatory.forgetSessions();
  }
}
