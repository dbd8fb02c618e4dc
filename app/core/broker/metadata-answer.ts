/**
 * Metadata (API key 3) as one broker answers it, from its own copy of the metadata (Kafka's
 * KRaftMetadataCache): it may lag the controller's by a heartbeat, as a real broker's does.
 *
 * Rules: the brokers listed are the live ones (registered and unfenced); a partition whose leader
 * is not live has leader -1 and LEADER_NOT_AVAILABLE; replicas on brokers that are not live, or
 * whose log of this partition is offline, are listed as offline replicas (Metadata v0 instead
 * drops them with REPLICA_NOT_AVAILABLE: the listener's business); a topic that does not exist is
 * UNKNOWN_TOPIC_OR_PARTITION, a name Kafka would never accept INVALID_TOPIC_EXCEPTION. The
 * controller named is the lowest live broker id: KRaft brokers name a live broker (admin requests
 * are forwarded to the controller quorum), and the lowest keeps the answer deterministic.
 */
import type { MetadataImage, TopicImage } from '../metadata/image.js';
import { isInternalTopic, isValidTopicName } from '../topic-names.js';
import type { ClientMetadataPartition, ClientMetadataResponse, ClientMetadataTopic } from './messages.js';

export function metadataAnswer(image: MetadataImage, topics: string[] | null): ClientMetadataResponse {
  const live = [...image.brokers.values()].filter((b) => !b.fenced).sort((a, b) => a.id - b.id);
  const liveIds = new Set(live.map((b) => b.id));
  const names = topics ?? [...image.topicsByName.keys()].sort();
  return {
    brokers: live.map((b) => ({ id: b.id, rack: b.rack })),
    controllerId: live[0]?.id ?? -1,
    topics: names.map((name) => {
      const topic = image.topicsByName.get(name);
      if (topic) return topicAnswer(image, topic, liveIds);
      const error = isValidTopicName(name) ? 'UNKNOWN_TOPIC_OR_PARTITION' : 'INVALID_TOPIC_EXCEPTION';
      return { name, topicId: '', error, isInternal: isInternalTopic(name), partitions: [] };
    }),
  };
}

function topicAnswer(image: MetadataImage, topic: TopicImage, liveIds: ReadonlySet<number>): ClientMetadataTopic {
  const partitions: ClientMetadataPartition[] = [...topic.partitions.values()]
    .sort((a, b) => a.partition - b.partition)
    .map((s) => {
      const key = `${s.topicId}:${s.partition}`;
      const offline = s.replicas.filter((id) => !liveIds.has(id) || image.brokers.get(id)!.offlineReplicas.includes(key));
      const leader = liveIds.has(s.leader) ? s.leader : -1;
      return {
        partition: s.partition,
        error: leader < 0 ? 'LEADER_NOT_AVAILABLE' : 'NONE',
        leader,
        leaderEpoch: s.leaderEpoch,
        replicas: [...s.replicas],
        isr: [...s.isr],
        offlineReplicas: offline,
        elr: [...(s.elr ?? [])],
        lastKnownElr: [...(s.lastKnownElr ?? [])],
      };
    });
  return { name: topic.name, topicId: topic.topicId, error: 'NONE', isInternal: isInternalTopic(topic.name), partitions };
}
