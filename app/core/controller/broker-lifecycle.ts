/**
 * The controller's side of each broker's life (KRaft's ClusterControlManager and
 * BrokerHeartbeatManager): registration, heartbeats and the sessions they keep, controlled
 * shutdown, fencing when a session runs out, unfencing, and unregistration.
 *
 * Invariants:
 * - A fenced, unregistered or shutting-down broker is removed from every ISR in one batch
 *   (except where it is the last member), and its leaderships move by clean election.
 * - Heartbeat times are soft state: a newly activated controller gives every registered,
 *   unfenced broker a fresh session (`freshSessions`).
 * - A controlled shutdown is granted once the broker leads nothing and every other active broker
 *   has applied the records that moved its leaderships.
 *
 * Apart from the controller (controller.ts), which owns the metadata log and its one commit path:
 * this file holds the per-broker session state and every decision a broker's coming and going
 * makes, and reaches the log only through `commit` and the image.
 */
import { KafkaError } from '../../api/errors.js';
import type { HeartbeatRequest, HeartbeatResponse, RegisterRequest, RegisterResponse } from '../broker/messages.js';
import type { MetadataImage, TopicImage } from '../metadata/image.js';
import type { ChangeReason, CommittedRecord, MetadataRecord, PartitionState } from '../metadata/records.js';
import type { BrokerRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import type { BrokersToIsrs } from './brokers-to-isrs.js';
import type { LeaderlessPartitions } from './leaderless.js';
import type { MetadataLog } from './metadata-log.js';
import { buildPartitionChange, changeReason, type ChangeContext } from './partition-change.js';
import { leaveIsrChange } from './change-context.js';

/** What the broker lifecycle uses of the controller. */
export interface BrokerLifecycleDeps {
  image: MetadataImage;
  scheduler: Scheduler;
  metadataLog: MetadataLog;
  leaderless: LeaderlessPartitions;
  brokersToIsrs: BrokersToIsrs;
  config: () => BrokerRuntimeConfig;
  /** A timer that lapses when the controller is deactivated. */
  after: (ms: number, fn: () => void) => TimerHandle;
  requireActive: () => void;
  commit: (records: MetadataRecord[]) => CommittedRecord[];
  /** The metadata log's end (offset of the next record). */
  endOffset: () => number;
  changeContext: (topic: TopicImage, state: PartitionState, excluded?: number, uncleanShutdown?: number) => ChangeContext;
}

interface Session {
  lastHeartbeatMs: number;
  timer: TimerHandle;
  metadataOffset: number;
}

const MAX_RECORDS_PER_HEARTBEAT = 5000;

export class BrokerLifecycle {
  private readonly sessions = new Map<number, Session>();
  private readonly shutdownOffsets = new Map<number, number>();
  private readonly image: MetadataImage;
  private readonly metadataLog: MetadataLog;
  private readonly leaderless: LeaderlessPartitions;
  private readonly brokersToIsrs: BrokersToIsrs;

  constructor(private readonly deps: BrokerLifecycleDeps) {
    this.image = deps.image;
    this.metadataLog = deps.metadataLog;
    this.leaderless = deps.leaderless;
    this.brokersToIsrs = deps.brokersToIsrs;
  }

  private now(): number {
    return this.deps.scheduler.now();
  }

  private config(): BrokerRuntimeConfig {
    return this.deps.config();
  }

  private after(ms: number, fn: () => void): TimerHandle {
    return this.deps.after(ms, fn);
  }

  private commit(records: MetadataRecord[]): CommittedRecord[] {
    return this.deps.commit(records);
  }

  private get endOffset(): number {
    return this.deps.endOffset();
  }

  private ctx(topic: TopicImage, state: PartitionState, excluded?: number, uncleanShutdown?: number): ChangeContext {
    return this.deps.changeContext(topic, state, excluded, uncleanShutdown);
  }

  /** The controller became active: every registered, unfenced broker gets a fresh session. */
  freshSessions(): void {
    for (const s of this.sessions.values()) this.deps.scheduler.cancel(s.timer);
    this.sessions.clear();
    for (const b of this.image.brokers.values()) if (!b.fenced) this.touchSession(b.id, -1);
  }

  /** The controller is no longer active: every session ends. */
  endSessions(): void {
    for (const s of this.sessions.values()) this.deps.scheduler.cancel(s.timer);
    this.sessions.clear();
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

  handleRegister(req: RegisterRequest): RegisterResponse {
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

  handleHeartbeat(req: HeartbeatRequest): HeartbeatResponse {
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
    this.metadataLog.release(this.appliedByAll());
    const after = this.image.brokers.get(req.brokerId);
    const isFenced = after?.fenced ?? true;
    const end = this.endOffset;
    const records = this.metadataLog.recordsFrom(req.metadataOffset + 1, MAX_RECORDS_PER_HEARTBEAT);
    if (records) return { error: 'NONE', isFenced, shouldShutDown, records, more: endsBefore(records, end) };
    // Behind the records kept: the latest snapshot, then the records after it (KRaft's FetchSnapshot).
    const snapshot = this.metadataLog.latestSnapshot()!;
    const tail = this.metadataLog.recordsFrom(snapshot.offset + 1, MAX_RECORDS_PER_HEARTBEAT)!;
    return { error: 'NONE', isFenced, shouldShutDown, snapshot, records: tail, more: endsBefore(tail, end) };
  }

  /** The metadata offset every broker with a session has applied (-1 when there is none). */
  private appliedByAll(): number {
    let min = Infinity;
    for (const s of this.sessions.values()) if (s.metadataOffset < min) min = s.metadataOffset;
    return min === Infinity ? -1 : min;
  }

  /** Partitions `brokerId` leads: a count the index keeps (asked on every heartbeat of a controlled shutdown). */
  private leaderCount(brokerId: number): number {
    return this.brokersToIsrs.leaderCount(brokerId);
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
    // Re-run the election of the leaderless partitions the returning broker may lead: those it
    // is a replica of (an index, not a walk of every partition).
    const changes: MetadataRecord[] = [];
    for (const { topic, state } of this.leaderless.ofReplica(this.image, brokerId)) {
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
    for (const { topic, state } of this.partitionsHolding(brokerId, uncleanShutdown)) {
      const change = leaveIsrChange(state, brokerId, this.ctx(topic, state, brokerId, uncleanShutdown ? brokerId : -1));
      if (change) out.push({ type: 'PartitionChange', state: change.state, reason: changeReason(change, reason), unclean: change.unclean });
    }
    return out;
  }

  /**
   * The partitions whose ISR (and, when `withElr`, ELR) holds `brokerId`, from the index, in the
   * image's order (topics as created, partitions by number): the order a walk of every partition
   * visited them in, so the records, and a seeded run, are the same.
   */
  private partitionsHolding(brokerId: number, withElr: boolean): { topic: TopicImage; state: PartitionState }[] {
    const byTopic = new Map<string, PartitionState[]>();
    const collect = (refs: Iterable<{ state: PartitionState }>): void => {
      for (const { state } of refs) {
        let list = byTopic.get(state.topicId);
        if (!list) byTopic.set(state.topicId, (list = []));
        list.push(state);
      }
    };
    collect(this.brokersToIsrs.isrOf(brokerId));
    if (withElr) collect([...this.brokersToIsrs.elrOf(brokerId)].filter((r) => !r.state.isr.includes(brokerId)));
    const out: { topic: TopicImage; state: PartitionState }[] = [];
    if (byTopic.size === 0) return out;
    for (const topic of this.image.topicsById.values()) {
      const list = byTopic.get(topic.topicId);
      if (!list) continue;
      list.sort((a, b) => a.partition - b.partition);
      for (const state of list) out.push({ topic, state });
    }
    return out;
  }

  /** UnregisterBroker: the broker leaves the cluster (it must be stopped first). */
  unregisterBroker(brokerId: number): void {
    this.deps.requireActive();
    const reg = this.image.brokers.get(brokerId);
    if (!reg) throw new KafkaError('BROKER_NOT_FOUND', `Broker ${brokerId} is not registered.`);
    const s = this.sessions.get(brokerId);
    if (s) this.deps.scheduler.cancel(s.timer);
    this.sessions.delete(brokerId);
    this.commit([...this.removeFromIsrs(brokerId, 'broker-fenced'), { type: 'UnregisterBroker', brokerId, brokerEpoch: reg.brokerEpoch }]);
  }
}

/** A page of records that stops before the log's end (`end`: the next offset). */
function endsBefore(records: readonly CommittedRecord[], end: number): boolean {
  return records.length > 0 && records[records.length - 1]!.offset < end - 1;
}
