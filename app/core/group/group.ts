/**
 * One classic consumer group as its coordinator holds it (Kafka's GroupMetadata and
 * MemberMetadata): state, generation, members with their protocols, the leader, and the group's
 * committed offsets with the commits still being written.
 *
 * Invariants:
 * - State transitions are only Kafka's: PreparingRebalance ← {Stable, CompletingRebalance, Empty};
 *   CompletingRebalance ← PreparingRebalance; Stable ← CompletingRebalance; Empty ←
 *   PreparingRebalance; Dead ← any. Anything else is our bug and throws.
 * - The protocol type is fixed by the first member; a member may join only if it shares the
 *   type and at least one protocol that every member supports (supportedProtocols counts them).
 * - `numAwaitingJoin` is the number of members holding a JoinGroup callback; the join phase
 *   completes when it equals the member count and no member id is pending.
 * - An offset is replaced only by a commit appended at a later offset of the log, so a slow
 *   commit's callback cannot roll a newer one back.
 */
import type { TimerHandle } from '../time.js';
import type { JoinGroupMember, JoinGroupResponse, JoinProtocol, SyncGroupResponse } from './messages.js';
import type { OffsetAndMetadata } from './record-codec.js';

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

const VALID_PREVIOUS: Record<GroupState, readonly GroupState[]> = {
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Empty: ['PreparingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

const EMPTY_BYTES = new Uint8Array(0);

export const CONSUMER_PROTOCOL_TYPE = 'consumer';

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class GroupMember {
  assignment: Uint8Array = EMPTY_BYTES;
  awaitingJoin: ((r: JoinGroupResponse) => void) | null = null;
  awaitingSync: ((r: SyncGroupResponse) => void) | null = null;
  /** Joined in this rebalance and not yet through it: its JoinGroup may expire. */
  isNew = false;
  heartbeatTimer: TimerHandle | null = null;

  constructor(
    public memberId: string,
    readonly groupInstanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    readonly protocolType: string,
    public protocols: JoinProtocol[],
  ) {}

  /** The member's metadata for `protocol`. */
  metadata(protocol: string): Uint8Array {
    return this.protocols.find((p) => p.name === protocol)?.metadata ?? EMPTY_BYTES;
  }

  /** Same protocols, in the same order, with the same metadata. */
  matches(protocols: readonly JoinProtocol[]): boolean {
    if (protocols.length !== this.protocols.length) return false;
    return protocols.every((p, i) => p.name === this.protocols[i]!.name && sameBytes(p.metadata, this.protocols[i]!.metadata));
  }

  /** This member's vote: its most preferred protocol among the candidates. */
  vote(candidates: ReadonlySet<string>): string {
    const choice = this.protocols.find((p) => candidates.has(p.name));
    if (!choice) throw new Error(`member ${this.memberId} does not support any of the candidate protocols`);
    return choice.name;
  }

  /** Whether a missed heartbeat deadline should leave this member in (Kafka's hasSatisfiedHeartbeat). */
  get heartbeatSatisfiedByRebalance(): boolean {
    return !this.isNew && (this.awaitingJoin !== null || this.awaitingSync !== null);
  }
}

export interface CommittedOffset {
  offset: OffsetAndMetadata;
  /** Where in the offsets partition the commit was appended (null: not known, e.g. loaded). */
  appendedAt: number | null;
}

export const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;
export const splitTpKey = (k: string): { topic: string; partition: number } => {
  const i = k.lastIndexOf('\u0000');
  return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
};

export class ClassicGroup {
  state: GroupState;
  currentStateTimestampMs: number | null;
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  /** Insertion order: the leader falls to the oldest remaining member, deterministically. */
  readonly members = new Map<string, GroupMember>();
  readonly staticMembers = new Map<string, string>();
  readonly pendingMembers = new Set<string>();
  readonly pendingSyncMembers = new Set<string>();
  private readonly supportedProtocols = new Map<string, number>();
  numAwaitingJoin = 0;
  /** A member joined during the initial delay (group.initial.rebalance.delay.ms): extend it. */
  newMemberAdded = false;
  subscribedTopics: Set<string> | null = null;
  readonly offsets = new Map<string, CommittedOffset>();
  readonly pendingOffsetCommits = new Map<string, OffsetAndMetadata>();
  /**
   * TxnOffsetCommit offsets per producer id, visible only once the producer's transaction commits
   * (GroupMetadata.pendingTransactionalOffsetCommits); `appendedAt` null until replicated.
   */
  readonly pendingTxnOffsetCommits = new Map<number, Map<string, CommittedOffset>>();
  /** The delayed join or sync operation of the current phase (one at a time). */
  rebalanceTimer: TimerHandle | null = null;
  /** The watched delayed join is the initial delay, which never completes early. */
  initialJoinPending = false;
  /** Bumped whenever a delayed operation is replaced, so a stale timer does nothing. */
  rebalanceOp = 0;
  /** The delayed sync operation of the current generation (members that never send SyncGroup). */
  syncTimer: TimerHandle | null = null;
  /** Told of every state change (the coordinator emits `group.stateChanged`). */
  onTransition: (group: ClassicGroup, previous: GroupState, reason: string) => void = () => {};

  constructor(
    readonly groupId: string,
    initial: 'Empty' | 'Stable',
    nowMs: number,
  ) {
    this.state = initial;
    this.currentStateTimestampMs = nowMs;
  }

  is(state: GroupState): boolean {
    return this.state === state;
  }

  get size(): number {
    return this.members.size;
  }

  has(memberId: string): boolean {
    return this.members.has(memberId);
  }

  get(memberId: string): GroupMember {
    const m = this.members.get(memberId);
    if (!m) throw new Error(`group ${this.groupId} has no member ${memberId}`);
    return m;
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  transitionTo(state: GroupState, nowMs: number, reason = ''): void {
    if (!VALID_PREVIOUS[state].includes(this.state)) throw new Error(`group ${this.groupId} cannot go from ${this.state} to ${state}`);
    const previous = this.state;
    this.state = state;
    this.currentStateTimestampMs = nowMs;
    this.onTransition(this, previous, reason);
  }

  get canRebalance(): boolean {
    return VALID_PREVIOUS.PreparingRebalance.includes(this.state);
  }

  get rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  get hasAllMembersJoined(): boolean {
    return this.members.size === this.numAwaitingJoin && this.pendingMembers.size === 0;
  }

  get isConsumerGroup(): boolean {
    return this.protocolType === CONSUMER_PROTOCOL_TYPE;
  }

  // ---------------------------------------------------------------- membership

  add(member: GroupMember, callback: ((r: JoinGroupResponse) => void) | null): void {
    if (member.groupInstanceId !== null) {
      if (this.staticMembers.has(member.groupInstanceId)) throw new Error(`static member ${member.groupInstanceId} is already in ${this.groupId}`);
      this.staticMembers.set(member.groupInstanceId, member.memberId);
    }
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    this.countProtocols(member, 1);
    member.awaitingJoin = callback;
    if (callback) this.numAwaitingJoin++;
    this.pendingMembers.delete(member.memberId);
  }

  remove(memberId: string): void {
    const member = this.members.get(memberId);
    if (member) {
      this.members.delete(memberId);
      this.countProtocols(member, -1);
      if (member.awaitingJoin) this.numAwaitingJoin--;
      if (member.groupInstanceId !== null) this.staticMembers.delete(member.groupInstanceId);
    }
    if (this.isLeader(memberId)) this.leaderId = this.members.keys().next().value ?? null;
    this.pendingMembers.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
  }

  /** A static member rejoined without its id: the same member, now under `newMemberId`. */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): GroupMember {
    const member = this.members.get(oldMemberId);
    if (!member) throw new Error(`cannot replace unknown member ${oldMemberId}`);
    this.members.delete(oldMemberId);
    // Fence the old incarnation at once if it is waiting for a JoinGroup or SyncGroup answer.
    this.invokeJoin(member, { ...errorJoin(oldMemberId, 'FENCED_INSTANCE_ID') });
    this.invokeSync(member, { errorCode: 'FENCED_INSTANCE_ID', protocolType: null, protocolName: null, assignment: EMPTY_BYTES });
    member.memberId = newMemberId;
    this.members.set(newMemberId, member);
    if (this.isLeader(oldMemberId)) this.leaderId = newMemberId;
    this.staticMembers.set(groupInstanceId, newMemberId);
    return member;
  }

  updateMember(member: GroupMember, protocols: JoinProtocol[], rebalanceTimeoutMs: number, sessionTimeoutMs: number, callback: ((r: JoinGroupResponse) => void) | null): void {
    this.countProtocols(member, -1);
    member.protocols = protocols;
    this.countProtocols(member, 1);
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
    if (callback && !member.awaitingJoin) this.numAwaitingJoin++;
    else if (!callback && member.awaitingJoin) this.numAwaitingJoin--;
    member.awaitingJoin = callback;
  }

  /** Answer a member's parked JoinGroup (if it has one). */
  invokeJoin(member: GroupMember, response: JoinGroupResponse): void {
    const cb = member.awaitingJoin;
    if (!cb) return;
    member.awaitingJoin = null;
    this.numAwaitingJoin--;
    cb(response);
  }

  /** Answer a member's parked SyncGroup; true when it had one. */
  invokeSync(member: GroupMember, response: SyncGroupResponse): boolean {
    const cb = member.awaitingSync;
    if (!cb) return false;
    member.awaitingSync = null;
    cb(response);
    return true;
  }

  /** If the leader did not rejoin, any member that did leads; false when none rejoined. */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.members.get(this.leaderId);
    if (leader?.awaitingJoin) return true;
    for (const m of this.members.values()) {
      if (m.awaitingJoin) {
        this.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  private countProtocols(member: GroupMember, delta: 1 | -1): void {
    for (const p of member.protocols) this.supportedProtocols.set(p.name, (this.supportedProtocols.get(p.name) ?? 0) + delta);
  }

  private candidateProtocols(): Set<string> {
    const out = new Set<string>();
    for (const [name, n] of this.supportedProtocols) if (n === this.members.size) out.add(name);
    return out;
  }

  /** Whether a member with this protocol type and these protocols may join. */
  supportsProtocols(protocolType: string, protocols: readonly JoinProtocol[]): boolean {
    if (this.is('Empty')) return protocolType.length > 0 && protocols.length > 0;
    return this.protocolType === protocolType && protocols.some((p) => this.supportedProtocols.get(p.name) === this.members.size);
  }

  /** Every member votes for its preferred common protocol; the most votes win (ties: first seen). */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(candidates);
      votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    let best = '';
    let most = -1;
    for (const [name, n] of votes) if (n > most) [best, most] = [name, n];
    return best;
  }

  /** The next generation: CompletingRebalance with members, Empty without. */
  initNextGeneration(nowMs: number, topicsOf: (subscription: Uint8Array) => string[] | null): void {
    this.generationId++;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.transitionTo('CompletingRebalance', nowMs, `generation ${this.generationId} formed with ${this.members.size} member(s)`);
    } else {
      this.protocolName = null;
      this.transitionTo('Empty', nowMs, `generation ${this.generationId} has no members`);
    }
    this.subscribedTopics = this.computeSubscribedTopics(topicsOf);
    this.pendingSyncMembers.clear();
  }

  /** The topics a consumer group's members subscribe to; null when not knowable. */
  computeSubscribedTopics(topicsOf: (subscription: Uint8Array) => string[] | null): Set<string> | null {
    if (!this.isConsumerGroup) return null;
    if (this.members.size === 0) return new Set();
    if (this.protocolName === null) return null;
    const topics = new Set<string>();
    for (const m of this.members.values()) {
      const t = topicsOf(m.metadata(this.protocolName));
      if (t === null) return null;
      for (const name of t) topics.add(name);
    }
    return topics;
  }

  /** What the leader's JoinGroup answer lists: every member with its metadata for the chosen protocol. */
  currentMemberMetadata(): JoinGroupMember[] {
    return [...this.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata(this.protocolName!) }));
  }

  // ---------------------------------------------------------------- offsets

  prepareOffsetCommit(offsets: ReadonlyMap<string, OffsetAndMetadata>): void {
    for (const [k, o] of offsets) this.pendingOffsetCommits.set(k, o);
  }

  onOffsetCommitAppend(k: string, offset: OffsetAndMetadata, appendedAt: number): void {
    if (this.pendingOffsetCommits.get(k) === offset) this.pendingOffsetCommits.delete(k);
    const current = this.offsets.get(k);
    if (!current || current.appendedAt === null || current.appendedAt < appendedAt) this.offsets.set(k, { offset, appendedAt });
  }

  failPendingOffsetWrite(k: string, offset: OffsetAndMetadata): void {
    if (this.pendingOffsetCommits.get(k) === offset) this.pendingOffsetCommits.delete(k);
  }

  get hasOffsets(): boolean {
    return this.offsets.size > 0 || this.pendingOffsetCommits.size > 0 || this.pendingTxnOffsetCommits.size > 0;
  }

  /** Remove these offsets; returns the keys that were there. */
  removeOffsets(keys: Iterable<string>): string[] {
    const removed: string[] = [];
    for (const k of keys) {
      if (this.offsets.delete(k)) removed.push(k);
      this.pendingOffsetCommits.delete(k);
      for (const pending of this.pendingTxnOffsetCommits.values()) pending.delete(k);
    }
    return removed;
  }

  // ---------------------------------------------------------------- transactional offsets (KIP-98)

  prepareTxnOffsetCommit(producerId: number, offsets: ReadonlyMap<string, OffsetAndMetadata>): void {
    const pending = this.pendingTxnOffsetCommits.get(producerId) ?? new Map<string, CommittedOffset>();
    this.pendingTxnOffsetCommits.set(producerId, pending);
    for (const [k, offset] of offsets) pending.set(k, { offset, appendedAt: null });
  }

  onTxnOffsetCommitAppend(producerId: number, k: string, offset: OffsetAndMetadata, appendedAt: number): void {
    const c = this.pendingTxnOffsetCommits.get(producerId)?.get(k);
    if (c && c.offset === offset) c.appendedAt = appendedAt;
  }

  /** The commit record was not written: the client retries (GroupMetadata.failPendingTxnOffsetCommit). */
  failPendingTxnOffsetCommit(producerId: number, k: string): void {
    const pending = this.pendingTxnOffsetCommits.get(producerId);
    if (!pending) return;
    pending.delete(k);
    if (pending.size === 0) this.pendingTxnOffsetCommits.delete(producerId);
  }

  /** The producer's marker is written: COMMIT makes its offsets the group's (unless a later commit already is), ABORT drops them. */
  completePendingTxnOffsetCommit(producerId: number, isCommit: boolean): void {
    const pending = this.pendingTxnOffsetCommits.get(producerId);
    this.pendingTxnOffsetCommits.delete(producerId);
    if (!pending || !isCommit) return;
    for (const [k, c] of pending) {
      if (c.appendedAt === null) continue; // never written: nothing was committed
      const current = this.offsets.get(k);
      if (!current || current.appendedAt === null || current.appendedAt < c.appendedAt) this.offsets.set(k, c);
    }
  }

  /** OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT while this holds (KIP-447). */
  hasPendingOffsetCommitsFor(k: string): boolean {
    if (this.pendingOffsetCommits.has(k)) return true;
    for (const pending of this.pendingTxnOffsetCommits.values()) if (pending.has(k)) return true;
    return false;
  }

  /**
   * Offsets past offsets.retention.minutes (GroupMetadata.removeExpiredOffsets): for an empty
   * group, counted from when it became empty; for a stable consumer group, only offsets of topics
   * it no longer subscribes to, counted from their commit; for a group without a protocol type
   * (a "simple" consumer that only commits), from each commit. Never an offset being written.
   */
  expiredOffsets(nowMs: number, retentionMs: number): string[] {
    const expired = (base: (o: CommittedOffset) => number, subscribed: ReadonlySet<string> = new Set()): string[] => {
      const out: string[] = [];
      for (const [k, c] of this.offsets) {
        if (subscribed.has(splitTpKey(k).topic) || this.pendingOffsetCommits.has(k)) continue;
        const gone = c.offset.expireTimestampMs !== null ? nowMs >= c.offset.expireTimestampMs : nowMs - base(c) >= retentionMs;
        if (gone) out.push(k);
      }
      return out;
    };
    if (this.protocolType !== null && this.is('Empty')) return expired((c) => this.currentStateTimestampMs ?? c.offset.commitTimestampMs);
    if (this.protocolType === CONSUMER_PROTOCOL_TYPE && this.subscribedTopics !== null && this.is('Stable')) {
      return expired((c) => c.offset.commitTimestampMs, this.subscribedTopics);
    }
    if (this.protocolType === null) return expired((c) => c.offset.commitTimestampMs);
    return [];
  }
}

export function errorJoin(memberId: string, errorCode: JoinGroupResponse['errorCode']): JoinGroupResponse {
  return { errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId, members: [] };
}
