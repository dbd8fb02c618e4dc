/**
 * Parsing and checking one config value, the way Kafka's ConfigDef does.
 *
 * Guarantees:
 * - Input is trimmed first, as Kafka trims. Booleans are "true"/"false" in any case; shorts are
 *   16-bit, ints 32-bit and longs 64-bit decimal integers (checked exactly with BigInt); lists split on commas
 *   with surrounding whitespace, and an empty string is the empty list.
 * - A bad value throws `KafkaError('INVALID_CONFIG')` worded like Kafka's ConfigException:
 *   "Invalid value <v> for configuration <name>: <reason>".
 * - Numbers come back as JS numbers; Long.MAX (Kafka's "no limit") becomes `Infinity`.
 */
import { KafkaError } from '../../api/errors.js';
import type { ConfigDef } from './types.js';
import { LONG_MAX } from './types.js';

export type ConfigValue = boolean | number | string | readonly string[];

const SHORT_MIN = -(2n ** 15n);
const SHORT_MAX = 2n ** 15n - 1n;
const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
const LONG_MIN_BIG = -(2n ** 63n);
const LONG_MAX_BIG = BigInt(LONG_MAX);
const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const THROTTLED_REPLICA = /^\d+:\d+$/;

function invalid(name: string, value: string, reason: string): KafkaError {
  return new KafkaError('INVALID_CONFIG', `Invalid value ${value} for configuration ${name}: ${reason}`);
}

/** Kafka's list parsing: trim, then split on commas with any whitespace around them. */
export function splitList(raw: string): string[] {
  const trimmed = raw.trim();
  return trimmed === '' ? [] : trimmed.split(/\s*,\s*/);
}

function checkRange(def: ConfigDef, value: bigint | number, shown: string): void {
  const rule = def.rule;
  if (rule.kind !== 'range') return;
  const big = typeof value === 'bigint';
  const eq = (n: number): boolean => (big ? value === BigInt(n) : value === n);
  const lt = (n: number): boolean => (big ? value < BigInt(n) : value < n);
  const gt = (n: number): boolean => (big ? value > BigInt(n) : value > n);
  if (rule.alsoAllowed !== undefined && eq(rule.alsoAllowed)) return;
  if (rule.min !== undefined && lt(rule.min)) throw invalid(def.name, shown, `Value must be at least ${rule.min}`);
  if (rule.max !== undefined && gt(rule.max)) throw invalid(def.name, shown, `Value must be no more than ${rule.max}`);
}

function parseInteger(def: ConfigDef, raw: string): number {
  const trimmed = raw.trim();
  const kafkaType = def.type === 'short' ? 'SHORT' : def.type === 'int' ? 'INT' : 'LONG';
  if (!INTEGER.test(trimmed)) throw invalid(def.name, raw, `Not a number of type ${kafkaType}`);
  const value = BigInt(trimmed);
  const [lo, hi] = def.type === 'short' ? [SHORT_MIN, SHORT_MAX] : def.type === 'int' ? [INT_MIN, INT_MAX] : [LONG_MIN_BIG, LONG_MAX_BIG];
  if (value < lo || value > hi) throw invalid(def.name, raw, `Not a number of type ${kafkaType}`);
  checkRange(def, value, value.toString());
  return value === LONG_MAX_BIG ? Infinity : Number(value);
}

function parseDouble(def: ConfigDef, raw: string): number {
  const trimmed = raw.trim();
  const value = Number(trimmed);
  if (!DECIMAL.test(trimmed) || !Number.isFinite(value)) throw invalid(def.name, raw, 'Not a number of type DOUBLE');
  checkRange(def, value, String(value));
  return value;
}

function parseList(def: ConfigDef, raw: string): string[] {
  const items = splitList(raw);
  const rule = def.rule;
  if (rule.kind === 'list-subset') {
    for (const item of items) {
      if (!rule.values.includes(item)) throw invalid(def.name, item, `String must be one of: ${rule.values.join(', ')}`);
    }
  } else if (rule.kind === 'throttled-replicas') {
    const ok = (items.length === 1 && items[0] === '*') || items.every((item) => THROTTLED_REPLICA.test(item));
    if (!ok) {
      throw invalid(
        def.name,
        raw,
        `${def.name} must be the literal '*' or a list of replicas in the following format: ` +
          '[partitionId]:[brokerId],[partitionId]:[brokerId],...',
      );
    }
  }
  return items;
}

/**
 * Parse `raw` as a value of `def`, checking its rule. Throws INVALID_CONFIG with Kafka's wording.
 * Rules across several configs are not checked here; see `validateConfigs`.
 */
export function parseConfigValue(def: ConfigDef, raw: string): ConfigValue {
  switch (def.type) {
    case 'boolean': {
      const lower = raw.trim().toLowerCase();
      if (lower === 'true') return true;
      if (lower === 'false') return false;
      throw invalid(def.name, raw, 'Expected value to be either true or false');
    }
    case 'short':
    case 'int':
    case 'long':
      return parseInteger(def, raw);
    case 'double':
      return parseDouble(def, raw);
    case 'string': {
      const value = raw.trim();
      const rule = def.rule;
      if (rule.kind === 'enum' && !rule.values.includes(value)) {
        throw invalid(def.name, value, `String must be one of: ${rule.values.join(', ')}`);
      }
      return value;
    }
    case 'list':
      return parseList(def, raw);
  }
}
