/**
 * Shapes of a config profile (format version 1) and of the live cluster it is compared with.
 *
 * A profile is a portable, diffable document: a cluster shape, broker configs, topic defaults and
 * client settings, every config key spelled as Kafka spells it and every value a string, as in a
 * `.properties` file. `notes` holds a one-line rationale per setting, keyed by the setting's
 * path: `cluster.brokers`, `cluster.racks`, `topicDefaults.partitions`,
 * `topicDefaults.replicationFactor`, `topicDefaults.configs.<key>`, `brokerConfigs.<key>`,
 * `features.<name>`, `producer.<key>`, `consumer.<key>`.
 *
 * Brokers of a profile are numbered 1..brokers (Kafka's `node.id`).
 */

import type { ProfileSecurity } from './security-section.js';

export const PROFILE_FORMAT_VERSION = 1;

/** Config maps keyed by Kafka's config names; values as in a .properties file. */
export type ConfigStrings = Record<string, string>;

export interface ProfileCluster {
  /** Number of brokers (node ids 1..brokers). */
  brokers: number;
  /**
   * Rack of each broker (`racks[i]` is node i+1's `broker.rack`), or a rack count n, which puts
   * node i+1 in rack `rack-${(i % n) + 1}`. Absent: brokers have no rack.
   */
  racks?: string[] | number;
}

export interface ProfileTopicDefaults {
  partitions: number;
  replicationFactor: number;
  /** Topic configs given to every topic created with this profile. */
  configs: ConfigStrings;
}

/** A validated profile. Optional input sections are present here (possibly empty). */
export interface Profile {
  /** Kept as given, so an editor keeps finding the JSON Schema after a round trip. */
  $schema?: string;
  version: typeof PROFILE_FORMAT_VERSION;
  name: string;
  description?: string;
  cluster: ProfileCluster;
  /** Broker configs, static (read-only) ones included: they go to server.properties. */
  brokerConfigs: ConfigStrings;
  /**
   * Finalized feature levels (KIP-584) to set with `kafka-features.sh upgrade`, e.g.
   * `eligible.leader.replicas.version: 1`; Kafka 4.x turns eligible leader replicas on this way,
   * not with a broker config.
   */
  features: Record<string, number>;
  topicDefaults: ProfileTopicDefaults;
  /** Java producer settings (acks, enable.idempotence, linger.ms, …). */
  producer: ConfigStrings;
  /** Java consumer settings (isolation.level, auto.offset.reset, …). */
  consumer: ConfigStrings;
  /** One-line rationale per setting, keyed by the setting's path (see the file comment). */
  notes: Record<string, string>;
  /** ACL bindings, SCRAM users (never a password) and client quotas (security-section.ts); empty when the profile names none. */
  security: ProfileSecurity;
}

/** A problem with a profile, at a path such as `brokerConfigs["min.insync.replicas"]` or `producer.acks`. */
export interface ProfileIssue {
  path: string;
  message: string;
}

export type ProfileValidation =
  | { ok: true; profile: Profile; warnings: ProfileIssue[] }
  | { ok: false; errors: ProfileIssue[]; warnings: ProfileIssue[] };

/** One topic of the live cluster. `configs` are the topic's own overrides (DYNAMIC_TOPIC_CONFIG). */
export interface LiveTopic {
  name: string;
  configs: ConfigStrings;
  partitions: number;
  replicationFactor: number;
}

/**
 * The live cluster as the service sees it. `clusterConfigs` are the cluster-wide broker configs
 * that are set (the dynamic "<default>" broker entity, plus static values where known); a key
 * that is absent runs with Kafka's default. `racks[i]` is the rack of the i-th broker by id.
 */
export interface LiveCluster {
  clusterConfigs: ConfigStrings;
  /** Finalized feature levels (a feature never set is at level 0). */
  features: Record<string, number>;
  brokerCount: number;
  racks: (string | null)[];
  topics: LiveTopic[];
}

/** Sections of a profile that hold settings. */
export type ProfileSection = 'cluster' | 'brokerConfigs' | 'features' | 'topicDefaults' | 'producer' | 'consumer';
