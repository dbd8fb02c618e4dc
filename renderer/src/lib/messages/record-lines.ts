/**
 * Records as lines of a file and back: what an export writes (JSON Lines or CSV) and what an
 * import reads (JSON Lines), and the kcat command that produces a record again.
 *
 * A JSON line is `{"partition","offset","timestamp","key","value","headers":[{"key","value"}]}`
 * with `keyFormat`/`valueFormat` "base64" when the bytes are not UTF-8 text (and `valueDecoded`,
 * the schema's JSON, beside a registry-framed value), so an export imports back byte for byte.
 */
import type { PayloadView, WorkbenchRecordView } from '../../../../app/api/contract.js';

export interface LineRecord {
  key: string | null;
  value: string | null;
  headers?: { key: string; value: string | null }[];
  timestamp?: number;
  keyFormat?: 'text' | 'base64';
  valueFormat?: 'text' | 'base64';
}

function asText(p: PayloadView | null): { text: string | null; base64: boolean } {
  if (p === null) return { text: null, base64: false };
  // A payload cut at 64 KiB (shown bytes) cannot be exported whole; the caller reads with bytes.
  if (p.text !== null && !p.truncated && p.format !== 'schema') return { text: p.text, base64: false };
  return { text: p.base64, base64: true };
}

export function toJsonLine(r: WorkbenchRecordView): string {
  const key = asText(r.key);
  const value = asText(r.value);
  return JSON.stringify({
    partition: r.partition,
    offset: r.offset,
    timestamp: r.timestamp,
    key: key.text,
    ...(key.base64 ? { keyFormat: 'base64' } : {}),
    value: value.text,
    ...(value.base64 ? { valueFormat: 'base64' } : {}),
    ...(r.value?.format === 'schema' ? { valueDecoded: r.value.json, valueSchemaId: r.value.schema?.id } : {}),
    headers: r.headers.map((h) => ({ key: h.key, value: h.value?.text ?? null })),
  });
}

export const CSV_HEADER = 'partition,offset,timestamp,key,value,headers';

function csvCell(s: string | null): string {
  if (s === null) return '';
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

export function toCsvRow(r: WorkbenchRecordView): string {
  const value = r.value?.format === 'schema' ? JSON.stringify(r.value.json) : asText(r.value).text;
  const headers = r.headers.length ? JSON.stringify(Object.fromEntries(r.headers.map((h) => [h.key, h.value?.text ?? null]))) : '';
  return [String(r.partition), String(r.offset), new Date(r.timestamp).toISOString(), csvCell(asText(r.key).text), csvCell(value), csvCell(headers)].join(',');
}

/** One line of a JSON Lines file as a record to produce; throws naming the line and what is wrong. */
export function parseJsonLine(line: string, lineNo: number): LineRecord & { partition?: number } {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch (e) {
    throw new Error(`line ${lineNo}: not JSON (${(e as Error).message})`);
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error(`line ${lineNo}: a record is a JSON object with "value" (and "key", "headers", …)`);
  const r = o as Record<string, unknown>;
  const text = (name: string): string | null => {
    const v = r[name];
    if (v === undefined || v === null) return null;
    // A JSON value that is not a string is written as its JSON text.
    return typeof v === 'string' ? v : JSON.stringify(v);
  };
  const format = (name: string): 'text' | 'base64' | undefined => {
    const v = r[name];
    if (v === undefined) return undefined;
    if (v !== 'text' && v !== 'base64') throw new Error(`line ${lineNo}: ${name} is "text" or "base64"`);
    return v;
  };
  let headers: LineRecord['headers'];
  if (r['headers'] !== undefined) {
    const h = r['headers'];
    if (Array.isArray(h)) headers = h.map((x: { key?: unknown; value?: unknown }) => ({ key: String(x.key), value: x.value === null || x.value === undefined ? null : String(x.value) }));
    else if (typeof h === 'object' && h !== null) headers = Object.entries(h).map(([key, value]) => ({ key, value: value === null ? null : String(value) }));
    else throw new Error(`line ${lineNo}: headers is a list of {key, value} or an object`);
  }
  const timestamp = r['timestamp'];
  const partition = r['partition'];
  const keyFormat = format('keyFormat');
  const valueFormat = format('valueFormat');
  return {
    key: text('key'),
    value: text('value'),
    ...(headers && headers.length ? { headers } : {}),
    ...(typeof timestamp === 'number' && Number.isInteger(timestamp) && timestamp >= 0 ? { timestamp } : {}),
    ...(keyFormat ? { keyFormat } : {}),
    ...(valueFormat ? { valueFormat } : {}),
    ...(typeof partition === 'number' && Number.isInteger(partition) && partition >= 0 ? { partition } : {}),
  };
}

function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * The kcat commands that produce this record again: the value's bytes go to a file (as text, or
 * decoded from base64 when they are not UTF-8, e.g. a registry-framed value), and kcat sends the
 * file as one message with the key (`-k`) and headers (`-H`); a null value is sent as a tombstone
 * (`-Z`). librdkafka's default partitioner is consistent_random (CRC32 of the key);
 * `-X partitioner=murmur2_random` makes it Kafka's murmur2, as the console and the Java client
 * use, so the same key lands on the same partition.
 */
export function kcatCommand(bootstrap: string, topic: string, r: Pick<WorkbenchRecordView, 'key' | 'value' | 'headers'>, partition?: number): string {
  const file = 'record-value.bin';
  const write =
    r.value === null ? `: > ${file}` : r.value.text !== null && !r.value.truncated && r.value.format !== 'schema' ? `printf '%s' ${shellQuote(r.value.text)} > ${file}` : `printf '%s' ${shellQuote(r.value.base64)} | base64 -d > ${file}`;
  const parts = ['kcat', '-b', shellQuote(bootstrap || '127.0.0.1:9092'), '-P', '-t', shellQuote(topic), '-X', 'partitioner=murmur2_random'];
  if (partition !== undefined) parts.push('-p', String(partition));
  if (r.key !== null) parts.push('-k', shellQuote(r.key.text ?? atob(r.key.base64)));
  for (const h of r.headers) parts.push('-H', shellQuote(`${h.key}=${h.value?.text ?? ''}`));
  if (r.value === null) parts.push('-Z');
  parts.push(file);
  return `${write}\n${parts.join(' ')}`;
}
