/**
 * What a config change costs before it is applied, in the words a confirmation names:
 * - for a topic, the durability explainer before and after (`topics.durability` with the change
 *   as a what-if): any of writes, reads or acknowledged writes surviving fewer broker failures;
 * - for the cluster default or one broker, the two settings that weaken every topic inheriting
 *   them: a lower `min.insync.replicas` (acks=all acknowledged with fewer copies) and
 *   `unclean.leader.election.enable` turned on (an out-of-sync leader may drop acknowledged records).
 * Pure: no Vue, no client.
 */
import type { DurabilityView } from '../../../../app/api/contract.js';

const ASPECTS = [
  { key: 'writes', text: 'acks=all writes keep working through' },
  { key: 'reads', text: 'reads keep working through' },
  { key: 'acknowledgedWrites', text: 'acknowledged writes survive' },
] as const;

export interface ToleranceChange {
  key: (typeof ASPECTS)[number]['key'];
  text: string;
  before: number;
  after: number;
}

const failures = (n: number): string => `${n} broker failure${n === 1 ? '' : 's'}`;

/** Each aspect's tolerated failures before → after. */
export function toleranceChanges(before: DurabilityView, after: DurabilityView): ToleranceChange[] {
  return ASPECTS.map((a) => ({ key: a.key, text: a.text, before: before[a.key].brokerFailures, after: after[a.key].brokerFailures }));
}

/** The aspects the change makes worse, one sentence each ("acks=all writes keep working through 1 → 0 broker failures"). */
export function durabilityLosses(before: DurabilityView, after: DurabilityView): string[] {
  return toleranceChanges(before, after)
    .filter((c) => c.after < c.before)
    .map((c) => `${c.text} ${failures(c.before)} → ${failures(c.after)}`);
}

/** For the cluster default or a broker: what a change of a durability config weakens on the topics that inherit it. */
export function inheritedLosses(name: string, from: string, to: string): string[] {
  if (name === 'min.insync.replicas' && Number(to) < Number(from)) {
    return [`acks=all writes on topics without their own min.insync.replicas are acknowledged once ${to} in-sync replica${to === '1' ? '' : 's'} ha${to === '1' ? 's' : 've'} them, not ${from}: fewer copies stand behind each acknowledged record`];
  }
  if (name === 'unclean.leader.election.enable' && to.trim().toLowerCase() === 'true' && from.trim().toLowerCase() !== 'true') {
    return ['topics without their own setting may elect an out-of-sync replica as leader when no in-sync one is left, losing records that were acknowledged'];
  }
  return [];
}
