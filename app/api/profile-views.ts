/**
 * The DTOs of config profiles (`profiles.*`): a profile as exported and imported (format
 * version 1; JSON Schema in resources/profiles/profile.schema.json), its checks, its files, and
 * the plan that applying it makes, and the ISR-vs-majority-quorum comparison they show. Re-exported by views.ts, so importers of the contract are
 * unchanged.
 */
/** Config maps keyed by Kafka's config names, values as in a .properties file. */
export type ConfigStringsView = Record<string, string>;

/** A config profile (format version 1; JSON Schema in resources/profiles/profile.schema.json). */
export interface ProfileView {
  $schema?: string;
  version: 1;
  name: string;
  description?: string;
  cluster: { brokers: number; racks?: string[] | number };
  brokerConfigs: ConfigStringsView;
  /** Finalized feature levels to set with `kafka-features.sh upgrade` (e.g. eligible.leader.replicas.version: 1). */
  features: Record<string, number>;
  topicDefaults: { partitions: number; replicationFactor: number; configs: ConfigStringsView };
  producer: ConfigStringsView;
  consumer: ConfigStringsView;
  notes: Record<string, string>;
  /** ACL bindings, SCRAM users (never a password) and client quotas; empty lists when the profile names none. */
  security: {
    acls: { resourceType: string; resourceName: string; patternType: 'LITERAL' | 'PREFIXED'; principal: string; host: string; operation: string; permissionType: 'ALLOW' | 'DENY' }[];
    scramUsers: { name: string; mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512'; iterations: number }[];
    quotas: { entity: { user?: string | null; 'client-id'?: string | null; ip?: string | null }; values: Record<string, number> }[];
  };
}

/** One line of `profiles.list`. */
export interface ProfileSummaryView {
  name: string;
  description?: string;
  builtIn: boolean;
  brokers: number;
  replicationFactor: number;
  /** The durability explainer's one-line summary for the profile's topic defaults and producer acks. */
  durability: string;
  /** The profile's topic defaults and acks beside a majority-vote quorum. */
  quorum: QuorumComparisonView;
}

/** A problem in a profile, at a field path such as `brokerConfigs["min.insync.replicas"]`. */
export interface ProfileIssueView {
  path: string;
  message: string;
}

/** An exported file. */
export interface ExportedFileView {
  filename: string;
  contents: string;
}

/** One differing setting between two profiles, or a profile and the live cluster. */
export interface SettingChangeView {
  section: 'cluster' | 'brokerConfigs' | 'features' | 'topicDefaults' | 'producer' | 'consumer';
  key: string;
  path: string;
  kind: 'added' | 'removed' | 'changed';
  from: string | null;
  to: string | null;
  topic?: string;
  /** What Kafka allows for this change when it is not simply applied (e.g. a partition count cannot shrink). */
  note?: string;
  /** Kafka cannot make this change at all (e.g. fewer partitions than the topic has). */
  impossible?: boolean;
}

/** A config change a plan makes. */
export interface PlannedChangeView {
  key: string;
  from: string | null;
  to: string | null;
  updateMode?: 'read-only' | 'per-broker' | 'cluster-wide';
}

/** What applying a profile does (dry run) or did. */
export interface ApplyPlanView {
  profile: string;
  clusterConfigs: { resource: { type: 'broker'; name: string }; set: Record<string, string | null>; changes: PlannedChangeView[] } | null;
  restartRequired: PlannedChangeView[];
  /** Feature levels to finalize (UpdateFeatures, as `cluster.updateFeatures` takes them). */
  features: { feature: string; maxVersionLevel: number; upgradeType: 'upgrade' | 'safe-downgrade'; from: number }[];
  topics: { resource: { type: 'topic'; name: string }; set: Record<string, string | null>; changes: PlannedChangeView[] }[];
  manual: string[];
  /** ACL bindings to create and quota values to set (SCRAM users to create are in `manual`: a profile has no passwords). */
  security: { acls: ProfileView['security']['acls']; quotas: { entity: ProfileView['security']['quotas'][number]['entity']; set: Record<string, number> }[] };
  upToDate: boolean;
  /** False for a dry run. */
  applied: boolean;
}

/**
 * ISR replication beside a majority-vote quorum for one setup (Kafka's design: f+1 replicas
 * tolerate f failures where a majority quorum needs 2f+1).
 */
export interface QuorumComparisonView {
  /** f: broker failures (that stop, keeping their disks) an acknowledged record survives. */
  failuresTolerated: number;
  isr: QuorumSideView;
  /** A majority quorum giving the same f. */
  majority: QuorumSideView;
  note: string;
}

/** One side of the comparison. */
export interface QuorumSideView {
  replicas: number;
  /** Copies that must have a record before it is acknowledged (an ISR waits for all its members: max, never fewer than min). */
  copiesPerRecord: { min: number; max: number };
  /** Bytes stored per byte produced. */
  diskPerByte: number;
  /** Broker failures after which writes are still accepted. */
  writeFailuresTolerated: number;
}
