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

/** Text kcat can take as a command-line argument: whole, valid UTF-8, no NUL (argv cannot carry one). */
function argText(p: PayloadView | null): string | null {
  return p && p.text !== null && !p.truncated && !p.text.includes('\0') ? p.text : null;
}

const bytesOf = (base64: string): Uint8Array => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));

/** kcat's `\xNN` form of a delimiter. */
const kcatDelimiter = (d: Uint8Array): string => [...d].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');

/** A byte string found in none of `parts`: kcat splits its input on it. */
function absentDelimiter(parts: Uint8Array[], seed: number): Uint8Array {
  for (let n = seed; ; n++) {
    // Four bytes that vary with n; a 4-byte string absent from kilobytes of bytes is found at once.
    const d = Uint8Array.of(0xa7 ^ (n & 0xff), 0x5e ^ ((n >> 8) & 0xff), 0x91, 0x3c ^ ((n >> 16) & 0xff));
    if (!parts.some((p) => indexOf(p, d) >= 0)) return d;
  }
}

function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function toBase64(b: Uint8Array): string {
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
}

/**
 * The kcat commands that produce this record again: the value's bytes go to a file (as text, or
 * decoded from base64 when they are not UTF-8, e.g. a registry-framed value), and kcat sends the
 * file as one message with the key (`-k`) and headers (`-H`); a null value is sent as a tombstone
 * (`-Z`). A key that is not text an argument can carry (a registry-framed key starts with a NUL
 * byte) goes into the file too, before the value, and kcat reads the file as one delimited
 * message (`-l -K … -D … -c 1`) with delimiters found in neither. librdkafka's default
 * partitioner is consistent_random (CRC32 of the key); `-X partitioner=murmur2_random` makes it
 * Kafka's murmur2, as the console and the Java client use, so the same key lands on the same
 * partition. What kcat cannot carry is said by {@link kcatCaveats}.
 */
export function kcatCommand(bootstrap: string, topic: string, r: Pick<WorkbenchRecordView, 'key' | 'value' | 'headers'>, partition?: number): string {
  const file = 'record-value.bin';
  const parts = ['kcat', '-b', shellQuote(bootstrap || '127.0.0.1:9092'), '-P', '-t', shellQuote(topic), '-X', 'partitioner=murmur2_random'];
  if (partition !== undefined) parts.push('-p', String(partition));
  const keyArg = r.key === null ? null : argText(r.key);
  const headerArgs = r.headers.flatMap((h) => ['-H', shellQuote(`${h.key}=${argText(h.value) ?? ''}`)]);
  if (r.key !== null && keyArg === null) {
    const key = bytesOf(r.key.base64);
    const value = r.value === null ? new Uint8Array(0) : bytesOf(r.value.base64);
    const k = absentDelimiter([key], 0);
    const d = absentDelimiter([key, k, value], 1 << 20);
    const whole = new Uint8Array(key.length + k.length + value.length);
    whole.set(key);
    whole.set(k, key.length);
    whole.set(value, key.length + k.length);
    parts.push(...headerArgs, ...(r.value === null ? ['-Z'] : []), '-l', '-K', `'${kcatDelimiter(k)}'`, '-D', `'${kcatDelimiter(d)}'`, '-c', '1', file);
    return `printf '%s' ${shellQuote(toBase64(whole))} | base64 -d > ${file}\n${parts.join(' ')}`;
  }
  const write =
    r.value === null ? `: > ${file}` : r.value.text !== null && !r.value.truncated && r.value.format !== 'schema' ? `printf '%s' ${shellQuote(r.value.text)} > ${file}` : `printf '%s' ${shellQuote(r.value.base64)} | base64 -d > ${file}`;
  if (keyArg !== null) parts.push('-k', shellQuote(keyArg));
  parts.push(...headerArgs);
  if (r.value === null) parts.push('-Z');
  parts.push(file);
  return `${write}\n${parts.join(' ')}`;
}

/** What the kcat command cannot reproduce of this record, one sentence each (none: it is exact). */
export function kcatCaveats(r: Pick<WorkbenchRecordView, 'key' | 'value' | 'headers'>): string[] {
  const out: string[] = [];
  for (const [what, p] of [['key', r.key], ['value', r.value]] as const) {
    if (p?.truncated) out.push(`The ${what} is ${p.size} bytes; the page holds its first 64 KiB, so the command writes only those.`);
  }
  for (const h of r.headers) {
    if (h.value === null) out.push(`Header ${h.key} has a null value; kcat's -H sends an empty one.`);
    else if (argText(h.value) === null) out.push(`Header ${h.key}'s value is not text a command-line argument can carry; the command sends it empty.`);
  }
  return out;
}
