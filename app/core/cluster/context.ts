/**
 * One cluster's composition: the in-process network, the controller, the brokers, the event
 * stream, each broker's state as the console shows it, and the hosting of the controller on a
 * broker with its failover. The engine's parts (faults, client, reassignment admin, read model)
 * all work on this one object.
 *
 * Invariants: exactly zero or one controller is active; after the active controller's host dies
 * or is cut off, a surviving, reachable broker takes over after controller.quorum.fetch.timeout.ms
 * plus a randomised election timeout. The metadata log is modelled as durable across failovers
 * (what a controller quorum gives a real cluster), so no majority of brokers is needed. A broker
 * state change is emitted once, when it happens.
 */
import { KafkaError } from '../../api/errors.js';
import type { BrokerState, EngineEvent, EventSink } from '../../api/events.js';
import { Broker } from '../broker/broker.js';
import { Controller } from '../controller/controller.js';
import { Network, type NodeId } from '../network.js';
import type { Scheduler, TimerHandle } from '../time.js';
import { ListenerRegistry } from './listeners.js';
import type { EngineOptions } from './types.js';

/** The network node of every client of the engine (the in-app client, a wire listener). */
export const CLIENT: NodeId = 'client';

const brokerProcessKey = (id: number): string => `broker.${id}.process`;

export class ClusterContext {
  readonly network: Network;
  readonly controller: Controller;
  readonly brokers = new Map<number, Broker>();
  readonly staticConfigs: Record<string, string>;
  /** Where each broker's Kafka listener is (the host records it; kept with the cluster). */
  readonly kafkaListeners: ListenerRegistry;
  /** Set while the app closes: nothing more is persisted about broker processes. */
  closing = false;
  /** Sees every event before the listeners (the reassignment admin starts its progress watch). */
  beforeEmit: (event: EngineEvent) => void = () => {};
  private readonly listeners = new Set<EventSink>();
  private readonly lastState = new Map<number, BrokerState>();
  private electionTimer: TimerHandle | null = null;

  constructor(readonly opts: EngineOptions) {
    this.staticConfigs = { ...(opts.staticConfigs ?? {}) };
    this.kafkaListeners = new ListenerRegistry(opts.storage.metadata());
    this.network = new Network(opts.scheduler, opts.deliveries);
    this.network.baseDelayMs = opts.networkDelayMs ?? 0;
    this.network.bind(CLIENT, () => {});
    this.controller = new Controller({
      scheduler: opts.scheduler,
      network: this.network,
      random: opts.random,
      store: opts.storage.metadata(),
      staticConfigs: this.staticConfigs,
      // Kafka 4.x's KRaft controller places with StripedReplicaPlacer; 'classic' (the [ZK]-era
      // AdminUtils algorithm) stays available through EngineOptions.placement.
      placement: opts.placement ?? 'striped',
      emit: (e) => this.emit(e),
      onChange: (reason) => this.refreshBrokerStates(reason),
    });
    const known = [...this.controller.image.brokers.values()].map((b) => ({ id: b.id, rack: b.rack }));
    for (const b of known.length > 0 ? known : opts.brokers) this.createBroker(b.id, b.rack ?? null);
  }

  get scheduler(): Scheduler {
    return this.opts.scheduler;
  }

  subscribe(sink: EventSink): () => void {
    this.listeners.add(sink);
    return () => this.listeners.delete(sink);
  }

  emit(event: EngineEvent): void {
    this.beforeEmit(event);
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

  createBroker(id: number, rack: string | null): Broker {
    const broker = new Broker({
      id,
      rack,
      scheduler: this.opts.scheduler,
      network: this.network,
      random: this.opts.random,
      disk: this.opts.storage.broker(id),
      staticConfigs: this.staticConfigs,
      groupRecords: this.opts.groupRecords,
      ...(this.opts.txnRecords ? { txnRecords: this.opts.txnRecords } : {}),
      ...(this.opts.producedBatches ? { producedBatches: this.opts.producedBatches } : {}),
      ...(this.opts.cleanedBatches ? { cleanedBatches: this.opts.cleanedBatches } : {}),
      emit: (e) => this.emit(this.withTopicName(e)),
      onChange: (reason) => this.onBrokerChange(id, reason),
    });
    this.brokers.set(id, broker);
    this.lastState.set(id, 'stopped');
    return broker;
  }

  /** The member broker `id`, or BROKER_NOT_FOUND. */
  broker(id: number): Broker {
    const b = this.brokers.get(id);
    if (!b) throw new KafkaError('BROKER_NOT_FOUND', `Broker ${id} is not a member of this cluster.`);
    return b;
  }

  removeBroker(id: number): void {
    this.brokers.delete(id);
    this.kafkaListeners.set(id, null);
    this.lastState.delete(id);
  }

  /** Start every broker (except those left down when the cluster last closed) and the controller. */
  startAll(): void {
    const settings = this.opts.storage.metadata().loadSettings();
    const ids = [...this.brokers.keys()].sort((a, b) => a - b);
    const leftDown = (id: number): 'stopped' | 'killed' | 'power-lost' | undefined => {
      const saved = settings[brokerProcessKey(id)];
      return saved === 'stopped' || saved === 'killed' || saved === 'power-lost' ? saved : undefined;
    };
    // A combined Kafka node starts its controller before its broker (KafkaRaftServer.startup), so
    // the brokers' first registrations find the controller up rather than backing off.
    const host = ids.find((id) => leftDown(id) === undefined);
    if (!this.controller.isActive && host !== undefined) this.activateController(host, 'cluster started');
    for (const id of ids) {
      const down = leftDown(id);
      const b = this.brokers.get(id)!;
      if (down) {
        b.restoreDownState(down);
        this.lastState.set(id, down);
      } else b.start();
    }
    // A host whose storage could not be opened does not keep the controller.
    const hostId = this.controller.hostBrokerId;
    if (this.controller.isActive && hostId !== null && !this.brokers.get(hostId)!.isAlive) this.controllerLost(`broker ${hostId} could not start`);
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

  refreshBrokerStates(reason: string): void {
    for (const id of this.brokers.keys()) {
      const state = this.brokerState(id);
      const previous = this.lastState.get(id) ?? 'stopped';
      if (state === previous) continue;
      this.lastState.set(id, state);
      this.emit({ type: 'broker.stateChanged', atMs: this.scheduler.now(), brokerId: id, state, previous, reason });
    }
  }

  private onBrokerChange(id: number, reason: string): void {
    const b = this.brokers.get(id);
    if (b && !this.closing) {
      // A broker the user stopped, killed or powered off stays so when the cluster reopens.
      const process = b.isAlive ? 'running' : b.process;
      this.opts.storage.metadata().saveSetting(brokerProcessKey(id), process);
    }
    if (b && !b.isAlive && this.controller.hostBrokerId === id) this.controllerLost(`broker ${id} ${reason}`);
    if (b?.isAlive && !this.controller.isActive) this.scheduleControllerElection();
    this.refreshBrokerStates(reason);
  }

  // ================================================================ controller hosting

  private activateController(hostId: number, reason: string): void {
    // An election armed before this activation (the first broker's start arms one; "cluster
    // started" then activates at once) is over: left armed, it would elect a successor early if
    // this controller were lost within its first seconds, not a quorum fetch timeout after the loss.
    this.scheduler.cancel(this.electionTimer);
    this.electionTimer = null;
    const previous = this.controller.hostBrokerId;
    this.controller.activate(hostId);
    // A new cluster's bootstrap records come first in its metadata log (kafka-storage.sh format --add-scram).
    const seeds = this.opts.bootstrapScramCredentials ?? [];
    if (this.controller.endOffset === 0 && seeds.length > 0) this.controller.commit(seeds.map((credential) => ({ type: 'UserScramCredential', credential: { ...credential } })));
    this.emit({ type: 'controller.changed', atMs: this.scheduler.now(), controllerId: hostId, previousControllerId: previous, reason });
    this.refreshBrokerStates('controller changed');
  }

  /** The controller's host died or was cut off: the quorum elects another host. */
  controllerLost(reason: string): void {
    if (!this.controller.isActive) return;
    const previous = this.controller.hostBrokerId;
    this.controller.deactivate();
    this.emit({ type: 'controller.changed', atMs: this.scheduler.now(), controllerId: null, previousControllerId: previous, reason });
    this.scheduleControllerElection();
  }

  scheduleControllerElection(): void {
    if (this.electionTimer) return;
    const cfg = this.controller.config();
    const random = this.opts.random;
    const delay = cfg.controllerQuorumFetchTimeoutMs + cfg.controllerQuorumElectionTimeoutMs + random.nextInt(cfg.controllerQuorumElectionTimeoutMs);
    this.electionTimer = this.scheduler.schedule(delay, () => {
      this.electionTimer = null;
      if (this.controller.isActive) return;
      const candidates = [...this.brokers.values()].filter((b) => b.isAlive && !this.network.isIsolated(b.brokerId)).map((b) => b.brokerId);
      if (candidates.length === 0) return this.scheduleControllerElection();
      const winner = candidates[random.nextInt(candidates.length)]!;
      this.activateController(winner, 'controller failover');
    });
  }
}
