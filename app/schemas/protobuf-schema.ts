/**
 * Protobuf schemas through protobufjs: a .proto file parsed with its references (each reference's
 * name is the path the file imports; google/protobuf's well-known types come with protobufjs),
 * binary decoding and encoding of the message a record's message indexes name, and the
 * compatibility rules of Confluent's Protobuf support, checked field by field:
 *
 * - the package may not change; a message the writer has may not disappear from the reader;
 * - a field number present in both keeps its kind (scalar, message, enum, map) and its type,
 *   except between the scalar types the wire format reads alike: {int32, uint32, int64, uint64,
 *   bool}, {sint32, sint64}, {fixed32, sfixed32}, {fixed64, sfixed64}, {string, bytes};
 * - a required field (proto2) may be neither added nor removed, and a field may not move into a
 *   oneof that already held another;
 * - fields and enum values may be added and removed (proto3's unknown-field rules).
 *
 * Message indexes are the path of a message among the file's message declarations in order:
 * [0] the file's first message, [2, 0] the first message nested in its third.
 */
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { SchemaParseError, type ParsedSchema, type ResolvedReference } from './schema-types.js';

type Type = protobuf.Type;

const WIRE_ALIKE = [
  ['int32', 'uint32', 'int64', 'uint64', 'bool'],
  ['sint32', 'sint64'],
  ['fixed32', 'sfixed32'],
  ['fixed64', 'sfixed64'],
  ['string', 'bytes'],
];
const SCALARS = new Set(['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes']);

interface ProtobufParsed extends ParsedSchema {
  pkg: string;
  /** The file's own messages (not its references'), by full name without the leading dot. */
  messages: Map<string, Type>;
  /** The file's top-level messages in declaration order, each with its nested ones. */
  topLevel: Type[];
}

export function parseProtobuf(text: string, references: readonly ResolvedReference[]): ParsedSchema {
  const root = new protobuf.Root();
  const seen = new Set<string>();
  const imported = new Set<string>();
  for (const ref of flatten(references)) {
    if (seen.has(ref.name)) continue;
    seen.add(ref.name);
    parseInto(ref.schema, root, `reference ${ref.name}`, imported);
  }
  const before = new Set(allTypes(root).map((t) => t.fullName));
  const parsed = parseInto(text, root, 'schema', imported);
  for (const file of imported) if (!seen.has(file)) addWellKnown(root, file);
  try {
    root.resolveAll();
  } catch (e) {
    throw new SchemaParseError(`Invalid Protobuf schema: ${(e as Error).message}`);
  }
  const own = allTypes(root).filter((t) => !before.has(t.fullName));
  const messages = new Map(own.map((t) => [t.fullName.replace(/^\./, ''), t]));
  const topLevel = own.filter((t) => !(t.parent instanceof protobuf.Type));
  if (topLevel.length === 0) throw new SchemaParseError('Invalid Protobuf schema: it declares no message.');

  const self: ProtobufParsed = {
    type: 'PROTOBUF',
    canonical: text.trim(),
    text: text.trim(),
    pkg: parsed.package ?? '',
    messages,
    topLevel,
    decode(payload, messageIndexes = [0]) {
      const type = byIndexes(topLevel, messageIndexes);
      const message = type.decode(payload);
      return type.toObject(message, { longs: String, enums: String, bytes: String, defaults: true, oneofs: true });
    },
    encode(value, name) {
      const type = name === undefined ? topLevel[0]! : messages.get(name.replace(/^\./, ''));
      if (!type) throw new Error(`the schema has no message ${name}; it has ${[...messages.keys()].join(', ')}`);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`a Protobuf message is a JSON object, got ${JSON.stringify(value)}`);
      const problem = type.verify(value);
      if (problem) throw new Error(problem);
      return { payload: type.encode(type.fromObject(value as Record<string, unknown>)).finish(), messageIndexes: indexesOf(topLevel, type) };
    },
    readProblems(writer) {
      return compatibility(self, writer as ProtobufParsed);
    },
    serialized() {
      // protobufjs describes the root's types as one file per package; this file's is the one of its package.
      const set = (root as unknown as { toDescriptor(syntax: string): { file: { package?: string; name?: string }[] } }).toDescriptor(/syntax\s*=\s*["']proto2["']/.test(text) ? 'proto2' : 'proto3');
      const file = set.file.find((f) => (f.package ?? '') === (parsed.package ?? '')) ?? set.file[0]!;
      const bytes = (descriptor as unknown as { FileDescriptorProto: protobuf.Type }).FileDescriptorProto.encode(file as protobuf.Message).finish();
      return Buffer.from(bytes).toString('base64');
    },
  };
  return self;
}

function parseInto(text: string, root: protobuf.Root, what: string, imported: Set<string>): protobuf.IParserResult {
  try {
    const result = protobuf.parse(text, root, { keepCase: true, alternateCommentMode: true });
    for (const i of result.imports ?? []) imported.add(i);
    for (const i of result.weakImports ?? []) imported.add(i);
    return result;
  } catch (e) {
    throw new SchemaParseError(`Invalid Protobuf ${what}: ${(e as Error).message}`);
  }
}

function addWellKnown(root: protobuf.Root, file: string): void {
  const common = protobuf.common.get(file);
  if (!common) throw new SchemaParseError(`Invalid Protobuf schema: it imports ${file}, which is neither a reference nor a well-known type.`);
  root.addJSON(common.nested ?? {});
}

function allTypes(ns: protobuf.NamespaceBase): Type[] {
  const out: Type[] = [];
  for (const n of ns.nestedArray) {
    if (n instanceof protobuf.Type) out.push(n);
    if (n instanceof protobuf.Namespace || n instanceof protobuf.Type) out.push(...allTypes(n as protobuf.NamespaceBase));
  }
  return out;
}

function nestedMessages(t: Type): Type[] {
  return t.nestedArray.filter((n): n is Type => n instanceof protobuf.Type);
}

function byIndexes(topLevel: Type[], indexes: readonly number[]): Type {
  let list = topLevel;
  let type: Type | undefined;
  for (const i of indexes) {
    type = list[i];
    if (!type) throw new Error(`message indexes [${indexes.join(', ')}] name no message of the schema`);
    list = nestedMessages(type);
  }
  if (!type) throw new Error('empty message indexes');
  return type;
}

function indexesOf(topLevel: Type[], target: Type): number[] {
  const path: number[] = [];
  const walk = (list: Type[]): boolean => {
    for (let i = 0; i < list.length; i++) {
      path.push(i);
      if (list[i] === target || walk(nestedMessages(list[i]!))) return true;
      path.pop();
    }
    return false;
  };
  walk(topLevel);
  return path;
}

function kind(f: protobuf.Field): string {
  if (f instanceof protobuf.MapField) return 'map';
  if (SCALARS.has(f.type)) return 'scalar';
  return f.resolvedType instanceof protobuf.Enum ? 'enum' : 'message';
}

function fieldType(f: protobuf.Field): string {
  return f.resolvedType ? f.resolvedType.fullName.replace(/^\./, '') : f.type;
}

function scalarsAlike(a: string, b: string): boolean {
  return a === b || WIRE_ALIKE.some((g) => g.includes(a) && g.includes(b));
}

function compatibility(reader: ProtobufParsed, writer: ProtobufParsed): string[] {
  const problems: string[] = [];
  if (reader.pkg !== writer.pkg) problems.push(`the package changed from '${writer.pkg}' to '${reader.pkg}'`);
  for (const [name, w] of writer.messages) {
    const r = reader.messages.get(name);
    if (!r) {
      problems.push(`message ${name} was removed`);
      continue;
    }
    const readerFields = new Map(r.fieldsArray.map((f) => [f.id, f]));
    const writerFields = new Map(w.fieldsArray.map((f) => [f.id, f]));
    for (const [id, wf] of writerFields) {
      const rf = readerFields.get(id);
      if (!rf) {
        if (wf.required) problems.push(`${name}: required field ${wf.name} (${id}) was removed`);
        continue;
      }
      const [wk, rk] = [kind(wf), kind(rf)];
      if (wk !== rk) problems.push(`${name}: field ${id} changed from a ${wk} to a ${rk}`);
      else if (wk === 'scalar' && !scalarsAlike(wf.type, rf.type)) problems.push(`${name}: field ${id} changed type from ${wf.type} to ${rf.type}`);
      else if (wk !== 'scalar' && fieldType(wf) !== fieldType(rf)) problems.push(`${name}: field ${id} changed type from ${fieldType(wf)} to ${fieldType(rf)}`);
      if (rf.partOf && !wf.partOf && rf.partOf.fieldsArray.some((o) => o.id !== id && writerFields.has(o.id))) {
        problems.push(`${name}: field ${id} moved into the oneof ${rf.partOf.name}, which already held another field`);
      }
    }
    for (const [id, rf] of readerFields) if (!writerFields.has(id) && rf.required) problems.push(`${name}: required field ${rf.name} (${id}) was added`);
  }
  return problems;
}

function flatten(refs: readonly ResolvedReference[]): ResolvedReference[] {
  return refs.flatMap((r) => [...flatten(r.references), r]);
}
