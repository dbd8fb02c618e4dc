/**
 * Builds the next state of one partition from a requested change (Kafka's PartitionChangeBuilder).
 *
 * Rules (kafka-semantics.md §4, §7b):
 * - valid(r) = r in the target ISR and acceptable (registered, unfenced, not shutting down, not
 *   being removed). An online election keeps a valid leader, else takes the first valid replica
 *   in assignment order, else (unclean allowed) the first acceptable replica with ISR = [it] and
 *   RECOVERING, else leader -1 with the last ISR member kept.
 * - A preferred election takes replicas[0] if valid, else keeps a valid leader, else the first
 *   valid replica.
 * - A reassignment completes when ISR - removing is non-empty and holds every replica that stays.
 * - Leader epoch +1 on every leader change and when a reassignment drops replicas; partition
 *   epoch +1 on every change. No epoch bump on an ISR shrink (metadata version 3.6+).
 */
import type { LeaderRecoveryState, PartitionState } from '../metadata/records.js';

export type ElectionMode = 'online' | 'preferred' | 'unclean';

export interface ChangeContext {
  isAcceptable(brokerId: number): boolean;
  uncleanAllowed: boolean;
}

export interface ChangeRequest {
  targetIsr?: number[];
  targetReplicas?: number[];
  targetAdding?: number[];
  targetRemoving?: number[];
  election?: ElectionMode;
  recoveryState?: LeaderRecoveryState;
}

export interface ChangeResult {
  state: PartitionState;
  leaderChanged: boolean;
  unclean: boolean;
  reassignmentCompleted: boolean;
}

export function buildPartitionChange(current: PartitionState, req: ChangeRequest, ctx: ChangeContext): ChangeResult | null {
  let replicas = req.targetReplicas ?? current.replicas;
  let adding = req.targetAdding ?? current.addingReplicas;
  let removing = req.targetRemoving ?? current.removingReplicas;
  let isr = req.targetIsr ?? current.isr;
  let recovery: LeaderRecoveryState = req.recoveryState ?? current.leaderRecoveryState;

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

  const valid = (r: number): boolean => isr.includes(r) && ctx.isAcceptable(r);
  let leader = -1;
  let unclean = false;
  const mode = req.election ?? 'online';
  if (mode === 'preferred') {
    const preferred = replicas[0];
    if (preferred !== undefined && valid(preferred)) leader = preferred;
    else if (current.leader >= 0 && replicas.includes(current.leader) && valid(current.leader)) leader = current.leader;
    else leader = replicas.find(valid) ?? -1;
  } else {
    if (current.leader >= 0 && replicas.includes(current.leader) && valid(current.leader)) leader = current.leader;
    else leader = replicas.find(valid) ?? -1;
    if (leader < 0 && (mode === 'unclean' || ctx.uncleanAllowed)) {
      const candidate = replicas.find((r) => ctx.isAcceptable(r));
      if (candidate !== undefined) {
        leader = candidate;
        unclean = true;
        isr = [candidate];
        recovery = 'RECOVERING';
      }
    }
  }
  // Without ELR an ISR is never written empty: the last member stays (leader -1).
  if (isr.length === 0) isr = current.isr;

  const leaderChanged = leader !== current.leader;
  const droppedReplica = current.replicas.some((r) => !replicas.includes(r));
  const next: PartitionState = {
    topicId: current.topicId,
    partition: current.partition,
    replicas: [...replicas],
    isr: [...isr],
    leader,
    leaderEpoch: current.leaderEpoch + (leaderChanged || droppedReplica ? 1 : 0),
    partitionEpoch: current.partitionEpoch,
    addingReplicas: [...adding],
    removingReplicas: [...removing],
    leaderRecoveryState: recovery,
  };
  if (samePartitionState(current, next)) return null;
  next.partitionEpoch = current.partitionEpoch + 1;
  return { state: next, leaderChanged, unclean, reassignmentCompleted };
}

const sameList = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const sameSet = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x) => b.includes(x));

export function samePartitionState(a: PartitionState, b: PartitionState): boolean {
  return (
    a.leader === b.leader &&
    a.leaderEpoch === b.leaderEpoch &&
    sameList(a.replicas, b.replicas) &&
    sameSet(a.isr, b.isr) &&
    sameList(a.addingReplicas, b.addingReplicas) &&
    sameList(a.removingReplicas, b.removingReplicas) &&
    a.leaderRecoveryState === b.leaderRecoveryState
  );
}
