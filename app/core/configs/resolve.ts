/**
 * Validating config changes and resolving effective values. Configs are stored as string maps,
 * as on Kafka's wire: a topic's overrides, the cluster-wide dynamic broker defaults (Kafka's
 * "<default>" broker entity), per-broker dynamic overrides, and optionally static broker configs
 * (the simulator's server.properties).
 *
 * Guarantees:
 * - Topic config resolution: topic override > broker synonyms in Kafka's order (each synonym:
 *   dynamic cluster default, then static), converted to the topic's unit > Kafka's default.
 *   `retention.ms` taken from a broker synonym is clamped to -1 when negative, as Kafka does.
 * - Broker config resolution: per-broker dynamic > cluster-wide dynamic > static > default.
 *   Dynamic entries of read-only configs are ignored, as Kafka's DynamicBrokerConfig ignores them.
 * - `validateConfigs` refuses, with INVALID_CONFIG: unknown names (a broker's may be allowed, as
 *   Kafka's DynamicBrokerConfig keeps custom keys); setting a read-only broker
 *   config (Kafka's "Cannot update these configs dynamically"); values that break the rule;
 *   min.compaction.lag.ms > max.compaction.lag.ms; less than 1 MiB of dedupe buffer per cleaner
 *   thread (Kafka's KafkaConfig check).
 * - Per-broker overrides of topic synonyms are not consulted when resolving topic configs: the
 *   simulator treats the log config defaults as cluster-wide.
 */
import { KafkaError } from '../../api/errors.js';
import { brokerConfigDef, configDef, removedTopicConfigHint, topicConfigDef, BROKER_CONFIGS, TOPIC_CONFIGS } from './catalogue.js';
import type { BrokerConfigDef, ConfigEffect, ConfigImportance, ConfigScope, TopicConfigDef } from './types.js';
import { LONG_MAX } from './types.js';
import { parseConfigValue, splitList } from './values.js';
import type { ConfigValue } from './values.js';

/** Where a described value came from (Kafka's DescribeConfigs `ConfigSource` names). */
export type ConfigSource =
  | 'DYNAMIC_TOPIC_CONFIG'
  | 'DYNAMIC_BROKER_CONFIG'
  | 'DYNAMIC_DEFAULT_BROKER_CONFIG'
  | 'STATIC_BROKER_CONFIG'
  | 'DEFAULT_CONFIG';

/**
 * One described config. `value` and `default` are Kafka's strings; where Kafka reports null (a
 * broker config with no default that defers to a synonym, e.g. `log.retention.ms`) they are ''.
 * `importance` is Kafka's; `effect` is present where the catalogue states one.
 */
export interface ResolvedConfig {
  name: string;
  value: string;
  default: string;
  source: ConfigSource;
  readOnly: boolean;
  sensitive: boolean;
  doc: string;
  importance: ConfigImportance;
  effect?: ConfigEffect;
}

type ConfigMap = Readonly<Record<string, string>>;

function own(map: ConfigMap, key: string): string | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

function unknownName(scope: ConfigScope, name: string): KafkaError {
  const hint = scope === 'topic' ? removedTopicConfigHint(name) : undefined;
  const base = `Unknown ${scope} config name: ${name}`;
  return new KafkaError('INVALID_CONFIG', hint === undefined ? base : `${base} (${hint})`);
}

/**
 * Check a set of changes (`null` = delete, back to the inherited value) for `scope`. Throws
 * INVALID_CONFIG naming the key and the rule. Cross-key rules use the values in `set`, falling
 * back to Kafka's defaults; pass the merged map to check them against existing overrides too.
 * `options.static` validates a static broker configuration, where read-only configs are allowed.
 */
export function validateConfigs(
  scope: ConfigScope,
  set: Readonly<Record<string, string | null>>,
  options: { static?: boolean; customBrokerKeys?: boolean } = {},
): void {
  const entries = Object.entries(set);
  for (const [name] of entries) {
    // Kafka's dynamic broker config keeps names it does not know (a plugin's, say) without effect.
    if (configDef(scope, name) === undefined && !(scope === 'broker' && options.customBrokerKeys === true)) throw unknownName(scope, name);
  }
  if (scope === 'broker' && options.static !== true) {
    const readOnly = entries
      .filter(([name, value]) => value !== null && brokerConfigDef(name)?.updateMode === 'read-only')
      .map(([name]) => name)
      .sort();
    if (readOnly.length > 0) {
      throw new KafkaError(
        'INVALID_CONFIG',
        `Cannot update these configs dynamically: Set(${readOnly.join(', ')}). ` +
          'They are read-only: change them in the static broker configuration and restart the broker.',
      );
    }
  }
  const parsed = new Map<string, ConfigValue>();
  for (const [name, value] of entries) {
    if (value === null) continue;
    const def = configDef(scope, name);
    if (def === undefined) continue; // a custom broker key, kept without a value to check
    const v = parseConfigValue(def, value);
    parsed.set(name, v);
  }
  if (scope === 'broker') checkCleanerMemory(parsed);
  const [minKey, maxKey] =
    scope === 'topic'
      ? ['min.compaction.lag.ms', 'max.compaction.lag.ms']
      : ['log.cleaner.min.compaction.lag.ms', 'log.cleaner.max.compaction.lag.ms'];
  const shown = (key: string, fallback: string): string => (parsed.has(key) ? (set[key] ?? fallback).trim() : fallback);
  if (parsed.has(minKey) || parsed.has(maxKey)) {
    const min = parsed.get(minKey) ?? 0;
    const max = parsed.get(maxKey) ?? Infinity;
    if (typeof min === 'number' && typeof max === 'number' && min > max) {
      throw new KafkaError(
        'INVALID_CONFIG',
        `conflict topic config setting min.compaction.lag.ms (${shown(minKey, '0')}) > ` +
          `max.compaction.lag.ms (${shown(maxKey, LONG_MAX)})`,
      );
    }
  }
}

/**
 * One broker's static configuration: the cluster's server.properties plus the lines that differ
 * per broker — node.id and broker.id (its id) and broker.rack (as it registered) — which
 * DescribeConfigs reports as STATIC_BROKER_CONFIG, as a KRaft broker's own file sets them.
 */
export function brokerStaticConfigs(staticConfigs: ConfigMap, brokerId: number, rack: string | null): Record<string, string> {
  return { ...staticConfigs, 'node.id': String(brokerId), 'broker.id': String(brokerId), ...(rack !== null ? { 'broker.rack': rack } : {}) };
}

/**
 * Kafka's KafkaConfig check "log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner
 * thread", on the values being set (the others at their defaults).
 */
function checkCleanerMemory(parsed: ReadonlyMap<string, ConfigValue>): void {
  if (!parsed.has('log.cleaner.dedupe.buffer.size') && !parsed.has('log.cleaner.threads')) return;
  const size = parsed.get('log.cleaner.dedupe.buffer.size') ?? 134_217_728;
  const threads = parsed.get('log.cleaner.threads') ?? 1;
  if (typeof size !== 'number' || typeof threads !== 'number' || threads <= 0) return;
  if (Math.floor(size / threads) <= 1024 * 1024) {
    throw new KafkaError('INVALID_CONFIG', 'log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.');
  }
}

/** A synonym's value in the topic config's unit, or undefined if no level sets it. */
function fromBrokerSynonyms(
  def: TopicConfigDef,
  clusterDefaults: ConfigMap,
  staticBroker: ConfigMap,
): { value: string; source: ConfigSource } | undefined {
  for (const synonym of def.brokerSynonyms) {
    const levels: [ConfigMap, ConfigSource][] = [
      [clusterDefaults, 'DYNAMIC_DEFAULT_BROKER_CONFIG'],
      [staticBroker, 'STATIC_BROKER_CONFIG'],
    ];
    for (const [map, source] of levels) {
      if (source !== 'STATIC_BROKER_CONFIG' && brokerConfigDef(synonym.name)?.updateMode === 'read-only') continue;
      const raw = own(map, synonym.name);
      if (raw === undefined) continue;
      let value = raw.trim();
      try {
        if (synonym.toMs !== undefined) value = (BigInt(value) * BigInt(synonym.toMs)).toString();
        if (def.name === 'retention.ms' && BigInt(value) < 0n) value = '-1';
      } catch {
        throw new KafkaError('INTERNAL', `Stored broker config ${synonym.name}=${raw} is not a valid number`);
      }
      return { value, source };
    }
  }
  return undefined;
}

function resolveTopic(def: TopicConfigDef, overrides: ConfigMap, clusterDefaults: ConfigMap, staticBroker: ConfigMap) {
  const override = own(overrides, def.name);
  if (override !== undefined) return { value: override, source: 'DYNAMIC_TOPIC_CONFIG' as ConfigSource };
  return fromBrokerSynonyms(def, clusterDefaults, staticBroker) ?? { value: def.default, source: 'DEFAULT_CONFIG' as ConfigSource };
}

function resolveBroker(def: BrokerConfigDef, perBroker: ConfigMap, clusterDefaults: ConfigMap, staticConfigs: ConfigMap) {
  const dynamic = def.updateMode !== 'read-only';
  const levels: [ConfigMap, ConfigSource, boolean][] = [
    [perBroker, 'DYNAMIC_BROKER_CONFIG', dynamic],
    [clusterDefaults, 'DYNAMIC_DEFAULT_BROKER_CONFIG', dynamic],
    [staticConfigs, 'STATIC_BROKER_CONFIG', true],
  ];
  for (const [map, source, applies] of levels) {
    const value = applies ? own(map, def.name) : undefined;
    if (value !== undefined) return { value, source };
  }
  return { value: def.default ?? '', source: 'DEFAULT_CONFIG' as ConfigSource };
}

/** The catalogue's description of a config, as every described entry carries it. */
function describedMeta(def: TopicConfigDef | BrokerConfigDef): Pick<ResolvedConfig, 'sensitive' | 'doc' | 'importance' | 'effect'> {
  return {
    sensitive: def.sensitive,
    doc: def.doc,
    importance: def.importance,
    ...(def.effect !== undefined ? { effect: { ...def.effect } } : {}),
  };
}

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Every topic config with its effective value and source, sorted by name. */
export function describeTopicConfigs(
  topicOverrides: ConfigMap,
  clusterDefaults: ConfigMap,
  staticBroker: ConfigMap = {},
): ResolvedConfig[] {
  return [...TOPIC_CONFIGS].sort(byName).map((def) => ({
    name: def.name,
    ...resolveTopic(def, topicOverrides, clusterDefaults, staticBroker),
    default: def.default,
    readOnly: false,
    ...describedMeta(def),
  }));
}

/** Every broker config for one broker with its effective value and source, sorted by name. */
export function describeBrokerConfigs(
  perBroker: ConfigMap,
  clusterDefaults: ConfigMap,
  staticConfigs: ConfigMap = {},
): ResolvedConfig[] {
  return [...BROKER_CONFIGS].sort(byName).map((def) => ({
    name: def.name,
    ...resolveBroker(def, perBroker, clusterDefaults, staticConfigs),
    default: def.default ?? '',
    readOnly: def.updateMode === 'read-only',
    ...describedMeta(def),
  }));
}

function requireTopicDef(name: string): TopicConfigDef {
  const def = topicConfigDef(name);
  if (def === undefined) throw new KafkaError('INTERNAL', `No such topic config: ${name}`);
  return def;
}

function requireBrokerDef(name: string): BrokerConfigDef {
  const def = brokerConfigDef(name);
  if (def === undefined) throw new KafkaError('INTERNAL', `No such broker config: ${name}`);
  return def;
}

/** Parse a stored (already validated) value; a failure here is our bug, not the user's input. */
function parseStored(def: TopicConfigDef | BrokerConfigDef, value: string): ConfigValue {
  try {
    return parseConfigValue(def, value);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    throw new KafkaError('INTERNAL', `Stored ${def.scope} config ${def.name}=${value} is invalid: ${reason}`);
  }
}

function asNumber(def: TopicConfigDef | BrokerConfigDef, value: string): number {
  if (def.type !== 'short' && def.type !== 'int' && def.type !== 'long' && def.type !== 'double') {
    throw new KafkaError('INTERNAL', `${def.name} is a ${def.type} config, not a number`);
  }
  if (value === '') throw new KafkaError('INTERNAL', `${def.name} has no value (Kafka defers to a synonym)`);
  return parseStored(def, value) as number;
}

function asBoolean(def: TopicConfigDef | BrokerConfigDef, value: string): boolean {
  if (def.type !== 'boolean') throw new KafkaError('INTERNAL', `${def.name} is a ${def.type} config, not a boolean`);
  return parseStored(def, value) as boolean;
}

/** The effective value of topic config `name` (unknown name → INTERNAL). */
export function topicConfigValue(
  name: string,
  topicOverrides: ConfigMap,
  clusterDefaults: ConfigMap,
  staticBroker: ConfigMap = {},
): string {
  return resolveTopic(requireTopicDef(name), topicOverrides, clusterDefaults, staticBroker).value;
}

/** The effective numeric value; Long.MAX ("no limit") is `Infinity`. */
export function topicConfigNumber(
  name: string,
  topicOverrides: ConfigMap,
  clusterDefaults: ConfigMap,
  staticBroker: ConfigMap = {},
): number {
  return asNumber(requireTopicDef(name), topicConfigValue(name, topicOverrides, clusterDefaults, staticBroker));
}

export function topicConfigBoolean(
  name: string,
  topicOverrides: ConfigMap,
  clusterDefaults: ConfigMap,
  staticBroker: ConfigMap = {},
): boolean {
  return asBoolean(requireTopicDef(name), topicConfigValue(name, topicOverrides, clusterDefaults, staticBroker));
}

/** The effective list value (e.g. `leader.replication.throttled.replicas`). */
export function topicConfigList(
  name: string,
  topicOverrides: ConfigMap,
  clusterDefaults: ConfigMap,
  staticBroker: ConfigMap = {},
): string[] {
  const def = requireTopicDef(name);
  if (def.type !== 'list') throw new KafkaError('INTERNAL', `${name} is a ${def.type} config, not a list`);
  return splitList(topicConfigValue(name, topicOverrides, clusterDefaults, staticBroker));
}

/** The effective value of broker config `name` on one broker ('' where Kafka has none). */
export function brokerConfigValue(
  name: string,
  perBroker: ConfigMap,
  clusterDefaults: ConfigMap,
  staticConfigs: ConfigMap = {},
): string {
  return resolveBroker(requireBrokerDef(name), perBroker, clusterDefaults, staticConfigs).value;
}

/** The effective numeric value; Long.MAX ("no limit") is `Infinity`. */
export function brokerConfigNumber(
  name: string,
  perBroker: ConfigMap,
  clusterDefaults: ConfigMap,
  staticConfigs: ConfigMap = {},
): number {
  return asNumber(requireBrokerDef(name), brokerConfigValue(name, perBroker, clusterDefaults, staticConfigs));
}

export function brokerConfigBoolean(
  name: string,
  perBroker: ConfigMap,
  clusterDefaults: ConfigMap,
  staticConfigs: ConfigMap = {},
): boolean {
  return asBoolean(requireBrokerDef(name), brokerConfigValue(name, perBroker, clusterDefaults, staticConfigs));
}
