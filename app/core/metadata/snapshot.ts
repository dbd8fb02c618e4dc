/**
 * Metadata snapshots, as KRaft's SnapshotGenerator writes them and its MetadataLoader reads them:
 * the whole image at one committed offset, so that opening a cluster (or starting a broker) loads
 * the latest snapshot and applies only the records after it, instead of the whole history.
 *
 * Invariant: for every record sequence R and every split R = A·B,
 *   load(snapshot(apply(A))) then apply(B)  ≡  apply(A·B)
 * (the same brokers, topics, partition states, configs, next producer id, ACL bindings, SCRAM
 * credentials, client quotas and offset). Partitions are stored as
 * tuples per topic, a tenth of the size of the records' JSON: 100,000 partitions fit in a few MB.
 */
import type { BrokerRegistration, ClientQuotaImage, MetadataImage } from './image.js';
import type { AclBinding, ScramCredential } from '../security/types.js';
import type { LeaderRecoveryState, PartitionState, TopicOrigin } from './records.js';
import { PartitionTable } from './partition-table.js';

/**
 * [partition, replicas, isr, leader, leaderEpoch, partitionEpoch, adding, removing, recovering (1)
 * or not (0), then, only when either is non-empty, elr and lastKnownElr (KIP-966)]
 */
type PartitionTuple = [number, number[], number[], number, number, number, number[], number[], 0 | 1, number[]?, number[]?];

export interface ImageSnapshot {
  /** The offset of the last record the snapshot includes. */
  offset: number;
  brokers: BrokerRegistration[];
  topics: { name: string; topicId: string; configs: Record<string, string>; partitions: PartitionTuple[]; createdBy?: TopicOrigin }[];
  brokerConfigs: [string, Record<string, string>][];
  /** The first producer id not yet handed out (absent in snapshots from before producer ids: 0). */
  nextProducerId?: number;
  /** Finalized feature levels (absent in snapshots written before features existed). */
  features?: [string, number][];
  /** ACL bindings by id, SCRAM credentials, client quotas (absent in snapshots written before them). */
  acls?: [string, AclBinding][];
  scramCredentials?: [string, ScramCredential][];
  clientQuotas?: [string, ClientQuotaImage][];
}

export function snapshotOf(image: MetadataImage): ImageSnapshot {
  return {
    offset: image.offset,
    brokers: [...image.brokers.values()].map((b) => ({ ...b, offlineReplicas: [...b.offlineReplicas] })),
    topics: [...image.topicsById.values()].map((t) => ({
      name: t.name,
      topicId: t.topicId,
      configs: { ...t.configs },
      ...(t.createdBy ? { createdBy: { ...t.createdBy } } : {}),
      partitions: [...t.partitions.values()].map(
        (p): PartitionTuple => {
          const t: PartitionTuple = [p.partition, [...p.replicas], [...p.isr], p.leader, p.leaderEpoch, p.partitionEpoch, [...p.addingReplicas], [...p.removingReplicas], p.leaderRecoveryState === 'RECOVERING' ? 1 : 0];
          if ((p.elr ?? []).length > 0 || (p.lastKnownElr ?? []).length > 0) t.push([...(p.elr ?? [])], [...(p.lastKnownElr ?? [])]);
          return t;
        },
      ),
    })),
    brokerConfigs: [...image.brokerConfigs.entries()].map(([name, cfg]) => [name, { ...cfg }]),
    nextProducerId: image.nextProducerId,
    features: [...image.features.entries()],
    acls: [...image.acls.entries()].map(([id, b]) => [id, { ...b }]),
    scramCredentials: [...image.scramCredentials.entries()].map(([k, c]) => [k, { ...c }]),
    clientQuotas: [...image.clientQuotas.entries()].map(([k, q]) => [k, { entity: { ...q.entity }, values: { ...q.values } }]),
  };
}

/**
 * The partition states of a snapshot, built once and frozen, per topic id: every image that loads
 * the same snapshot (the controller's and each broker's when a cluster reopens) shares them, as
 * images share the frozen states of committed records; a copy per image would multiply a reopened
 * cluster's largest structure by the number of brokers. Held weakly: they go with the snapshot.
 */
const sharedStates = new WeakMap<ImageSnapshot, Map<string, Map<number, PartitionState>>>();

function statesOf(snap: ImageSnapshot): Map<string, Map<number, PartitionState>> {
  let byTopic = sharedStates.get(snap);
  if (byTopic) return byTopic;
  byTopic = new Map();
  for (const t of snap.topics) {
    const partitions = new Map<number, PartitionState>();
    for (const [partition, replicas, isr, leader, leaderEpoch, partitionEpoch, adding, removing, recovering, elr, lastKnownElr] of t.partitions) {
      const leaderRecoveryState: LeaderRecoveryState = recovering === 1 ? 'RECOVERING' : 'RECOVERED';
      partitions.set(
        partition,
        Object.freeze({
          topicId: t.topicId,
          partition,
          replicas: [...replicas],
          isr: [...isr],
          leader,
          leaderEpoch,
          partitionEpoch,
          addingReplicas: [...adding],
          removingReplicas: [...removing],
          leaderRecoveryState,
          ...(elr ? { elr: [...elr] } : {}),
          ...(lastKnownElr ? { lastKnownElr: [...lastKnownElr] } : {}),
        }),
      );
    }
    byTopic.set(t.topicId, partitions);
  }
  sharedStates.set(snap, byTopic);
  return byTopic;
}

/**
 * The snapshot as a loader holds it once its partition states are built: the same brokers,
 * topics and configs, and no tuples (they would be a second copy of every partition beside the
 * states). `loadSnapshot` of it gives what `loadSnapshot` of `snap` gives; it is an in-memory
 * form only, never stored or sent outside the engine (its `partitions` lists are empty).
 */
export function withoutCompactForm(snap: ImageSnapshot): ImageSnapshot {
  const states = statesOf(snap);
  const light: ImageSnapshot = { ...snap, topics: snap.topics.map((t) => ({ ...t, partitions: [] })) };
  sharedStates.set(light, states);
  return light;
}

/** Replace everything `image` holds by the snapshot's content (the snapshot stays untouched; partition states are frozen and shared). */
export function loadSnapshot(image: MetadataImage, snap: ImageSnapshot): void {
  image.brokers.clear();
  image.topicsById.clear();
  image.topicsByName.clear();
  image.brokerConfigs.clear();
  image.features.clear();
  image.acls.clear();
  image.scramCredentials.clear();
  image.clientQuotas.clear();
  for (const b of snap.brokers) image.brokers.set(b.id, { ...b, offlineReplicas: [...b.offlineReplicas] });
  const states = statesOf(snap);
  for (const t of snap.topics) {
    // The image's own map (records replace its entries); the states in it are shared.
    const partitions = new PartitionTable(states.get(t.topicId));
    const topic = { name: t.name, topicId: t.topicId, partitions, configs: { ...t.configs }, ...(t.createdBy ? { createdBy: { ...t.createdBy } } : {}) };
    image.topicsById.set(t.topicId, topic);
    image.topicsByName.set(t.name, topic);
  }
  for (const [name, cfg] of snap.brokerConfigs) image.brokerConfigs.set(name, { ...cfg });
  image.nextProducerId = snap.nextProducerId ?? 0;
  for (const [name, level] of snap.features ?? []) image.features.set(name, level);
  for (const [id, b] of snap.acls ?? []) image.acls.set(id, { ...b });
  for (const [k, c] of snap.scramCredentials ?? []) image.scramCredentials.set(k, { ...c });
  for (const [k, q] of snap.clientQuotas ?? []) image.clientQuotas.set(k, { entity: { ...q.entity }, values: { ...q.values } });
  image.securityVersion++;
  image.offset = snap.offset;
}
