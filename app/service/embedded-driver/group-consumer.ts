/**
 * An in-app consumer group member: what the Java consumer's coordinator does, over the engine's
 * group APIs and its in-app fetch, so a drill (or a test) can run a consumer group inside the
 * cluster and watch it survive faults. It uses only the engine's public methods, as a client
 * outside the cluster would.
 *
 * The member's life (Kafka's AbstractCoordinator / ConsumerCoordinator, range assignor):
 *   find the coordinator (FindCoordinator to any broker; retried until a live one is named)
 *   → JoinGroup (v4+ rules: a first MEMBER_ID_REQUIRED, then rejoin with that id)
 *   → the leader computes the range assignment from the members' subscriptions → SyncGroup
 *   → positions from OffsetFetch (the committed offset, else the log start: auto.offset.reset=earliest)
 *   → fetch every assigned partition, heartbeat every heartbeat.interval.ms, commit the
 *     positions every auto.commit.interval.ms and before every rebalance.
 * On REBALANCE_IN_PROGRESS it commits and rejoins; on UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION it
 * rejoins as a new member; when the coordinator is unreachable or answers NOT_COORDINATOR /
 * COORDINATOR_NOT_AVAILABLE it finds the coordinator again and carries on with the same member
 * id and generation — which a new coordinator that loaded the group from `__consumer_offsets`
 * accepts, so a coordinator failover needs no rebalance.
 *
 * Invariant: every callback belongs to one round — a group round (a join attempt, a coordinator
 * lookup, a stable session's heartbeats and commits) or a fetch round (one assignment); a stale
 * one does nothing, so at most one JoinGroup, one heartbeat and one fetch per partition are in
 * flight. Fetching goes on while the coordinator is being found again (the partitions are still
 * this member's) and stops when the member rejoins (the eager protocol revokes them first).
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { ConsumedRecord, Engine, GroupAnswer, GroupApiRequest, GroupResponseOf, JoinGroupMember, OffsetCommitRequest, TopicPartitions } from '../../core/engine.js';
import type { TimerHandle } from '../../core/time.js';

export interface GroupConsumerOptions {
  groupId: string;
  clientId: string;
  topics: string[];
  /** Kafka's session.timeout.ms (the Java default is 45 s; drills use less). */
  sessionTimeoutMs?: number;
  /** max.poll.interval.ms, sent as the rebalance timeout. */
  rebalanceTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  autoCommitIntervalMs?: number;
  pollIntervalMs?: number;
  maxRecords?: number;
  /** Every record the member consumed, in order per partition. */
  onRecords?: (topic: string, partition: number, records: ConsumedRecord[]) => void;
}

export type MemberState = 'finding-coordinator' | 'joining' | 'syncing' | 'stable' | 'stopped';

const RETRY_BACKOFF_MS = 100;
const tp = (topic: string, partition: number): string => `${topic}\u0000${partition}`;
const COORDINATOR_ERRORS: ReadonlySet<KafkaErrorName> = new Set(['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE']);
const REJOIN_AS_NEW: ReadonlySet<KafkaErrorName> = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'FENCED_INSTANCE_ID']);

/** Kafka's RangeAssignor: per topic, members sorted by id take consecutive ranges, the first ones one more. */
export function rangeAssign(members: { memberId: string; topics: readonly string[] }[], partitionCount: (topic: string) => number): Map<string, TopicPartitions[]> {
  const out = new Map(members.map((m) => [m.memberId, [] as TopicPartitions[]]));
  const topics = [...new Set(members.flatMap((m) => m.topics))].sort();
  for (const topic of topics) {
    const subscribers = members.filter((m) => m.topics.includes(topic)).map((m) => m.memberId).sort();
    const n = partitionCount(topic);
    const per = Math.floor(n / subscribers.length);
    const extra = n % subscribers.length;
    subscribers.forEach((id, i) => {
      const start = per * i + Math.min(i, extra);
      const count = per + (i < extra ? 1 : 0);
      if (count > 0) out.get(id)!.push({ topic, partitions: Array.from({ length: count }, (_, k) => start + k) });
    });
  }
  return out;
}

export class GroupConsumer {
  state: MemberState = 'finding-coordinator';
  memberId = '';
  generationId = -1;
  coordinatorId: number | null = null;
  assignment: TopicPartitions[] = [];
  /** Next offset to consume, per assigned partition. */
  readonly positions = new Map<string, number>();
  /** What the coordinator last acknowledged, per partition. */
  readonly committed = new Map<string, number>();
  consumedRecords = 0;
  rebalances = 0;
  lastError: KafkaErrorName | null = null;
  private round = 0;
  private fetchRound = 0;
  private brokerCursor = 0;
  private timers: { kind: 'group' | 'fetch'; handle: TimerHandle }[] = [];
  private readonly fetching = new Set<string>();
  private readonly opts: Required<Omit<GroupConsumerOptions, 'onRecords'>> & Pick<GroupConsumerOptions, 'onRecords'>;

  constructor(
    private readonly engine: Engine,
    options: GroupConsumerOptions,
  ) {
    this.opts = {
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 30_000,
      heartbeatIntervalMs: 3_000,
      autoCommitIntervalMs: 5_000,
      pollIntervalMs: 100,
      maxRecords: 500,
      ...options,
    };
  }

  get groupId(): string {
    return this.opts.groupId;
  }

  start(): void {
    this.findCoordinator();
  }

  /** Stop consuming: commit and leave the group (LeaveGroup), or just vanish (`leave` false, as a crash). */
  stop(leave = true): void {
    if (this.state === 'stopped') return;
    const { coordinatorId, memberId, generationId } = this.state === 'stable' ? this : { coordinatorId: null, memberId: '', generationId: -1 };
    this.state = 'stopped';
    this.newRound();
    this.newFetchRound();
    if (!leave || coordinatorId === null || memberId === '') return;
    this.send(coordinatorId, { api: 'offsetCommit', ...this.commitRequest(generationId, memberId) }, () => {
      this.send(coordinatorId, { api: 'leaveGroup', groupId: this.groupId, members: [{ memberId, groupInstanceId: null, reason: 'the consumer is closing' }] }, () => {});
    });
  }

  private cancel(kind: 'group' | 'fetch'): void {
    for (const t of this.timers) if (t.kind === kind) this.engine.scheduler.cancel(t.handle);
    this.timers = this.timers.filter((t) => t.kind !== kind);
  }

  private newRound(): number {
    this.cancel('group');
    return ++this.round;
  }

  private newFetchRound(): number {
    this.cancel('fetch');
    this.fetching.clear();
    return ++this.fetchRound;
  }

  /** Run `fn` after `ms` if still in group round `round`. */
  private later(round: number, ms: number, fn: () => void): void {
    this.schedule('group', ms, () => round === this.round && fn());
  }

  private laterFetch(round: number, ms: number, fn: () => void): void {
    this.schedule('fetch', ms, () => round === this.fetchRound && fn());
  }

  private schedule(kind: 'group' | 'fetch', ms: number, fn: () => void): void {
    const entry = {
      kind,
      handle: this.engine.scheduler.schedule(ms, () => {
        this.timers = this.timers.filter((x) => x !== entry);
        fn();
      }),
    };
    this.timers.push(entry);
  }

  private send<R extends GroupApiRequest>(brokerId: number, request: R, done: (a: GroupAnswer<GroupResponseOf<R>>) => void): void {
    this.engine.groupRequest(brokerId, request, done);
  }

  /** The answer, if it came in `round`; otherwise (stale, or unreachable) handles that and returns null. */
  private fresh<T>(round: number, a: GroupAnswer<T>): T | null {
    if (round !== this.round) return null;
    if (a.kind === 'unreachable') {
      this.coordinatorLost();
      return null;
    }
    return a.response;
  }

  // ================================================================ coordinator

  private findCoordinator(): void {
    const round = this.newRound();
    if (this.state !== 'stable') this.state = 'finding-coordinator';
    const brokers = this.engine.members().map((b) => b.id);
    const target = brokers[this.brokerCursor++ % brokers.length]!;
    this.send(target, { api: 'findCoordinator', keyType: 0, keys: [this.groupId] }, (a) => {
      if (round !== this.round) return;
      const c = a.kind === 'response' ? a.response.coordinators[0] : undefined;
      if (!c || c.errorCode !== 'NONE') {
        if (c) this.lastError = c.errorCode;
        return this.later(round, RETRY_BACKOFF_MS, () => this.findCoordinator());
      }
      this.coordinatorId = c.nodeId;
      // A member with a generation carries on with it: the new coordinator may know the group.
      if (this.state === 'stable') this.resumeStable();
      else this.join();
    });
  }

  private coordinatorLost(): void {
    this.coordinatorId = null;
    this.findCoordinator();
  }

  // ================================================================ join and sync

  private join(): void {
    const round = this.newRound();
    this.newFetchRound();
    this.state = 'joining';
    this.send(
      this.coordinatorId!,
      {
        api: 'joinGroup',
        groupId: this.groupId,
        sessionTimeoutMs: this.opts.sessionTimeoutMs,
        rebalanceTimeoutMs: this.opts.rebalanceTimeoutMs,
        memberId: this.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: this.engine.groupRecords.encodeSubscription(this.opts.topics) }],
        requireKnownMemberId: true,
        clientId: this.opts.clientId,
        clientHost: '/127.0.0.1',
        reason: null,
      },
      (a) => {
        const r = this.fresh(round, a);
        if (!r) return;
        if (r.errorCode === 'MEMBER_ID_REQUIRED') {
          this.memberId = r.memberId;
          return this.join();
        }
        if (r.errorCode !== 'NONE') return this.onGroupError(round, r.errorCode);
        this.memberId = r.memberId;
        this.generationId = r.generationId;
        this.sync(r.leader === r.memberId ? this.assign(r.members) : new Map());
      },
    );
  }

  private assign(members: JoinGroupMember[]): Map<string, TopicPartitions[]> {
    const subscriptions = members.map((m) => ({ memberId: m.memberId, topics: this.engine.groupRecords.subscribedTopics(m.metadata) ?? [] }));
    return rangeAssign(subscriptions, (topic) => this.engine.metadata.topicsByName.get(topic)?.partitions.size ?? 0);
  }

  private sync(assignment: Map<string, TopicPartitions[]>): void {
    const round = this.newRound();
    this.state = 'syncing';
    const codec = this.engine.groupRecords;
    this.send(
      this.coordinatorId!,
      {
        api: 'syncGroup',
        groupId: this.groupId,
        generationId: this.generationId,
        memberId: this.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [...assignment].map(([memberId, tps]) => ({ memberId, assignment: codec.encodeAssignment(tps) })),
      },
      (a) => {
        const r = this.fresh(round, a);
        if (!r) return;
        if (r.errorCode !== 'NONE') return this.onGroupError(round, r.errorCode);
        this.assignment = codec.assignedPartitions(r.assignment) ?? [];
        this.rebalances++;
        this.state = 'stable';
        this.fetchCommitted();
      },
    );
  }

  /** An error from the coordinator: rediscover it, rejoin (as a new member if forgotten), or retry. */
  private onGroupError(round: number, error: KafkaErrorName): void {
    this.lastError = error;
    if (COORDINATOR_ERRORS.has(error)) return this.coordinatorLost();
    if (REJOIN_AS_NEW.has(error)) {
      this.memberId = error === 'ILLEGAL_GENERATION' ? this.memberId : '';
      this.generationId = -1;
      this.state = 'joining';
      return this.later(round, RETRY_BACKOFF_MS, () => this.join());
    }
    if (error === 'REBALANCE_IN_PROGRESS' || error === 'COORDINATOR_LOAD_IN_PROGRESS') {
      return this.later(round, error === 'REBALANCE_IN_PROGRESS' ? 0 : RETRY_BACKOFF_MS, () => this.join());
    }
    // INVALID_SESSION_TIMEOUT, INCONSISTENT_GROUP_PROTOCOL, GROUP_MAX_SIZE_REACHED: the Java consumer throws.
    this.state = 'stopped';
    this.newRound();
  }

  // ================================================================ stable: positions, fetch, heartbeat, commit

  private fetchCommitted(): void {
    const round = this.round;
    this.positions.clear();
    this.send(this.coordinatorId!, { api: 'offsetFetch', groupId: this.groupId, topics: this.assignment.map((t) => ({ name: t.topic, partitions: t.partitions })), requireStable: true }, (a) => {
      const r = this.fresh(round, a);
      if (!r) return;
      if (r.errorCode !== 'NONE') return this.onGroupError(round, r.errorCode);
      for (const t of r.topics) {
        for (const p of t.partitions) {
          if (p.offset >= 0) {
            this.positions.set(tp(t.name, p.partition), p.offset);
            this.committed.set(tp(t.name, p.partition), p.offset);
          }
        }
      }
      this.startFetching();
      this.resumeStable();
    });
  }

  /** Start the fetch loops of a new assignment. */
  private startFetching(): void {
    const round = this.newFetchRound();
    for (const t of this.assignment) for (const p of t.partitions) this.poll(round, t.topic, p);
  }

  /** Start (or restart, with a new coordinator) the heartbeat and auto-commit loops of a stable member. */
  private resumeStable(): void {
    const round = this.newRound();
    this.state = 'stable';
    this.later(round, this.opts.heartbeatIntervalMs, () => this.heartbeat(round));
    this.later(round, this.opts.autoCommitIntervalMs, () => this.autoCommit(round));
  }

  private poll(round: number, topic: string, partition: number): void {
    const key = tp(topic, partition);
    if (round !== this.fetchRound || this.fetching.has(key)) return;
    const position = this.positions.get(key);
    if (position === undefined) {
      // No committed offset: auto.offset.reset=earliest.
      this.fetching.add(key);
      this.engine.listOffsets({ topic, partition, timestamp: -2 }, (r) => {
        if (round !== this.fetchRound) return;
        this.fetching.delete(key);
        if (r.error === 'NONE' && !this.positions.has(key)) this.positions.set(key, r.offset);
        this.laterFetch(round, r.error === 'NONE' ? 0 : this.opts.pollIntervalMs, () => this.poll(round, topic, partition));
      });
      return;
    }
    this.fetching.add(key);
    this.engine.consume({ topic, partition, offset: position, maxRecords: this.opts.maxRecords }, (r) => {
      if (round !== this.fetchRound) return;
      this.fetching.delete(key);
      if (r.errorCode === 'OFFSET_OUT_OF_RANGE') this.positions.delete(key);
      const records = r.records.filter((x) => x.offset >= position);
      if (records.length > 0 && this.positions.get(key) === position) {
        this.positions.set(key, records[records.length - 1]!.offset + 1);
        this.consumedRecords += records.length;
        this.opts.onRecords?.(topic, partition, records);
      }
      this.laterFetch(round, records.length > 0 ? 0 : this.opts.pollIntervalMs, () => this.poll(round, topic, partition));
    });
  }

  private heartbeat(round: number): void {
    if (this.coordinatorId === null) return;
    this.send(this.coordinatorId, { api: 'heartbeat', groupId: this.groupId, generationId: this.generationId, memberId: this.memberId, groupInstanceId: null }, (a) => {
      const r = this.fresh(round, a);
      if (!r) return;
      if (r.errorCode === 'NONE') return this.later(round, this.opts.heartbeatIntervalMs, () => this.heartbeat(round));
      if (r.errorCode === 'REBALANCE_IN_PROGRESS') return this.commit(round, () => this.join());
      this.onGroupError(round, r.errorCode);
    });
  }

  private autoCommit(round: number): void {
    this.commit(round, () => this.later(round, this.opts.autoCommitIntervalMs, () => this.autoCommit(round)));
  }

  private commitRequest(generationId: number, memberId: string): Omit<OffsetCommitRequest, 'api'> {
    const byTopic = new Map<string, { partition: number; offset: number; leaderEpoch: number; metadata: string | null; commitTimestampMs: number }[]>();
    for (const [key, offset] of this.positions) {
      const [topic, partition] = key.split('\u0000') as [string, string];
      const list = byTopic.get(topic) ?? [];
      list.push({ partition: Number(partition), offset, leaderEpoch: -1, metadata: '', commitTimestampMs: -1 });
      byTopic.set(topic, list);
    }
    return { groupId: this.groupId, generationId, memberId, groupInstanceId: null, retentionTimeMs: -1, topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })) };
  }

  /** Commit every position; `then` runs once the coordinator answered with no group-level problem. */
  private commit(round: number, then: () => void): void {
    const request = this.commitRequest(this.generationId, this.memberId);
    if (request.topics.length === 0 || this.coordinatorId === null) return then();
    const sent = new Map(this.positions);
    this.send(this.coordinatorId, { api: 'offsetCommit', ...request }, (a) => {
      const r = this.fresh(round, a);
      if (!r) return;
      const errors = r.topics.flatMap((t) => t.partitions.map((p) => ({ key: tp(t.name, p.partition), errorCode: p.errorCode })));
      for (const e of errors) if (e.errorCode === 'NONE') this.committed.set(e.key, sent.get(e.key)!);
      const failed = errors.find((e) => e.errorCode !== 'NONE');
      if (!failed) return then();
      this.lastError = failed.errorCode;
      if (failed.errorCode === 'REBALANCE_IN_PROGRESS') return this.join();
      if (failed.errorCode === 'REQUEST_TIMED_OUT' || failed.errorCode === 'COORDINATOR_LOAD_IN_PROGRESS') return then();
      this.onGroupError(round, failed.errorCode);
    });
  }
}
