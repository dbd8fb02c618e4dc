/**
 * Builds the next state of one partition from a requested change (Kafka's PartitionChangeBuilder).
 *
 * Rules (docs/semantics.md#leader-elections, #reassignment-kip-455,
 * #eligible-leader-replicas-kip-966):
 * - valid(r) = (r in the target ISR, or the target ISR is empty and r is in the ELR) and
 *   acceptable (registered, unfenced, not shutting down, not being removed, not re-registering
 *   after an unclean shutdown). An online election keeps a valid leader, else takes the first
 *   valid replica in assignment order (one taken from the ELR becomes the ISR alone and leaves the
 *   ELR), else, with ELR, the last known leader if acceptable ("balanced" recovery: ISR = [it],
 *   RECOVERING, whatever unclean.leader.election.enable says), else (unclean allowed) the first
 *   acceptable replica with ISR = [it] and RECOVERING, else leader -1.
 * - Without ELR an ISR is never written empty: the last member stays (leader -1). With ELR
 *   (KIP-966) it may empty, and while the target ISR is below the effective min ISR the ELR is
 *   (old ISR ∪ old ELR) − target ISR − the broker with an unclean shutdown; at or above min ISR
 *   the ELR and the last known ELR are cleared. The last known ELR holds the last leader from the
 *   moment the ISR first empties until the partition has a leader again. An unclean election
 *   clears both.
 * - A preferred election takes replicas[0] if valid, else keeps a valid leader, else the first
 *   valid replica.
 * - A reassignment completes when ISR - removing is non-empty and holds every replica that stays.
 * - Leader epoch +1 on every leader change and when a reassignment drops replicas; partition
 *   epoch +1 on every change. No epoch bump on an ISR shrink (metadata version 3.6+).
 */
import { sameList, type ChangeReason, type LeaderRecoveryState, type PartitionState } from '../metadata/records.js';

export type ElectionMode = 'online' | 'preferred' | 'unclean';

export interface ChangeContext {
  isAcceptable(brokerId: number): boolean;
  uncleanAllowed: boolean;
  /** Set when eligible.leader.replicas.version >= 1 (KIP-966); absent: ELR disabled. */
  elr?: {
    /** The topic's effective min ISR: min(min.insync.replicas, replica count). */
    minIsr: number;
    /** A broker re-registering after an unclean shutdown: out of the ISR and the ELR, never leader. */
    uncleanShutdown?: number;
  };
}

export interface ChangeRequest {
  targetIsr?: number[];
  targetReplicas?: number[];
  targetAdding?: number[];
  targetRemoving?: number[];
  election?: ElectionMode;
  recoveryState?: LeaderRecoveryState;
  /** Clear the ELR and the last known ELR (min.insync.replicas changed, or ELR was disabled). */
  clearElr?: boolean;
}

export interface ChangeResult {
  state: PartitionState;
  leaderChanged: boolean;
  unclean: boolean;
  reassignmentCompleted: boolean;
  /** The new leader came from the ELR. */
  fromElr: boolean;
  /** The new leader is the last known leader, elected with ISR and ELR empty (KIP-966; `unclean` too). */
  fromLastKnownLeader: boolean;
}

/** The reason a committed change records: an unclean election says which kind, else `fallback`. */
export function changeReason(change: ChangeResult, fallback: ChangeReason): ChangeReason {
  if (!change.unclean) return fallback;
  return change.fromLastKnownLeader ? 'last-known-leader' : 'unclean-election';
}

const NO_BROKERS: readonly number[] = [];

/** Acceptable as leader: not the broker with an unclean shutdown, and what the context accepts. */
function isAcceptable(r: number, uncleanShutdown: number | undefined, ctx: ChangeContext): boolean {
  return r !== uncleanShutdown && ctx.isAcceptable(r);
}

/**
 * Valid as leader: in the ISR (or in `electFrom`, the ELR when the target ISR is empty) and
 * acceptable; `isr` null: any acceptable replica (an unclean election).
 */
function isValidLeader(r: number, isr: readonly number[] | null, electFrom: readonly number[], uncleanShutdown: number | undefined, ctx: ChangeContext): boolean {
  return (isr === null || isr.includes(r) || electFrom.includes(r)) && isAcceptable(r, uncleanShutdown, ctx);
}

/** The first replica in assignment order valid as leader, or -1. */
function firstValidLeader(replicas: readonly number[], isr: readonly number[] | null, electFrom: readonly number[], uncleanShutdown: number | undefined, ctx: ChangeContext): number {
  for (const r of replicas) if (isValidLeader(r, isr, electFrom, uncleanShutdown, ctx)) return r;
  return -1;
}

/**
 * A list of the new state: the committed state's own list when the change keeps it (states are
 * frozen and their lists read-only, so every broker gets the same array and compares by identity),
 * else a copy.
 */
function keep(list: readonly number[], current: PartitionState, currentList: readonly number[]): readonly number[] {
  return list === currentList && Object.isFrozen(current) ? list : [...list];
}

export function buildPartitionChange(current: PartitionState, req: ChangeRequest, ctx: ChangeContext): ChangeResult | null {
  let replicas = req.targetReplicas ?? current.replicas;
  let adding = req.targetAdding ?? current.addingReplicas;
  let removing = req.targetRemoving ?? current.removingReplicas;
  let isr = req.targetIsr ?? current.isr;
  let recovery: LeaderRecoveryState = req.recoveryState ?? current.leaderRecoveryState;
  const currentElr = current.elr ?? [];
  const currentLastKnown = current.lastKnownElr ?? [];
  const elrOn = ctx.elr !== undefined;
  const uncleanShutdown = ctx.elr?.uncleanShutdown;
  let elr = req.clearElr ? [] : currentElr;
  let lastKnown = req.clearElr ? [] : currentLastKnown;

  // Complete an ongoing reassignment when the ISR allows it.
  let reassignmentCompleted = false;
  if (adding.length > 0 || removing.length > 0) {
    const newIsr = isr.filter((r) => !removing.includes(r));
    const newReplicas = replicas.filter((r) => !removing.includes(r));
    if (newIsr.length > 0 && newReplicas.every((r) => newIsr.includes(r))) {
      replicas = newReplicas;
      isr = newIsr;
      adding = [];
      removing = [];
      reassignmentCompleted = true;
    }
  }

  // KIP-966: members leaving an ISR that is (or stays) below min ISR remain eligible leaders.
  if (elrOn && !req.clearElr) {
    if (isr.length >= ctx.elr!.minIsr) elr = [];
    else elr = [...new Set([...current.isr, ...currentElr])].filter((r) => !isr.includes(r) && r !== uncleanShutdown && replicas.includes(r)).sort((a, b) => a - b);
  }

  // Plain functions rather than closures here: this runs for every partition a fenced broker is in.
  const electFrom = elrOn && isr.length === 0 ? elr : NO_BROKERS;
  let leader = -1;
  let unclean = false;
  const mode = req.election ?? 'online';
  if (mode === 'preferred') {
    const preferred = replicas[0];
    if (preferred !== undefined && isValidLeader(preferred, isr, electFrom, uncleanShutdown, ctx)) leader = preferred;
    else if (current.leader >= 0 && replicas.includes(current.leader) && isValidLeader(current.leader, isr, electFrom, uncleanShutdown, ctx)) leader = current.leader;
    else leader = firstValidLeader(replicas, isr, electFrom, uncleanShutdown, ctx);
  } else {
    if (current.leader >= 0 && replicas.includes(current.leader) && isValidLeader(current.leader, isr, electFrom, uncleanShutdown, ctx)) leader = current.leader;
    else leader = firstValidLeader(replicas, isr, electFrom, uncleanShutdown, ctx);
  }
  let fromElr = false;
  if (leader >= 0 && leader !== current.leader && !isr.includes(leader)) {
    // Elected from the ELR: it holds everything up to the HW, so this election is clean.
    fromElr = true;
    isr = [leader];
    elr = elr.filter((r) => r !== leader);
  }
  let fromLastKnownLeader = false;
  if (leader < 0) {
    const lastLeader = lastKnown.length === 1 ? lastKnown[0]! : -1;
    if (elrOn && isr.length === 0 && elr.length === 0 && lastLeader >= 0 && isAcceptable(lastLeader, uncleanShutdown, ctx) && replicas.includes(lastLeader)) {
      // "Balanced" recovery: the last known leader, treated as an unclean election.
      leader = lastLeader;
      unclean = true;
      fromLastKnownLeader = true;
    } else if (mode !== 'preferred' && (mode === 'unclean' || ctx.uncleanAllowed)) {
      const candidate = firstValidLeader(replicas, null, NO_BROKERS, uncleanShutdown, ctx);
      if (candidate >= 0) {
        leader = candidate;
        unclean = true;
      }
    }
    if (unclean) {
      isr = [leader];
      recovery = 'RECOVERING';
      elr = [];
      lastKnown = [];
    }
  }
  if (isr.length === 0 && !elrOn) isr = current.isr;
  // The last known leader: recorded the first time the ISR empties, cleared once a leader exists.
  if (elrOn && !unclean) {
    if (isr.length === 0 && current.isr.length > 0 && current.leader >= 0) lastKnown = [current.leader];
    else if (leader >= 0) lastKnown = [];
  }

  const leaderChanged = leader !== current.leader;
  const droppedReplica = current.replicas.some((r) => !replicas.includes(r));
  const next: PartitionState = {
    topicId: current.topicId,
    partition: current.partition,
    replicas: keep(replicas, current, current.replicas),
    isr: [...isr],
    leader,
    leaderEpoch: current.leaderEpoch + (leaderChanged || droppedReplica ? 1 : 0),
    partitionEpoch: current.partitionEpoch,
    addingReplicas: keep(adding, current, current.addingReplicas),
    removingReplicas: keep(removing, current, current.removingReplicas),
    leaderRecoveryState: recovery,
  };
  if (elr.length > 0 || currentElr.length > 0) next.elr = [...elr];
  if (lastKnown.length > 0 || currentLastKnown.length > 0) next.lastKnownElr = [...lastKnown];
  if (samePartitionState(current, next)) return null;
  next.partitionEpoch = current.partitionEpoch + 1;
  return { state: next, leaderChanged, unclean, reassignmentCompleted, fromElr, fromLastKnownLeader };
}

// Plain loops: these run for every partition a fenced broker is in (tens of thousands at once).
function sameSet(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!b.includes(a[i]!)) return false;
  return true;
}

export function samePartitionState(a: PartitionState, b: PartitionState): boolean {
  return (
    a.leader === b.leader &&
    a.leaderEpoch === b.leaderEpoch &&
    sameList(a.replicas, b.replicas) &&
    sameSet(a.isr, b.isr) &&
    sameList(a.addingReplicas, b.addingReplicas) &&
    sameList(a.removingReplicas, b.removingReplicas) &&
    a.leaderRecoveryState === b.leaderRecoveryState &&
    sameSet(a.elr ?? [], b.elr ?? []) &&
    sameList(a.lastKnownElr ?? [], b.lastKnownElr ?? [])
  );
}
