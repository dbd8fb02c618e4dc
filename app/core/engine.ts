/**
 * The cluster engine: brokers, the active controller (hosted on one broker, failing over to a
 * surviving one), the in-process network, fault injection and an in-app client. Everything is
 * injected (`scheduler`, `random`, `storage`), so the same seed gives the same history.
 *
 * Invariants: exactly zero or one controller is active; after the active controller's host dies
 * or is cut off, a surviving, reachable broker takes over after controller.quorum.fetch.timeout.ms
 * plus a randomised election timeout. The metadata log is modelled as durable across failovers
 * (what a controller quorum gives a real cluster), so no majority of brokers is needed.
 */
import { KafkaError, type KafkaErrorName } from '../api/errors.js';
import type { BrokerState, EngineEvent, EventSink } from '../api/events.js';
import type { MetricsView } from '../api/views.js';
import { Broker } from './broker/broker.js';
import type { ConsumerFetchResponse, ListOffsetsResponse, ProduceResponse } from './broker/messages.js';
import { Controller, type ReassignmentResult } from './controller/controller.js';
import {
  BROKER_THROTTLE_CONFIGS,
  followerThrottles,
  leaderThrottles,
  mergeThrottledReplicas,
  proposedMoveMap,
  reassigningBrokers,
  TOPIC_THROTTLE_CONFIGS,
  validateReassignmentTargets,
  verifyLine,
  type ReassignmentTarget,
  type VerifyStatus,
} from './controller/reassign-command.js';
import { replicaKey, type MetadataStore, type StorageProvider } from './log/log-store.js';
import type { LogRecord } from './log/records.js';
import { emptyMetrics, METRICS_INTERVAL_MS, MetricsSampler, type BrokerSampleInput } from './metrics.js';
import type { PartitionState } from './metadata/records.js';
import { Network, type NodeId } from './network.js';
import { partitionForKey } from './partitioner.js';
import type { PlacementStrategy } from './placement/index.js';
import type { Random } from './random.js';
import type { Scheduler } from './time.js';

export interface EngineOptions {
  scheduler: Scheduler;
  random: Random;
  storage: StorageProvider;
  /** Brokers of a new cluster (ignored when the metadata log already names brokers). */
  brokers: { id: number; rack?: string | null }[];
  /** The brokers' static configuration (server.properties); Kafka's defaults otherwise. */
  staticConfigs?: Record<string, string>;
  placement?: PlacementStrategy;
  /** One-way network latency in ms (default 0). */
  networkDelayMs?: number;
}

export interface ProduceInput {
  topic: string;
  partition?: number;
  acks: number | 'all';
  records: LogRecord[];
  timeoutMs?: number;
}

export interface ProduceResult {
  topic: string;
  partition: number;
  baseOffset: number;
  errorCode: KafkaErrorName;
  errorMessage?: string;
  /** acks=0 only: the broker closed the connection (it refused the write). */
  connectionClosed?: boolean;
  /** Set once the leader appended the batch: the epoch it was written in and the leader's append time. */
  leaderEpoch?: number;
  appendTimeMs?: number;
}

export interface ConsumedRecord extends LogRecord {
  offset: number;
  leaderEpoch: number;
}

export interface ConsumeResult {
  errorCode: KafkaErrorName;
  records: ConsumedRecord[];
  highWatermark: number;
  logStartOffset: number;
  logEndOffset: number;
}

export interface ReplicaStateView {
  brokerId: number;
  logEndOffset: number;
  highWatermark: number;
  logStartOffset: number;
  flushedOffset: number;
}

export interface PartitionView extends PartitionState {
  highWatermark: number;
  logStartOffset: number;
  replicaStates: ReplicaStateView[];
}

/** One in-flight reassignment with how far its new replicas have caught up. */
export interface ReassignmentProgress {
  topic: string;
  partition: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
  progress: { leaderLogEndOffset: number; addingReplicas: { brokerId: number; logEndOffset: number; inIsr: boolean }[]; percent: number };
}

export interface BrokerInfo {
  id: number;
  rack: string | null;
  state: BrokerState;
  isolated: boolean;
  fetcherStalled: boolean;
  isController: boolean;
  brokerEpoch: number;
  partitionCount: number;
  leaderCount: number;
  /** Bytes of record batches its disk holds for all its replicas; -1 when unreadable. */
  logBytes: number;
}

const CLIENT: NodeId = 'client';
const CLOCK_KEY = 'clock.ms';
const CLOCK_CHECKPOINT_MS = 1_000;
const REASSIGNMENT_PROGRESS_MS = 1_000;
const brokerProcessKey = (id: number): string => `broker.${id}.process`;

export class Engine {
  readonly network: Network;
  readonly controller: Controller;
  readonly brokers = new Map<number, Broker>();
  private readonly listeners = new Set<EventSink>();
  private readonly lastState = new Map<number, BrokerState>();
  private electionTimer: ReturnType<Scheduler['schedule']> | null = null;
  private roundRobin = 0;
  private readonly staticConfigsMap: Record<string, string>;

  constructor(private readonly opts: EngineOptions) {
    this.staticConfigsMap = { ...(opts.staticConfigs ?? {}) };
    this.network = new Network(opts.scheduler);
    this.network.baseDelayMs = opts.networkDelayMs ?? 0;
    this.network.bind(CLIENT, () => {});
    this.controller = new Controller({
      scheduler: opts.scheduler,
      network: this.network,
      random: opts.random,
      store: opts.storage.metadata(),
      staticConfigs: this.staticConfigsMap,
      placement: opts.placement ?? 'classic',
      emit: (e) => this.emit(e),
      onChange: (reason) => this.refreshBrokerStates(reason),
    });
    const known = [...this.controller.image.brokers.values()].map((b) => ({ id: b.id, rack: b.rack }));
    for (const b of known.length > 0 ? known : opts.brokers) this.createBroker(b.id, b.rack ?? null);
  }

  get scheduler(): Scheduler {
    return this.opts.scheduler;
  }

  /** The cluster's durable metadata store (its settings hold small cluster-level state). */
  get metadataStore(): MetadataStore {
    return this.opts.storage.metadata();
  }

  /** The brokers' static configuration (server.properties) this engine runs with. */
  get staticConfigs(): Readonly<Record<string, string>> {
    return this.staticConfigsMap;
  }

  subscribe(sink: EventSink): () => void {
    this.listeners.add(sink);
    return () => this.listeners.delete(sink);
  }

  private emit(event: EngineEvent): void {
    if (event.type === 'reassignment.changed' && event.status === 'started') this.watchReassignments();
    for (const l of this.listeners) l(event);
  }

  /**
   * A broker recovering its logs after a power loss has no metadata yet, so it knows its replicas
   * by topic id only; events name topics, so the id is resolved here from the controller's image.
   */
  private withTopicName(event: EngineEvent): EngineEvent {
    if (event.type !== 'replica.truncated') return event;
    const topic = this.controller.image.topicsById.get(event.topic);
    return topic ? { ...event, topic: topic.name } : event;
  }

  private createBroker(id: number, rack: string | null): Broker {
    const broker = new Broker({
      id,
      rack,
      scheduler: this.opts.scheduler,
      network: this.network,
      random: this.opts.random,
      disk: this.opts.storage.broker(id),
      staticConfigs: this.staticConfigsMap,
      emit: (e) => this.emit(this.withTopicName(e)),
      onChange: (reason) => this.onBrokerChange(id, reason),
    });
    this.brokers.set(id, broker);
    this.lastState.set(id, 'stopped');
    return broker;
  }

  /** Start every broker and the controller on the lowest broker id. */
  start(): void {
    const settings = this.opts.storage.metadata().loadSettings();
    const ids = [...this.brokers.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      // A broker the user had stopped, killed or powered off stays so when the cluster reopens.
      const saved = settings[brokerProcessKey(id)];
      const b = this.brokers.get(id)!;
      if (saved === 'stopped' || saved === 'killed' || saved === 'power-lost') {
        b.restoreDownState(saved);
        this.lastState.set(id, saved);
      } else b.start();
    }
    const first = ids.find((id) => this.brokers.get(id)!.isAlive);
    if (!this.controller.isActive && first !== undefined) this.activateController(first, 'cluster started');
    this.scheduleClockCheckpoint();
    this.scheduleMetricsSample(this.scheduler.now());
    if (this.controller.listReassignments().length > 0) this.watchReassignments();
  }

  // ================================================================ metrics

  private readonly sampler = new MetricsSampler();
  private metricsTimer: ReturnType<Scheduler['schedule']> | null = null;
  /** Records the in-app consumer received (cumulative). */
  private consumedRecords = 0;

  /** Once per second of engine time: the rates over that second, as `metrics.sampled`. */
  private scheduleMetricsSample(startedAtMs: number): void {
    if (this.metricsTimer) return;
    this.metricsTimer = this.scheduler.schedule(METRICS_INTERVAL_MS, () => {
      this.metricsTimer = null;
      if (this.closing) return;
      const { atMs, ...sample } = this.sampler.sample(this.scheduler.now(), startedAtMs, this.metricsInputs(), this.consumedRecords);
      this.emit({ type: 'metrics.sampled', atMs, ...sample });
      this.scheduleMetricsSample(startedAtMs);
    });
  }

  private metricsInputs(): BrokerSampleInput[] {
    return [...this.brokers.values()].map((b) => ({ id: b.brokerId, traffic: b.traffic, logBytes: b.logBytes() }));
  }

  /** The latest metrics sample; before the first, every rate is 0 and disk use is as it is now. */
  latestMetrics(): MetricsView {
    return this.sampler.latest ?? emptyMetrics(this.scheduler.now(), this.metricsInputs());
  }

  /** The engine time saved by the last run on this storage (0 for a new cluster). */
  static savedTimeMs(storage: StorageProvider): number {
    return Number(storage.metadata().loadSettings()[CLOCK_KEY] ?? 0);
  }

  private scheduleClockCheckpoint(): void {
    this.scheduler.schedule(CLOCK_CHECKPOINT_MS, () => {
      if (this.closing) return;
      this.opts.storage.metadata().saveSetting(CLOCK_KEY, String(this.scheduler.now()));
      this.scheduleClockCheckpoint();
    });
  }

  private closing = false;

  /**
   * Close the cluster in an orderly way (the app is quitting): every running broker does a
   * controlled shutdown. Their process states are kept as they were, so the next start brings
   * the same brokers back. Run the clock until `isShutDown()`.
   */
  shutdown(): void {
    this.closing = true;
    this.opts.storage.metadata().saveSetting(CLOCK_KEY, String(this.scheduler.now()));
    for (const b of this.brokers.values()) if (b.isAlive) b.stop();
  }

  isShutDown(): boolean {
    return [...this.brokers.values()].every((b) => !b.isAlive);
  }

  // ================================================================ controller hosting

  get controllerId(): number | null {
    return this.controller.hostBrokerId;
  }

  private activateController(hostId: number, reason: string): void {
    const previous = this.controller.hostBrokerId;
    this.controller.activate(hostId);
    this.emit({ type: 'controller.changed', atMs: this.scheduler.now(), controllerId: hostId, previousControllerId: previous, reason });
    this.refreshBrokerStates('controller changed');
  }

  /** The controller's host died or was cut off: the quorum elects another host. */
  private controllerLost(reason: string): void {
    if (!this.controller.isActive) return;
    const previous = this.controller.hostBrokerId;
    this.controller.deactivate();
    this.emit({ type: 'controller.changed', atMs: this.scheduler.now(), controllerId: null, previousControllerId: previous, reason });
    this.scheduleControllerElection();
  }

  private scheduleControllerElection(): void {
    if (this.electionTimer) return;
    const cfg = this.controller.config();
    const delay = cfg.controllerQuorumFetchTimeoutMs + cfg.controllerQuorumElectionTimeoutMs + this.opts.random.nextInt(cfg.controllerQuorumElectionTimeoutMs);
    this.electionTimer = this.scheduler.schedule(delay, () => {
      this.electionTimer = null;
      if (this.controller.isActive) return;
      const candidates = [...this.brokers.values()].filter((b) => b.isAlive && !this.network.isIsolated(b.brokerId)).map((b) => b.brokerId);
      if (candidates.length === 0) return this.scheduleControllerElection();
      const winner = candidates[this.opts.random.nextInt(candidates.length)]!;
      this.activateController(winner, 'controller failover');
    });
  }

  private onBrokerChange(id: number, reason: string): void {
    const b = this.brokers.get(id);
    if (b && !this.closing) {
      const process = b.isAlive ? 'running' : b.process;
      this.opts.storage.metadata().saveSetting(brokerProcessKey(id), process);
    }
    if (b && !b.isAlive && this.controller.hostBrokerId === id) this.controllerLost(`broker ${id} ${reason}`);
    if (b?.isAlive && !this.controller.isActive) this.scheduleControllerElection();
    this.refreshBrokerStates(reason);
  }

  // ================================================================ broker states

  brokerState(id: number): BrokerState {
    const b = this.brokers.get(id);
    if (!b) return 'stopped';
    if (b.process === 'killed') return 'killed';
    if (b.process === 'power-lost') return 'power-lost';
    if (b.process === 'failed') return 'storage-failed';
    if (b.process === 'stopped') return 'stopped';
    const reg = this.controller.image.brokers.get(id);
    if (b.process === 'stopping' || (reg && reg.inControlledShutdown && !reg.fenced)) return 'controlled-shutdown';
    if (!reg || reg.fenced || reg.brokerEpoch !== b.brokerEpoch) return b.process === 'starting' ? 'starting' : 'fenced';
    return 'running';
  }

  private refreshBrokerStates(reason: string): void {
    for (const id of this.brokers.keys()) {
      const state = this.brokerState(id);
      const previous = this.lastState.get(id) ?? 'stopped';
      if (state === previous) continue;
      this.lastState.set(id, state);
      this.emit({ type: 'broker.stateChanged', atMs: this.scheduler.now(), brokerId: id, state, previous, reason });
    }
  }

  // ================================================================ lifecycle and faults

  private broker(id: number): Broker {
    const b = this.brokers.get(id);
    if (!b) throw new KafkaError('BROKER_NOT_FOUND', `Broker ${id} is not a member of this cluster.`);
    return b;
  }

  /** Start a stopped, killed or powered-off broker (a new incarnation). */
  startBroker(id: number): void {
    const b = this.broker(id);
    if (b.isAlive) throw new KafkaError('INVALID_STATE', `Broker ${id} is already running.`);
    b.start();
  }

  /** Orderly stop: controlled shutdown moves leadership away first. */
  stopBroker(id: number): void {
    const b = this.broker(id);
    if (!b.isAlive) throw new KafkaError('INVALID_STATE', `Broker ${id} is not running.`);
    b.stop();
  }

  /** SIGKILL: the process dies; what it wrote survives (OS cache). */
  killBroker(id: number): void {
    const b = this.broker(id);
    if (!b.isAlive) throw new KafkaError('INVALID_STATE', `Broker ${id} is not running.`);
    b.kill();
  }

  /** Power loss: the process dies and each log loses its unflushed tail. */
  powerLossBroker(id: number): void {
    const b = this.broker(id);
    if (b.process === 'power-lost') throw new KafkaError('INVALID_STATE', `Broker ${id} has already lost power.`);
    b.powerLoss();
  }

  /** Cut every link of a broker (it keeps running). */
  isolateBroker(id: number): void {
    this.broker(id);
    this.network.isolate(id);
    if (this.controller.hostBrokerId === id) this.controllerLost(`broker ${id} isolated`);
    this.refreshBrokerStates('isolated');
  }

  /** Restore every link of a broker, and stop stalling its fetchers. */
  healBroker(id: number): void {
    const b = this.broker(id);
    this.network.heal(id);
    this.network.setNodeDelay(id, 0);
    b.setFetcherStalled(false);
    if (!this.controller.isActive) this.scheduleControllerElection();
    this.refreshBrokerStates('healed');
  }

  /** Stop (or resume) a broker's replica fetchers while it keeps heartbeating. */
  stallFollower(id: number, stalled = true): void {
    this.broker(id).setFetcherStalled(stalled);
  }

  /** Cut (or restore) the link between two brokers, or a broker and the controller. */
  cutLink(a: number | 'controller', b: number | 'controller', cut = true): void {
    if (cut) this.network.cut(a, b);
    else this.network.restore(a, b);
  }

  /** Add latency to every message to or from a broker (a slow link). */
  slowLink(id: number, delayMs: number): void {
    this.broker(id);
    this.network.setNodeDelay(id, delayMs);
  }

  /** Add a broker to the cluster (it starts and registers). */
  addBroker(input: { id?: number; rack?: string | null }): number {
    const id = input.id ?? Math.max(0, ...this.brokers.keys()) + 1;
    if (!Number.isInteger(id) || id < 0) throw new KafkaError('INVALID_INPUT', `Broker id must be a non-negative integer, got ${id}.`);
    if (this.brokers.has(id)) throw new KafkaError('INVALID_INPUT', `Broker ${id} already exists.`);
    this.createBroker(id, input.rack ?? null).start();
    return id;
  }

  /** Remove a stopped broker from the cluster (unregister it). It must host no replicas. */
  removeBroker(id: number): void {
    const b = this.broker(id);
    if (b.isAlive) throw new KafkaError('INVALID_STATE', `Broker ${id} is running: stop it before removing it.`);
    for (const { topic, state } of this.controller.image.allPartitions()) {
      if (state.replicas.includes(id)) {
        throw new KafkaError('INVALID_STATE', `Broker ${id} still hosts replicas (e.g. ${topic.name}-${state.partition}): drain it first (balance.plan with excludeBrokers, then reassignments.execute).`);
      }
    }
    if (this.controller.image.brokers.has(id)) this.controller.unregisterBroker(id);
    this.brokers.delete(id);
    this.lastState.delete(id);
  }

  // ================================================================ client: produce / consume

  private resolvePartition(topic: string, partition: number | undefined, records: LogRecord[]): PartitionState {
    const t = this.controller.image.topicsByName.get(topic);
    if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${topic} does not exist.`);
    let p = partition;
    if (p === undefined) {
      const key = records[0]?.key;
      p = key ? partitionForKey(key, t.partitions.size) : this.roundRobin++ % t.partitions.size;
    }
    const state = t.partitions.get(p);
    if (!state) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Partition ${topic}-${p} does not exist.`);
    return state;
  }

  /** The in-app producer: one batch to the partition's leader, answered per Kafka's acks rules. */
  produce(input: ProduceInput, done: (result: ProduceResult) => void): void {
    const acks = input.acks === 'all' ? -1 : input.acks;
    const timeoutMs = input.timeoutMs ?? 30_000;
    let state: PartitionState;
    try {
      state = this.resolvePartition(input.topic, input.partition, input.records);
    } catch (e) {
      const err = e as KafkaError;
      this.scheduler.schedule(0, () => done({ topic: input.topic, partition: input.partition ?? -1, baseOffset: -1, errorCode: err.code as KafkaErrorName, errorMessage: err.message }));
      return;
    }
    const partition = state.partition;
    const finish = (r: Omit<ProduceResult, 'topic' | 'partition'>): void => done({ topic: input.topic, partition, ...r });
    if (state.leader < 0) {
      this.scheduler.schedule(0, () => finish({ baseOffset: -1, errorCode: 'LEADER_NOT_AVAILABLE', errorMessage: `Partition ${input.topic}-${partition} has no leader (offline).` }));
      return;
    }
    this.produceTo(state.leader, { ...input, partition, acks, timeoutMs }, (r) => finish(r));
  }

  /** Send a produce request to one specific broker (tests and drills: stale-metadata clients). */
  produceTo(
    brokerId: number,
    input: { topic: string; partition: number; acks: number; records: LogRecord[]; timeoutMs?: number },
    done: (r: Omit<ProduceResult, 'topic' | 'partition'>) => void,
  ): void {
    const timeoutMs = input.timeoutMs ?? 30_000;
    this.network.request(
      CLIENT,
      brokerId,
      { type: 'produce', topic: input.topic, partition: input.partition, acks: input.acks, timeoutMs, records: input.records },
      // The client's own request timeout sits a little above the broker-side wait.
      timeoutMs + 1_000,
      (res) => {
        const r = res as ProduceResponse & { connectionClosed?: boolean; noResponse?: boolean };
        if (input.acks === 0) {
          // acks=0: the client hears nothing; an error shows only as a closed connection.
          done({ baseOffset: -1, errorCode: 'NONE', ...(r.connectionClosed ? { connectionClosed: true } : {}) });
          return;
        }
        done({
          baseOffset: r.baseOffset,
          errorCode: r.error,
          ...(r.message ? { errorMessage: r.message } : {}),
          ...(r.leaderEpoch !== undefined ? { leaderEpoch: r.leaderEpoch, appendTimeMs: r.appendTimeMs } : {}),
        });
      },
      (reason) =>
        done({
          baseOffset: -1,
          errorCode: reason === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION',
          errorMessage: reason === 'timeout' ? 'No response from the broker within the request timeout.' : `Connection to broker ${brokerId} was closed.`,
        }),
    );
  }

  /** The in-app consumer: read_uncommitted, from the leader, only below the HW. */
  consume(input: { topic: string; partition: number; offset: number; maxRecords?: number; maxBytes?: number }, done: (r: ConsumeResult) => void): void {
    const state = this.controller.image.topicsByName.get(input.topic)?.partitions.get(input.partition);
    const empty = { records: [], highWatermark: -1, logStartOffset: -1, logEndOffset: -1 };
    if (!state) {
      this.scheduler.schedule(0, () => done({ errorCode: 'UNKNOWN_TOPIC_OR_PARTITION', ...empty }));
      return;
    }
    if (state.leader < 0) {
      this.scheduler.schedule(0, () => done({ errorCode: 'LEADER_NOT_AVAILABLE', ...empty }));
      return;
    }
    this.consumeFrom(state.leader, input, done);
  }

  consumeFrom(brokerId: number, input: { topic: string; partition: number; offset: number; maxRecords?: number; maxBytes?: number }, done: (r: ConsumeResult) => void): void {
    const maxRecords = input.maxRecords ?? 500;
    this.network.request(
      CLIENT,
      brokerId,
      { type: 'consumerFetch', topic: input.topic, partition: input.partition, offset: input.offset, maxBytes: input.maxBytes ?? 1_048_576 },
      30_000,
      (res) => {
        const r = res as ConsumerFetchResponse;
        const records: ConsumedRecord[] = [];
        for (const b of r.batches) {
          b.records.forEach((rec, i) => {
            const offset = b.baseOffset + i;
            if (offset >= input.offset && records.length < maxRecords) records.push({ ...rec, offset, leaderEpoch: b.leaderEpoch });
          });
        }
        this.consumedRecords += records.length;
        done({ errorCode: r.error, records, highWatermark: r.highWatermark, logStartOffset: r.logStartOffset, logEndOffset: r.logEndOffset });
      },
      (reason) => done({ errorCode: reason === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION', records: [], highWatermark: -1, logStartOffset: -1, logEndOffset: -1 }),
    );
  }

  /** ListOffsets against the leader: latest (HW) or earliest (log start). */
  listOffsets(input: { topic: string; partition: number; timestamp: -1 | -2 }, done: (r: ListOffsetsResponse) => void): void {
    const state = this.controller.image.topicsByName.get(input.topic)?.partitions.get(input.partition);
    if (!state || state.leader < 0) {
      this.scheduler.schedule(0, () => done({ error: state ? 'LEADER_NOT_AVAILABLE' : 'UNKNOWN_TOPIC_OR_PARTITION', offset: -1, leaderEpoch: -1 }));
      return;
    }
    this.network.request(CLIENT, state.leader, { type: 'listOffsets', ...input }, 30_000, (r) => done(r as ListOffsetsResponse), () =>
      done({ error: 'REQUEST_TIMED_OUT', offset: -1, leaderEpoch: -1 }),
    );
  }

  // ================================================================ reassignments
  //
  // kafka-reassign-partitions.sh over the controller's AlterPartitionReassignments (§7c, §7d).
  // Tool-side input errors refuse the whole request with a thrown KafkaError (the tool exits
  // before touching the cluster); what the controller says about each partition comes back as
  // per-partition results. Every execute behaves as `--additional` (the API is incremental).

  /** `--execute [--throttle B]`: check the input like the tool, set the throttle, start the moves. */
  executeReassignment(input: { partitions: ReassignmentTarget[]; throttleBytesPerSec?: number }): ReassignmentResult[] {
    this.controller.requireActive();
    const throttle = input.throttleBytesPerSec;
    if (throttle !== undefined && (!Number.isSafeInteger(throttle) || throttle < 0)) {
      throw new KafkaError('INVALID_INPUT', `The throttle must be a whole number of bytes per second, got ${throttle}.`);
    }
    const image = this.controller.image;
    validateReassignmentTargets(input.partitions, new Set([...image.brokers.values()].filter((b) => !b.fenced).map((b) => b.id)));
    const missingTopic = input.partitions.find((t) => !image.topicsByName.has(t.topic));
    if (missingTopic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${missingTopic.topic} not found.`);
    const missing = input.partitions.filter((t) => !image.topicsByName.get(t.topic)!.partitions.has(t.partition));
    if (missing.length > 0) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find partition: ${missing.map((t) => `${t.topic}-${t.partition}`).join(', ')}`);
    // Like the tool: the throttle is in place before the first byte moves.
    if (throttle !== undefined) this.setReassignmentThrottle(input.partitions, throttle);
    return this.controller.alterReassignments(input.partitions.map((t) => ({ topic: t.topic, partition: t.partition, replicas: [...t.replicas] })));
  }

  /**
   * `--cancel`: revert the given partitions' reassignments (undefined = every ongoing one). A
   * partition with none gets NO_REASSIGNMENT_IN_PROGRESS. When something was cancelled the
   * throttles are cleared as the tool does without `--preserve-throttles`.
   */
  cancelReassignment(partitions?: { topic: string; partition: number }[]): ReassignmentResult[] {
    this.controller.requireActive();
    const ongoing = this.controller.listReassignments();
    const items = partitions ?? ongoing.map(({ topic, partition }) => ({ topic, partition }));
    const results = this.controller.alterReassignments(items.map(({ topic, partition }) => ({ topic, partition, replicas: null })));
    if (results.some((r) => r.errorCode === 'NONE')) {
      const involved = ongoing.filter((r) => items.some((i) => i.topic === r.topic && i.partition === r.partition)).flatMap((r) => r.replicas);
      this.clearReassignmentThrottles(items.map((i) => i.topic), involved);
    }
    return results;
  }

  /** `--list` (ListPartitionReassignments). */
  listReassignments(): ReassignmentProgress[] {
    return this.controller.listReassignments().map((r) => {
      const view = this.describePartition(r.topic, r.partition);
      const leaderEnd = view?.replicaStates.find((s) => s.brokerId === view.leader)?.logEndOffset ?? -1;
      const start = view?.logStartOffset ?? 0;
      const adding = r.addingReplicas.map((brokerId) => {
        const logEndOffset = view?.replicaStates.find((s) => s.brokerId === brokerId)?.logEndOffset ?? 0;
        return { brokerId, logEndOffset, inIsr: view?.isr.includes(brokerId) ?? false };
      });
      // Share of the leader's log the new replicas hold (the slowest one counts).
      const span = Math.max(0, leaderEnd - start);
      const slowest = adding.reduce((m, a) => Math.min(m, a.inIsr ? leaderEnd : a.logEndOffset), leaderEnd);
      const percent = span === 0 ? 100 : Math.max(0, Math.min(100, Math.floor(((slowest - start) / span) * 100)));
      return { ...r, progress: { leaderLogEndOffset: leaderEnd, addingReplicas: adding, percent } };
    });
  }

  private progressTimer: ReturnType<Scheduler['schedule']> | null = null;
  private lastProgress = new Map<string, number>();

  /** While replicas move, report each partition's catch-up every second (when it changed). */
  private watchReassignments(): void {
    if (this.progressTimer) return;
    this.progressTimer = this.scheduler.schedule(REASSIGNMENT_PROGRESS_MS, () => {
      this.progressTimer = null;
      const running = this.listReassignments();
      const seen = new Set<string>();
      for (const r of running) {
        const key = `${r.topic}:${r.partition}`;
        seen.add(key);
        if (this.lastProgress.get(key) === r.progress.percent) continue;
        this.lastProgress.set(key, r.progress.percent);
        this.emit({ type: 'reassignment.progress', atMs: this.scheduler.now(), topic: r.topic, partition: r.partition, percent: r.progress.percent, leaderLogEndOffset: r.progress.leaderLogEndOffset, addingReplicas: r.progress.addingReplicas });
      }
      for (const key of [...this.lastProgress.keys()]) if (!seen.has(key)) this.lastProgress.delete(key);
      if (running.length > 0) this.watchReassignments();
    });
  }

  /**
   * `--verify`: Kafka's line per partition, in the order given. A partition that does not exist
   * reads as a mismatch with an empty replica set, as in the tool. Once no reassignment at all is
   * running (the tool's own condition, unrelated partitions included) it clears both rates on
   * every live broker and on the target brokers, and both lists on the given topics.
   */
  verifyReassignment(partitions: ReassignmentTarget[]): { topic: string; partition: number; status: VerifyStatus; message: string; replicas: number[] }[] {
    this.controller.requireActive();
    const ongoing = this.controller.listReassignments();
    const results = partitions.map((t) => {
      const running = ongoing.find((r) => r.topic === t.topic && r.partition === t.partition);
      const replicas = running?.replicas ?? [...(this.controller.image.topicsByName.get(t.topic)?.partitions.get(t.partition)?.replicas ?? [])];
      return { topic: t.topic, partition: t.partition, ...verifyLine(t, running !== undefined, replicas), replicas };
    });
    if (ongoing.length === 0) this.clearReassignmentThrottles(partitions.map((t) => t.topic), partitions.flatMap((t) => t.replicas));
    return results;
  }

  private setReassignmentThrottle(targets: ReassignmentTarget[], bytesPerSec: number): void {
    const image = this.controller.image;
    const current = (topic: string, partition: number): number[] => image.topicsByName.get(topic)?.partitions.get(partition)?.replicas ?? [];
    const moves = proposedMoveMap(this.controller.listReassignments(), targets, current);
    const leader = leaderThrottles(moves);
    const follower = followerThrottles(moves);
    for (const topic of moves.keys()) {
      const configs = image.topicsByName.get(topic)?.configs;
      if (!configs) continue;
      const set: Record<string, string> = {};
      for (const [name, entries] of [
        ['leader.replication.throttled.replicas', leader.get(topic) ?? []],
        ['follower.replication.throttled.replicas', follower.get(topic) ?? []],
      ] as const) {
        const merged = mergeThrottledReplicas(configs[name], entries);
        if (merged !== (configs[name] ?? '')) set[name] = merged;
      }
      if (Object.keys(set).length > 0) this.controller.alterConfigs('topic', topic, set);
    }
    const rate = String(bytesPerSec);
    for (const id of reassigningBrokers(moves)) {
      if (!image.brokers.has(id)) continue;
      const configs = image.brokerConfigs.get(String(id)) ?? {};
      const set = Object.fromEntries(BROKER_THROTTLE_CONFIGS.filter((name) => configs[name] !== rate).map((name) => [name, rate]));
      if (Object.keys(set).length > 0) this.controller.alterConfigs('broker', String(id), set);
    }
  }

  /** The tool's clearAllThrottles; only configs that are set are deleted (no empty records). */
  private clearReassignmentThrottles(topics: string[], targetBrokers: number[]): void {
    const image = this.controller.image;
    const live = [...image.brokers.values()].filter((b) => !b.fenced).map((b) => b.id);
    const brokers = [...new Set([...live, ...targetBrokers])].filter((id) => image.brokers.has(id)).sort((a, b) => a - b);
    for (const id of brokers) {
      const configs = image.brokerConfigs.get(String(id)) ?? {};
      const unset = BROKER_THROTTLE_CONFIGS.filter((name) => name in configs);
      if (unset.length > 0) this.controller.alterConfigs('broker', String(id), Object.fromEntries(unset.map((name) => [name, null])));
    }
    for (const topic of new Set(topics)) {
      const configs = image.topicsByName.get(topic)?.configs;
      const unset = TOPIC_THROTTLE_CONFIGS.filter((name) => configs && name in configs);
      if (unset.length > 0) this.controller.alterConfigs('topic', topic, Object.fromEntries(unset.map((name) => [name, null])));
    }
  }

  // ================================================================ views

  /** A partition as the controller records it, with every replica's log state. */
  describePartition(topic: string, partition: number): PartitionView | undefined {
    const t = this.controller.image.topicsByName.get(topic);
    const state = t?.partitions.get(partition);
    if (!t || !state) return undefined;
    const key = replicaKey(t.topicId, partition);
    const replicaStates = state.replicas.map((id) => this.replicaState(id, key));
    const leaderState = replicaStates.find((r) => r.brokerId === state.leader);
    return {
      ...state,
      replicas: [...state.replicas],
      isr: [...state.isr],
      highWatermark: leaderState?.highWatermark ?? Math.max(0, ...replicaStates.map((r) => r.highWatermark)),
      logStartOffset: leaderState?.logStartOffset ?? 0,
      replicaStates,
    };
  }

  private replicaState(brokerId: number, key: string): ReplicaStateView {
    const live = this.brokers.get(brokerId)?.partitionByKey(key);
    if (live) {
      const l = live.log;
      return { brokerId, logEndOffset: l.logEndOffset, highWatermark: l.highWatermark, logStartOffset: l.logStartOffset, flushedOffset: l.flushedOffset };
    }
    // Not served right now: read what its disk holds (-1 when the disk cannot be read).
    try {
      const disk = this.opts.storage.broker(brokerId);
      if (!disk.hasReplica(key)) return { brokerId, logEndOffset: 0, highWatermark: 0, logStartOffset: 0, flushedOffset: 0 };
      const store = disk.replica(key);
      const cp = store.loadCheckpoint();
      return { brokerId, logEndOffset: store.endOffset(), highWatermark: cp.highWatermark, logStartOffset: cp.logStartOffset, flushedOffset: cp.flushedOffset };
    } catch (e) {
      if (e instanceof KafkaError && e.code === 'KAFKA_STORAGE_ERROR') return { brokerId, logEndOffset: -1, highWatermark: -1, logStartOffset: -1, flushedOffset: -1 };
      throw e;
    }
  }

  listBrokers(): BrokerInfo[] {
    const counts = new Map<number, { partitions: number; leaders: number }>();
    for (const id of this.brokers.keys()) counts.set(id, { partitions: 0, leaders: 0 });
    // A plain loop over the topics' partitions (no generator, no per-partition object): this runs
    // for every cluster.describe and brokers.list, over every partition.
    for (const topic of this.controller.image.topicsById.values()) {
      for (const state of topic.partitions.values()) {
        for (const r of state.replicas) {
          let c = counts.get(r);
          if (!c) counts.set(r, (c = { partitions: 0, leaders: 0 }));
          c.partitions++;
          if (state.leader === r) c.leaders++;
        }
      }
    }
    return [...this.brokers.values()]
      .sort((a, b) => a.brokerId - b.brokerId)
      .map((b) => ({
        id: b.brokerId,
        rack: b.rack,
        state: this.brokerState(b.brokerId),
        isolated: this.network.isIsolated(b.brokerId),
        fetcherStalled: b.fetcherStalled,
        isController: this.controller.hostBrokerId === b.brokerId,
        brokerEpoch: this.controller.image.brokers.get(b.brokerId)?.brokerEpoch ?? -1,
        partitionCount: counts.get(b.brokerId)?.partitions ?? 0,
        leaderCount: counts.get(b.brokerId)?.leaders ?? 0,
        logBytes: b.logBytes(),
      }));
  }
}

export function createEngine(options: EngineOptions): Engine {
  return new Engine(options);
}
