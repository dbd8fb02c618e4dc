import { describe, expect, it } from 'vitest';
import { diffSummary, prettySchema, sideBySide } from './side-by-side.js';

const v1 = { type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }, { name: 'note', type: 'string' }] };
const v2 = { type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }, { name: 'note', type: ['null', 'string'], default: null }, { name: 'total', type: 'double', default: 0 }] };

describe('side by side', () => {
  it('pretty-prints Avro and JSON, leaves Protobuf as written', () => {
    expect(prettySchema('{"type":"string"}', 'AVRO')).toBe('{\n  "type": "string"\n}');
    expect(prettySchema('syntax = "proto3";\nmessage A {}\n\n', 'PROTOBUF')).toBe('syntax = "proto3";\nmessage A {}');
    expect(prettySchema('{not json', 'JSON')).toBe('{not json');
  });

  it('pairs a replaced run line by line, keeps the line numbers of each side, and blanks the other side of an addition', () => {
    const rows = sideBySide(prettySchema(JSON.stringify(v1), 'AVRO'), prettySchema(JSON.stringify(v2), 'AVRO'));
    const same = rows.filter((r) => r.kind === 'same');
    expect(same.every((r) => r.left!.text === r.right!.text)).toBe(true);
    // Every line of each text appears once, in order.
    expect(rows.flatMap((r) => (r.left ? [r.left.line] : []))).toEqual(Array.from({ length: rows.filter((r) => r.left).length }, (_, i) => i + 1));
    expect(rows.flatMap((r) => (r.right ? [r.right.text] : [])).join('\n')).toBe(prettySchema(JSON.stringify(v2), 'AVRO'));
    expect(rows.flatMap((r) => (r.left ? [r.left.text] : [])).join('\n')).toBe(prettySchema(JSON.stringify(v1), 'AVRO'));
    const changed = rows.find((r) => r.kind === 'changed')!;
    expect(changed.left!.text).toContain('"type": "string"');
    expect(changed.right!.text).toContain('"type": [');
    expect(rows.some((r) => r.kind === 'added' && r.left === null && r.right!.text.includes('"total"'))).toBe(true);
    expect(diffSummary(rows)).toMatch(/changed.*added/);
  });

  it('says identical for the same text, and removed lines stand alone', () => {
    expect(diffSummary(sideBySide('a\nb', 'a\nb'))).toBe('identical');
    const rows = sideBySide('a\nb\nc', 'a\nc');
    expect(rows.map((r) => [r.kind, r.left?.text ?? null, r.right?.text ?? null])).toEqual([
      ['same', 'a', 'a'],
      ['removed', 'b', null],
      ['same', 'c', 'c'],
    ]);
    expect(diffSummary(rows)).toBe('1 line removed');
  });
});
