/**
 * A name for each member of a consumer group that tells it apart from the others. Clients of one
 * family share a client id ("rdkafka", "kafkajs"), so the client id alone names every member the
 * same; Kafka's member id is the client id, a dash and a UUID the coordinator made. A member is
 * named by its static `group.instance.id` when it has one, else its client id, then — where that
 * is shared — its host, then the start of its member id's UUID, as far as needed to differ.
 * Pure: no Vue.
 */
import type { GroupMemberView } from '../../../../app/api/contract.js';

type Member = Pick<GroupMemberView, 'memberId' | 'clientId' | 'host' | 'groupInstanceId'>;

/** The part of a member id the coordinator added after the client id (its UUID). */
function uniquePart(m: Member): string {
  return m.memberId.startsWith(`${m.clientId}-`) ? m.memberId.slice(m.clientId.length + 1) : m.memberId;
}

/** Member id → a label no other member of `members` has. */
export function memberLabels(members: readonly Member[]): Map<string, string> {
  const out = new Map<string, string>();
  const base = (m: Member): string => m.groupInstanceId ?? (m.clientId || '(no client id)');
  const groups = new Map<string, Member[]>();
  for (const m of members) groups.set(base(m), [...(groups.get(base(m)) ?? []), m]);
  for (const [name, same] of groups) {
    if (same.length === 1) {
      out.set(same[0]!.memberId, name);
      continue;
    }
    const hostsDiffer = new Set(same.map((m) => m.host)).size === same.length;
    if (hostsDiffer) {
      for (const m of same) out.set(m.memberId, `${name} @ ${m.host.replace(/^\//, '')}`);
      continue;
    }
    // The shortest start of the UUIDs that tells them apart (at least 4 characters).
    let n = 4;
    const parts = same.map(uniquePart);
    while (n < Math.max(...parts.map((p) => p.length)) && new Set(parts.map((p) => p.slice(0, n))).size < same.length) n++;
    for (const m of same) out.set(m.memberId, `${name} #${uniquePart(m).slice(0, n)}`);
  }
  return out;
}
