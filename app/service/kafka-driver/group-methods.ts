/**
 * `groups.*` on an external cluster: the service's own group logic (embedded-driver/group-methods.ts) over the
 * group APIs of the cluster's brokers, sent in our generated codecs (kafka-client/group-requests.ts),
 * as kafka-consumer-groups.sh does it: ListGroups to every broker, FindCoordinator, then
 * DescribeGroups / OffsetFetch / OffsetCommit / DeleteGroups to the group's coordinator; log end
 * offsets and log starts from ListOffsets. So a local and a real cluster in the same state answer
 * the same lag, the same reset preview and the same errors.
 *
 * The offsets of one topic are read once per 500 ms at most: a describe of a group on a topic of
 * many partitions asks the cluster once, not per partition.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import { offsetsPartitionFor } from '../../core/group/partition-for.js';
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import { latestOffsets } from '../../kafka-client/txn-requests.js';
import { ADMIN_GROUP_APIS, assignedPartitions, kafkaGroupRequest, type GroupRequestData } from '../../kafka-client/group-requests.js';
import type { GroupBackend } from '../embedded-driver/group-methods.js';

const OFFSETS_TOPIC = '__consumer_offsets';
const OFFSETS_TTL_MS = 500;

/** The group APIs of an external cluster's brokers, with each topic's offsets read at most once per 500 ms. */
export function kafkaGroupBackend(client: KafkaAdminClient): GroupBackend {
  const offsets = new Map<string, { at: number; value: Promise<{ partition: number; logStartOffset: number; highWatermark: number }[] | null> }>();
  function offsetsOf(topic: string) {
    const now = Date.now();
    const hit = offsets.get(topic);
    if (hit && now - hit.at < OFFSETS_TTL_MS) return hit.value;
    const value = client.offsets(topic).catch(() => null);
    offsets.set(topic, { at: now, value });
    return value;
  }
  /** Each partition's last stable offset (ListOffsets read_committed to its leader), read once per topic per 500 ms. */
  const stable = new Map<string, { at: number; value: Promise<Map<number, number>> }>();
  function stableOf(topic: string): Promise<Map<number, number>> {
    const now = Date.now();
    const hit = stable.get(topic);
    if (hit && now - hit.at < OFFSETS_TTL_MS) return hit.value;
    const value = (async () => {
      const t = (await client.metadata([topic])).topics.find((x) => x.name === topic);
      const byLeader = new Map<number, number[]>();
      for (const p of t?.partitions ?? []) if (p.leader >= 0) byLeader.set(p.leader, [...(byLeader.get(p.leader) ?? []), p.partition]);
      const out = new Map<number, number>();
      for (const [leader, ps] of byLeader) for (const [p, o] of await latestOffsets(client, leader, topic, ps, 1)) if (o.errorCode === 'NONE') out.set(p, o.offset);
      return out;
    })().catch(() => new Map<number, number>());
    stable.set(topic, { at: now, value });
    return value;
  }
  async function partitionsOf(topic: string): Promise<number[] | undefined> {
    const t = (await client.metadata([topic])).topics.find((x) => x.name === topic);
    return t && t.errorCode === 'NONE' ? t.partitions.map((p) => p.partition).sort((a, b) => a - b) : undefined;
  }
  return {
    async call(brokerId, request) {
      // Membership (Join/Sync/Heartbeat/Leave) and OffsetDelete are no admin calls of the console.
      if (!ADMIN_GROUP_APIS.has(request.api)) throw new Error(`group API ${request.api} is not sent to external clusters`);
      return (await kafkaGroupRequest(client, brokerId, request as GroupRequestData)) as never;
    },
    brokers: async () => (await client.metadata([])).brokers.map((b) => b.id).sort((a, b) => a - b),
    async logRange(topic, partition) {
      const p = (await offsetsOf(topic))?.find((x) => x.partition === partition);
      return p ? { logStartOffset: p.logStartOffset, logEndOffset: p.highWatermark } : { logStartOffset: -1, logEndOffset: -1 };
    },
    lastStableOffset: async (topic, partition) => (await stableOf(topic)).get(partition) ?? -1,
    partitions: partitionsOf,
    async offsetForTime(topic, partition, timestamp) {
      const p = (await client.offsetsForTime(topic, timestamp)).find((x) => x.partition === partition);
      return p ? { error: 'NONE' as KafkaErrorName, offset: p.offset } : { error: 'UNKNOWN_TOPIC_OR_PARTITION' as KafkaErrorName, offset: -1 };
    },
    assignedPartitions,
    async offsetsPartition(groupId) {
      const count = (await partitionsOf(OFFSETS_TOPIC))?.length;
      return count === undefined ? -1 : offsetsPartitionFor(groupId, count);
    },
  };
}
