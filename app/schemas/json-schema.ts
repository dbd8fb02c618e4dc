/**
 * JSON Schemas through ajv: parsing and compiling (references are added to ajv under their
 * names, so `"$ref": "address.json"` finds the reference named address.json), validation of what
 * the console encodes, and compatibility.
 *
 * Compatibility asks whether every document the writer's schema accepts is accepted by the
 * reader's, structurally, as Confluent's JSON Schema checks do for the common keywords:
 * - `type`: the reader accepts each type the writer allows (integer within number);
 * - `enum`: the reader's values include the writer's;
 * - objects: a property the reader requires must be required by the writer; a property the
 *   reader constrains but the writer does not know, in a writer's open content model (additional
 *   properties allowed), may carry anything, so it is a problem; a property the writer has and
 *   a closed reader (`additionalProperties: false`) lacks is a problem; known properties are
 *   compared recursively, as are `items` and `additionalProperties` schemas;
 * - bounds (`minimum`, `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`) may only widen;
 * - `$ref`s must name the same schema.
 * Keywords beyond these are not compared (documented in docs/operations.md#schema-registry).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { SchemaParseError, type ParsedSchema, type ResolvedReference } from './schema-types.js';

type Json = Record<string, unknown> | boolean;

export function parseJsonSchema(text: string, references: readonly ResolvedReference[]): ParsedSchema {
  const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true });
  const added = new Set<string>();
  const add = (refs: readonly ResolvedReference[]): void => {
    for (const r of refs) {
      add(r.references);
      if (added.has(r.name)) continue;
      added.add(r.name);
      try {
        ajv.addSchema(JSON.parse(r.schema) as object, r.name);
      } catch (e) {
        throw new SchemaParseError(`Invalid JSON Schema reference ${r.name}: ${(e as Error).message}`);
      }
    }
  };
  add(references);
  let schema: Json;
  let validate: ValidateFunction;
  try {
    schema = JSON.parse(text) as Json;
    if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) throw new Error('a JSON Schema is an object or a boolean');
    validate = ajv.compile(schema);
  } catch (e) {
    throw new SchemaParseError(`Invalid JSON Schema: ${(e as Error).message}`);
  }
  const self: ParsedSchema & { json: Json } = {
    type: 'JSON',
    canonical: JSON.stringify(schema),
    text: JSON.stringify(schema),
    json: schema,
    decode(payload) {
      return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload)) as unknown;
    },
    encode(value) {
      if (!validate(value)) {
        const e = validate.errors?.[0];
        throw new Error(`${e?.instancePath || '(the value)'} ${e?.message ?? 'does not match the schema'}`);
      }
      return { payload: new TextEncoder().encode(JSON.stringify(value)) };
    },
    readProblems(writer) {
      const problems: string[] = [];
      compare(schema, (writer as typeof self).json, '#', problems);
      return problems;
    },
  };
  return self;
}

const acceptsAll = (s: Json | undefined): boolean => s === undefined || s === true || (typeof s === 'object' && Object.keys(s).length === 0);

function types(s: Record<string, unknown>): string[] | null {
  const t = s['type'];
  if (t === undefined) return null;
  return Array.isArray(t) ? (t as string[]) : [t as string];
}

function compare(reader: Json | undefined, writer: Json | undefined, path: string, out: string[]): void {
  if (acceptsAll(reader) || writer === false) return;
  if (reader === false) {
    out.push(`${path}: the reader accepts nothing`);
    return;
  }
  const r = reader as Record<string, unknown>;
  const w = (writer === true || writer === undefined ? {} : writer) as Record<string, unknown>;
  if (r['$ref'] !== undefined || w['$ref'] !== undefined) {
    if (r['$ref'] !== w['$ref']) out.push(`${path}: the reference changed from ${String(w['$ref'] ?? 'none')} to ${String(r['$ref'] ?? 'none')}`);
    return;
  }
  const rt = types(r);
  const wt = types(w);
  if (rt) {
    if (!wt) out.push(`${path}: the reader allows only ${rt.join(', ')} where the writer allowed any type`);
    else for (const t of wt) if (!rt.includes(t) && !(t === 'integer' && rt.includes('number'))) out.push(`${path}: type ${t} is no longer allowed (now ${rt.join(', ')})`);
  }
  if (Array.isArray(r['enum'])) {
    const re = (r['enum'] as unknown[]).map((v) => JSON.stringify(v));
    if (!Array.isArray(w['enum'])) out.push(`${path}: the reader allows only the values ${re.join(', ')}`);
    else for (const v of (w['enum'] as unknown[]).map((x) => JSON.stringify(x))) if (!re.includes(v)) out.push(`${path}: value ${v} was removed from the enum`);
  }
  for (const [key, widerIsSmaller] of [['minimum', true], ['minLength', true], ['minItems', true], ['maximum', false], ['maxLength', false], ['maxItems', false]] as const) {
    const rv = r[key];
    if (typeof rv !== 'number') continue;
    const wv = w[key];
    if (typeof wv !== 'number' || (widerIsSmaller ? wv < rv : wv > rv)) out.push(`${path}: ${key} narrowed to ${rv}${typeof wv === 'number' ? ` from ${wv}` : ''}`);
  }
  const rp = (r['properties'] ?? {}) as Record<string, Json>;
  const wp = (w['properties'] ?? {}) as Record<string, Json>;
  const rAdd = r['additionalProperties'] as Json | undefined;
  const wAdd = w['additionalProperties'] as Json | undefined;
  const wOpen = wAdd !== false;
  for (const [name, rs] of Object.entries(rp)) {
    if (Object.hasOwn(wp, name)) compare(rs, wp[name], `${path}/properties/${name}`, out);
    else if (wOpen && !acceptsAll(rs)) out.push(`${path}: property ${name} was added to an open content model (the writer's documents may carry it with any value)`);
  }
  for (const [name, ws] of Object.entries(wp)) {
    if (Object.hasOwn(rp, name)) continue;
    if (rAdd === false) out.push(`${path}: property ${name} was removed from a closed content model`);
    else if (rAdd !== undefined) compare(rAdd, ws, `${path}/properties/${name}`, out);
  }
  if (rAdd === false && wOpen) out.push(`${path}: the reader closed the content model (additionalProperties false) that the writer left open`);
  else if (rAdd !== undefined && rAdd !== false && wOpen) compare(rAdd, wAdd ?? true, `${path}/additionalProperties`, out);
  const rReq = Array.isArray(r['required']) ? (r['required'] as string[]) : [];
  const wReq = Array.isArray(w['required']) ? (w['required'] as string[]) : [];
  for (const name of rReq) if (!wReq.includes(name)) out.push(`${path}: required property ${name} was added`);
  if (r['items'] !== undefined && !Array.isArray(r['items'])) compare(r['items'] as Json, (w['items'] as Json | undefined) ?? true, `${path}/items`, out);
}
