/**
 * The config catalogue: one definition per topic config (`topic-catalogue.ts`) and per broker
 * config (`broker-catalogue.ts`), indexed by name.
 *
 * Guarantees: names are unique within a scope; every topic config's broker synonyms are broker
 * configs in this catalogue (checked by the tests); lookups are pure.
 */
import { BROKER_CONFIGS } from './broker-catalogue.js';
import { REMOVED_TOPIC_CONFIGS, TOPIC_CONFIGS } from './topic-catalogue.js';
import type { BrokerConfigDef, ConfigDef, ConfigRule, ConfigScope, TopicConfigDef } from './types.js';

export { BROKER_CONFIGS } from './broker-catalogue.js';
export { CLEANUP_POLICIES, COMPRESSION_TYPES, REMOVED_TOPIC_CONFIGS, TIMESTAMP_TYPES, TOPIC_CONFIGS } from './topic-catalogue.js';
export { LONG_MAX } from './types.js';
export type {
  BrokerConfigDef,
  BrokerSynonym,
  ConfigDef,
  ConfigEffect,
  ConfigImportance,
  ConfigRule,
  ConfigScope,
  ConfigType,
  TopicConfigDef,
  UpdateMode,
} from './types.js';

const TOPIC_BY_NAME: ReadonlyMap<string, TopicConfigDef> = new Map(TOPIC_CONFIGS.map((d) => [d.name, d]));
const BROKER_BY_NAME: ReadonlyMap<string, BrokerConfigDef> = new Map(BROKER_CONFIGS.map((d) => [d.name, d]));

/** The topic config called `name`, or undefined. */
export function topicConfigDef(name: string): TopicConfigDef | undefined {
  return TOPIC_BY_NAME.get(name);
}

/** The broker config called `name`, or undefined. */
export function brokerConfigDef(name: string): BrokerConfigDef | undefined {
  return BROKER_BY_NAME.get(name);
}

/** The config called `name` in `scope`, or undefined. */
export function configDef(scope: ConfigScope, name: string): ConfigDef | undefined {
  return scope === 'topic' ? TOPIC_BY_NAME.get(name) : BROKER_BY_NAME.get(name);
}

/** Why a topic config name is unknown, when Kafka once knew it (removed in 4.0). */
export function removedTopicConfigHint(name: string): string | undefined {
  return Object.hasOwn(REMOVED_TOPIC_CONFIGS, name) ? REMOVED_TOPIC_CONFIGS[name] : undefined;
}

/** The valid values in the notation of Kafka's config docs: "[1,...]", "[0,...,1]", "[a, b]". */
export function validValuesText(rule: ConfigRule): string {
  switch (rule.kind) {
    case 'any':
      return '';
    case 'range': {
      const range =
        rule.max === undefined ? `[${rule.min ?? ''},...]` : rule.min === undefined ? `[...,${rule.max}]` : `[${rule.min},...,${rule.max}]`;
      return rule.alsoAllowed === undefined ? range : `${range} or ${rule.alsoAllowed}`;
    }
    case 'enum':
    case 'list-subset':
      return `[${rule.values.join(', ')}]`;
    case 'throttled-replicas':
      return '[partitionId]:[brokerId],[partitionId]:[brokerId],... or *';
  }
}
