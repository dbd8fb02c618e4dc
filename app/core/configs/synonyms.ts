/**
 * A config's synonyms as Kafka's DescribeConfigs lists them: every layer that sets it, most
 * specific first, ending with the default (ConfigHelper / DynamicBrokerConfig in Kafka):
 *
 *   topic config   DYNAMIC_TOPIC_CONFIG (the topic's override), then for each broker synonym in
 *                  precedence order its DYNAMIC_DEFAULT_BROKER_CONFIG and STATIC_BROKER_CONFIG
 *                  values (as set, in the broker config's own unit), then DEFAULT_CONFIG: the
 *                  first broker synonym that has a default (e.g. log.retention.hours=168), else
 *                  the topic config's own default
 *   broker config  DYNAMIC_BROKER_CONFIG (this broker), DYNAMIC_DEFAULT_BROKER_CONFIG (the
 *                  cluster-wide default), STATIC_BROKER_CONFIG (server.properties), DEFAULT_CONFIG
 *
 * The first synonym is the layer the effective value comes from (the config's `source`).
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

function brokerLayers(name: string, perBroker: ConfigMap | undefined, clusterDefaults: ConfigMap, staticConfigs: ConfigMap): ConfigSynonym[] {
  const def = brokerConfigDef(name);
  const dynamic = def?.updateMode !== 'read-only';
  const out: ConfigSynonym[] = [];
  const layers: [ConfigMap | undefined, ConfigSource, boolean][] = [
    [perBroker, 'DYNAMIC_BROKER_CONFIG', dynamic],
    [clusterDefaults, 'DYNAMIC_DEFAULT_BROKER_CONFIG', dynamic],
    [staticConfigs, 'STATIC_BROKER_CONFIG', true],
  ];
  for (const [map, source, applies] of layers) {
    const value = applies && map ? own(map, name) : undefined;
    if (value !== undefined) out.push({ name, value, source });
  }
  return out;
}

/** Synonyms of topic config `name` (empty for a name the catalogue does not know). */
export function topicConfigSynonyms(name: string, topicOverrides: ConfigMap, clusterDefaults: ConfigMap, staticConfigs: ConfigMap): ConfigSynonym[] {
  const def = topicConfigDef(name);
  if (!def) return [];
  const out: ConfigSynonym[] = [];
  const override = own(topicOverrides, name);
  if (override !== undefined) out.push({ name, value: override, source: 'DYNAMIC_TOPIC_CONFIG' });
  for (const synonym of def.brokerSynonyms) out.push(...brokerLayers(synonym.name, undefined, clusterDefaults, staticConfigs));
  const withDefault = def.brokerSynonyms.map((s) => brokerConfigDef(s.name)).find((b) => b?.default !== null && b?.default !== undefined);
  out.push(withDefault ? { name: withDefault.name, value: withDefault.default!, source: 'DEFAULT_CONFIG' } : { name, value: def.default, source: 'DEFAULT_CONFIG' });
  return out;
}

/** Synonyms of broker config `name` for one broker (`perBroker`: its own dynamic configs; undefined for the cluster-wide default resource). */
export function brokerConfigSynonyms(name: string, perBroker: ConfigMap | undefined, clusterDefaults: ConfigMap, staticConfigs: ConfigMap): ConfigSynonym[] {
  const def = brokerConfigDef(name);
  if (!def) return [];
  const out = brokerLayers(name, perBroker, clusterDefaults, staticConfigs);
  if (def.default !== null) out.push({ name, value: def.default, source: 'DEFAULT_CONFIG' });
  return out;
}
