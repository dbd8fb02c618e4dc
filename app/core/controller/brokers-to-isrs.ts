/**
 * Per-broker indexes of the controller's partitions (KRaft's BrokersToIsrs, widened): for each
 * broker the partitions whose ISR holds it, those whose ELR holds it, and those it leads, plus
 * how many replicas it hosts. Fencing a broker, its controlled shutdown, a re-registration and an
 * unregistration take it out of the ISRs it is in: with the index that touches its own partitions,
 * not a walk of all 100,000, and "does it still lead anything?" (asked on every heartbeat of a
 * controlled shutdown) is a count, not a walk.
 *
 * Invariant: after `rebuild(image)` and `note(record)` for every record the image applies since,
 * for every broker b: `isrOf(b)` holds exactly the image's partitions whose isr contains b,
 * `elrOf(b)` those whose elr contains b (as entries whose `state` is the image's current state),
 * `leaderCount(b)` the number whose leader is b and `replicaCount(b)` the number whose replicas
 * contain b. A change moves only the memberships that differ (an ISR shrink touches one set).
 */
import type { MetadataImage } from '../metadata/image.js';
import type { MetadataRecord, PartitionState } from '../metadata/records.js';

/** One partition's entry: a stable object (the sets hold it), its state replaced as records apply. */
export interface PartitionRef {
  state: PartitionState;
}

const NONE: ReadonlySet<PartitionRef> = new Set();

export class BrokersToIsrs {
  /** topicId → partition → its entry. */
  private readonly refs = new Map<string, Map<number, PartitionRef>>();
  private readonly isr = new Map<number, Set<PartitionRef>>();
  private readonly elr = new Map<number, Set<PartitionRef>>();
  private readonly leaders = new Map<number, number>();
  private readonly replicas = new Map<number, number>();

  /** One walk, when the image was loaded from the log and its snapshot. */
  rebuild(image: MetadataImage): void {
    this.refs.clear();
    this.isr.clear();
    this.elr.clear();
    this.leaders.clear();
    this.replicas.clear();
    for (const { state } of image.allPartitions()) this.update(undefined, state);
  }

  /** Follow one record `image` has just applied (partition states change only through these four). */
  note(image: MetadataImage, record: MetadataRecord): void {
    if (record.type === 'Partition' || record.type === 'PartitionChange') {
      const { topicId, partition } = record.state;
      // The image's own state: it skips a record of a topic it does not have.
      this.update(this.refs.get(topicId)?.get(partition), image.topicsById.get(topicId)?.partitions.get(partition));
    } else if (record.type === 'RemoveTopic' || record.type === 'Topic') {
      // A Topic record (re)creates the topic with no partitions in the image.
      const topic = this.refs.get(record.topicId);
      if (!topic) return;
      for (const ref of [...topic.values()]) this.update(ref, undefined);
      this.refs.delete(record.topicId);
    }
  }

  /** The partitions whose ISR holds `brokerId` (a live view: copy it before committing changes). */
  isrOf(brokerId: number): ReadonlySet<PartitionRef> {
    return this.isr.get(brokerId) ?? NONE;
  }

  /** The partitions whose ELR holds `brokerId`. */
  elrOf(brokerId: number): ReadonlySet<PartitionRef> {
    return this.elr.get(brokerId) ?? NONE;
  }

  /** Partitions `brokerId` leads. */
  leaderCount(brokerId: number): number {
    return this.leaders.get(brokerId) ?? 0;
  }

  /** Replicas `brokerId` hosts (adding and removing ones included, as the replica list has them). */
  replicaCount(brokerId: number): number {
    return this.replicas.get(brokerId) ?? 0;
  }

  /** Move a partition's memberships from its old state (in `ref`) to `next` (undefined: gone). */
  private update(ref: PartitionRef | undefined, next: PartitionState | undefined): void {
    const old = ref?.state;
    if (old === next) return;
    if (!ref) {
      const state = next!;
      let topic = this.refs.get(state.topicId);
      if (!topic) this.refs.set(state.topicId, (topic = new Map()));
      topic.set(state.partition, (ref = { state }));
    }
    const none: readonly number[] = [];
    moveMembers(this.isr, ref, old?.isr ?? none, next?.isr ?? none);
    moveMembers(this.elr, ref, old?.elr ?? none, next?.elr ?? none);
    if (old?.leader !== next?.leader) {
      if (old && old.leader >= 0) this.leaders.set(old.leader, (this.leaders.get(old.leader) ?? 0) - 1);
      if (next && next.leader >= 0) this.leaders.set(next.leader, (this.leaders.get(next.leader) ?? 0) + 1);
    }
    if (old?.replicas !== next?.replicas) {
      const was = old?.replicas ?? none;
      const now = next?.replicas ?? none;
      for (let i = 0; i < was.length; i++) this.replicas.set(was[i]!, (this.replicas.get(was[i]!) ?? 0) - 1);
      for (let i = 0; i < now.length; i++) this.replicas.set(now[i]!, (this.replicas.get(now[i]!) ?? 0) + 1);
    }
    if (next) ref.state = next;
    else this.refs.get(old!.topicId)?.delete(old!.partition);
  }
}

/** Take `ref` out of the sets of the brokers in `before` only, into those in `after` only. */
function moveMembers(index: Map<number, Set<PartitionRef>>, ref: PartitionRef, before: readonly number[], after: readonly number[]): void {
  if (before === after) return;
  for (let i = 0; i < before.length; i++) if (!after.includes(before[i]!)) index.get(before[i]!)?.delete(ref);
  for (let i = 0; i < after.length; i++) {
    const b = after[i]!;
    if (before.includes(b)) continue;
    let set = index.get(b);
    if (!set) index.set(b, (set = new Set()));
    set.add(ref);
  }
}
