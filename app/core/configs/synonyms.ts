/**
 * A config's synonyms as Kafka's DescribeConfigs lists them (ConfigHelper.configSynonyms with
 * DynamicBrokerConfig.brokerConfigSynonyms and ServerTopicConfigSynonyms):
 *
 *   broker config  the layers that set it or a broker config that sets the same thing
 *                  (`log.retention.ms`/`.minutes`/`.hours`, `log.roll.ms`/`.hours`,
 *                  `log.roll.jitter.ms`/`.hours`, `log.flush.interval.ms` then
 *                  `log.flush.scheduler.interval.ms`), layer by layer — DYNAMIC_BROKER_CONFIG (this
 *                  broker), DYNAMIC_DEFAULT_BROKER_CONFIG (the cluster-wide default),
 *                  STATIC_BROKER_CONFIG (server.properties), DEFAULT_CONFIG (Kafka's default, where
 *                  it has one) — and, within a layer, in that precedence order; then everything
 *                  before the first entry of the config's own name is dropped
 *   topic config   the topic's override (DYNAMIC_TOPIC_CONFIG), then the list above for its first
 *                  broker synonym only (`retention.ms` → `log.retention.ms`): with only
 *                  `log.retention.hours`' default in place that list is empty, since nothing
 *                  names `log.retention.ms`; a topic config without a broker synonym (the
 *                  throttled-replica lists) has only its override
 *
 * The first synonym is the layer the effective value comes from (the config's `source`), or
 * there is none and the value is a default.
 */
import { brokerConfigDef, topicConfigDef } from './catalogue.js';
import type { ConfigSource } from './resolve.js';

export interface ConfigSynonym {
  name: string;
  value: string;
  source: ConfigSource;
}

type ConfigMap = Readonly<Record<string, string>>;

const own = (map: ConfigMap, key: string): string | undefined => (Object.hasOwn(map, key) ? map[key] : undefined);

/** Broker configs that set the same thing, in precedence order (Kafka's DynamicBrokerConfig.brokerConfigSynonyms). */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['log.roll.ms', 'log.roll.hours'],
  ['log.roll.jitter.ms', 'log.roll.jitter.hours'],
  ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
];

function brokerNameGroup(name: string): readonly string[] {
  // Only log.flush.interval.ms has log.flush.scheduler.interval.ms as its fallback, not the reverse.
  if (name === 'log.flush.interval.ms') return ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'];
  return SYNONYM_GROUPS.find((g) => g.includes(name)) ?? [name];
}

function layered(name: string, perBroker: ConfigMap | undefined, clusterDefaults: ConfigMap, staticConfigs: ConfigMap): ConfigSynonym[] {
  const names = brokerNameGroup(name);
  const out: ConfigSynonym[] = [];
  const dynamic = (n: string): boolean => brokerConfigDef(n)?.updateMode !== 'read-only';
  const layers: [ConfigMap | undefined, ConfigSource, (n: string) => boolean][] = [
    [perBroker, 'DYNAMIC_BROKER_CONFIG', dynamic],
    [clusterDefaults, 'DYNAMIC_DEFAULT_BROKER_CONFIG', dynamic],
    [staticConfigs, 'STATIC_BROKER_CONFIG', () => true],
  ];
  for (const [map, source, applies] of layers) {
    for (const n of names) {
      const value = map && applies(n) ? own(map, n) : undefined;
      if (value !== undefined) out.push({ name: n, value, source });
    }
  }
  for (const n of names) {
    const d = brokerConfigDef(n)?.default;
    if (d !== null && d !== undefined) out.push({ name: n, value: d, source: 'DEFAULT_CONFIG' });
  }
  const first = out.findIndex((s) => s.name === name);
  return first < 0 ? [] : out.slice(first);
}

/** Synonyms of topic config `name` (empty for a name the catalogue does not know). */
export function topicConfigSynonyms(name: string, topicOverrides: ConfigMap, clusterDefaults: ConfigMap, staticConfigs: ConfigMap): ConfigSynonym[] {
  const def = topicConfigDef(name);
  if (!def) return [];
  const primary = def.brokerSynonyms[0]?.name;
  const out = primary === undefined ? [] : layered(primary, undefined, clusterDefaults, staticConfigs);
  const override = own(topicOverrides, name);
  return override === undefined ? out : [{ name, value: override, source: 'DYNAMIC_TOPIC_CONFIG' }, ...out];
}

/** Synonyms of broker config `name` for one broker (`perBroker`: its own dynamic configs; undefined for the cluster-wide default resource). */
export function brokerConfigSynonyms(name: string, perBroker: ConfigMap | undefined, clusterDefaults: ConfigMap, staticConfigs: ConfigMap): ConfigSynonym[] {
  if (!brokerConfigDef(name)) return [];
  return layered(name, perBroker, clusterDefaults, staticConfigs);
}
