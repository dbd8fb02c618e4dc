/**
 * Two schema texts side by side for the Schemas page: jsdiff's line diff laid out in two columns,
 * a removed run beside the added run that replaced it (`changed`), the rest `same`, `removed` or
 * `added` with a blank opposite. Avro and JSON Schema are pretty-printed first, so a change shows
 * as the fields that changed rather than one long line.
 */
import { diffLines } from 'diff';

export interface DiffSide {
  /** 1-based line number in its own text. */
  line: number;
  text: string;
}

export interface DiffRow {
  kind: 'same' | 'changed' | 'removed' | 'added';
  left: DiffSide | null;
  right: DiffSide | null;
}

/** JSON pretty-printed with two spaces (Avro, JSON Schema); other text (Protobuf) as it is. */
export function prettySchema(text: string, schemaType: 'AVRO' | 'PROTOBUF' | 'JSON'): string {
  if (schemaType === 'PROTOBUF') return text.replace(/\s+$/, '');
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function linesOf(value: string): string[] {
  const lines = value.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function sideBySide(left: string, right: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let l = 0;
  let r = 0;
  const changes = diffLines(left.endsWith('\n') ? left : `${left}\n`, right.endsWith('\n') ? right : `${right}\n`);
  for (let i = 0; i < changes.length; i++) {
    const c = changes[i]!;
    const lines = linesOf(c.value);
    if (c.removed) {
      const next = changes[i + 1];
      const added = next?.added ? linesOf(next.value) : [];
      if (next?.added) i++;
      for (let k = 0; k < Math.max(lines.length, added.length); k++) {
        const a = lines[k];
        const b = added[k];
        rows.push({
          kind: a !== undefined && b !== undefined ? 'changed' : a !== undefined ? 'removed' : 'added',
          left: a !== undefined ? { line: ++l, text: a } : null,
          right: b !== undefined ? { line: ++r, text: b } : null,
        });
      }
    } else if (c.added) {
      for (const b of lines) rows.push({ kind: 'added', left: null, right: { line: ++r, text: b } });
    } else {
      for (const t of lines) rows.push({ kind: 'same', left: { line: ++l, text: t }, right: { line: ++r, text: t } });
    }
  }
  return rows;
}

/** "2 lines changed, 1 added, 1 removed", or "identical". */
export function diffSummary(rows: readonly DiffRow[]): string {
  const n = (kind: DiffRow['kind']) => rows.filter((x) => x.kind === kind).length;
  const parts = [
    [n('changed'), 'changed'],
    [n('added'), 'added'],
    [n('removed'), 'removed'],
  ].filter(([count]) => (count as number) > 0).map(([count, what]) => `${String(count)} ${count === 1 ? 'line' : 'lines'} ${String(what)}`);
  return parts.length === 0 ? 'identical' : parts.join(', ');
}
