/**
 * The fault run's transformer as a member of its consumer group (KIP-447): the transactional
 * producer commits its offsets with the consumer's generation and member id, so a member the group
 * has moved on from is fenced at TxnOffsetCommit (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID) instead of
 * committing offsets of input another member may own by now. It joins as a Kafka consumer does:
 * FindCoordinator, JoinGroup (a new dynamic member is first told MEMBER_ID_REQUIRED, KIP-394),
 * SyncGroup (the leader assigns the input partitions round-robin), then heartbeats.
 *
 * What a heartbeat or a commit is answered decides what it does next, as the Java consumer's
 * ConsumerCoordinator does: REBALANCE_IN_PROGRESS rejoins keeping its member id;
 * ILLEGAL_GENERATION rejoins with it too; UNKNOWN_MEMBER_ID and FENCED_INSTANCE_ID forget it and
 * join as a new member; NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS
 * and no answer look the coordinator up again. The transformer asks `joined()` before each
 * transaction and rejoins when it is not.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { GroupAnswer, GroupApiRequest, GroupResponseOf } from '../../core/engine.js';
import { groupRecordCodec } from '../../protocol/group-records.js';
import type { RunContext } from './context.js';

/** group.min.session.timeout.ms: the shortest session a coordinator accepts, so a stall outlives it. */
const SESSION_TIMEOUT_MS = 6_000;
const REBALANCE_TIMEOUT_MS = 30_000;
const HEARTBEAT_INTERVAL_MS = 1_000;
const REQUEST_TIMEOUT_MS = 10_000;

/** The errors after which a member must join again before it commits. */
export const REJOIN_ERRORS: ReadonlySet<KafkaErrorName> = new Set(['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID', 'REBALANCE_IN_PROGRESS']);

export interface Membership {
  generationId: number;
  memberId: string;
}

export class GroupMember {
  coordinator = -1;
  private memberId = '';
  private generationId = -1;
  private stable = false;
  /** Until then the member's process is paused (a long GC pause): no heartbeat leaves. */
  private stalledUntil = -1;
  /** Bumped on every (re)join: a heartbeat loop of an older join stops. */
  private joins = 0;
  /** Times the member joined (a new generation each). */
  generations = 0;
  /** Rejoins forced by an answer, by error. */
  readonly rejoinsBy = new Map<string, number>();
  /** The input partitions its last SyncGroup assigned it. */
  private assignment: number[] = [];

  constructor(
    private readonly ctx: RunContext,
    private readonly groupId: string,
    private readonly topic: string,
    private readonly track: <T>(done: (answer: T) => void) => (answer: T) => void,
  ) {}

  /** The partitions of the topic the group assigned this member (read only while `joined()`). */
  assigned(): number[] {
    return this.assignment;
  }

  /** The generation to commit with, while the member is in a stable group. */
  joined(): Membership | null {
    return this.stable ? { generationId: this.generationId, memberId: this.memberId } : null;
  }

  /**
   * Act on an error a group request (a heartbeat, TxnOffsetCommit, a join) was answered: leave the
   * stable group and rejoin after one of REJOIN_ERRORS; after any other, find the coordinator again
   * (the membership stands: the new coordinator loads it from the log).
   */
  onError(error: KafkaErrorName | 'UNREACHABLE'): void {
    if (error === 'NONE') return;
    if (!REJOIN_ERRORS.has(error as KafkaErrorName)) {
      this.coordinator = -1;
      return;
    }
    this.stable = false;
    this.rejoinsBy.set(error, (this.rejoinsBy.get(error) ?? 0) + 1);
    if (error === 'UNKNOWN_MEMBER_ID' || error === 'FENCED_INSTANCE_ID') this.memberId = '';
    if (error !== 'REBALANCE_IN_PROGRESS') this.generationId = -1;
  }

  /** Pause the member's process for `ms` (heartbeats included, as a JVM pause stops the heartbeat thread too). */
  stall(ms: number): void {
    this.stalledUntil = this.ctx.sim.now + ms;
  }

  /** Call `then` once the group's coordinator is known. */
  withCoordinator(then: () => void): void {
    if (this.coordinator >= 0) return then();
    this.findCoordinator(then);
  }

  /** Join (again) and call `then` once the group is stable with this member in it. */
  join(then: () => void): void {
    if (!this.ctx.trafficOn) return;
    if (this.stable) return then();
    const join = ++this.joins;
    if (this.coordinator < 0) return this.findCoordinator(() => this.join(then));
    this.call(
      {
        api: 'joinGroup',
        groupId: this.groupId,
        sessionTimeoutMs: SESSION_TIMEOUT_MS,
        rebalanceTimeoutMs: REBALANCE_TIMEOUT_MS,
        memberId: this.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: groupRecordCodec.encodeSubscription([this.topic]) }],
        requireKnownMemberId: true,
        clientId: 'xc',
        clientHost: '/127.0.0.1',
        reason: null,
      },
      REBALANCE_TIMEOUT_MS + REQUEST_TIMEOUT_MS,
      (r) => {
        if (join !== this.joins) return;
        if (r === null) return this.retry(() => this.join(then), 'UNREACHABLE');
        if (r.errorCode === 'MEMBER_ID_REQUIRED') {
          this.memberId = r.memberId;
          return this.join(then);
        }
        if (r.errorCode !== 'NONE') return this.retry(() => this.join(then), r.errorCode);
        this.memberId = r.memberId;
        this.generationId = r.generationId;
        // The leader assigns the topic's partitions round-robin over the members by member id.
        const assignments = r.leader === r.memberId ? this.assign(r.members.map((m) => m.memberId)) : [];
        this.call(
          { api: 'syncGroup', groupId: this.groupId, generationId: r.generationId, memberId: r.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: r.protocolName, assignments },
          REBALANCE_TIMEOUT_MS + REQUEST_TIMEOUT_MS,
          (s) => {
            if (join !== this.joins) return;
            if (s === null) return this.retry(() => this.join(then), 'UNREACHABLE');
            if (s.errorCode !== 'NONE') return this.retry(() => this.join(then), s.errorCode);
            this.assignment = groupRecordCodec.assignedPartitions(s.assignment)?.find((x) => x.topic === this.topic)?.partitions ?? [];
            this.stable = true;
            this.generations++;
            this.heartbeat(join);
            then();
          },
        );
      },
    );
  }

  private assign(memberIds: string[]): { memberId: string; assignment: Uint8Array }[] {
    const sorted = [...memberIds].sort();
    const count = this.ctx.sim.engine.metadata.topicsByName.get(this.topic)?.partitions.size ?? 0;
    return sorted.map((memberId, i) => ({
      memberId,
      assignment: groupRecordCodec.encodeAssignment([{ topic: this.topic, partitions: Array.from({ length: count }, (_, p) => p).filter((p) => p % sorted.length === i) }]),
    }));
  }

  private retry(again: () => void, error: KafkaErrorName | 'UNREACHABLE'): void {
    this.onError(error);
    if (this.ctx.trafficOn) this.ctx.sim.scheduler.schedule(this.ctx.int(100, 500), again);
  }

  private heartbeat(join: number): void {
    this.ctx.sim.scheduler.schedule(HEARTBEAT_INTERVAL_MS, () => {
      if (!this.ctx.trafficOn || join !== this.joins || !this.stable) return;
      if (this.ctx.sim.now < this.stalledUntil) return this.heartbeat(join);
      this.withCoordinator(() =>
        this.call({ api: 'heartbeat', groupId: this.groupId, generationId: this.generationId, memberId: this.memberId, groupInstanceId: null }, REQUEST_TIMEOUT_MS, (r) => {
          if (join !== this.joins) return;
          this.onError(r === null ? 'UNREACHABLE' : r.errorCode);
          if (this.stable) this.heartbeat(join);
        }),
      );
    });
  }

  private findCoordinator(then: () => void): void {
    const brokers = this.ctx.sim.engine.members().map((b) => b.id);
    this.call({ api: 'findCoordinator', keyType: 0, keys: [this.groupId], clientId: 'xc' }, REQUEST_TIMEOUT_MS, (r) => {
      const c = r?.coordinators[0];
      if (!c || c.errorCode !== 'NONE') return this.ctx.trafficOn && void this.ctx.sim.scheduler.schedule(this.ctx.int(100, 1000), () => this.findCoordinator(then));
      this.coordinator = c.nodeId;
      then();
    }, this.ctx.pick(brokers)!);
  }

  private call<R extends GroupApiRequest>(request: R, timeoutMs: number, done: (response: GroupResponseOf<R> | null) => void, to = this.coordinator): void {
    this.ctx.sim.engine.groupRequest(to, request, this.track((a: GroupAnswer<GroupResponseOf<R>>) => done(a.kind === 'response' ? a.response : null)), timeoutMs);
  }
}
