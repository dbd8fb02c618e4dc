/**
 * The shapes every schema format shares: a parsed schema that can decode, encode and say whether
 * it can read what another schema wrote. One file per format implements it (avro-schema.ts,
 * protobuf-schema.ts, json-schema.ts); `parseSchema` (parse-schema.ts) picks the format.
 */

/** The registry's names of the formats (Confluent's `schemaType`; absent means AVRO). */
export const SCHEMA_TYPES = ['AVRO', 'PROTOBUF', 'JSON'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

/** A reference as registered: the name the schema uses for it and the subject version it names. */
export interface SchemaReference {
  name: string;
  subject: string;
  version: number;
}

/** A reference with the schema it names, itself resolved (references form a tree, not a cycle). */
export interface ResolvedReference {
  name: string;
  schemaType: SchemaType;
  schema: string;
  references: ResolvedReference[];
}

/** A schema the registry accepted, or a value was encoded with. */
export interface ParsedSchema {
  readonly type: SchemaType;
  /**
   * The text registrations are compared by: the same schema written with other whitespace or key
   * order has the same canonical text, so it is found under the id it already has.
   */
  readonly canonical: string;
  /**
   * The text the registry stores and answers with: the schema as written (JSON minified, a .proto
   * file trimmed), so references stay references and names keep their namespace form.
   */
  readonly text: string;
  /** A payload (after the wire header) as a JSON-compatible value; throws with the reason when it does not decode. */
  decode(payload: Uint8Array, messageIndexes?: readonly number[]): unknown;
  /**
   * A JSON value encoded with this schema; throws naming the first field that does not fit.
   * `message` picks a Protobuf message by full name (default: the file's first).
   */
  encode(value: unknown, message?: string): { payload: Uint8Array; messageIndexes?: number[] };
  /**
   * Why a reader with this schema could not read data written with `writer`: one line per
   * problem, empty when it can. Both schemas are of the same type.
   */
  readProblems(writer: ParsedSchema): string[];
  /**
   * Protobuf only: the file as a serialized FileDescriptorProto in base64 — what Confluent's
   * registry answers for `format=serialized`, which its Protobuf deserializers ask for.
   */
  serialized?(): string;
}

/** A schema that does not parse: the message names what is wrong (Confluent's 42201). */
export class SchemaParseError extends Error {}
