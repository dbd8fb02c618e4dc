/**
 * What a profile's settings mean, shared by the validator, the exporters and the diff:
 * which definition governs a key, how two spellings of one value compare, which rack each broker
 * gets, and the values a topic created with the profile would run with.
 *
 * Guarantees: pure; every function assumes a profile that passed `validateProfile`, except
 * `settingPath` and `normalizeValue`, which accept anything.
 */
import { brokerConfigDef, topicConfigDef } from '../configs/catalogue.js';
import type { ConfigDef } from '../configs/catalogue.js';
import { topicConfigValue } from '../configs/resolve.js';
import { parseConfigValue } from '../configs/values.js';
import { explainDurability, normalizeAcks } from '../durability.js';
import type { DurabilityExplanation } from '../durability.js';
import { asConfigDef, clientConfigDef } from './client-configs.js';
import type { ConfigStrings, Profile, ProfileCluster } from './types.js';

/** The config maps of a profile, by the path prefix used in errors and notes. */
export type ConfigSection = 'brokerConfigs' | 'topicDefaults.configs' | 'producer' | 'consumer';

export const CONFIG_SECTIONS: readonly ConfigSection[] = ['brokerConfigs', 'topicDefaults.configs', 'producer', 'consumer'];

/** The definition that governs `key` in `section`, or undefined for an unknown key. */
export function definitionFor(section: ConfigSection, key: string): ConfigDef | undefined {
  switch (section) {
    case 'brokerConfigs':
      return brokerConfigDef(key);
    case 'topicDefaults.configs':
      return topicConfigDef(key);
    case 'producer':
    case 'consumer': {
      const d = clientConfigDef(section, key);
      return d === undefined ? undefined : asConfigDef(d);
    }
  }
}

/** The config map of `section`. */
export function sectionConfigs(profile: Profile, section: ConfigSection): ConfigStrings {
  switch (section) {
    case 'brokerConfigs':
      return profile.brokerConfigs;
    case 'topicDefaults.configs':
      return profile.topicDefaults.configs;
    case 'producer':
      return profile.producer;
    case 'consumer':
      return profile.consumer;
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `base.key` for an identifier, `base["key"]` otherwise: `producer.acks`, `brokerConfigs["min.insync.replicas"]`. */
export function settingPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const step = IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  return base === '' ? step.replace(/^\./, '') : `${base}${step}`;
}

/**
 * A value's canonical spelling, so that "TRUE" equals "true" and "+0100" equals "100" when
 * profiles are diffed. A value the definition refuses is returned trimmed.
 */
export function normalizeValue(def: ConfigDef | undefined, raw: string): string {
  if (def === undefined) return raw.trim();
  try {
    const v = parseConfigValue(def, raw);
    if (typeof v === 'boolean') return String(v);
    if (Array.isArray(v)) return v.join(',');
    if (def.type === 'short' || def.type === 'int' || def.type === 'long') return BigInt(raw.trim()).toString();
    return String(v);
  } catch {
    return raw.trim();
  }
}

/** `racks[i]` = the `broker.rack` of node i+1, or null. */
export function resolveRacks(cluster: ProfileCluster): (string | null)[] {
  const { brokers, racks } = cluster;
  return Array.from({ length: brokers }, (_, i) => {
    if (racks === undefined) return null;
    if (typeof racks === 'number') return `rack-${(i % racks) + 1}`;
    return racks[i] ?? null;
  });
}

/**
 * The broker configs a profile's server.properties carries: its `brokerConfigs`, plus
 * `num.partitions` and `default.replication.factor` taken from the topic defaults unless set.
 */
export function effectiveBrokerConfigs(profile: Profile): ConfigStrings {
  const derived: ConfigStrings = {
    'num.partitions': String(profile.topicDefaults.partitions),
    'default.replication.factor': String(profile.topicDefaults.replicationFactor),
  };
  return { ...derived, ...profile.brokerConfigs };
}

/** The value topic config `name` has on a topic created with the profile (topic default > broker config > Kafka default). */
export function effectiveTopicConfig(profile: Profile, name: string): string {
  return topicConfigValue(name, profile.topicDefaults.configs, {}, profile.brokerConfigs);
}

/** The producer setting `name`, or Kafka's default. */
export function effectiveProducerConfig(profile: Profile, name: string): string {
  return profile.producer[name] ?? clientConfigDef('producer', name)?.default ?? '';
}

/** The durability explainer applied to a topic created with the profile and its producer. */
export function profileDurability(profile: Profile): DurabilityExplanation {
  return explainDurability({
    replicationFactor: profile.topicDefaults.replicationFactor,
    minInsyncReplicas: Number(effectiveTopicConfig(profile, 'min.insync.replicas').trim()),
    uncleanLeaderElectionEnable: effectiveTopicConfig(profile, 'unclean.leader.election.enable').trim().toLowerCase() === 'true',
    acks: normalizeAcks(effectiveProducerConfig(profile, 'acks')),
  });
}
