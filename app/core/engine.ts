/**
 * The cluster engine, and the one way into it: brokers, the active controller (hosted on one
 * broker, failing over to a surviving one), the in-process network, fault injection, an in-app
 * client, reassignment administration and a read model. Everything is injected (`scheduler`,
 * `random`, `storage`), so the same seed gives the same history.
 *
 * The parts live in `cluster/` (composition and controller failover in `context.ts`, then
 * `faults.ts`, `client.ts`, `reassignment-admin.ts`, `read-model.ts`); this class only composes
 * them and is what the service, the hosts and the wire protocol call. The simulation's white-box
 * tools reach the insides through `cluster/internals.ts`, which the product may not import.
 *
 * Invariants: exactly zero or one controller is active; every admin change is a record the
 * controller commits (the engine validates nothing the controller would not); metrics are sampled
 * once per second of engine time and the engine time is saved every second, so a reopened cluster
 * resumes its clock.
 *
 * The types and constants the door exports with it are listed in engine-exports.ts (re-exported
 * here, so the product imports everything from this file).
 */
import type { BrokerState, EventSink } from '../api/events.js';
import type { MetricsView } from '../api/views.js';
import type {
  ClientDeleteRecordsRequest,
  ClientDeleteRecordsResponse,
  ClientFetchRequest,
  ClientFetchResponse,
  ClientInitProducerIdRequest,
  ClientInitProducerIdResponse,
  ClientListOffsetsRequest,
  ClientListOffsetsResponse,
  ClientMetadataRequest,
  ClientMetadataResponse,
  ClientOffsetForLeaderEpochRequest,
  ClientOffsetForLeaderEpochResponse,
  ClientProduceRequest,
} from './broker/messages.js';
import { Client, type BrokerProduceResult, type ConsumeInput, type ListOffsetsResult } from './cluster/client.js';
import { ClusterContext } from './cluster/context.js';
import { Faults } from './cluster/faults.js';
import { GroupRequests, sendTxnRequest, type GroupAnswer } from './cluster/group-requests.js';
import type { TxnApiRequest, TxnResponseOf } from './txn/messages.js';
import { registerInternals } from './cluster/internals.js';
import { KafkaRequests, type BrokerAnswer, type ProduceAnswer } from './cluster/kafka-requests.js';
import type { ListenerAddress } from './cluster/listeners.js';
import { ReadModel } from './cluster/read-model.js';
import { fillSynthetic, type SyntheticFill, type SyntheticFillResult } from './cluster/synthetic-fill.js';
import { ReassignmentAdmin, type VerifyResult } from './cluster/reassignment-admin.js';
import { ClusterSecurity } from './cluster/security.js';
import type {
  BrokerInfo,
  BrokerMember,
  ConsumeResult,
  EngineOptions,
  PartitionDescription,
  ProduceInput,
  ProduceResult,
  ReassignmentProgress,
  ReplicaCompaction,
} from './cluster/types.js';
import type { AlterConfigsOptions, CreateTopicInput, ElectionResult, ReassignmentResult } from './controller/controller.js';
import type { FeatureDescription, FeatureUpdate, FeatureUpdateResult } from './controller/features.js';
import type { ReassignmentTarget } from './controller/reassign-command.js';
import type { GroupApiRequest, GroupResponseOf } from './group/messages.js';
import type { GroupRecordCodec } from './group/record-codec.js';
import { OFFSETS_TOPIC } from './group/host.js';
import { offsetsPartitionFor } from './group/partition-for.js';
import type { StorageProvider } from './log/log-store.js';
import type { LogRecord } from './log/records.js';
import type { ClusterMetadata } from './metadata/image.js';
import type { PartitionState } from './metadata/records.js';
import { emptyMetrics, METRICS_INTERVAL_MS, MetricsSampler, type BrokerSampleInput } from './metrics.js';
import type { BrokerRuntimeConfig } from './runtime-config.js';
import type { Scheduler, TimerHandle } from './time.js';

export * from './engine-exports.js';

const CLOCK_KEY = 'clock.ms';
const CLOCK_CHECKPOINT_MS = 1_000;

export class Engine {
  private readonly ctx: ClusterContext;
  private readonly faults: Faults;
  private readonly requests: KafkaRequests;
  private readonly client: Client;
  private readonly groupRequests: GroupRequests;
  private readonly read: ReadModel;
  private readonly reassignments: ReassignmentAdmin;
  private readonly sec: ClusterSecurity;
  private readonly sampler = new MetricsSampler();
  private metricsTimer: TimerHandle | null = null;

  constructor(opts: EngineOptions) {
    this.ctx = new ClusterContext(opts);
    this.faults = new Faults(this.ctx);
    this.requests = new KafkaRequests(this.ctx);
    this.client = new Client(this.ctx, this.requests);
    this.groupRequests = new GroupRequests(this.ctx);
    this.read = new ReadModel(this.ctx);
    this.reassignments = new ReassignmentAdmin(this.ctx, this.read);
    this.sec = new ClusterSecurity(this.ctx);
    this.ctx.beforeEmit = (e) => this.reassignments.onEvent(e);
    registerInternals(this, this.ctx);
  }

  /** The engine time saved by the last run on this storage (0 for a new cluster). */
  static savedTimeMs(storage: StorageProvider): number {
    return Number(storage.metadata().loadSettings()[CLOCK_KEY] ?? 0);
  }

  get scheduler(): Scheduler {
    return this.ctx.scheduler;
  }

  /** The codecs of the group records and of the consumer protocol's bytes. */
  get groupRecords(): GroupRecordCodec {
    return this.ctx.opts.groupRecords;
  }

  /** The brokers' static configuration (server.properties) this engine runs with. */
  get staticConfigs(): Readonly<Record<string, string>> {
    return this.ctx.staticConfigs;
  }

  /** Receive every event; returns the unsubscribe function. */
  subscribe(sink: EventSink): () => void {
    return this.ctx.subscribe(sink);
  }

  // ================================================================ lifecycle of the cluster

  /** Start every broker and the controller on the lowest running broker id. */
  start(): void {
    this.ctx.startAll();
    this.scheduleClockCheckpoint();
    this.scheduleMetricsSample(this.scheduler.now());
    if (this.ctx.controller.listReassignments().length > 0) this.reassignments.watch();
  }

  /**
   * Close the cluster in an orderly way (the app is quitting): every running broker does a
   * controlled shutdown. Their process states are kept as they were, so the next start brings
   * the same brokers back. Run the clock until `isShutDown()`.
   */
  shutdown(): void {
    this.ctx.closing = true;
    this.ctx.opts.storage.metadata().saveSetting(CLOCK_KEY, String(this.scheduler.now()));
    for (const b of this.ctx.brokers.values()) if (b.isAlive) b.stop();
  }

  isShutDown(): boolean {
    return [...this.ctx.brokers.values()].every((b) => !b.isAlive);
  }

  /** Write a snapshot of the metadata image (the hosts do once an orderly close is done): the next open replays no record. */
  snapshotMetadata(): void {
    this.ctx.controller.takeSnapshot();
  }

  private scheduleClockCheckpoint(): void {
    this.scheduler.schedule(CLOCK_CHECKPOINT_MS, () => {
      if (this.ctx.closing) return;
      this.ctx.opts.storage.metadata().saveSetting(CLOCK_KEY, String(this.scheduler.now()));
      this.scheduleClockCheckpoint();
    });
  }

  /** Small cluster-level state kept with the metadata (imported profiles, for one). */
  loadSettings(): Record<string, string> {
    return this.ctx.opts.storage.metadata().loadSettings();
  }

  saveSetting(key: string, value: string): void {
    this.ctx.opts.storage.metadata().saveSetting(key, value);
  }

  // ================================================================ metrics

  /** Once per second of engine time: the rates over that second, as `metrics.sampled`. */
  private scheduleMetricsSample(startedAtMs: number): void {
    if (this.metricsTimer) return;
    this.metricsTimer = this.scheduler.schedule(METRICS_INTERVAL_MS, () => {
      this.metricsTimer = null;
      if (this.ctx.closing) return;
      const { atMs, ...sample } = this.sampler.sample(this.scheduler.now(), startedAtMs, this.metricsInputs(), this.client.consumedRecords);
      this.ctx.emit({ type: 'metrics.sampled', atMs, ...sample });
      this.scheduleMetricsSample(startedAtMs);
    });
  }

  private metricsInputs(): BrokerSampleInput[] {
    return [...this.ctx.brokers.values()].map((b) => ({ id: b.brokerId, traffic: b.traffic, logBytes: b.logBytes() }));
  }

  /** The latest metrics sample; before the first, every rate is 0 and disk use is as it is now. */
  latestMetrics(): MetricsView {
    return this.sampler.latest ?? emptyMetrics(this.scheduler.now(), this.metricsInputs());
  }

  // ================================================================ read model

  /** The controller's committed metadata: topics, partitions, brokers, dynamic configs. */
  get metadata(): ClusterMetadata {
    return this.ctx.controller.image;
  }

  /** The broker hosting the active controller; null during a controller election. */
  get controllerId(): number | null {
    return this.ctx.controller.hostBrokerId;
  }

  /** Broker configs as they resolve for the cluster as a whole (static, then cluster-wide dynamic). */
  clusterConfig(): BrokerRuntimeConfig {
    return this.ctx.controller.config();
  }

  brokerState(id: number): BrokerState {
    return this.ctx.brokerState(id);
  }

  listBrokers(): BrokerInfo[] {
    return this.read.listBrokers();
  }

  /** Member brokers by id, with their racks (a lighter `listBrokers`). */
  members(): BrokerMember[] {
    return this.read.members();
  }

  hasBroker(id: number): boolean {
    return this.ctx.brokers.has(id);
  }

  /** A partition as the controller records it, with every replica's log state. */
  describePartition(topic: string, partition: number): PartitionDescription | undefined {
    return this.read.describePartition(topic, partition);
  }

  /** The log cleaner's state of each served replica of a compacted partition (undefined: no such partition). */
  describeCompaction(topic: string, partition: number): ReplicaCompaction[] | undefined {
    return this.read.describeCompaction(topic, partition);
  }

  /** The `__consumer_offsets` partition that holds `groupId` (Kafka's partitionFor). */
  offsetsPartitionFor(groupId: string): number {
    const topic = this.ctx.controller.image.topicsByName.get(OFFSETS_TOPIC);
    return offsetsPartitionFor(groupId, topic ? topic.partitions.size : this.clusterConfig().groups.offsetsTopicNumPartitions);
  }

  /** Bytes of a partition's log (its leader's, or a live replica's; 0 when none is served). */
  partitionSizeBytes(topic: string, partition: number): number {
    return this.read.partitionSizeBytes(topic, partition);
  }

  /** The file system under broker `brokerId`'s log directory: total and usable bytes (null when the storage has no disk). */
  logDirSpace(brokerId: number): { totalBytes: number; usableBytes: number } | null {
    return this.ctx.opts.storage.logDirSpace?.(brokerId) ?? null;
  }

  /** Bytes of broker `brokerId`'s own replica of a partition; undefined when it holds none. */
  replicaSizeBytes(brokerId: number, topic: string, partition: number): number | undefined {
    return this.read.replicaSizeBytes(brokerId, topic, partition);
  }

  // ================================================================ admin (the controller's APIs)

  /** CreateTopics; `validateOnly` returns the partitions it would create. */
  createTopic(input: CreateTopicInput): { topicId: string; partitions: PartitionState[] } {
    return this.ctx.controller.createTopic(input);
  }

  deleteTopic(name: string): void {
    this.ctx.controller.deleteTopic(name);
  }

  /** CreatePartitions: grow a topic to `totalCount` partitions. */
  createPartitions(name: string, totalCount: number, assignments?: number[][], validateOnly = false): PartitionState[] {
    return this.ctx.controller.createPartitions(name, totalCount, assignments, validateOnly);
  }

  /** IncrementalAlterConfigs for one resource (broker name '' = the cluster-wide default). */
  alterConfigs(resourceType: 'topic' | 'broker', resourceName: string, set: Record<string, string | null>, validateOnly = false, options: AlterConfigsOptions = {}): void {
    this.ctx.controller.alterConfigs(resourceType, resourceName, set, validateOnly, options);
  }

  /** The features the controller supports with their finalized levels (`kafka-features.sh describe`). */
  describeFeatures(): FeatureDescription[] {
    return this.ctx.controller.features.describe();
  }

  /** The features with the metadata offset their levels were read at (what ApiVersions v3+ reports). */
  finalizedFeatures(): { epoch: number; features: FeatureDescription[] } {
    return { epoch: this.ctx.controller.features.epoch(), features: this.ctx.controller.features.describe() };
  }

  /** UpdateFeatures (`kafka-features.sh upgrade|downgrade`): per feature, NONE or INVALID_UPDATE_VERSION. */
  updateFeatures(updates: FeatureUpdate[], validateOnly = false): FeatureUpdateResult[] {
    return this.ctx.controller.features.update(updates, validateOnly);
  }

  /** ElectLeaders (KIP-460); `partitions` undefined = every partition. */
  electLeaders(type: 'preferred' | 'unclean', partitions?: { topic: string; partition: number }[], validateOnly = false): ElectionResult[] {
    return this.ctx.controller.electLeaders(type, partitions, validateOnly);
  }

  /** `kafka-reassign-partitions --execute [--throttle B]`. */
  executeReassignment(input: { partitions: ReassignmentTarget[]; throttleBytesPerSec?: number }): ReassignmentResult[] {
    return this.reassignments.execute(input);
  }

  /** `--cancel` (undefined = every ongoing reassignment). */
  cancelReassignment(partitions?: { topic: string; partition: number }[]): ReassignmentResult[] {
    return this.reassignments.cancel(partitions);
  }

  /**
   * AlterPartitionReassignments as the API has it (KIP-455): replicas per partition, null
   * cancels; no throttles set or cleared (that is the tool's business, `executeReassignment`).
   */
  alterPartitionReassignments(items: { topic: string; partition: number; replicas: number[] | null }[]): ReassignmentResult[] {
    this.ctx.controller.requireActive();
    return this.ctx.controller.alterReassignments(items);
  }

  /** `--list`, with how far each new replica has caught up. */
  listReassignments(): ReassignmentProgress[] {
    return this.reassignments.list();
  }

  /** `--verify`: Kafka's line per partition; clears the throttles once nothing moves. */
  verifyReassignment(partitions: ReassignmentTarget[]): VerifyResult[] {
    return this.reassignments.verify(partitions);
  }

  /** ACL bindings, SCRAM credentials, client quotas: the controller's changes, each broker's view, authorizer and quota sensors (cluster/security.ts). */
  get security(): ClusterSecurity {
    return this.sec;
  }

  // ================================================================ Kafka listeners

  /** Where each broker's Kafka listener is, by broker id (what Metadata advertises). */
  listenerAddresses(): ReadonlyMap<number, ListenerAddress> {
    return this.ctx.kafkaListeners.all();
  }

  /** The host bound (or, with null, gave up) broker `id`'s listener; kept with the cluster. */
  setListenerAddress(id: number, address: ListenerAddress | null): void {
    this.ctx.kafkaListeners.set(id, address);
  }

  // ================================================================ membership and faults

  startBroker(id: number): void {
    this.faults.startBroker(id);
  }
  stopBroker(id: number): void {
    this.faults.stopBroker(id);
  }
  killBroker(id: number): void {
    this.faults.killBroker(id);
  }
  powerLossBroker(id: number): void {
    this.faults.powerLossBroker(id);
  }
  isolateBroker(id: number): void {
    this.faults.isolateBroker(id);
  }
  /** Every network link of the broker is cut (`isolateBroker`). */
  isBrokerIsolated(id: number): boolean {
    return this.ctx.network.isIsolated(id);
  }
  healBroker(id: number): void {
    this.faults.healBroker(id);
  }
  stallFollower(id: number, stalled = true): void {
    this.faults.stallFollower(id, stalled);
  }
  cutLink(a: number | 'controller', b: number | 'controller', cut = true): void {
    this.faults.cutLink(a, b, cut);
  }
  slowLink(id: number, delayMs: number): void {
    this.faults.slowLink(id, delayMs);
  }
  /** Add a broker (it starts and registers); returns its id. */
  addBroker(input: { id?: number; rack?: string | null }): number {
    return this.faults.addBroker(input);
  }
  /** Remove a stopped broker that hosts no replicas. */
  removeBroker(id: number): void {
    this.faults.removeBroker(id);
  }

  // ================================================================ the in-app client

  /** Produce one batch to the partition's leader; answered per Kafka's acks rules. */
  produce(input: ProduceInput, done: (result: ProduceResult) => void): void {
    this.client.produce(input, done);
  }

  /** Produce to one specific broker (a client with stale metadata). */
  produceTo(brokerId: number, input: { topic: string; partition: number; acks: number; records: LogRecord[]; timeoutMs?: number }, done: (r: BrokerProduceResult) => void): void {
    this.client.produceTo(brokerId, input, done);
  }

  /** Synthetic records written into every replica of empty, fully in-sync partitions as replication would (cluster/synthetic-fill.ts). */
  fillSynthetic(fills: readonly SyntheticFill[]): SyntheticFillResult[] {
    return fillSynthetic(this.ctx, fills);
  }

  /** Read from the leader, read_uncommitted, below the high watermark. */
  consume(input: ConsumeInput, done: (r: ConsumeResult) => void): void {
    this.client.consume(input, done);
  }

  /** Read from one specific broker (a consumer with stale metadata). */
  consumeFrom(brokerId: number, input: ConsumeInput, done: (r: ConsumeResult) => void): void {
    this.client.consumeFrom(brokerId, input, done);
  }

  /** ListOffsets against the leader: latest (HW), earliest (log start), or by timestamp. */
  listOffsets(input: { topic: string; partition: number; timestamp: number }, done: (r: ListOffsetsResult) => void): void {
    this.client.listOffsets(input, done);
  }

  // ================================================================ Kafka's client requests, to one broker
  //
  // What a wire-protocol listener for broker `brokerId` calls with a decoded request. The request
  // crosses the in-process network, so a broker that is down or cut off is unreachable here as it
  // would be over TCP; every answer is per partition with Kafka's error codes (kafka-requests.ts).

  /** Produce (API key 0): one batch per partition; acks=0 is answered with no response (or a closed connection). */
  produceRequest(brokerId: number, request: ClientProduceRequest, done: (answer: ProduceAnswer) => void): void {
    this.requests.produce(brokerId, request, done);
  }

  /** Fetch (API key 1) as a consumer: below the HW, long-polled up to maxWaitMs until minBytes are readable. */
  fetchRequest(brokerId: number, request: ClientFetchRequest, done: (answer: BrokerAnswer<ClientFetchResponse>) => void, requestTimeoutMs?: number): void {
    this.requests.fetch(brokerId, request, done, requestTimeoutMs);
  }

  /** ListOffsets (API key 2): latest, earliest, max timestamp, or the first offset at or after a time. */
  listOffsetsRequest(brokerId: number, request: ClientListOffsetsRequest, done: (answer: BrokerAnswer<ClientListOffsetsResponse>) => void, requestTimeoutMs?: number): void {
    this.requests.listOffsets(brokerId, request, done, requestTimeoutMs);
  }

  /** OffsetForLeaderEpoch (API key 23): where an epoch ended on this leader (KIP-320). */
  offsetForLeaderEpochRequest(
    brokerId: number,
    request: ClientOffsetForLeaderEpochRequest,
    done: (answer: BrokerAnswer<ClientOffsetForLeaderEpochResponse>) => void,
    requestTimeoutMs?: number,
  ): void {
    this.requests.offsetForLeaderEpoch(brokerId, request, done, requestTimeoutMs);
  }

  /** InitProducerId (API key 22): a new producer id for an idempotent producer, or a transactional id's producer id and bumped epoch from its coordinator. */
  initProducerIdRequest(brokerId: number, request: ClientInitProducerIdRequest, done: (answer: BrokerAnswer<ClientInitProducerIdResponse>) => void, requestTimeoutMs?: number): void {
    this.requests.initProducerId(brokerId, request, done, requestTimeoutMs);
  }

  /** Metadata (API key 3): live brokers and each partition's leader, replicas and ISR, from this broker's copy. */
  metadataRequest(brokerId: number, request: ClientMetadataRequest, done: (answer: BrokerAnswer<ClientMetadataResponse>) => void, requestTimeoutMs?: number): void {
    this.requests.metadata(brokerId, request, done, requestTimeoutMs);
  }

  /** DeleteRecords (API key 21): each leader moves its log start up (-1: to the HW) and waits for its followers. */
  deleteRecordsRequest(brokerId: number, request: ClientDeleteRecordsRequest, done: (answer: BrokerAnswer<ClientDeleteRecordsResponse>) => void): void {
    this.requests.deleteRecords(brokerId, request, done);
  }

  // ================================================================ the group APIs, to one broker

  /**
   * FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
   * ListGroups, DescribeGroups, DeleteGroups or OffsetDelete sent to broker `brokerId`: what a
   * wire listener calls with a decoded request (group-requests.ts). A JoinGroup may wait there
   * for the rest of its group.
   */
  groupRequest<R extends GroupApiRequest>(brokerId: number, request: R, done: (answer: GroupAnswer<GroupResponseOf<R>>) => void, requestTimeoutMs?: number): void {
    this.groupRequests.send(brokerId, request, done, requestTimeoutMs);
  }

  /**
   * AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, DescribeTransactions, ListTransactions (the
   * broker's transaction coordinator answers) or DescribeProducers (a partition leader answers)
   * sent to broker `brokerId`.
   */
  txnRequest<R extends TxnApiRequest>(brokerId: number, request: R, done: (answer: BrokerAnswer<TxnResponseOf<R>>) => void, requestTimeoutMs?: number): void {
    sendTxnRequest(this.ctx, brokerId, request, done, requestTimeoutMs);
  }
}

export function createEngine(options: EngineOptions): Engine {
  return new Engine(options);
}
