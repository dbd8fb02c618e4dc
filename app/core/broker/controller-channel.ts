/**
 * A broker's channel to the active controller: Kafka's BrokerLifecycleManager (registration,
 * heartbeats carrying the metadata the broker has not applied yet, the controlled-shutdown
 * handshake), AlterPartitionManager (ISR changes a leader proposes) and the notice that one replica
 * went offline.
 *
 * Invariants: every request goes through `send`, so an answer or a failure reaches only the
 * incarnation that sent it (a restarted broker never acts on its predecessor's answers); a retry
 * is scheduled through the broker's `after`, which runs it only while that incarnation lives.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { MetadataImage } from '../metadata/image.js';
import type { CommittedRecord, LeaderRecoveryState } from '../metadata/records.js';
import type { ImageSnapshot } from '../metadata/snapshot.js';
import type { Network } from '../network.js';
import type { Random } from '../random.js';
import type { BrokerRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import type {
  AllocateProducerIdsRequest,
  AllocateProducerIdsResponse,
  AlterPartitionBatchResponse,
  AlterPartitionItem,
  AlterPartitionRequest,
  AlterPartitionResponse,
  ControllerRequest,
  CreateTopicRequest,
  CreateTopicResponse,
  HeartbeatRequest,
  HeartbeatResponse,
  RegisterRequest,
  RegisterResponse,
  ReplicaOfflineRequest,
} from './messages.js';
import type { ReplicaPartition } from './partition.js';

/** What the channel needs from its broker. */
export interface ChannelHost {
  readonly brokerId: number;
  readonly rack: string | null;
  readonly scheduler: Scheduler;
  readonly network: Network;
  /** Bumped by every start and teardown: the incarnation a request belongs to. */
  readonly generation: number;
  readonly isAlive: boolean;
  readonly image: MetadataImage;
  brokerConfig(): BrokerRuntimeConfig;
  /** Run `fn` after `ms` if this incarnation still lives. */
  after(ms: number, fn: () => void): TimerHandle;
  /** Run work that touches storage; false when a storage failure halted the broker. */
  guarded(fn: () => unknown): boolean;
  applyMetadata(records: readonly CommittedRecord[], snapshot?: ImageSnapshot): void;
  /** The controller accepted a registration: remember the epoch on disk. */
  registered(brokerEpoch: number): void;
  /** A heartbeat answer said whether the controller fences this broker. */
  fenceStateKnown(isFenced: boolean, changed: boolean): void;
  /** The controller agreed to a controlled shutdown. */
  shutdownNow(): void;
  /** The partition object this broker serves for `p`'s key now (a replaced one is stale). */
  isCurrent(p: ReplicaPartition): boolean;
}

/** How long registration, AlterPartition and offline notices wait for the controller. */
const CONTROLLER_REQUEST_TIMEOUT_MS = 2_000;

/**
 * A refused or lost registration is sent again after Kafka's BrokerLifecycleManager backoff:
 * 100 ms, doubling per failed attempt, at most `broker.session.timeout.ms`, ±2 % jitter
 * (`new ExponentialBackoff(100, 2, brokerSessionTimeoutMs, 0.02)`). A broker that starts just
 * before its controller is up is registered ~100 ms later, not after a fixed second.
 */
export const REGISTRATION_BACKOFF = { initialMs: 100, multiplier: 2, jitter: 0.02 } as const;

/** The wait before registration attempt `failedAttempts + 1` (jitter drawn from `unit` in [0, 1)). */
export function registrationBackoffMs(failedAttempts: number, maxMs: number, unit: number): number {
  const { initialMs, multiplier, jitter } = REGISTRATION_BACKOFF;
  const term = Math.min(initialMs * multiplier ** failedAttempts, maxMs);
  return Math.floor(term * (1 - jitter + unit * 2 * jitter));
}

export class ControllerChannel {
  brokerEpoch = -1;
  /** As the controller last told us in a heartbeat. */
  fencedByController = true;
  private wantShutDown = false;
  private incarnationId = '';
  private previousBrokerEpoch = -1;
  /** Registrations refused or lost since the last one that succeeded (the backoff's exponent). */
  private failedRegistrations = 0;
  private heartbeatTimer: TimerHandle | null = null;
  /** ISR proposals made in this turn, sent together once it is over (AlterPartitionManager's batch). */
  private alterQueue: { item: AlterPartitionItem; onAnswer: (r: AlterPartitionResponse) => void; onFailure: () => void }[] = [];

  constructor(
    private readonly host: ChannelHost,
    private readonly random: Random,
  ) {}

  /** A new incarnation: unregistered, fenced, with a fresh incarnation id. */
  begin(previousBrokerEpoch: number): void {
    this.previousBrokerEpoch = previousBrokerEpoch;
    this.failedRegistrations = 0;
    this.brokerEpoch = -1;
    this.fencedByController = true;
    this.wantShutDown = false;
    this.alterQueue = [];
    this.incarnationId = `${this.host.brokerId}-${this.random.nextInt(2 ** 30)}`;
  }

  /** The incarnation ends: no more heartbeats. */
  close(): void {
    this.host.scheduler.cancel(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.alterQueue = [];
  }

  /** Ask for a controlled shutdown: the next heartbeats carry it until the controller agrees. */
  requestShutdown(): void {
    this.wantShutDown = true;
    this.sendHeartbeat();
  }

  /**
   * The one guarded request: `onAnswer` and `onFailure` run only if the incarnation that sent
   * `req` is still the current one.
   */
  private send<R>(req: ControllerRequest, timeoutMs: number, onAnswer: (res: R) => void, onFailure: () => void): void {
    const host = this.host;
    const gen = host.generation;
    host.network.request(
      host.brokerId,
      'controller',
      req,
      timeoutMs,
      (res) => {
        if (gen === host.generation) onAnswer(res as R);
      },
      () => {
        if (gen === host.generation) onFailure();
      },
    );
  }

  register(): void {
    const req: RegisterRequest = {
      type: 'register',
      brokerId: this.host.brokerId,
      incarnationId: this.incarnationId,
      rack: this.host.rack,
      previousBrokerEpoch: this.previousBrokerEpoch,
    };
    const retry = (): void => {
      const waitMs = registrationBackoffMs(this.failedRegistrations++, this.host.brokerConfig().brokerSessionTimeoutMs, this.random.nextFloat());
      this.host.after(waitMs, () => this.register());
    };
    this.send<RegisterResponse>(
      req,
      CONTROLLER_REQUEST_TIMEOUT_MS,
      (r) => {
        if (r.error !== 'NONE') return retry();
        this.failedRegistrations = 0;
        this.brokerEpoch = r.brokerEpoch;
        this.host.registered(r.brokerEpoch);
        this.sendHeartbeat();
      },
      retry,
    );
  }

  private scheduleHeartbeat(): void {
    const host = this.host;
    host.scheduler.cancel(this.heartbeatTimer);
    const gen = host.generation;
    this.heartbeatTimer = host.scheduler.schedule(host.brokerConfig().brokerHeartbeatIntervalMs, () => {
      if (gen === host.generation && host.isAlive) this.sendHeartbeat();
    });
  }

  private sendHeartbeat(): void {
    if (this.brokerEpoch < 0) return;
    const host = this.host;
    const req: HeartbeatRequest = {
      type: 'heartbeat',
      brokerId: host.brokerId,
      brokerEpoch: this.brokerEpoch,
      metadataOffset: host.image.offset,
      wantFence: host.image.offset < this.brokerEpoch,
      wantShutDown: this.wantShutDown,
    };
    this.scheduleHeartbeat();
    // A lost heartbeat is not retried: the next one is already scheduled.
    this.send<HeartbeatResponse>(req, host.brokerConfig().brokerHeartbeatIntervalMs, (r) => this.onHeartbeat(req, r), () => {});
  }

  private onHeartbeat(req: HeartbeatRequest, r: HeartbeatResponse): void {
    if (r.error === 'STALE_BROKER_EPOCH') {
      // The controller no longer knows this incarnation: register again.
      this.brokerEpoch = -1;
      this.register();
      return;
    }
    if (r.error !== 'NONE') return;
    if (!this.host.guarded(() => this.host.applyMetadata(r.records, r.snapshot))) return;
    const wasFenced = this.fencedByController;
    this.fencedByController = r.isFenced;
    this.host.fenceStateKnown(r.isFenced, wasFenced !== r.isFenced);
    if (r.shouldShutDown && this.wantShutDown) {
      this.host.shutdownNow();
      return;
    }
    // Caught up to its registration: ask to be unfenced at once rather than in 2 s. Or the answer
    // was a full page of metadata: fetch the rest at once (a KRaft broker fetches the metadata log
    // continuously, not once per heartbeat; a broker that lost its image after a crash had to wait
    // 2 s per 5,000 records).
    if ((req.wantFence && this.host.image.offset >= this.brokerEpoch) || r.more) this.sendHeartbeat();
  }

  /** Propose a new ISR for a partition this broker leads (resent while the controller moves). */
  alterPartition(p: ReplicaPartition, proposedIsr: number[], recovery: LeaderRecoveryState): void {
    const item: AlterPartitionItem = {
      topicId: p.topicId,
      partition: p.partition,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      newIsr: proposedIsr.map((id) => ({ brokerId: id, brokerEpoch: this.memberEpoch(p, id) })),
      leaderRecoveryState: recovery,
    };
    const resendLater = (): void => {
      this.host.after(this.host.brokerConfig().replicaFetchBackoffMs, () => {
        if (p.pendingIsr?.proposed === proposedIsr && this.host.isCurrent(p)) this.alterPartition(p, proposedIsr, recovery);
      });
    };
    const onAnswer = (r: AlterPartitionResponse): void => {
      p.onAlterPartitionResult(proposedIsr, r);
      if (r.error === 'NOT_CONTROLLER') resendLater();
    };
    if (this.alterQueue.push({ item, onAnswer, onFailure: resendLater }) === 1) this.host.after(0, () => this.sendAlterPartitions());
  }

  /** One request for every proposal queued in the turn; each answer goes to its partition. */
  private sendAlterPartitions(): void {
    const queued = this.alterQueue;
    this.alterQueue = [];
    if (queued.length === 0) return;
    const req: AlterPartitionRequest = { type: 'alterPartition', brokerId: this.host.brokerId, brokerEpoch: this.brokerEpoch, partitions: queued.map((q) => q.item) };
    this.send<AlterPartitionBatchResponse>(
      req,
      CONTROLLER_REQUEST_TIMEOUT_MS,
      (r) => queued.forEach((q, i) => q.onAnswer(r.partitions[i] ?? { error: 'UNKNOWN_SERVER_ERROR' })),
      () => queued.forEach((q) => q.onFailure()),
    );
  }

  private memberEpoch(p: ReplicaPartition, id: number): number {
    if (id === this.host.brokerId) return this.brokerEpoch;
    return p.followerBrokerEpoch(id) ?? this.host.image.brokers.get(id)?.brokerEpoch ?? -1;
  }

  /**
   * Ask the controller to create a topic a client's request needs (auto-creation.ts keeps one
   * request per name in flight). No answer, or no registration yet: UNKNOWN_TOPIC_OR_PARTITION,
   * since nothing is known to have been created.
   */
  createTopic(req: Omit<CreateTopicRequest, 'type'>, done: (r: CreateTopicResponse) => void): void {
    const unknown = (): void => done({ error: 'UNKNOWN_TOPIC_OR_PARTITION', message: 'No controller answered the request to create the topic.' });
    if (this.brokerEpoch < 0) return unknown();
    this.send<CreateTopicResponse>({ type: 'createTopic', ...req }, CONTROLLER_REQUEST_TIMEOUT_MS, done, unknown);
  }

  /** Ask the controller for a block of producer ids; null when it could not be reached or refused. */
  allocateProducerIds(done: (block: { start: number; length: number } | null) => void): void {
    if (this.brokerEpoch < 0) return done(null);
    const req: AllocateProducerIdsRequest = { type: 'allocateProducerIds', brokerId: this.host.brokerId, brokerEpoch: this.brokerEpoch };
    this.send<AllocateProducerIdsResponse>(
      req,
      CONTROLLER_REQUEST_TIMEOUT_MS,
      (r) => done(r.error === 'NONE' ? { start: r.producerIdStart, length: r.producerIdLen } : null),
      () => done(null),
    );
  }

  /** Tell the controller one replica's log is unreadable (retried until it hears). */
  replicaOffline(topicId: string, partition: number): void {
    const retry = (): void => void this.host.after(this.host.brokerConfig().replicaFetchBackoffMs, () => this.replicaOffline(topicId, partition));
    if (this.brokerEpoch < 0) return retry();
    const req: ReplicaOfflineRequest = { type: 'replicaOffline', brokerId: this.host.brokerId, brokerEpoch: this.brokerEpoch, topicId, partition };
    this.send<{ error: KafkaErrorName }>(
      req,
      CONTROLLER_REQUEST_TIMEOUT_MS,
      (r) => {
        if (r.error !== 'NONE') retry();
      },
      retry,
    );
  }
}
