/**
 * Shapes of the config catalogue. Values travel as strings, exactly as on Kafka's wire; a
 * definition says how to parse one (`type`), what it may be (`rule`) and what it is when unset
 * (`default`, printed the way Kafka prints it, e.g. Long.MAX as "9223372036854775807").
 *
 * Long values: Kafka's longs can exceed 2^53. The catalogue keeps every default as Kafka's exact
 * string and validation compares longs with BigInt, so ranges are exact. The typed getters return
 * JS numbers; Long.MAX (Kafka's "no limit" sentinel) becomes `Infinity`, and any other value above
 * 2^53 is rounded (no simulated clock or byte count gets near it).
 */

export type ConfigScope = 'topic' | 'broker';

/** Kafka's ConfigDef types that the catalogue uses. */
/** Kafka's ConfigDef types (`short` is a 16-bit integer, e.g. offsets.topic.replication.factor). */
export type ConfigType = 'boolean' | 'short' | 'int' | 'long' | 'double' | 'string' | 'list';

/** How a broker config may change (Kafka's `DynamicBrokerConfig` update modes). */
export type UpdateMode = 'read-only' | 'per-broker' | 'cluster-wide';

/** Kafka's ConfigDef importance, as the generated config tables on kafka.apache.org show it. */
export type ConfigImportance = 'high' | 'medium' | 'low';

/**
 * What a config does to the cluster's guarantees, one plain sentence per aspect, in our own words
 * (docs/semantics.md): `durability` = whether acknowledged data survives, `availability` =
 * whether clients can write and read, `performance` = throughput, latency and resource use.
 */
export interface ConfigEffect {
  durability?: string;
  availability?: string;
  performance?: string;
}

/** Kafka's Long.MAX_VALUE, as Kafka prints it. */
export const LONG_MAX = '9223372036854775807';

/** The validity rule of a config (Kafka's ConfigDef validators). */
export type ConfigRule =
  /** Any value of the type. */
  | { kind: 'any' }
  /** Inclusive bounds (Kafka `Range.atLeast` / `Range.between`); `alsoAllowed` is a sentinel outside them. */
  | { kind: 'range'; min?: number; max?: number; alsoAllowed?: number }
  /** One of the listed strings (Kafka `ValidString.in`, case-sensitive). */
  | { kind: 'enum'; values: readonly string[] }
  /** Every list element is one of the listed strings (Kafka `ValidList.in`); empty is allowed. */
  | { kind: 'list-subset'; values: readonly string[] }
  /** `*` or `partition:broker,…` (Kafka `ThrottledReplicaListValidator`). */
  | { kind: 'throttled-replicas' };

/** A broker config that supplies a topic config's default; `toMs` converts its unit to ms. */
export interface BrokerSynonym {
  name: string;
  toMs?: number;
}

interface ConfigDefBase {
  name: string;
  type: ConfigType;
  rule: ConfigRule;
  /** One line, in our own words. */
  doc: string;
  /** Kafka's importance for this config (`ConfigDef.Importance`). */
  importance: ConfigImportance;
  /** Its effect on durability, availability and performance; absent where we state none. */
  effect?: ConfigEffect;
  /** No config in the catalogue holds a secret. */
  sensitive: false;
}

export interface TopicConfigDef extends ConfigDefBase {
  scope: 'topic';
  /** Kafka's default when neither the topic nor the broker sets it. */
  default: string;
  /** The broker config that sets the cluster-wide default (its broker synonym), or null. */
  brokerSynonym: string | null;
  /** Every broker synonym in Kafka's order of precedence (first set one wins). */
  brokerSynonyms: readonly BrokerSynonym[];
}

export interface BrokerConfigDef extends ConfigDefBase {
  scope: 'broker';
  /** Kafka's default; null where Kafka has none and falls back to a synonym (e.g. `log.retention.ms`). */
  default: string | null;
  updateMode: UpdateMode;
}

/**
 * A definition as the value parser and the profile code read it. `importance` is optional here
 * only so that a spec built outside the catalogue (a producer or consumer setting handed to
 * `parseConfigValue`) need not invent one; every catalogue entry is a `TopicConfigDef` or
 * `BrokerConfigDef`, where it is required.
 */
export type ConfigDef = LooseImportance<TopicConfigDef> | LooseImportance<BrokerConfigDef>;
type LooseImportance<D extends ConfigDefBase> = Omit<D, 'importance'> & { importance?: ConfigImportance };
