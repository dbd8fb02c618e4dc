/**
 * Per-broker indexes of the controller's partitions (KRaft's BrokersToIsrs, widened): for each
 * broker the partitions whose ISR holds it, those whose ELR holds it, and those it leads, plus
 * how many replicas it hosts. Fencing a broker, its controlled shutdown, a re-registration and an
 * unregistration take it out of the ISRs it is in: with the index that touches its own partitions,
 * not a walk of all 100,000, and "does it still lead anything?" (asked on every heartbeat of a
 * controlled shutdown) is a count, not a walk.
 *
 * Invariant: after `rebuild(image)` and `note(record)` for every record the image applies since,
 * for every broker b: `isrOf(b)` is exactly the image's partition states whose isr contains b,
 * `elrOf(b)` those whose elr contains b, `leaderCount(b)` the number whose leader is b and
 * `replicaCount(b)` the number whose replicas contain b. States are the image's own (frozen once
 * committed), so a set entry is the partition's current state.
 */
import type { MetadataImage } from '../metadata/image.js';
import type { MetadataRecord, PartitionState } from '../metadata/records.js';

const NONE: ReadonlySet<PartitionState> = new Set();

export class BrokersToIsrs {
  /** topicId → partition → the state last noted (to undo its memberships when it changes). */
  private readonly states = new Map<string, Map<number, PartitionState>>();
  private readonly isr = new Map<number, Set<PartitionState>>();
  private readonly elr = new Map<number, Set<PartitionState>>();
  private readonly leaders = new Map<number, number>();
  private readonly replicas = new Map<number, number>();

  /** One walk, when the image was loaded from the log and its snapshot. */
  rebuild(image: MetadataImage): void {
    this.states.clear();
    this.isr.clear();
    this.elr.clear();
    this.leaders.clear();
    this.replicas.clear();
    for (const { state } of image.allPartitions()) this.put(state);
  }

  /** Follow one record `image` has just applied (partition states change only through these four). */
  note(image: MetadataImage, record: MetadataRecord): void {
    if (record.type === 'Partition' || record.type === 'PartitionChange') {
      const { topicId, partition } = record.state;
      const old = this.states.get(topicId)?.get(partition);
      // The image's own state: it skips a record of a topic it does not have.
      const now = image.topicsById.get(topicId)?.partitions.get(partition);
      if (old === now) return;
      if (old) {
        this.drop(old);
        this.states.get(topicId)!.delete(partition);
      }
      if (now) this.put(now);
    } else if (record.type === 'RemoveTopic' || record.type === 'Topic') {
      // A Topic record (re)creates the topic with no partitions in the image.
      const topic = this.states.get(record.topicId);
      if (!topic) return;
      for (const state of topic.values()) this.drop(state);
      this.states.delete(record.topicId);
    }
  }

  /** The partitions whose ISR holds `brokerId` (a live view: copy it before committing changes). */
  isrOf(brokerId: number): ReadonlySet<PartitionState> {
    return this.isr.get(brokerId) ?? NONE;
  }

  /** The partitions whose ELR holds `brokerId`. */
  elrOf(brokerId: number): ReadonlySet<PartitionState> {
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

  private put(state: PartitionState): void {
    let topic = this.states.get(state.topicId);
    if (!topic) this.states.set(state.topicId, (topic = new Map()));
    topic.set(state.partition, state);
    for (const b of state.isr) add(this.isr, b, state);
    for (const b of state.elr ?? []) add(this.elr, b, state);
    if (state.leader >= 0) this.leaders.set(state.leader, (this.leaders.get(state.leader) ?? 0) + 1);
    for (const b of state.replicas) this.replicas.set(b, (this.replicas.get(b) ?? 0) + 1);
  }

  private drop(state: PartitionState): void {
    for (const b of state.isr) this.isr.get(b)?.delete(state);
    for (const b of state.elr ?? []) this.elr.get(b)?.delete(state);
    if (state.leader >= 0) this.leaders.set(state.leader, (this.leaders.get(state.leader) ?? 0) - 1);
    for (const b of state.replicas) this.replicas.set(b, (this.replicas.get(b) ?? 0) - 1);
  }
}

function add(index: Map<number, Set<PartitionState>>, brokerId: number, state: PartitionState): void {
  let set = index.get(brokerId);
  if (!set) index.set(brokerId, (set = new Set()));
  set.add(state);
}
