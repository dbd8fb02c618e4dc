/**
 * Reads Kafka's message definitions (app/protocol/messages/*.json, grammar in the README there)
 * into the model the emitter walks. Invariants established here, so the emitter need not
 * re-check them:
 *   - every range is already intersected with what encloses it: a field's `versions` with its
 *     parent field's, and `nullableVersions` / `taggedVersions` with the field's own `versions`
 *     (the README names the upstream files where the raw ranges are wider);
 *   - a tagged field is tagged in a suffix of its versions (positional before, if at all);
 *   - struct names are unique within a message, since they become TypeScript type names;
 *   - a struct named by type only (no `fields`) is one of the message's `commonStructs` (the
 *     coordinator record schemas, e.g. GroupMetadataValue's MemberMetadata), read as if inline;
 *     one named by several fields is one struct, the same object in each of them.
 * Anything outside the grammar throws, naming the file and field: the generator must not guess.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Inclusive version range; `hi` is Infinity for "N+". Empty when lo > hi. */
export interface Range {
  lo: number;
  hi: number;
}
export const EMPTY: Range = { lo: 1, hi: 0 };

export const PRIMITIVES = ['bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'uuid', 'string', 'bytes', 'records'] as const;
export type Primitive = (typeof PRIMITIVES)[number];

export interface Field {
  /** Kafka's name, e.g. `TopicData`. */
  name: string;
  /** The TypeScript property, e.g. `topicData`. */
  prop: string;
  array: boolean;
  /** Set for primitives and arrays of primitives. */
  primitive: Primitive | null;
  /** Set for structs and arrays of structs: the struct's type name and its fields. */
  struct: { name: string; fields: Field[] } | null;
  versions: Range;
  nullable: Range;
  tagged: Range;
  tag: number | null;
  /** A field-level `flexibleVersions` (only RequestHeader.ClientId): overrides the message's. */
  flexibleOverride: Range | null;
  /** The raw `default`, a string or a number as the file has it. */
  default: string | number | undefined;
  ignorable: boolean;
}

export interface Message {
  name: string;
  file: string;
  /** `data`: not an API message (a record key/value schema, the consumer protocol's bytes). */
  type: 'request' | 'response' | 'header' | 'data';
  apiKey: number | null;
  valid: Range;
  flexible: Range;
  fields: Field[];
}

export function parseRange(spec: string | undefined, what: string): Range {
  if (spec === undefined || spec === 'none') return EMPTY;
  let m = /^(\d+)$/.exec(spec);
  if (m) return { lo: Number(m[1]), hi: Number(m[1]) };
  m = /^(\d+)-(\d+)$/.exec(spec);
  if (m) return { lo: Number(m[1]), hi: Number(m[2]) };
  m = /^(\d+)\+$/.exec(spec);
  if (m) return { lo: Number(m[1]), hi: Infinity };
  throw new Error(`${what}: bad version spec "${spec}"`);
}

export const isEmpty = (r: Range): boolean => r.lo > r.hi;
export function intersect(a: Range, b: Range): Range {
  const r = { lo: Math.max(a.lo, b.lo), hi: Math.min(a.hi, b.hi) };
  return isEmpty(r) ? EMPTY : r;
}

const camel = (name: string): string => name[0]!.toLowerCase() + name.slice(1);

interface RawField {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  flexibleVersions?: string;
  default?: string | number;
  ignorable?: boolean;
  fields?: RawField[];
}

/**
 * The message's `commonStructs`, by name: structs its fields name by type only. One named by
 * several fields (AddPartitionsToTxnRequest's AddPartitionsToTxnTopic, in its v4+ batch and its
 * v0–3 form) is parsed once, within the hull of the versions of the fields naming it.
 */
interface CommonStructs {
  fields: ReadonlyMap<string, RawField[]>;
  /** The hull of the versions of the fields that name each common struct more than once. */
  shared: ReadonlyMap<string, Range>;
  parsed: Map<string, Field['struct']>;
}

const hull = (a: Range, b: Range): Range => (isEmpty(a) ? b : isEmpty(b) ? a : { lo: Math.min(a.lo, b.lo), hi: Math.max(a.hi, b.hi) });

/** Each common struct named by more than one field, with the hull of those fields' versions. */
function sharedCommonStructs(raw: RawField[], valid: Range, names: ReadonlySet<string>, what: string): Map<string, Range> {
  const seen = new Map<string, { count: number; range: Range }>();
  const walk = (fields: RawField[], parent: Range): void => {
    for (const f of fields) {
      const versions = intersect(parseRange(f.versions, `${what}.${f.name}`), parent);
      const base = f.type.startsWith('[]') ? f.type.slice(2) : f.type;
      if (!f.fields && names.has(base)) {
        const s = seen.get(base) ?? { count: 0, range: EMPTY };
        seen.set(base, { count: s.count + 1, range: hull(s.range, versions) });
      }
      if (f.fields) walk(f.fields, versions);
    }
  };
  walk(raw, valid);
  return new Map([...seen].filter(([, s]) => s.count > 1).map(([name, s]) => [name, s.range]));
}

function parseFields(raw: RawField[], parent: Range, where: string, structNames: Set<string>, common: CommonStructs): Field[] {
  const tags = new Set<number>();
  return raw.map((f) => {
    const what = `${where}.${f.name}`;
    const versions = intersect(parseRange(f.versions, what), parent);
    const array = f.type.startsWith('[]');
    const base = array ? f.type.slice(2) : f.type;
    const primitive = (PRIMITIVES as readonly string[]).includes(base) ? (base as Primitive) : null;
    let struct: Field['struct'] = null;
    if (primitive === null) {
      const fields = f.fields ?? common.fields.get(base);
      if (!fields) throw new Error(`${what}: struct ${base} has no fields and is not a common struct`);
      const sharedRange = f.fields ? undefined : common.shared.get(base);
      const parsed = sharedRange ? common.parsed.get(base) : undefined;
      if (parsed) struct = parsed;
      else {
        if (structNames.has(base)) throw new Error(`${what}: struct name ${base} is used twice`);
        structNames.add(base);
        struct = { name: base, fields: parseFields(fields, sharedRange ?? versions, what, structNames, common) };
        if (sharedRange) common.parsed.set(base, struct);
      }
    } else if (f.fields) {
      throw new Error(`${what}: primitive ${base} has fields`);
    }
    const tagged = intersect(parseRange(f.taggedVersions, what), versions);
    if (!isEmpty(tagged)) {
      if (f.tag === undefined) throw new Error(`${what}: taggedVersions without a tag`);
      if (tagged.hi !== versions.hi) throw new Error(`${what}: tagged versions must be a suffix of its versions`);
      if (tags.has(f.tag)) throw new Error(`${what}: tag ${f.tag} is used twice`);
      tags.add(f.tag);
    }
    return {
      name: f.name,
      prop: camel(f.name),
      array,
      primitive,
      struct,
      versions,
      nullable: intersect(parseRange(f.nullableVersions, what), versions),
      tagged,
      tag: isEmpty(tagged) ? null : f.tag!,
      flexibleOverride: f.flexibleVersions === undefined ? null : parseRange(f.flexibleVersions, what),
      default: f.default,
      ignorable: f.ignorable === true,
    };
  });
}

/** Every message file in `dir` (index.json aside), sorted by name. */
export function loadMessages(dir: string): Message[] {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'index.json').sort();
  return files.map((file) => {
    const raw = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
      name: string;
      type: Message['type'];
      apiKey?: number;
      validVersions: string;
      flexibleVersions: string;
      fields: RawField[];
      commonStructs?: { name: string; fields: RawField[] }[];
    };
    const valid = parseRange(raw.validVersions, file);
    const commonFields = new Map((raw.commonStructs ?? []).map((c) => [c.name, c.fields]));
    const common: CommonStructs = { fields: commonFields, shared: sharedCommonStructs(raw.fields, valid, new Set(commonFields.keys()), raw.name), parsed: new Map() };
    return {
      name: raw.name,
      file,
      type: raw.type,
      apiKey: raw.apiKey ?? null,
      valid,
      flexible: intersect(parseRange(raw.flexibleVersions, file), { lo: 0, hi: Infinity }),
      fields: parseFields(raw.fields, valid, raw.name, new Set(), common),
    };
  });
}
