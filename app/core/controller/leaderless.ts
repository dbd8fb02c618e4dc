/**
 * The partitions that have no leader, as the controller's image holds them (the NO_LEADER entry
 * of KRaft's BrokersToIsrs). An unfenced broker can only give a leader to a partition it is a
 * replica of, so an unfence re-elects from this set, not from every partition: with 100,000
 * partitions and none leaderless, a broker coming back looks at nothing.
 *
 * Invariant: after `rebuild(image)` and `note(record)` for every record the image applies since,
 * `keys` holds exactly the `topicId:partition` of the image's partitions whose leader is < 0.
 */
import type { MetadataImage, TopicImage } from '../metadata/image.js';
import type { MetadataRecord, PartitionState } from '../metadata/records.js';

export class LeaderlessPartitions {
  /** `topicId:partition` → where to find it; insertion order is the order they lost their leader. */
  private readonly keys = new Map<string, { topicId: string; partition: number }>();

  /** One walk, when the image was loaded from the log and its snapshot. */
  rebuild(image: MetadataImage): void {
    this.keys.clear();
    for (const { state } of image.allPartitions()) if (state.leader < 0) this.keys.set(keyOf(state), { topicId: state.topicId, partition: state.partition });
  }

  /** Follow one record the image applies. */
  note(record: MetadataRecord): void {
    if (record.type === 'Partition' || record.type === 'PartitionChange') {
      const k = keyOf(record.state);
      if (record.state.leader < 0) this.keys.set(k, { topicId: record.state.topicId, partition: record.state.partition });
      else this.keys.delete(k);
    } else if (record.type === 'RemoveTopic') {
      for (const [k, p] of this.keys) if (p.topicId === record.topicId) this.keys.delete(k);
    }
  }

  get size(): number {
    return this.keys.size;
  }

  /** The leaderless partitions `brokerId` is a replica of, in the order they lost their leader. */
  *ofReplica(image: MetadataImage, brokerId: number): Iterable<{ topic: TopicImage; state: PartitionState }> {
    for (const { topicId, partition } of [...this.keys.values()]) {
      const topic = image.topicsById.get(topicId);
      const state = topic?.partitions.get(partition);
      if (topic && state && state.leader < 0 && state.replicas.includes(brokerId)) yield { topic, state };
    }
  }
}

function keyOf(state: PartitionState): string {
  return `${state.topicId}:${state.partition}`;
}
