/**
 * The workbench's filter, compiled once per read and run on the console's server side: text or
 * regular expressions on the key, value and headers, offset and time ranges, and a CEL
 * expression (@marcbachmann/cel-js: parsed and type-checked up front, evaluated without `eval`).
 *
 * Cheap tests run first (partition, offset, time), so a range filter never decodes a payload; a
 * CEL expression that fails on one record (a field it lacks) is that record not matching,
 * counted so the page can say so.
 */
import { Environment } from '@marcbachmann/cel-js';
import { KafkaError } from '../../api/errors.js';
import type { z } from 'zod';
import type { searchFilterSchema, textMatchSchema } from '../../api/records-search-contract.js';

type Filter = z.output<typeof searchFilterSchema>;
type TextMatch = z.output<typeof textMatchSchema>;

/** What the filter reads of one record; the getters decode lazily. */
export interface FilterInput {
  partition: number;
  offset: number;
  timestamp: number;
  size: number;
  keyText(): string | null;
  valueText(): string | null;
  keyValue(): unknown;
  valueValue(): unknown;
  headers: { key: string; text(): string | null }[];
}

export interface CompiledFilter {
  /** Whether the record matches. */
  test(r: FilterInput): boolean;
  /** Whether the filter reads the key or the value (so the scan decodes them). */
  needsPayloads: boolean;
  errors: number;
  firstError?: string;
}

const CEL_ENV = new Environment({ unlistedVariablesAreDyn: false, homogeneousAggregateLiterals: false })
  .registerVariable('key', 'dyn')
  .registerVariable('value', 'dyn')
  .registerVariable('headers', 'map<string, dyn>')
  .registerVariable('partition', 'int')
  .registerVariable('offset', 'int')
  .registerVariable('timestamp', 'int')
  .registerVariable('size', 'int');

function invalid(path: string[], message: string): KafkaError {
  return new KafkaError('INVALID_INPUT', message, { issues: [{ path, message }] });
}

function textTest(m: TextMatch, path: string[]): (text: string | null) => boolean {
  if ('contains' in m) {
    if (m.caseSensitive) return (t) => t !== null && t.includes(m.contains);
    const needle = m.contains.toLowerCase();
    return (t) => t !== null && t.toLowerCase().includes(needle);
  }
  let re: RegExp;
  try {
    re = new RegExp(m.regex, m.flags ?? '');
  } catch (e) {
    throw invalid([...path, 'regex'], `Invalid regular expression: ${(e as Error).message}`);
  }
  return (t) => t !== null && re.test(t);
}

/** Compile a CEL expression; INVALID_INPUT naming the position when it does not parse or check. */
export function compileCel(expression: string): (vars: Record<string, unknown>) => unknown {
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = CEL_ENV.parse(expression);
  } catch (e) {
    throw celError(expression, e);
  }
  const checked = parsed.check();
  if (!checked.valid) throw celError(expression, checked.error);
  if (checked.type !== undefined && checked.type !== 'bool' && checked.type !== 'dyn') {
    throw invalid(['filter', 'cel'], `The CEL expression is a ${checked.type}, not a bool (true keeps a record).`);
  }
  return parsed;
}

function celError(expression: string, e: unknown): KafkaError {
  const err = e as { summary?: string; message?: string; range?: { start: number; end: number } };
  const at = err.range?.start;
  const where = at !== undefined ? ` at position ${at + 1} (${JSON.stringify(expression.slice(Math.max(0, at - 10), at + 10))})` : '';
  const message = `Invalid CEL expression${where}: ${err.summary ?? err.message ?? String(e)}`;
  return new KafkaError('INVALID_INPUT', message, { issues: [{ path: ['filter', 'cel'], message }], ...(at !== undefined ? { position: at + 1 } : {}) });
}

export function compileFilter(filter: Filter | undefined): CompiledFilter {
  const tests: ((r: FilterInput) => boolean)[] = [];
  let needsPayloads = false;
  const f = filter ?? {};
  if (f.offsets) {
    const lo = f.offsets.from ?? 0;
    const hi = f.offsets.to ?? Number.MAX_SAFE_INTEGER;
    tests.push((r) => r.offset >= lo && r.offset <= hi);
  }
  if (f.time) {
    const lo = f.time.fromMs ?? Number.MIN_SAFE_INTEGER;
    const hi = f.time.toMs ?? Number.MAX_SAFE_INTEGER;
    tests.push((r) => r.timestamp >= lo && r.timestamp <= hi);
  }
  if (f.header) {
    const key = f.header.key;
    const value = f.header.value ? textTest(f.header.value, ['filter', 'header', 'value']) : null;
    tests.push((r) => r.headers.some((h) => (key === undefined || h.key === key) && (value === null || value(h.text()))));
  }
  if (f.key) {
    const t = textTest(f.key, ['filter', 'key']);
    needsPayloads = true;
    tests.push((r) => t(r.keyText()));
  }
  if (f.value) {
    const t = textTest(f.value, ['filter', 'value']);
    needsPayloads = true;
    tests.push((r) => t(r.valueText()));
  }
  const compiled: CompiledFilter = {
    needsPayloads,
    errors: 0,
    test: (r) => tests.every((t) => t(r)),
  };
  if (f.cel !== undefined) {
    const cel = compileCel(f.cel);
    compiled.needsPayloads = true;
    tests.push((r) => {
      try {
        return (
          cel({
            key: r.keyValue(),
            value: r.valueValue(),
            headers: Object.fromEntries(r.headers.map((h) => [h.key, h.text()])),
            partition: BigInt(r.partition),
            offset: BigInt(r.offset),
            timestamp: BigInt(r.timestamp),
            size: BigInt(r.size),
          }) === true
        );
      } catch (e) {
        compiled.errors++;
        compiled.firstError ??= `offset ${r.offset} of partition ${r.partition}: ${(e as { summary?: string }).summary ?? (e as Error).message}`;
        return false;
      }
    });
  }
  return compiled;
}
