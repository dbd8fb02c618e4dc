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

export function kafkaConfigEntryViews(scope: 'topic' | 'broker', entries: ConfigEntryData[]): ConfigEntryView[] {
  return entries
    .map((e) => {
      const def = configDef(scope, e.name);
      const kafkaDefault = e.synonyms.find((s) => s.source === 5)?.value;
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
      } satisfies ConfigEntryView;
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
