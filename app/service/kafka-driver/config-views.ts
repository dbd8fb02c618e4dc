/**
 * An external cluster's DescribeConfigs answer as `configs.describe` shows configs: the value and
 * the layer it comes from are Kafka's own (ConfigSource); the default is the DEFAULT_CONFIG
 * synonym Kafka lists (else our catalogue's); the synonyms are listed in Kafka's order (most
 * specific first), so the console shows every layer that sets the config. Docs, type, valid
 * values, importance and effect come from our catalogue for the configs it knows (the ones the
 * console explains), else from what the broker sent (DescribeConfigs v3+).
 */
import type { ConfigEntryView, ConfigSourceView } from '../../api/contract.js';
import { configDef, validValuesText } from '../../core/configs/catalogue.js';
import type { ConfigEntryData } from '../../kafka-client/types.js';

const SOURCES: Record<number, ConfigSourceView> = {
  1: 'DYNAMIC_TOPIC_CONFIG',
  2: 'DYNAMIC_BROKER_CONFIG',
  3: 'DYNAMIC_DEFAULT_BROKER_CONFIG',
  4: 'STATIC_BROKER_CONFIG',
  5: 'DEFAULT_CONFIG',
  // DYNAMIC_BROKER_LOGGER_CONFIG: set on that broker at run time.
  6: 'DYNAMIC_BROKER_CONFIG',
};

/** Kafka's ConfigSource number as the contract names it. */
export function sourceView(source: number): ConfigSourceView {
  return SOURCES[source] ?? 'DEFAULT_CONFIG';
}

/** DescribeConfigs v3's ConfigType numbers as the contract's types. */
function typeView(entry: ConfigEntryData): ConfigEntryView['type'] {
  const known = configDef('topic', entry.name) ?? configDef('broker', entry.name);
  if (known) return known.type;
  return 'string';
}

const MS_PER: Record<string, number> = { ms: 1, seconds: 1_000, minutes: 60_000, hours: 3_600_000 };

/**
 * A synonym's value in the unit of the config it stands for. Kafka lists a topic's broker-level
 * synonyms as they are set — retention.ms's default comes as log.retention.hours=168, segment.ms's
 * as log.roll.hours=168 — so a default read off a synonym in other units is converted to ms.
 */
export function synonymInUnitOf(configName: string, synonymName: string, value: string): string {
  if (!configName.endsWith('.ms')) return value;
  const factor = MS_PER[synonymName.slice(synonymName.lastIndexOf('.') + 1)];
  const n = Number(value);
  if (factor === undefined || factor === 1 || value.trim() === '' || !Number.isFinite(n)) return value;
  return String(n * factor);
}

/** The layer a resource's own setting lives in (the one `configs.alter` on it writes). */
function ownSource(scope: 'topic' | 'broker', resourceName: string | undefined): number {
  if (scope === 'topic') return 1;
  return resourceName === '' ? 3 : 2;
}

/**
 * The value a config would take without the resource's own setting: the first synonym of another
 * layer, in the config's unit (retention.ms from log.retention.hours; a negative retention.ms
 * from a broker synonym is -1, as Kafka's LogConfig reads it). Undefined without synonyms.
 */
function inheritedOf(scope: 'topic' | 'broker', resourceName: string | undefined, e: ConfigEntryData): ConfigEntryView['inherited'] {
  const own = ownSource(scope, resourceName);
  const next = e.synonyms.find((s) => s.source !== own && s.value !== null);
  if (!next) return undefined;
  let value = synonymInUnitOf(e.name, next.name, next.value!);
  if (e.name === 'retention.ms' && Number(value) < 0) value = '-1';
  return { value, source: sourceView(next.source) };
}

export function kafkaConfigEntryViews(scope: 'topic' | 'broker', entries: ConfigEntryData[], resourceName?: string): ConfigEntryView[] {
  return entries
    .map((e) => {
      const def = configDef(scope, e.name);
      const inherited = inheritedOf(scope, resourceName, e);
      const defaultSynonym = e.synonyms.find((s) => s.source === 5 && s.value !== null);
      const kafkaDefault = defaultSynonym ? synonymInUnitOf(e.name, defaultSynonym.name, defaultSynonym.value!) : undefined;
      return {
        name: e.name,
        value: e.value ?? '',
        default: kafkaDefault ?? (def ? (def.default ?? '') : ''),
        source: sourceView(e.source),
        readOnly: e.readOnly,
        sensitive: e.sensitive,
        doc: def?.doc ?? e.documentation ?? '',
        type: def?.type ?? typeView(e),
        validValues: def ? validValuesText(def.rule) : '',
        importance: def?.importance ?? 'low',
        ...(def?.effect !== undefined ? { effect: { ...def.effect } } : {}),
        synonyms: e.synonyms.map((s) => ({ name: s.name, value: s.value ?? '', source: sourceView(s.source) })),
        ...(inherited ? { inherited } : {}),
      } satisfies ConfigEntryView;
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
