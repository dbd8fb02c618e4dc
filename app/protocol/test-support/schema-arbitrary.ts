/**
 * fast-check values for any message version, built from the message definitions through the
 * generator's schema model (not the generated code): every field the version has is random,
 * every field it lacks is its default, as a decoder returns it.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { type Field, type Message, intersect, isEmpty, loadMessages } from '../../../scripts/protocol-gen/schema.js';
import { ZERO_UUID, uuidToString } from '../runtime/index.js';

export const messages: Message[] = loadMessages(join(import.meta.dirname, '..', 'messages'));
const has = (range: { lo: number; hi: number }, v: number): boolean => !isEmpty(intersect(range, { lo: v, hi: v }));

function defaultOf(f: Field): unknown {
  const d = f.default;
  if (d === 'null') return null;
  if (f.array) return [];
  if (f.struct) return Object.fromEntries(f.struct.fields.map((g) => [g.prop, defaultOf(g)]));
  switch (f.primitive!) {
    case 'bool':
      return d === 'true';
    case 'int64':
      return BigInt(d ?? 0);
    case 'uuid':
      return ZERO_UUID;
    case 'string':
      return d ?? '';
    case 'bytes':
      return new Uint8Array(0);
    case 'records':
      return null;
    default:
      return Number(d ?? 0);
  }
}

function scalar(f: Field, v: number): fc.Arbitrary<unknown> {
  if (f.struct) return struct(f.struct.fields, v);
  switch (f.primitive!) {
    case 'bool':
      return fc.boolean();
    case 'int8':
      return fc.integer({ min: -128, max: 127 });
    case 'int16':
      return fc.integer({ min: -32768, max: 32767 });
    case 'uint16':
      return fc.integer({ min: 0, max: 65535 });
    case 'int32':
      return fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'uint32':
      return fc.integer({ min: 0, max: 2 ** 32 - 1 });
    case 'int64':
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case 'float64':
      return fc.double({ noNaN: true });
    case 'uuid':
      return fc.uint8Array({ minLength: 16, maxLength: 16 }).map(uuidToString);
    case 'string':
      return fc.string({ unit: 'grapheme', maxLength: 12 });
    case 'bytes':
    case 'records':
      return fc.uint8Array({ maxLength: 24 });
  }
}

function value(f: Field, v: number): fc.Arbitrary<unknown> {
  const one = f.array ? fc.array(scalar(f, v), { maxLength: 3 }) : scalar(f, v);
  return has(f.nullable, v) ? fc.option(one, { nil: null }) : one;
}

export function struct(fields: Field[], v: number): fc.Arbitrary<Record<string, unknown>> {
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) shape[f.prop] = has(f.versions, v) ? value(f, v) : fc.constant(defaultOf(f));
  return fc.record(shape);
}

