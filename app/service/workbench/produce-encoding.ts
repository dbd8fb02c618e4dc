/**
 * The records of a `records.produce` call as bytes: UTF-8 text, base64, or JSON encoded with a
 * schema of the cluster's registry and framed in Confluent's wire format (magic byte, schema id,
 * Protobuf message indexes), so what the console writes decodes in any Confluent deserializer.
 * A value that does not fit its schema is INVALID_INPUT naming the record and the field.
 * The registry is the cluster's own (embedded driver) or the connection's by URL (Kafka driver):
 * both encode here, so a record framed on one decodes with the other's deserializers alike.
 */
import type { MethodParsedInput } from '../../api/contract.js';
import { KafkaError } from '../../api/errors.js';
import type { LogRecord } from '../../core/log/records.js';
import { RegistryError } from '../../schemas/registry-errors.js';
import type { ParsedSchema } from '../../schemas/schema-types.js';
import { frame, writeHeader } from '../../schemas/wire-format.js';
import { encodeText } from '../cluster-views.js';

type ProduceInput = MethodParsedInput<'records.produce'>;

/** What encoding needs of a registry: a subject's version's id, and a schema by id parsed. */
export interface EncodingRegistry {
  /** The id of `subject`'s `version` (a number as text, or `latest`). */
  idOf(subject: string, version: string): Promise<number>;
  parsedById(id: number): Promise<ParsedSchema>;
}
type Choice = NonNullable<NonNullable<ProduceInput['schemas']>['value']>;

function invalid(path: (string | number)[], message: string): KafkaError {
  return new KafkaError('INVALID_INPUT', message, { issues: [{ path, message }] });
}

async function resolveChoice(registry: EncodingRegistry | null, choice: Choice, which: 'key' | 'value'): Promise<{ id: number; parsed: ParsedSchema; message?: string }> {
  if (!registry) throw invalid(['schemas', which], 'This connection has no Schema Registry to encode with.');
  try {
    const id = 'id' in choice ? choice.id : await registry.idOf(choice.subject, String(choice.version ?? 'latest'));
    return { id, parsed: await registry.parsedById(id), ...(choice.message !== undefined ? { message: choice.message } : {}) };
  } catch (e) {
    if (e instanceof RegistryError) throw invalid(['schemas', which], `The Schema Registry cannot give that schema: ${e.message} (${e.code})`);
    // An external registry's answer (registry-client.ts): Confluent's code is in the details.
    const code = e instanceof KafkaError ? (e.details as { registryErrorCode?: unknown } | undefined)?.registryErrorCode : undefined;
    if (typeof code === 'number') throw invalid(['schemas', which], `The Schema Registry cannot give that schema: ${(e as KafkaError).message}`);
    throw e;
  }
}

function bytesOf(text: string | null | undefined, format: 'text' | 'base64' | undefined, path: (string | number)[]): Uint8Array | null {
  if (text === null || text === undefined) return null;
  if (format !== 'base64') return encodeText(text);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw invalid(path, 'Not base64 (A–Z, a–z, 0–9, +, / and = padding, a multiple of 4 characters).');
  return new Uint8Array(Buffer.from(text, 'base64'));
}

function encoded(text: string | null | undefined, schema: { id: number; parsed: ParsedSchema; message?: string }, path: (string | number)[]): Uint8Array | null {
  if (text === null || text === undefined) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw invalid(path, `With a schema the text is JSON to encode: ${(e as Error).message}`);
  }
  try {
    const { payload, messageIndexes } = schema.parsed.encode(json, schema.message);
    return frame(writeHeader(schema.id, messageIndexes), payload);
  } catch (e) {
    throw invalid(path, `Does not fit schema ${schema.id} (${schema.parsed.type}): ${(e as Error).message}`);
  }
}

/**
 * Without schemas the records are converted at once (no await), so a produce call reaches the
 * engine in the same turn as before; with one, after the registry answers.
 */
export function producedRecords(input: ProduceInput, nowMs: number, registry: EncodingRegistry | null): LogRecord[] | Promise<LogRecord[]> {
  if (!input.schemas?.key && !input.schemas?.value) return convert(input, nowMs, null, null);
  return withSchemas(input, nowMs, registry);
}

async function withSchemas(input: ProduceInput, nowMs: number, registry: EncodingRegistry | null): Promise<LogRecord[]> {
  const keySchema = input.schemas?.key ? await resolveChoice(registry, input.schemas.key, 'key') : null;
  const valueSchema = input.schemas?.value ? await resolveChoice(registry, input.schemas.value, 'value') : null;
  return convert(input, nowMs, keySchema, valueSchema);
}

type Resolved = Awaited<ReturnType<typeof resolveChoice>>;

function convert(input: ProduceInput, nowMs: number, keySchema: Resolved | null, valueSchema: Resolved | null): LogRecord[] {
  return input.records.map((r, i) => ({
    key: keySchema ? encoded(r.key, keySchema, ['records', i, 'key']) : bytesOf(r.key, r.keyFormat, ['records', i, 'key']),
    value: valueSchema ? encoded(r.value, valueSchema, ['records', i, 'value']) : bytesOf(r.value, r.valueFormat, ['records', i, 'value']),
    headers: (r.headers ?? []).map((h) => ({ key: h.key, value: encodeText(h.value) })),
    timestamp: r.timestamp ?? nowMs,
  }));
}
