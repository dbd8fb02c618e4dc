/**
 * Builds the balancer's input model from the controller's metadata image (
 * docs/semantics.md#balancing): the model is exact cluster state, no sampling.
 *
 * Invariants:
 * - Brokers and partitions come out sorted (broker id; topic name, then partition), so the
 *   model, and the plan computed from it, do not depend on map insertion order.
 * - A broker is alive when the controller would accept it as a leader: registered, unfenced and
 *   not in controlled shutdown (MetadataImage.isActive).
 * - A partition with a reassignment in flight is modelled at its target (replicas − removing)
 *   and marked `reassigning`, so the planner counts it where it is going and never moves it.
 * - Bytes per replica come from the caller (the core has no I/O); absent sizes count as 0.
 */
import type { ClusterMetadata } from '../metadata/image.js';
import type { BalanceBroker, BalanceModel, BalancePartition } from './types.js';

/** The key of a partition in a size map: `topic-partition`, as Kafka prints it. */
export function balancePartitionKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

/** Replica sizes: a map keyed by `balancePartitionKey`, or a function. */
export type BalanceSizes = ReadonlyMap<string, number> | ((topic: string, partition: number) => number | undefined);

function sizeOf(sizes: BalanceSizes | undefined, topic: string, partition: number): number {
  if (!sizes) return 0;
  const v = typeof sizes === 'function' ? sizes(topic, partition) : sizes.get(balancePartitionKey(topic, partition));
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : 0;
}

export function buildBalanceModel(image: ClusterMetadata, sizes?: BalanceSizes): BalanceModel {
  const brokers: BalanceBroker[] = [...image.brokers.values()]
    .map((b) => ({ id: b.id, rack: b.rack, alive: image.isActive(b.id) }))
    .sort((a, b) => a.id - b.id);
  const partitions: BalancePartition[] = [];
  const topics = [...image.topicsByName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const topic of topics) {
    const states = [...topic.partitions.values()].sort((a, b) => a.partition - b.partition);
    for (const s of states) {
      const reassigning = s.addingReplicas.length + s.removingReplicas.length > 0;
      const replicas = s.replicas.filter((r) => !s.removingReplicas.includes(r));
      partitions.push({
        topic: topic.name,
        partition: s.partition,
        replicas,
        leader: s.leader,
        isr: [...s.isr],
        bytes: sizeOf(sizes, topic.name, s.partition),
        ...(reassigning ? { reassigning } : {}),
      });
    }
  }
  return { brokers, partitions };
}
