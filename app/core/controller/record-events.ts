/**
 * The engine events a committed metadata record means, read against the image before the record
 * is applied (an ISR shrink or expansion, a leader change, a reassignment starting, completing or
 * cancelled, a config or feature change, a topic deleted).
 *
 * Invariant: pure; one record gives the same events whoever asks, and a record that changes
 * nothing a user sees gives none.
 */
import type { EngineEvent } from '../../api/events.js';
import type { MetadataImage } from '../metadata/image.js';
import { sameList, type CommittedRecord } from '../metadata/records.js';
import { describeBinding } from '../security/acl.js';
import { quotaEntityWords } from '../security/client-quotas.js';

/** Append the events of `c` to `out`, given `image` as it was before `c` (call it before applying `c`). */
export function eventsFor(image: MetadataImage, c: CommittedRecord, out: EngineEvent[]): void {
  const r = c.record;
  const atMs = c.timestampMs;
  if (r.type === 'Config') {
    out.push({ type: 'config.changed', atMs, resourceType: r.resourceType, resourceName: r.resourceName, name: r.name, value: r.value });
    return;
  }
  if (r.type === 'FeatureLevel') {
    out.push({ type: 'feature.updated', atMs, feature: r.name, level: r.level, previousLevel: image.features.get(r.name) ?? 0 });
    return;
  }
  if (r.type === 'AccessControlEntry') {
    out.push({ type: 'security.changed', atMs, kind: 'acl', action: 'added', description: `ACL added: ${describeBinding(r.binding)}` });
    return;
  }
  if (r.type === 'RemoveAccessControlEntry') {
    const b = image.acls.get(r.id);
    if (b) out.push({ type: 'security.changed', atMs, kind: 'acl', action: 'removed', description: `ACL removed: ${describeBinding(b)}` });
    return;
  }
  if (r.type === 'UserScramCredential') {
    const { name, mechanism, iterations } = r.credential;
    out.push({ type: 'security.changed', atMs, kind: 'scram-credential', action: 'set', description: `${mechanism} credential of user ${name} set (${iterations} iterations)` });
    return;
  }
  if (r.type === 'RemoveUserScramCredential') {
    out.push({ type: 'security.changed', atMs, kind: 'scram-credential', action: 'removed', description: `${r.mechanism} credential of user ${r.name} deleted` });
    return;
  }
  if (r.type === 'ClientQuota') {
    const what = `${r.key} of ${quotaEntityWords(r.entity)}`;
    out.push({ type: 'security.changed', atMs, kind: 'client-quota', action: r.value === null ? 'removed' : 'set', description: r.value === null ? `${what} removed` : `${what} set to ${r.value}` });
    return;
  }
  if (r.type === 'RemoveTopic') {
    const t = image.topicsById.get(r.topicId);
    if (t) out.push({ type: 'topic.deleted', atMs, topic: t.name, topicId: t.topicId });
    return;
  }
  if (r.type !== 'PartitionChange') return;
  const topic = image.topicsById.get(r.state.topicId);
  const prev = topic?.partitions.get(r.state.partition);
  if (!topic || !prev) return;
  const next = r.state;
  const name = topic.name;
  const partition = next.partition;
  // Fields written out, not spread from a shared base: a fence makes tens of thousands of these.
  if (!sameList(prev.isr, next.isr)) {
    const removed = missingFrom(prev.isr, next.isr);
    const added = missingFrom(next.isr, prev.isr);
    if (removed.length > 0) out.push({ type: 'isr.shrunk', atMs, topic: name, partition, leader: next.leader, isr: [...next.isr], previousIsr: [...prev.isr], removed, partitionEpoch: next.partitionEpoch, reason: r.reason });
    if (added.length > 0) out.push({ type: 'isr.expanded', atMs, topic: name, partition, leader: next.leader, isr: [...next.isr], previousIsr: [...prev.isr], added, partitionEpoch: next.partitionEpoch, reason: r.reason });
  }
  if (prev.leader !== next.leader) {
    out.push({ type: 'leader.changed', atMs, topic: name, partition, leader: next.leader, previousLeader: prev.leader, leaderEpoch: next.leaderEpoch, reason: r.reason, unclean: !!r.unclean });
  }
  const wasMoving = prev.addingReplicas.length + prev.removingReplicas.length > 0;
  const isMoving = next.addingReplicas.length + next.removingReplicas.length > 0;
  if (wasMoving !== isMoving || (isMoving && prev.replicas.join() !== next.replicas.join())) {
    const status = isMoving ? 'started' : r.reason === 'reassignment-cancel' ? 'cancelled' : 'completed';
    out.push({ type: 'reassignment.changed', atMs, topic: name, partition, status, replicas: [...next.replicas], addingReplicas: [...next.addingReplicas], removingReplicas: [...next.removingReplicas] });
  }
}

const NONE: number[] = [];

/**
 * The brokers of `a` that `b` lacks, in `a`'s order. A loop that allocates only when there are
 * some: a fence or a controlled shutdown builds tens of thousands of these events in one step,
 * and they all stay alive until it ends.
 */
function missingFrom(a: readonly number[], b: readonly number[]): number[] {
  let out = NONE;
  for (let i = 0; i < a.length; i++) {
    if (b.includes(a[i]!)) continue;
    if (out === NONE) out = [];
    out.push(a[i]!);
  }
  return out;
}
