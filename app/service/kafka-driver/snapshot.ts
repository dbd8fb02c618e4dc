/**
 * One read of an external cluster's state, in the shape the embedded service reads its own: a
 * metadata image (brokers, topics, partitions, dynamic overrides, reassignments in flight) plus
 * the effective topic configs, so the views, health counts, balancer, leader balance and profile
 * diff are computed by the same code as for a local cluster.
 *
 * What the Kafka protocol tells and what it does not:
 * - Metadata lists live brokers only. A broker that replicas name but Metadata does not list is
 *   down (or fenced): it is in the image as fenced, with no rack (Kafka does not say).
 * - Partition epochs, broker epochs and leader recovery states are not in Metadata: -1 and
 *   RECOVERED (the views say the partition epoch is not reported).
 * - The active controller: in KRaft, Metadata and DescribeCluster name any live broker (which
 *   forwards to the controller quorum), so `controllerId` is what they name, not the controller.
 * - Topic ids: Metadata carries them from v10; below that (and where it sends zeros) the id comes
 *   from DescribeTopicPartitions when the cluster serves it, else it is not known.
 * - Reassignments come from ListPartitionReassignments: the full replica set and what it adds
 *   and removes.
 * - Eligible leader replicas and the last known ELR come from DescribeTopicPartitions (KIP-966);
 *   a cluster that does not serve it leaves them empty and `elrUnavailable` says why.
 */
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import { describeElr, ZERO_TOPIC_ID as ZERO_UUID, type PartitionElrData } from '../../kafka-client/feature-requests.js';
import type { ClusterMetadataData, ConfigEntryData, OngoingReassignmentData } from '../../kafka-client/types.js';
import { MetadataImage, CLUSTER_DEFAULT } from '../../core/metadata/image.js';
import { KafkaError } from '../../api/errors.js';

export const TOPIC_ID_UNAVAILABLE_REASON =
  "This cluster's Metadata answers carry no topic ids (Metadata v10+ does) and its brokers do not serve DescribeTopicPartitions, so the topic's id is not known here.";

/** Kafka's ConfigSource numbers. */
export const CONFIG_SOURCE = { DYNAMIC_TOPIC: 1, DYNAMIC_BROKER: 2, DYNAMIC_DEFAULT_BROKER: 3, STATIC_BROKER: 4, DEFAULT: 5 } as const;

export interface KafkaSnapshot {
  image: MetadataImage;
  clusterId: string;
  /** The broker Metadata names as controller (in KRaft: any live broker, which forwards to the quorum), null when none. */
  controllerId: number | null;
  /** Why some topics' ids are not known (zeros): Metadata below v10 and no DescribeTopicPartitions; absent when every id was read. */
  topicIdsUnavailable?: string;
  listeners: Map<number, { host: string; port: number }>;
  /** Effective topic configs (every key, whatever its source), by topic. */
  topicConfigs: Map<string, Map<string, string>>;
  reassignments: OngoingReassignmentData[];
  /** The Metadata answer the image was built from (its leaders route the ListOffsets of the same read). */
  metadata: ClusterMetadataData;
  /** Why the partitions carry no ELR (the cluster does not serve DescribeTopicPartitions); absent when read. */
  elrUnavailable?: string;
}

/** A topic's effective config value as a number (NaN when absent). */
export function topicNumber(snapshot: KafkaSnapshot, topic: string, key: string): number {
  return Number(snapshot.topicConfigs.get(topic)?.get(key) ?? NaN);
}

function overrides(entries: ConfigEntryData[], source: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of entries) if (e.source === source && e.value !== null) out[e.name] = e.value;
  return out;
}

/** Build the image from Kafka's answers (exported for tests of the mapping). */
export function buildImage(
  metadata: ClusterMetadataData,
  reassignments: OngoingReassignmentData[],
  topicOverrides: Map<string, Record<string, string>>,
  clusterDefaults: Record<string, string>,
  elr: ReadonlyMap<string, ReadonlyMap<number, PartitionElrData>> = new Map(),
  topicIds: ReadonlyMap<string, string> = new Map(),
): MetadataImage {
  const image = new MetadataImage();
  for (const b of metadata.brokers) {
    image.brokers.set(b.id, { id: b.id, brokerEpoch: -1, incarnationId: '', rack: b.rack, fenced: false, inControlledShutdown: false, offlineReplicas: [] });
  }
  const moving = new Map(reassignments.map((r) => [`${r.topic}\u0000${r.partition}`, r]));
  for (const t of metadata.topics) {
    if (t.errorCode !== 'NONE' && t.partitions.length === 0) continue;
    const topicId = t.topicId !== ZERO_UUID ? t.topicId : (topicIds.get(t.name) ?? ZERO_UUID);
    const topic = { name: t.name, topicId, partitions: new Map(), configs: topicOverrides.get(t.name) ?? {} };
    for (const p of t.partitions) {
      const r = moving.get(`${t.name}\u0000${p.partition}`);
      topic.partitions.set(p.partition, {
        topicId,
        partition: p.partition,
        replicas: r ? [...r.replicas] : [...p.replicas],
        isr: [...p.isr],
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        partitionEpoch: -1,
        addingReplicas: r ? [...r.addingReplicas] : [],
        removingReplicas: r ? [...r.removingReplicas] : [],
        leaderRecoveryState: 'RECOVERED',
        ...elr.get(t.name)?.get(p.partition),
      });
      for (const id of [...p.replicas, ...(r?.replicas ?? [])]) {
        if (!image.brokers.has(id)) image.brokers.set(id, { id, brokerEpoch: -1, incarnationId: '', rack: null, fenced: true, inControlledShutdown: false, offlineReplicas: [] });
      }
    }
    // Keyed by name: before Metadata v10 every topic id reads as zeros.
    image.topicsById.set(topic.name, topic);
    image.topicsByName.set(topic.name, topic);
  }
  image.brokerConfigs.set(CLUSTER_DEFAULT, clusterDefaults);
  return image;
}

/** Read the cluster: metadata, reassignments in flight, and every topic's configs (one request per broker asked). */
export async function readSnapshot(client: KafkaAdminClient, topics?: string[]): Promise<KafkaSnapshot> {
  // ELR after Metadata: asked topic by topic in pages (feature-requests.ts), which needs the partition counts.
  const [metadata, reassignments] = await Promise.all([client.metadata(topics), client.listReassignments()]);
  const counts = new Map(metadata.topics.filter((t) => t.errorCode === 'NONE').map((t) => [t.name, t.partitions.length]));
  const elr = await describeElr(client, topics, counts);
  const names = metadata.topics.filter((t) => t.errorCode === 'NONE').map((t) => t.name);
  const missing = metadata.topics.find((t) => t.errorCode === 'UNKNOWN_TOPIC_OR_PARTITION');
  if (topics && missing) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `This server does not host this topic: ${missing.name}`);
  const described = await client.describeConfigs([{ type: 'broker', name: CLUSTER_DEFAULT }, ...names.map((name) => ({ type: 'topic' as const, name }))]);
  const topicOverrides = new Map<string, Record<string, string>>();
  const topicConfigs = new Map<string, Map<string, string>>();
  let clusterDefaults: Record<string, string> = {};
  for (const d of described) {
    if (d.resource.type === 'broker') {
      clusterDefaults = overrides(d.entries, CONFIG_SOURCE.DYNAMIC_DEFAULT_BROKER);
      continue;
    }
    topicOverrides.set(d.resource.name, overrides(d.entries, CONFIG_SOURCE.DYNAMIC_TOPIC));
    topicConfigs.set(d.resource.name, new Map(d.entries.filter((e) => e.value !== null).map((e) => [e.name, e.value!])));
  }
  const image = buildImage(metadata, reassignments, topicOverrides, clusterDefaults, 'elr' in elr ? elr.elr : new Map(), 'elr' in elr ? elr.topicIds : new Map());
  const idsUnknown = [...image.topicsByName.values()].some((t) => t.topicId === ZERO_UUID);
  return {
    image,
    ...(idsUnknown ? { topicIdsUnavailable: TOPIC_ID_UNAVAILABLE_REASON } : {}),
    clusterId: metadata.clusterId ?? '',
    controllerId: metadata.controllerId >= 0 ? metadata.controllerId : null,
    listeners: new Map(metadata.brokers.map((b) => [b.id, { host: b.host, port: b.port }])),
    topicConfigs,
    reassignments,
    metadata,
    ...('unavailable' in elr ? { elrUnavailable: elr.unavailable } : {}),
  };
}
