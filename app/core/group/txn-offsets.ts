/**
 * The group coordinator's transactional offsets (KIP-98, KIP-447; Kafka's GroupMetadataManager
 * with `openGroupsForProducer`): TxnOffsetCommit writes a producer's offsets to the group's
 * `__consumer_offsets` partition as a transactional batch of that producer, and they become the
 * group's committed offsets only when the producer's COMMIT marker is written there (an ABORT
 * drops them). Until then OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT.
 *
 * Loading a partition replays the same rules: a transactional batch's offsets wait per producer
 * id; its COMMIT marker applies them (unless a later plain commit is already newer), its ABORT
 * marker drops them; those still waiting at the end of the log belong to transactions still open.
 */
import type { RecordBatch } from '../log/records.js';
import { markerOf } from '../log/control-records.js';
import type { CommittedOffset } from './group.js';

/** Which groups each producer has transactional offsets pending in. */
export class OpenGroupsForProducer {
  private readonly byProducer = new Map<number, Set<string>>();

  add(producerId: number, groupId: string): void {
    const groups = this.byProducer.get(producerId) ?? new Set<string>();
    this.byProducer.set(producerId, groups);
    groups.add(groupId);
  }

  remove(producerId: number, groupId: string): void {
    const groups = this.byProducer.get(producerId);
    if (!groups) return;
    groups.delete(groupId);
    if (groups.size === 0) this.byProducer.delete(producerId);
  }

  /** The producer's groups whose offsets partition is one of `partitions`. */
  groupsIn(producerId: number, partitions: ReadonlySet<number>, partitionFor: (groupId: string) => number): string[] {
    return [...(this.byProducer.get(producerId) ?? [])].filter((g) => partitions.has(partitionFor(g)));
  }

  /** A group left this coordinator: no producer's completion concerns it here. */
  removeGroup(groupId: string): void {
    for (const producerId of [...this.byProducer.keys()]) this.remove(producerId, groupId);
  }

  clear(): void {
    this.byProducer.clear();
  }
}

/** Offsets a transactional batch wrote while loading, by producer id, group and partition (null: a tombstone). */
export type PendingLoad = Map<number, Map<string, Map<string, CommittedOffset | null>>>;

/**
 * Replaying a marker while loading (GroupMetadataManager.doLoadGroupsAndOffsets): a COMMIT moves
 * the producer's pending offsets into `offsets` (by group) where they are newer, an ABORT drops them.
 */
export function replayMarker(batch: RecordBatch, pending: PendingLoad, offsets: Map<string, Map<string, CommittedOffset>>): void {
  const producerId = batch.producer?.producerId;
  const marker = markerOf(batch);
  if (producerId === undefined || !marker) return;
  const byGroup = pending.get(producerId);
  pending.delete(producerId);
  if (!byGroup || marker.type !== 'COMMIT') return;
  for (const [group, byTp] of byGroup) {
    const target = offsets.get(group) ?? new Map<string, CommittedOffset>();
    offsets.set(group, target);
    for (const [k, c] of byTp) {
      if (c === null) {
        target.delete(k);
        continue;
      }
      const current = target.get(k);
      if (!current || current.appendedAt === null || c.appendedAt === null || current.appendedAt < c.appendedAt) target.set(k, c);
    }
  }
}

/** One offset record of a transactional batch, while loading. */
export function pendOffset(pending: PendingLoad, producerId: number, group: string, k: string, c: CommittedOffset | null): void {
  const byGroup = pending.get(producerId) ?? new Map<string, Map<string, CommittedOffset | null>>();
  pending.set(producerId, byGroup);
  const byTp = byGroup.get(group) ?? new Map<string, CommittedOffset | null>();
  byGroup.set(group, byTp);
  byTp.set(k, c);
}
