/**
 * The classic rebalance protocol on the coordinator (Kafka's GroupCoordinator: JoinGroup,
 * SyncGroup, Heartbeat, LeaveGroup and the delayed operations behind them), written from its
 * rules:
 *
 *   Empty ──join──▶ PreparingRebalance ──all members rejoined, or the rebalance timeout──▶
 *   CompletingRebalance ──leader's SyncGroup stored──▶ Stable ──join/leave/expiry──▶ Preparing…
 *
 * - A new group waits group.initial.rebalance.delay.ms (extended while members keep arriving, up
 *   to the rebalance timeout) before its first generation; later rebalances complete as soon as
 *   every known member has rejoined, or after the largest member rebalance timeout, when members
 *   that did not rejoin (dynamic ones) are dropped.
 * - A generation: +1, the protocol every member supports that most members prefer, the first
 *   rejoined member leads if the old leader did not rejoin; only the leader's JoinGroup answer
 *   lists the members and their metadata. The leader's SyncGroup assignment is written to
 *   `__consumer_offsets` (acks=all) before anyone receives it; members that never send SyncGroup
 *   within the rebalance timeout are removed.
 * - A member whose session times out without a heartbeat (members parked in JoinGroup or
 *   SyncGroup are exempt, except new ones, whose JoinGroup may wait at most 5 minutes) is removed
 *   and the group rebalances. JoinGroup v4+ from a dynamic member without an id gets
 *   MEMBER_ID_REQUIRED with an id to rejoin with, kept as pending for one session timeout.
 * - Static members (group.instance.id) keep their place across restarts: a rejoin with an unknown
 *   member id replaces the old id, fencing the old incarnation with FENCED_INSTANCE_ID.
 * Errors are Kafka's: UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS,
 * INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT, GROUP_MAX_SIZE_REACHED, and the
 * coordinator errors from `GroupStore.validateGroupStatus`.
 *
 * The four requests and the delayed join/sync completions move the same state machine, so they
 * stay in this one file; the checks of the member behind a request, which change nothing, are in
 * member-checks.ts.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import { type ClassicGroup, errorJoin, GroupMember } from './group.js';
import type { GroupStore } from './group-store.js';
import type { CoordinatorHost } from './host.js';
import { acceptJoiningMember, generateMemberId, validateCurrentMember } from './member-checks.js';
import type {
  HeartbeatRequest,
  HeartbeatResponse,
  JoinGroupRequest,
  JoinGroupResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  SyncGroupRequest,
  SyncGroupResponse,
} from './messages.js';

/** Kafka's NewMemberJoinTimeoutMs: how long a new member's JoinGroup may wait. */
export const NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;
const EMPTY = new Uint8Array(0);

const syncError = (errorCode: KafkaErrorName): SyncGroupResponse => ({ errorCode, protocolType: null, protocolName: null, assignment: EMPTY });

export class Membership {
  constructor(
    private readonly host: CoordinatorHost,
    private readonly store: GroupStore,
  ) {}

  private now(): number {
    return this.host.scheduler.now();
  }

  private topicsOf = (subscription: Uint8Array): string[] | null => this.host.groupRecords.subscribedTopics(subscription);

  // ================================================================ JoinGroup

  join(req: JoinGroupRequest, reply: (r: JoinGroupResponse) => void): void {
    const status = this.store.validateGroupStatus(req.groupId, false);
    if (status) return reply(errorJoin(req.memberId, status));
    const cfg = this.host.brokerConfig().groups;
    if (req.sessionTimeoutMs < cfg.minSessionTimeoutMs || req.sessionTimeoutMs > cfg.maxSessionTimeoutMs) {
      return reply(errorJoin(req.memberId, 'INVALID_SESSION_TIMEOUT'));
    }
    const isUnknown = req.memberId === '';
    // A group is created by a member without an id; a member id for a group we do not have is stale.
    const group = this.store.getOrCreate(req.groupId, isUnknown);
    if (!group) return reply(errorJoin(req.memberId, 'UNKNOWN_MEMBER_ID'));
    if (!acceptJoiningMember(group, req.memberId, cfg.maxSize)) {
      group.remove(req.memberId);
      return reply(errorJoin('', 'GROUP_MAX_SIZE_REACHED'));
    }
    if (isUnknown) this.newMemberJoin(group, req, reply);
    else this.currentMemberJoin(group, req, reply);
    if (group.is('PreparingRebalance')) this.tryCompleteJoin(group);
  }

  private newMemberJoin(group: ClassicGroup, req: JoinGroupRequest, reply: (r: JoinGroupResponse) => void): void {
    if (group.is('Dead')) return reply(errorJoin('', 'COORDINATOR_NOT_AVAILABLE'));
    if (!group.supportsProtocols(req.protocolType, req.protocols)) return reply(errorJoin('', 'INCONSISTENT_GROUP_PROTOCOL'));
    const newMemberId = generateMemberId(this.host.random, req.groupInstanceId ?? req.clientId);
    if (req.groupInstanceId !== null) {
      const oldMemberId = group.staticMembers.get(req.groupInstanceId);
      if (oldMemberId !== undefined) return this.updateStaticMemberAndRebalance(group, oldMemberId, newMemberId, req, reply);
      return this.addMemberAndRebalance(group, newMemberId, req, reply);
    }
    if (req.requireKnownMemberId) {
      group.pendingMembers.add(newMemberId);
      this.host.after(req.sessionTimeoutMs, () => {
        if (!group.is('Dead') && group.pendingMembers.has(newMemberId)) this.removePendingMember(group, newMemberId);
      });
      return reply(errorJoin(newMemberId, 'MEMBER_ID_REQUIRED'));
    }
    this.addMemberAndRebalance(group, newMemberId, req, reply);
  }

  private currentMemberJoin(group: ClassicGroup, req: JoinGroupRequest, reply: (r: JoinGroupResponse) => void): void {
    const memberId = req.memberId;
    if (group.is('Dead')) return reply(errorJoin(memberId, 'COORDINATOR_NOT_AVAILABLE'));
    if (!group.supportsProtocols(req.protocolType, req.protocols)) return reply(errorJoin(memberId, 'INCONSISTENT_GROUP_PROTOCOL'));
    if (group.pendingMembers.has(memberId)) return this.addMemberAndRebalance(group, memberId, req, reply);
    const error = validateCurrentMember(group, memberId, req.groupInstanceId);
    if (error) return reply(errorJoin(memberId, error));
    const member = group.get(memberId);
    const current = (members: JoinGroupResponse['members'], leader = group.leaderId ?? ''): JoinGroupResponse => ({
      errorCode: 'NONE',
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: group.protocolName,
      leader,
      memberId,
      members,
    });
    switch (group.state) {
      case 'PreparingRebalance':
        return this.updateMemberAndRebalance(group, member, req, reply, `member ${memberId} joining during PreparingRebalance`);
      case 'CompletingRebalance':
        // Same metadata: it missed our JoinGroup answer; give it again for this generation.
        if (member.matches(req.protocols)) return reply(current(group.isLeader(memberId) ? group.currentMemberMetadata() : []));
        return this.updateMemberAndRebalance(group, member, req, reply, `member ${memberId} changed its metadata during CompletingRebalance`);
      case 'Stable':
        // The leader rejoining forces a rebalance: it may have seen a metadata change (new partitions).
        if (group.isLeader(memberId)) return this.updateMemberAndRebalance(group, member, req, reply, `leader ${memberId} rejoining`);
        if (!member.matches(req.protocols)) return this.updateMemberAndRebalance(group, member, req, reply, `member ${memberId} changed its metadata`);
        return reply(current([]));
      default:
        return reply(errorJoin(memberId, 'UNKNOWN_MEMBER_ID'));
    }
  }

  private addMemberAndRebalance(group: ClassicGroup, memberId: string, req: JoinGroupRequest, reply: (r: JoinGroupResponse) => void): void {
    const member = new GroupMember(memberId, req.groupInstanceId, req.clientId, req.clientHost, req.rebalanceTimeoutMs, req.sessionTimeoutMs, req.protocolType, req.protocols);
    member.isNew = true;
    if (group.is('PreparingRebalance') && group.generationId === 0) group.newMemberAdded = true;
    group.add(member, reply);
    // A new member cannot heartbeat yet; its JoinGroup is dropped if the rebalance outlasts this.
    this.scheduleHeartbeatExpiration(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.maybePrepareRebalance(group, `member ${memberId} joined${req.reason ? ` (${req.reason})` : ''}`);
  }

  private updateMemberAndRebalance(group: ClassicGroup, member: GroupMember, req: JoinGroupRequest, reply: (r: JoinGroupResponse) => void, reason: string): void {
    group.updateMember(member, req.protocols, req.rebalanceTimeoutMs, req.sessionTimeoutMs, reply);
    this.maybePrepareRebalance(group, reason);
  }

  private updateStaticMemberAndRebalance(group: ClassicGroup, oldMemberId: string, newMemberId: string, req: JoinGroupRequest, reply: (r: JoinGroupResponse) => void): void {
    const currentLeader = group.leaderId ?? '';
    const member = group.replaceStaticMember(req.groupInstanceId!, oldMemberId, newMemberId);
    this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
    const old = { protocols: member.protocols, rebalanceTimeoutMs: member.rebalanceTimeoutMs, sessionTimeoutMs: member.sessionTimeoutMs };
    group.updateMember(member, req.protocols, req.rebalanceTimeoutMs, req.sessionTimeoutMs, reply);
    switch (group.state) {
      case 'Stable': {
        if (group.protocolName !== group.selectProtocol()) {
          return this.maybePrepareRebalance(group, `static member ${req.groupInstanceId} rejoined with other protocols`);
        }
        // The same member is back with a new id: persist the id, keep the generation (no rebalance).
        const assignment = new Map([...group.members.values()].map((m) => [m.memberId, m.assignment]));
        const generation = group.generationId;
        this.store.storeGroup(group, assignment, (error) => {
          if (error !== 'NONE') {
            group.updateMember(member, old.protocols, old.rebalanceTimeoutMs, old.sessionTimeoutMs, null);
            const restored = group.replaceStaticMember(req.groupInstanceId!, newMemberId, oldMemberId);
            this.scheduleHeartbeatExpiration(group, restored, restored.sessionTimeoutMs);
            reply({ ...errorJoin('', error), generationId: generation, protocolType: group.protocolType, protocolName: group.protocolName, leader: currentLeader });
            return;
          }
          // Before JoinGroup v9 the old leader id is returned, so the rejoined member never
          // computes an assignment a stable group would ignore.
          group.invokeJoin(member, {
            errorCode: 'NONE',
            generationId: group.generationId,
            protocolType: group.protocolType,
            protocolName: group.protocolName,
            leader: currentLeader,
            memberId: newMemberId,
            members: [],
          });
        });
        return;
      }
      case 'CompletingRebalance':
        return this.prepareRebalance(group, `static member ${req.groupInstanceId} rejoined during CompletingRebalance`);
      default:
        return; // PreparingRebalance: it simply joins this round
    }
  }

  // ================================================================ rebalance: the delayed join

  maybePrepareRebalance(group: ClassicGroup, reason: string): void {
    if (group.canRebalance) this.prepareRebalance(group, reason);
  }

  prepareRebalance(group: ClassicGroup, reason: string): void {
    if (group.is('CompletingRebalance')) this.resetAndPropagateAssignmentError(group, 'REBALANCE_IN_PROGRESS');
    this.removeSyncExpiration(group);
    const cfg = this.host.brokerConfig().groups;
    const wasEmpty = group.is('Empty');
    group.transitionTo('PreparingRebalance', this.now(), reason);
    if (wasEmpty) {
      const delay = cfg.initialRebalanceDelayMs;
      this.watchInitialJoin(group, delay, delay, Math.max(group.rebalanceTimeoutMs - delay, 0));
    } else {
      this.watchJoin(group);
    }
  }

  /** Replace the group's delayed join (at most one is watched at a time, as in Kafka's purgatory). */
  private nextOp(group: ClassicGroup): number {
    this.host.scheduler.cancel(group.rebalanceTimer);
    group.rebalanceTimer = null;
    group.initialJoinPending = false;
    return ++group.rebalanceOp;
  }

  /** Kafka's DelayedJoin: complete when every member rejoined, or at the rebalance timeout. */
  private watchJoin(group: ClassicGroup): void {
    const op = this.nextOp(group);
    if (this.tryCompleteJoin(group)) return;
    group.rebalanceTimer = this.host.after(group.rebalanceTimeoutMs, () => {
      if (op === group.rebalanceOp && !group.is('Dead')) this.completeJoin(group);
    });
  }

  /** Kafka's InitialDelayedJoin: never completes early; extends while new members arrive. */
  private watchInitialJoin(group: ClassicGroup, configuredDelay: number, delay: number, remaining: number): void {
    const op = this.nextOp(group);
    group.initialJoinPending = true;
    group.rebalanceTimer = this.host.after(delay, () => {
      if (op !== group.rebalanceOp || group.is('Dead')) return;
      group.initialJoinPending = false;
      if (group.newMemberAdded && remaining !== 0) {
        group.newMemberAdded = false;
        const next = Math.min(configuredDelay, remaining);
        return this.watchInitialJoin(group, configuredDelay, next, Math.max(remaining - delay, 0));
      }
      this.completeJoin(group);
    });
  }

  /** Complete the join phase now if a regular delayed join waits and every member rejoined. */
  tryCompleteJoin(group: ClassicGroup): boolean {
    if (!group.is('PreparingRebalance') || group.initialJoinPending || !group.hasAllMembersJoined) return false;
    this.nextOp(group);
    this.completeJoin(group);
    return true;
  }

  private completeJoin(group: ClassicGroup): void {
    group.rebalanceTimer = null;
    for (const m of [...group.members.values()]) {
      if (m.awaitingJoin === null && m.groupInstanceId === null) {
        group.remove(m.memberId);
        this.host.scheduler.cancel(m.heartbeatTimer);
      }
    }
    if (group.is('Dead')) return;
    if (!group.maybeElectNewJoinedLeader() && group.size > 0) {
      // Nobody rejoined: wait another rebalance timeout for the session timeouts to empty it.
      return this.watchJoin(group);
    }
    group.initNextGeneration(this.now(), this.topicsOf);
    if (group.is('Empty')) {
      // Written so a new coordinator knows the generation; a failure is harmless (no members).
      this.store.storeGroup(group, new Map(), () => {});
      return;
    }
    for (const member of group.members.values()) {
      group.invokeJoin(member, {
        errorCode: 'NONE',
        generationId: group.generationId,
        protocolType: group.protocolType,
        protocolName: group.protocolName,
        leader: group.leaderId ?? '',
        memberId: member.memberId,
        members: group.isLeader(member.memberId) ? group.currentMemberMetadata() : [],
      });
      this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
      member.isNew = false;
      group.pendingSyncMembers.add(member.memberId);
    }
    this.schedulePendingSync(group);
  }

  // ================================================================ SyncGroup

  sync(req: SyncGroupRequest, reply: (r: SyncGroupResponse) => void): void {
    const status = this.store.validateGroupStatus(req.groupId, false);
    // A loading coordinator lost the rebalance in flight: the member must rejoin (older clients
    // do not expect COORDINATOR_LOAD_IN_PROGRESS here).
    if (status === 'COORDINATOR_LOAD_IN_PROGRESS') return reply(syncError('REBALANCE_IN_PROGRESS'));
    if (status) return reply(syncError(status));
    const group = this.store.groups.get(req.groupId);
    if (!group) return reply(syncError('UNKNOWN_MEMBER_ID'));
    if (group.is('Dead')) return reply(syncError('COORDINATOR_NOT_AVAILABLE'));
    const error =
      validateCurrentMember(group, req.memberId, req.groupInstanceId) ??
      (req.generationId !== group.generationId
        ? 'ILLEGAL_GENERATION'
        : (req.protocolType !== null && req.protocolType !== group.protocolType) || (req.protocolName !== null && req.protocolName !== group.protocolName)
          ? 'INCONSISTENT_GROUP_PROTOCOL'
          : null);
    if (error) return reply(syncError(error));
    switch (group.state) {
      case 'Empty':
        return reply(syncError('UNKNOWN_MEMBER_ID'));
      case 'PreparingRebalance':
        return reply(syncError('REBALANCE_IN_PROGRESS'));
      case 'CompletingRebalance': {
        group.get(req.memberId).awaitingSync = reply;
        this.removePendingSyncMember(group, req.memberId);
        if (!group.isLeader(req.memberId)) return;
        const assignment = new Map(req.assignments.map((a) => [a.memberId, a.assignment]));
        for (const id of group.members.keys()) if (!assignment.has(id)) assignment.set(id, EMPTY);
        const generation = group.generationId;
        this.store.storeGroup(group, assignment, (storeError) => {
          // Another member may have joined meanwhile: act only on the same generation.
          if (!group.is('CompletingRebalance') || group.generationId !== generation) return;
          if (storeError !== 'NONE') {
            this.resetAndPropagateAssignmentError(group, storeError);
            return this.maybePrepareRebalance(group, `storing the assignment failed: ${storeError}`);
          }
          for (const m of group.members.values()) m.assignment = assignment.get(m.memberId) ?? EMPTY;
          this.propagateAssignment(group, 'NONE');
          group.transitionTo('Stable', this.now(), `the leader's assignment for generation ${generation} was stored`);
        });
        return;
      }
      case 'Stable': {
        this.removePendingSyncMember(group, req.memberId);
        const member = group.get(req.memberId);
        reply({ errorCode: 'NONE', protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment });
        return this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
      }
    }
  }

  private resetAndPropagateAssignmentError(group: ClassicGroup, error: KafkaErrorName): void {
    for (const m of group.members.values()) m.assignment = EMPTY;
    this.propagateAssignment(group, error);
  }

  private propagateAssignment(group: ClassicGroup, error: KafkaErrorName): void {
    for (const m of group.members.values()) {
      const answered = group.invokeSync(m, {
        errorCode: error,
        protocolType: error === 'NONE' ? group.protocolType : null,
        protocolName: error === 'NONE' ? group.protocolName : null,
        assignment: m.assignment,
      });
      // Its session starts now: an expiry while it waited for the assignment was ignored.
      if (answered) this.scheduleHeartbeatExpiration(group, m, m.sessionTimeoutMs);
    }
  }

  /** Kafka's DelayedSync: members that do not send SyncGroup within the rebalance timeout are removed. */
  private schedulePendingSync(group: ClassicGroup): void {
    const generation = group.generationId;
    this.host.scheduler.cancel(group.syncTimer);
    group.syncTimer = this.host.after(group.rebalanceTimeoutMs, () => {
      group.syncTimer = null;
      if (generation !== group.generationId || !(group.is('CompletingRebalance') || group.is('Stable'))) return;
      if (group.pendingSyncMembers.size === 0) return;
      const missing = [...group.pendingSyncMembers];
      for (const id of missing) {
        this.host.scheduler.cancel(group.members.get(id)?.heartbeatTimer);
        group.remove(id);
      }
      this.prepareRebalance(group, `members ${missing.join(', ')} sent no SyncGroup within the rebalance timeout`);
    });
  }

  private removePendingSyncMember(group: ClassicGroup, memberId: string): void {
    group.pendingSyncMembers.delete(memberId);
    if (group.pendingSyncMembers.size === 0) this.cancelSyncTimer(group);
  }

  private removeSyncExpiration(group: ClassicGroup): void {
    group.pendingSyncMembers.clear();
    this.cancelSyncTimer(group);
  }

  private cancelSyncTimer(group: ClassicGroup): void {
    this.host.scheduler.cancel(group.syncTimer);
    group.syncTimer = null;
  }

  // ================================================================ Heartbeat

  heartbeat(req: HeartbeatRequest): HeartbeatResponse {
    const status = this.store.validateGroupStatus(req.groupId, false);
    // While loading, answer blindly: the member learns of any rebalance once the group is back.
    if (status === 'COORDINATOR_LOAD_IN_PROGRESS') return { errorCode: 'NONE' };
    if (status) return { errorCode: status };
    const group = this.store.groups.get(req.groupId);
    if (!group) return { errorCode: 'UNKNOWN_MEMBER_ID' };
    if (group.is('Dead')) return { errorCode: 'COORDINATOR_NOT_AVAILABLE' };
    const error = validateCurrentMember(group, req.memberId, req.groupInstanceId) ?? (req.generationId !== group.generationId ? 'ILLEGAL_GENERATION' : null);
    if (error) return { errorCode: error };
    if (group.is('Empty')) return { errorCode: 'UNKNOWN_MEMBER_ID' };
    const member = group.get(req.memberId);
    this.scheduleHeartbeatExpiration(group, member, member.sessionTimeoutMs);
    return { errorCode: group.is('PreparingRebalance') ? 'REBALANCE_IN_PROGRESS' : 'NONE' };
  }

  /** Restart the member's session (Kafka's completeAndScheduleNextExpiration). */
  scheduleHeartbeatExpiration(group: ClassicGroup, member: GroupMember, timeoutMs: number): void {
    this.host.scheduler.cancel(member.heartbeatTimer);
    member.heartbeatTimer = this.host.after(timeoutMs, () => {
      member.heartbeatTimer = null;
      if (group.is('Dead') || group.members.get(member.memberId) !== member) return;
      if (member.heartbeatSatisfiedByRebalance) return;
      this.removeMemberAndUpdateGroup(group, member, `member ${member.memberId} missed its session timeout`);
    });
  }

  // ================================================================ LeaveGroup

  leave(req: LeaveGroupRequest): LeaveGroupResponse {
    const status = this.store.validateGroupStatus(req.groupId, false);
    if (status) return { errorCode: status, members: [] };
    const group = this.store.groups.get(req.groupId);
    const result = (m: { memberId: string; groupInstanceId: string | null }, errorCode: KafkaErrorName) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode });
    if (!group) return { errorCode: 'NONE', members: req.members.map((m) => result(m, 'UNKNOWN_MEMBER_ID')) };
    if (group.is('Dead')) return { errorCode: 'COORDINATOR_NOT_AVAILABLE', members: [] };
    const members = req.members.map((m) => {
      const reason = `member ${m.memberId || m.groupInstanceId} left${m.reason ? ` (${m.reason})` : ''}`;
      // An admin may remove a static member by its instance id alone.
      if (m.memberId === '') {
        const current = m.groupInstanceId === null ? undefined : group.staticMembers.get(m.groupInstanceId);
        if (current === undefined) return result(m, 'UNKNOWN_MEMBER_ID');
        this.removeMemberAndUpdateGroup(group, group.get(current), reason);
        return result(m, 'NONE');
      }
      if (group.pendingMembers.has(m.memberId)) {
        this.removePendingMember(group, m.memberId);
        return result(m, 'NONE');
      }
      const error = validateCurrentMember(group, m.memberId, m.groupInstanceId);
      if (error) return result(m, error);
      this.removeMemberAndUpdateGroup(group, group.get(m.memberId), reason);
      return result(m, 'NONE');
    });
    return { errorCode: 'NONE', members };
  }

  /** A member is gone (left, expired): its parked JoinGroup gets UNKNOWN_MEMBER_ID, the group rebalances. */
  removeMemberAndUpdateGroup(group: ClassicGroup, member: GroupMember, reason: string): void {
    group.invokeJoin(member, errorJoin('', 'UNKNOWN_MEMBER_ID'));
    group.remove(member.memberId);
    this.host.scheduler.cancel(member.heartbeatTimer);
    member.heartbeatTimer = null;
    if (group.is('Stable') || group.is('CompletingRebalance')) this.maybePrepareRebalance(group, reason);
    else if (group.is('PreparingRebalance')) this.tryCompleteJoin(group);
  }

  private removePendingMember(group: ClassicGroup, memberId: string): void {
    group.remove(memberId);
    if (group.is('PreparingRebalance')) this.tryCompleteJoin(group);
  }

  // ================================================================ load and unload

  onGroupLoaded(group: ClassicGroup): void {
    if (group.size > this.host.brokerConfig().groups.maxSize) {
      this.prepareRebalance(group, `freshly loaded group is over capacity (group.max.size)`);
    }
    for (const m of group.members.values()) this.scheduleHeartbeatExpiration(group, m, m.sessionTimeoutMs);
  }

  onGroupUnloaded(group: ClassicGroup): void {
    const previous = group.state;
    group.transitionTo('Dead', this.now(), 'its offsets partition moved to another coordinator');
    this.host.scheduler.cancel(group.rebalanceTimer);
    group.rebalanceTimer = null;
    group.rebalanceOp++;
    for (const m of group.members.values()) {
      this.host.scheduler.cancel(m.heartbeatTimer);
      m.heartbeatTimer = null;
      if (previous === 'PreparingRebalance') group.invokeJoin(m, errorJoin(m.memberId, 'NOT_COORDINATOR'));
      else if (previous === 'Stable' || previous === 'CompletingRebalance') group.invokeSync(m, syncError('NOT_COORDINATOR'));
    }
    this.removeSyncExpiration(group);
  }
}
