/**
 * What `impact.ofStop` reads of an external cluster: a fresh snapshot (brokers, partitions with
 * their ISR and ELR, effective topic configs) plus the finalized eligible.leader.replicas.version,
 * which decides whether the controller keeps ELRs.
 */
import { ELR_FEATURE } from '../../core/engine.js';
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import type { ImpactSource } from '../impact-methods.js';
import { readSnapshot, topicNumber } from './snapshot.js';

export async function readImpactSource(client: KafkaAdminClient): Promise<ImpactSource> {
  const [snapshot, features] = await Promise.all([readSnapshot(client), client.features()]);
  snapshot.image.features.set(ELR_FEATURE, features.finalized[ELR_FEATURE] ?? 0);
  return {
    image: snapshot.image,
    topicConfig: (topic) => {
      const minIsr = topicNumber(snapshot, topic.name, 'min.insync.replicas');
      return {
        // Kafka's default when a cluster does not describe it.
        minInsyncReplicas: Number.isFinite(minIsr) ? minIsr : 1,
        uncleanLeaderElectionEnable: snapshot.topicConfigs.get(topic.name)?.get('unclean.leader.election.enable') === 'true',
      };
    },
    sizes: async () => {
      // Kafka's DescribeLogDirs of every live broker: a partition's size is its largest replica's (the leader's, or one ahead of it).
      const sizes = new Map<string, number>();
      for (const broker of await client.describeLogDirs([...snapshot.listeners.keys()])) {
        for (const dir of broker.logDirs) for (const r of dir.replicas) if (!r.isFuture) sizes.set(`${r.topic}\u0000${r.partition}`, Math.max(sizes.get(`${r.topic}\u0000${r.partition}`) ?? 0, r.sizeBytes));
      }
      return (topic, partition) => sizes.get(`${topic}\u0000${partition}`) ?? 0;
    },
    ...(snapshot.elrUnavailable !== undefined ? { elrUnavailable: snapshot.elrUnavailable } : {}),
  };
}
