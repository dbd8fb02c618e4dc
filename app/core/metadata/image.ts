/**
 * An in-memory view of the metadata log up to `offset`. The controller and every broker keep
 * one; all of them apply the same records in the same order, so they agree once caught up.
 */
import type { CommittedRecord, PartitionState, TopicOrigin } from './records.js';
import { entityKey } from '../security/client-quotas.js';
import { credentialKey } from '../security/scram.js';
import type { AclBinding, QuotaEntity, ScramCredential } from '../security/types.js';
import { PartitionTable } from './partition-table.js';

/** One client quota entity and its values by key (QuotaEntry of client-quotas.ts). */
export interface ClientQuotaImage {
  entity: QuotaEntity;
  values: Record<string, number>;
}

export interface BrokerRegistration {
  id: number;
  brokerEpoch: number;
  incarnationId: string;
  rack: string | null;
  fenced: boolean;
  inControlledShutdown: boolean;
  /** Replicas (`topicId:partition`) this incarnation cannot serve. */
  offlineReplicas: string[];
}

export interface TopicImage {
  name: string;
  topicId: string;
  partitions: Map<number, PartitionState>;
  configs: Record<string, string>;
  /** Set when a client's request created the topic (auto-creation). */
  createdBy?: TopicOrigin;
}

/** The cluster-wide default broker configs are stored under this resource name (Kafka's `<default>`). */
export const CLUSTER_DEFAULT = '';

/**
 * The committed metadata as the engine's read model hands it out: the same image, typed so that
 * a reader cannot apply records or change its maps.
 */
export interface ClusterMetadata {
  readonly offset: number;
  readonly brokers: ReadonlyMap<number, Readonly<BrokerRegistration>>;
  readonly topicsById: ReadonlyMap<string, TopicImage>;
  readonly topicsByName: ReadonlyMap<string, TopicImage>;
  readonly brokerConfigs: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Finalized feature levels (KIP-584); a feature never set is at level 0. */
  readonly features: ReadonlyMap<string, number>;
  /** ACL bindings by id, SCRAM credentials by mechanism and user, client quotas by entity. */
  readonly acls: ReadonlyMap<string, Readonly<AclBinding>>;
  readonly scramCredentials: ReadonlyMap<string, Readonly<ScramCredential>>;
  readonly clientQuotas: ReadonlyMap<string, Readonly<ClientQuotaImage>>;
  /** Counts changes to the three above, so a reader can cache what it builds from them. */
  readonly securityVersion: number;
  scramCredential(name: string, mechanism: string): Readonly<ScramCredential> | undefined;
  partition(topicId: string, partition: number): PartitionState | undefined;
  allPartitions(): Iterable<{ topic: TopicImage; state: PartitionState }>;
  somePartition(test: (state: PartitionState) => boolean): boolean;
  clusterConfigs(): Record<string, string>;
  brokerConfigsFor(brokerId: number): Record<string, string>;
  isActive(brokerId: number, partitionKey?: string): boolean;
}

export class MetadataImage implements ClusterMetadata {
  /** Offset of the last applied record, -1 when none. */
  offset = -1;
  readonly brokers = new Map<number, BrokerRegistration>();
  readonly topicsById = new Map<string, TopicImage>();
  readonly topicsByName = new Map<string, TopicImage>();
  /** Broker configs by resource name: CLUSTER_DEFAULT or a broker id. */
  readonly brokerConfigs = new Map<string, Record<string, string>>();
  /** The first producer id no broker has been given yet (idempotent producers). */
  nextProducerId = 0;
  readonly features = new Map<string, number>();
  readonly acls = new Map<string, AclBinding>();
  readonly scramCredentials = new Map<string, ScramCredential>();
  readonly clientQuotas = new Map<string, ClientQuotaImage>();
  securityVersion = 0;

  apply(committed: CommittedRecord): void {
    if (committed.offset <= this.offset) return;
    this.offset = committed.offset;
    const r = committed.record;
    switch (r.type) {
      case 'RegisterBroker':
        this.brokers.set(r.brokerId, {
          id: r.brokerId,
          brokerEpoch: r.brokerEpoch,
          incarnationId: r.incarnationId,
          rack: r.rack,
          fenced: r.fenced,
          inControlledShutdown: false,
          offlineReplicas: [],
        });
        break;
      case 'BrokerRegistrationChange': {
        const b = this.brokers.get(r.brokerId);
        if (!b || b.brokerEpoch !== r.brokerEpoch) break;
        if (r.fenced !== undefined) b.fenced = r.fenced;
        if (r.inControlledShutdown !== undefined) b.inControlledShutdown = r.inControlledShutdown;
        break;
      }
      case 'ReplicaOffline': {
        const b = this.brokers.get(r.brokerId);
        const key = `${r.topicId}:${r.partition}`;
        if (b && b.brokerEpoch === r.brokerEpoch && !b.offlineReplicas.includes(key)) b.offlineReplicas.push(key);
        break;
      }
      case 'UnregisterBroker':
        this.brokers.delete(r.brokerId);
        break;
      case 'Topic': {
        const t: TopicImage = { name: r.name, topicId: r.topicId, partitions: new PartitionTable(), configs: {}, ...(r.createdBy ? { createdBy: r.createdBy } : {}) };
        this.topicsById.set(r.topicId, t);
        this.topicsByName.set(r.name, t);
        break;
      }
      case 'Partition':
      case 'PartitionChange': {
        // Committed states are frozen (controller.commit), so every image shares the record's
        // object: 13 images of 100,000 partitions hold one copy, not 13.
        const t = this.topicsById.get(r.state.topicId);
        if (t) t.partitions.set(r.state.partition, Object.isFrozen(r.state) ? r.state : clonePartition(r.state));
        break;
      }
      case 'RemoveTopic': {
        const t = this.topicsById.get(r.topicId);
        if (t) {
          this.topicsById.delete(r.topicId);
          this.topicsByName.delete(t.name);
        }
        break;
      }
      case 'ProducerIds':
        this.nextProducerId = Math.max(this.nextProducerId, r.nextProducerId);
        break;
      case 'FeatureLevel':
        this.features.set(r.name, r.level);
        break;
      case 'AccessControlEntry':
        this.acls.set(r.id, { ...r.binding });
        this.securityVersion++;
        break;
      case 'RemoveAccessControlEntry':
        this.acls.delete(r.id);
        this.securityVersion++;
        break;
      case 'UserScramCredential':
        this.scramCredentials.set(credentialKey(r.credential.name, r.credential.mechanism), { ...r.credential });
        this.securityVersion++;
        break;
      case 'RemoveUserScramCredential':
        this.scramCredentials.delete(credentialKey(r.name, r.mechanism));
        this.securityVersion++;
        break;
      case 'ClientQuota': {
        const key = entityKey(r.entity);
        let q = this.clientQuotas.get(key);
        if (r.value === null) {
          if (q) delete q.values[r.key];
          if (q && Object.keys(q.values).length === 0) this.clientQuotas.delete(key);
        } else {
          if (!q) this.clientQuotas.set(key, (q = { entity: { ...r.entity }, values: {} }));
          q.values[r.key] = r.value;
        }
        this.securityVersion++;
        break;
      }
      case 'Config': {
        let target: Record<string, string> | undefined;
        if (r.resourceType === 'topic') target = this.topicsByName.get(r.resourceName)?.configs;
        else {
          target = this.brokerConfigs.get(r.resourceName);
          if (!target) {
            target = {};
            this.brokerConfigs.set(r.resourceName, target);
          }
        }
        if (!target) break;
        if (r.value === null) delete target[r.name];
        else target[r.name] = r.value;
        break;
      }
    }
  }

  scramCredential(name: string, mechanism: string): ScramCredential | undefined {
    return this.scramCredentials.get(credentialKey(name, mechanism));
  }

  partition(topicId: string, partition: number): PartitionState | undefined {
    return this.topicsById.get(topicId)?.partitions.get(partition);
  }

  *allPartitions(): Iterable<{ topic: TopicImage; state: PartitionState }> {
    for (const topic of this.topicsById.values()) for (const state of topic.partitions.values()) yield { topic, state };
  }

  /** Whether some partition satisfies `test` (a plain loop: it runs over every partition). */
  somePartition(test: (state: PartitionState) => boolean): boolean {
    for (const topic of this.topicsById.values()) for (const state of topic.partitions.values()) if (test(state)) return true;
    return false;
  }

  clusterConfigs(): Record<string, string> {
    return this.brokerConfigs.get(CLUSTER_DEFAULT) ?? {};
  }

  /** Dynamic configs that apply to one broker: cluster defaults overridden by its own. */
  brokerConfigsFor(brokerId: number): Record<string, string> {
    return { ...this.clusterConfigs(), ...(this.brokerConfigs.get(String(brokerId)) ?? {}) };
  }

  /** KRaft "acceptable" leader: registered, unfenced, not shutting down (and, for a partition, its replica online). */
  /**
   * Apply a Partition or PartitionChange record, the next in order, whose topic the caller looked
   * up already (`topic`, this image's); returns the state it replaces. A broker's path for the
   * records of a fence: tens of thousands at once, on every broker.
   */
  applyPartition(committed: CommittedRecord, topic: TopicImage, state: PartitionState): PartitionState | undefined {
    this.offset = committed.offset;
    const prev = topic.partitions.get(state.partition);
    topic.partitions.set(state.partition, Object.isFrozen(state) ? state : clonePartition(state));
    return prev;
  }

  isActive(brokerId: number, partitionKey?: string): boolean {
    const b = this.brokers.get(brokerId);
    return !!b && !b.fenced && !b.inControlledShutdown && (partitionKey === undefined || !b.offlineReplicas.includes(partitionKey));
  }
}

export function clonePartition(p: PartitionState): PartitionState {
  return {
    ...p,
    replicas: [...p.replicas],
    isr: [...p.isr],
    addingReplicas: [...p.addingReplicas],
    removingReplicas: [...p.removingReplicas],
    ...(p.elr ? { elr: [...p.elr] } : {}),
    ...(p.lastKnownElr ? { lastKnownElr: [...p.lastKnownElr] } : {}),
  };
}
