/**
 * How the Configs page shows a config: readable names for Kafka's source layers, a plain reading
 * of numeric values by their unit (`604800000` on a `.ms` key is 7 d), whether a value differs
 * from Kafka's default, and which editor a config's type and validity rule call for.
 */
import type { ConfigEntryView, ConfigSourceView } from '../../../../app/api/contract.js';
import { bytes, duration } from '../format.js';

export type TagType = 'default' | 'info' | 'success' | 'warning' | 'error' | 'primary';

export interface SourceInfo {
  label: string;
  type: TagType;
  /** Where such a value is set, in one sentence. */
  explain: string;
}

/** Kafka's layers, most specific first (the order a value is resolved in). */
export const SOURCE_INFO: Record<ConfigSourceView, SourceInfo> = {
  DYNAMIC_TOPIC_CONFIG: { label: 'Topic override', type: 'success', explain: 'Set on this topic (kafka-configs.sh --entity-type topics --alter).' },
  DYNAMIC_BROKER_CONFIG: { label: 'Per-broker dynamic', type: 'primary', explain: 'Set dynamically on this broker (kafka-configs.sh --entity-type brokers --entity-name <id>).' },
  DYNAMIC_DEFAULT_BROKER_CONFIG: { label: 'Cluster-wide dynamic', type: 'warning', explain: 'Set dynamically as the default of every broker (kafka-configs.sh --entity-type brokers --entity-default).' },
  STATIC_BROKER_CONFIG: { label: 'Static (server.properties)', type: 'info', explain: 'Read from the broker’s server.properties at start-up.' },
  DEFAULT_CONFIG: { label: 'Kafka default', type: 'default', explain: 'Nobody set it: Kafka’s built-in default applies.' },
};

export const SOURCE_ORDER: ConfigSourceView[] = ['DYNAMIC_TOPIC_CONFIG', 'DYNAMIC_BROKER_CONFIG', 'DYNAMIC_DEFAULT_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG'];

const LONG_MAX = '9223372036854775807';
const INT_MAX = '2147483647';

function scaledDuration(name: string, n: number): string | null {
  if (name.endsWith('.ms')) return n >= 1000 ? duration(n) : null;
  if (name.endsWith('.seconds')) return n >= 60 ? duration(n * 1000) : null;
  if (name.endsWith('.minutes')) return duration(n * 60_000);
  if (name.endsWith('.hours')) return duration(n * 3_600_000);
  return null;
}

/** A plain reading of a value by its unit, or null when the raw value says it all. */
export function humanValue(name: string, value: string): string | null {
  const v = value.trim();
  if (!/^-?\d+$/.test(v)) return null;
  if (v === LONG_MAX) return 'Long.MAX: no limit';
  if (v === INT_MAX) return 'Integer.MAX';
  const n = Number(v);
  if (n === -1 && (name.includes('retention') || name.endsWith('.bytes'))) return 'no limit';
  if (n < 0) return null;
  const time = scaledDuration(name, n);
  if (time) return time;
  const isBytes = name.endsWith('.bytes') || name.endsWith('.rate') || name.endsWith('.max.bytes');
  if (isBytes && n >= 1024) return name.endsWith('.rate') ? `${bytes(n)}/s` : bytes(n);
  return null;
}

/**
 * A config's default as the console shows it: the value it would take without the resource's own
 * setting, and the layer that value comes from (the cluster-wide default, server.properties or
 * Kafka's) — what deleting the override gives. Kafka's own default where the connection cannot
 * tell the layers apart.
 */
export function defaultOf(e: ConfigEntryView): { value: string; source: ConfigSourceView } {
  return e.inherited ?? { value: e.default, source: 'DEFAULT_CONFIG' };
}

/** "2 (cluster-wide dynamic)": the default and where it comes from, in words. */
export function defaultText(e: ConfigEntryView): string {
  const d = defaultOf(e);
  return `${d.value === '' ? '(none)' : d.value} (${SOURCE_INFO[d.source].label.toLowerCase()})`;
}

/** The value differs from its default ('' defaults defer to a synonym: any value differs). */
export function differsFromDefault(e: ConfigEntryView): boolean {
  return e.value.trim() !== defaultOf(e).value.trim();
}

/** Set somewhere (any layer above Kafka's default) or not at its default. */
export function isModified(e: ConfigEntryView): boolean {
  return e.source !== 'DEFAULT_CONFIG' || differsFromDefault(e);
}

export type EditorKind = { kind: 'boolean' } | { kind: 'choice'; options: string[] } | { kind: 'text' };

/** Booleans and closed string sets get a select; numbers (longs exceed JS integers) and lists get text. */
export function editorKind(e: ConfigEntryView): EditorKind {
  if (e.type === 'boolean') return { kind: 'boolean' };
  const closed = /^\[([^\]]+)\]$/.exec(e.validValues);
  if (e.type === 'string' && closed && !closed[1]!.includes('...')) {
    return { kind: 'choice', options: closed[1]!.split(',').map((s) => s.trim()) };
  }
  return { kind: 'text' };
}

/** Why a read-only config cannot be edited here. */
export const READ_ONLY_REASON =
  'Read-only: Kafka reads it from server.properties only when the broker starts, so kafka-configs.sh cannot change it. Set it in the static configuration and restart the broker.';

export const EFFECT_ASPECTS = [
  { key: 'durability', label: 'Durability', type: 'error' },
  { key: 'availability', label: 'Availability', type: 'warning' },
  { key: 'performance', label: 'Performance', type: 'info' },
] as const;
