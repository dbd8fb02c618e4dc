import type { ChangeReasonView } from '../../api/events.js';
import type { AclBinding, QuotaEntity, ScramCredential, ScramMechanism } from '../security/types.js';

/**
 * The metadata log: what the controller decides, as KRaft-like records. The controller applies
 * each record to its image when it commits it; brokers apply the same records to their own image
 * when they receive them (asynchronously, so a broker can act on stale metadata until then — the
 * epochs in every request are what keep those windows safe).
 */
export type LeaderRecoveryState = 'RECOVERED' | 'RECOVERING';

/** Why a partition's leader or ISR changed; shown in the console's timeline. */
export type ChangeReason = ChangeReasonView;

export interface PartitionState {
  topicId: string;
  partition: number;
  replicas: readonly number[];
  isr: readonly number[];
  leader: number;
  leaderEpoch: number;
  partitionEpoch: number;
  addingReplicas: readonly number[];
  removingReplicas: readonly number[];
  leaderRecoveryState: LeaderRecoveryState;
  /**
   * Eligible leader replicas (KIP-966): replicas that left the ISR while it was below min ISR and
   * so still hold every committed record. Absent (records written before ELR) means empty.
   */
  elr?: readonly number[];
  /** The last known leader while the ISR is empty (KIP-966 "balanced" recovery); absent means empty. */
  lastKnownElr?: readonly number[];
}

/**
 * A topic a client's request created rather than an admin (Kafka's auto-creation): the API that
 * created it, the client id of that request, the broker that forwarded it and when. Kafka does not
 * record this; it is kept so the console can say where a topic nobody created on purpose came from.
 */
export interface TopicOrigin {
  api: 'Metadata' | 'FindCoordinator';
  clientId: string;
  brokerId: number;
  atMs: number;
}

export type MetadataRecord =
  | { type: 'RegisterBroker'; brokerId: number; brokerEpoch: number; incarnationId: string; rack: string | null; fenced: boolean }
  | { type: 'BrokerRegistrationChange'; brokerId: number; brokerEpoch: number; fenced?: boolean; inControlledShutdown?: boolean }
  | { type: 'UnregisterBroker'; brokerId: number; brokerEpoch: number }
  | { type: 'Topic'; name: string; topicId: string; createdBy?: TopicOrigin }
  | { type: 'Partition'; state: PartitionState }
  | {
      type: 'PartitionChange';
      state: PartitionState;
      reason: ChangeReason;
      /** Set when the leader was chosen outside the ISR. */
      unclean?: boolean;
    }
  | { type: 'RemoveTopic'; topicId: string }
  /** A finalized feature level (KIP-584), e.g. eligible.leader.replicas.version. */
  | { type: 'FeatureLevel'; name: string; level: number }
  /** A broker can no longer serve one replica (its log failed to read); cleared when the broker re-registers. */
  | { type: 'ReplicaOffline'; brokerId: number; brokerEpoch: number; topicId: string; partition: number }
  | { type: 'Config'; resourceType: 'topic' | 'broker'; resourceName: string; name: string; value: string | null }
  /** KRaft's ProducerIdsRecord: a block of producer ids went to a broker; the next starts here. */
  | { type: 'ProducerIds'; brokerId: number; brokerEpoch: number; nextProducerId: number }
  /** KRaft's AccessControlEntryRecord: an ACL binding, by an id of its own (CreateAcls). */
  | { type: 'AccessControlEntry'; id: string; binding: AclBinding }
  | { type: 'RemoveAccessControlEntry'; id: string }
  /** KRaft's UserScramCredentialRecord: salt, iterations and the keys derived from the salted password. */
  | { type: 'UserScramCredential'; credential: ScramCredential }
  | { type: 'RemoveUserScramCredential'; name: string; mechanism: ScramMechanism }
  /** KRaft's ClientQuotaRecord: one quota key of one entity, set (value) or removed (null). */
  | { type: 'ClientQuota'; entity: QuotaEntity; key: string; value: number | null };

export interface CommittedRecord {
  offset: number;
  timestampMs: number;
  record: MetadataRecord;
}

/**
 * Two replica lists hold the same brokers in the same order. A plain loop: it runs for every
 * partition a leaving broker is in (tens of thousands at once), on the controller and the brokers.
 */
export function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
