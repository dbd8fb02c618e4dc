/**
 * A key or value read as the workbench shows it and filters it: framed by a schema registry
 * (Confluent's wire format) and decoded by its schema, JSON text, UTF-8 text, or bytes.
 *
 * Decoding is lazy and cached per record: a scan of a million records that filters on the
 * partition never decodes a value, and one that filters on the value decodes each once.
 */
import type { PayloadView } from '../../api/records-search-contract.js';
import { looksFramed, readHeader, readMessageIndexes } from '../../schemas/wire-format.js';
import type { ParsedSchema } from '../../schemas/schema-types.js';

/** The bytes shown at most (as base64 and as text). */
export const SHOWN_BYTES = 64 * 1024;

export type DecodeAs = 'auto' | 'text' | 'json' | 'schema-registry' | 'bytes';

/** A schema by its registry id, with where it is registered; null when the registry has no such id. */
export interface SchemaLookup {
  byId(id: number): Promise<{ parsed: ParsedSchema; subject?: string; version?: number } | null>;
}

/** What a payload decoded to, before it is turned into a view. */
export interface Decoded {
  format: PayloadView['format'];
  /** The JSON value (json, schema). */
  json?: unknown;
  text: string | null;
  schema?: PayloadView['schema'];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function utf8Text(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Whether a decoded payload needs the registry: framed and asked to be read so. */
export function schemaIdOf(bytes: Uint8Array | null, mode: DecodeAs): number | null {
  if (mode !== 'auto' && mode !== 'schema-registry') return null;
  if (!looksFramed(bytes)) return null;
  return readHeader(bytes)?.schemaId ?? null;
}

/**
 * Decode `bytes` as `mode` says. `schema` is the registry's answer for the framed id (looked up
 * by the caller, which caches them), undefined when the payload is not framed.
 */
export function decodePayload(bytes: Uint8Array, mode: DecodeAs, schema?: Awaited<ReturnType<SchemaLookup['byId']>>): Decoded {
  if (mode === 'bytes') return { format: 'bytes', text: null };
  const header = mode === 'auto' || mode === 'schema-registry' ? readHeader(bytes) : null;
  if (header && schema !== undefined) {
    if (schema === null) {
      if (mode === 'schema-registry') return { format: 'bytes', text: null, schema: { id: header.schemaId, error: `the registry has no schema ${header.schemaId}` } };
    } else {
      try {
        let at = header.payloadOffset;
        let indexes: number[] | undefined;
        if (schema.parsed.type === 'PROTOBUF') {
          const read = readMessageIndexes(bytes, at);
          indexes = read.indexes;
          at = read.next;
        }
        const json = schema.parsed.decode(bytes.subarray(at), indexes);
        return {
          format: 'schema',
          json,
          text: null,
          schema: { id: header.schemaId, type: schema.parsed.type, ...(schema.subject !== undefined ? { subject: schema.subject } : {}), ...(schema.version !== undefined ? { version: schema.version } : {}), ...(indexes ? { messageIndexes: indexes } : {}) },
        };
      } catch (e) {
        if (mode === 'schema-registry') return { format: 'bytes', text: null, schema: { id: header.schemaId, type: schema.parsed.type, error: (e as Error).message } };
      }
    }
  }
  if (mode === 'schema-registry') return { format: 'bytes', text: null, schema: { id: -1, error: 'not in the schema registry wire format (magic byte 0 and a schema id)' } };
  const text = utf8Text(bytes);
  if (text === null) return { format: 'bytes', text: null };
  if (mode === 'auto' || mode === 'json') {
    const trimmed = text.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[') || mode === 'json') {
      try {
        return { format: 'json', json: JSON.parse(text) as unknown, text };
      } catch {
        // Not JSON after all: text.
      }
    }
  }
  return { format: 'text', text };
}

/** The view of a payload and what it decoded to. */
export function payloadView(bytes: Uint8Array, decoded: Decoded): PayloadView {
  const shown = bytes.length > SHOWN_BYTES ? bytes.subarray(0, SHOWN_BYTES) : bytes;
  const text = decoded.text ?? (decoded.format === 'bytes' ? null : utf8Text(shown));
  return {
    size: bytes.length,
    base64: Buffer.from(shown.buffer, shown.byteOffset, shown.byteLength).toString('base64'),
    truncated: bytes.length > SHOWN_BYTES,
    text: text !== null && text.length > SHOWN_BYTES ? text.slice(0, SHOWN_BYTES) : text,
    format: decoded.format,
    ...(decoded.json !== undefined ? { json: decoded.json } : {}),
    ...(decoded.schema ? { schema: decoded.schema } : {}),
  };
}

/** What a filter sees of a payload: the decoded JSON value, the text, or null for bytes. */
export function filterValue(decoded: Decoded): unknown {
  if (decoded.format === 'json' || decoded.format === 'schema') return decoded.json;
  return decoded.text;
}

/** What text matching sees of a payload: JSON of a decoded value, the text, or nothing. */
export function filterText(decoded: Decoded): string | null {
  if (decoded.format === 'schema') return JSON.stringify(decoded.json);
  return decoded.text;
}
