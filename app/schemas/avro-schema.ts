/**
 * Avro schemas through avsc: parsing (with named types from references), binary decoding and
 * encoding, and compatibility by avsc's own schema resolution (a reader can read a writer's data
 * exactly when avsc can build a resolver from the writer's type to the reader's, as the Avro
 * specification's resolution rules say).
 *
 * Decoded values are made JSON-compatible: bytes and fixed become strings of one code point per
 * byte (Avro's JSON encoding of bytes), longs beyond 2^53 stay numbers as avsc reads them, and
 * unions are unwrapped where avsc can (its `wrapUnions: 'auto'`), so a filter reads
 * `value.amount`, not `value.amount.double`.
 */
import avro from 'avsc';
import { SchemaParseError, type ParsedSchema, type ResolvedReference } from './schema-types.js';

type AvroType = avro.Type;

export function parseAvro(text: string, references: readonly ResolvedReference[]): ParsedSchema {
  const registry: Record<string, AvroType> = {};
  for (const ref of flatten(references)) forSchema(ref.schema, registry, `reference ${ref.name}`);
  const type = forSchema(text, registry, 'schema');
  const canonical = JSON.stringify(type.schema({ exportAttrs: true }));
  let stored: string;
  try {
    stored = JSON.stringify(JSON.parse(text));
  } catch {
    stored = JSON.stringify(text.trim());
  }
  return {
    type: 'AVRO',
    canonical,
    text: stored,
    decode(payload) {
      const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
      return jsonValue(type.fromBuffer(buf));
    },
    encode(value) {
      const problems: string[] = [];
      const hook = (path: string[], v: unknown, t: AvroType) => problems.push(`${path.length ? path.join('.') : '(the value)'}: ${JSON.stringify(v) ?? 'undefined'} is not ${describe(t)}`);
      if (type.isValid(value, { errorHook: hook })) return { payload: new Uint8Array(type.toBuffer(value)) };
      // Bytes and fixed fields given as JSON strings (one code point per byte) are Avro's JSON form.
      let coerced: unknown;
      try {
        coerced = type.clone(value, { coerceBuffers: true });
      } catch {
        throw new Error(problems[0] ?? 'the value does not match the schema');
      }
      if (!type.isValid(coerced)) throw new Error(problems[0] ?? 'the value does not match the schema');
      return { payload: new Uint8Array(type.toBuffer(coerced)) };
    },
    readProblems(writer) {
      const writerType = (writer as AvroParsed).avroType;
      try {
        type.createResolver(writerType);
        return [];
      } catch (e) {
        return [`a reader with the new schema cannot read data written with the old one: ${(e as Error).message}`];
      }
    },
    avroType: type,
  } as AvroParsed;
}

interface AvroParsed extends ParsedSchema {
  avroType: AvroType;
}

function forSchema(text: string, registry: Record<string, AvroType>, what: string): AvroType {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Avro allows a bare primitive name such as `string`, which is not JSON.
    json = text.trim();
  }
  try {
    return avro.Type.forSchema(json as avro.Schema, { registry, wrapUnions: 'auto' });
  } catch (e) {
    throw new SchemaParseError(`Invalid Avro ${what}: ${(e as Error).message}`);
  }
}

function describe(t: AvroType): string {
  const name = t.name ?? t.typeName;
  return name === t.typeName ? `a valid ${name}` : `a valid ${t.typeName} ${name}`;
}

function flatten(refs: readonly ResolvedReference[]): ResolvedReference[] {
  // Depth first, dependencies before dependants: a named type must be known before it is used.
  return refs.flatMap((r) => [...flatten(r.references), r]);
}

function jsonValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? Number(v) : v;
  if (Buffer.isBuffer(v)) return Array.from(v, (b) => String.fromCharCode(b)).join('');
  if (Array.isArray(v)) return v.map(jsonValue);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, jsonValue(x)]));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = jsonValue(x);
  return out;
}
