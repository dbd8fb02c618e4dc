import { describe, expect, it } from 'vitest';
import type { PayloadView, WorkbenchRecordView } from '../../../../app/api/contract.js';
import { CSV_HEADER, kcatCaveats, kcatCommand, parseJsonLine, toCsvRow, toJsonLine } from './record-lines.js';

const text = (t: string): PayloadView => ({ size: t.length, base64: btoa(t), truncated: false, text: t, format: 'text' });
const bytes = (b: number[]): PayloadView => ({ size: b.length, base64: btoa(String.fromCharCode(...b)), truncated: false, text: null, format: 'bytes' });

function record(over: Partial<WorkbenchRecordView> = {}): WorkbenchRecordView {
  return {
    partition: 2,
    offset: 41,
    timestamp: Date.UTC(2026, 11, 7),
    timestampType: 'CreateTime',
    key: text('k1'),
    value: text('say "hi", then\nleave'),
    headers: [{ key: 'source', value: text('till-2') }],
    sizeBytes: 40,
    leaderEpoch: 3,
    producerId: -1,
    producerEpoch: -1,
    sequence: -1,
    compression: 'none',
    transactional: false,
    ...over,
  };
}

describe('records as lines', () => {
  it('a JSON line imports back as the same key, value, headers and timestamp; bytes travel as base64', () => {
    const back = parseJsonLine(toJsonLine(record()), 1);
    expect(back).toEqual({ key: 'k1', value: 'say "hi", then\nleave', headers: [{ key: 'source', value: 'till-2' }], timestamp: Date.UTC(2026, 11, 7), partition: 2 });
    const binary = parseJsonLine(toJsonLine(record({ value: bytes([0, 0, 0, 0, 7, 255]) })), 1);
    expect(binary).toMatchObject({ value: btoa(String.fromCharCode(0, 0, 0, 0, 7, 255)), valueFormat: 'base64' });
  });

  it('reads hand-written lines: JSON values as their text, headers as an object, and names a bad line', () => {
    expect(parseJsonLine('{"key": "k", "value": {"amount": 3}, "headers": {"a": "b"}}', 3)).toEqual({ key: 'k', value: '{"amount":3}', headers: [{ key: 'a', value: 'b' }] });
    expect(() => parseJsonLine('{"value": 1', 7)).toThrow(/^line 7: not JSON/);
    expect(() => parseJsonLine('[1]', 8)).toThrow(/line 8: a record is a JSON object/);
    expect(() => parseJsonLine('{"value": "x", "valueFormat": "hex"}', 9)).toThrow(/line 9: valueFormat/);
  });

  it('CSV quotes what needs quoting', () => {
    expect(CSV_HEADER).toBe('partition,offset,timestamp,key,value,headers');
    expect(toCsvRow(record())).toBe('2,41,2026-12-07T00:00:00.000Z,k1,"say ""hi"", then\nleave","{""source"":""till-2""}"');
  });

  it('the kcat commands write the value to a file and set murmur2 so a key lands where the console puts it', () => {
    const cmd = kcatCommand('127.0.0.1:9092', 'orders', record({ value: text("it's") }));
    expect(cmd.split('\n')).toEqual([`printf '%s' 'it'\\''s' > record-value.bin`, "kcat -b '127.0.0.1:9092' -P -t 'orders' -X partitioner=murmur2_random -k 'k1' -H 'source=till-2' record-value.bin"]);
    const framed = kcatCommand('b:1', 't', record({ value: bytes([0, 0, 0, 0, 1, 2]), headers: [] }), 3);
    expect(framed.split('\n')).toEqual([`printf '%s' 'AAAAAAEC' | base64 -d > record-value.bin`, "kcat -b 'b:1' -P -t 't' -X partitioner=murmur2_random -p 3 -k 'k1' record-value.bin"]);
    expect(kcatCommand('b:1', 't', record({ value: null, headers: [] }))).toContain('-Z record-value.bin');
  });

  it('a key an argument cannot carry (a registry-framed key starts with NUL) goes into the file, split by delimiters found in neither key nor value', () => {
    const key = [0, 0, 0, 0, 2, 10, 0xa7, 0x5e, 0x91, 0x3c];
    const cmd = kcatCommand('b:1', 't', record({ key: bytes(key), value: bytes([0, 1, 2]), headers: [{ key: 'h', value: text('v') }] }));
    const [write, run] = cmd.split('\n');
    // The first candidate key delimiter (a7 5e 91 3c) is in the key: the next one is used.
    expect(run).toBe("kcat -b 'b:1' -P -t 't' -X partitioner=murmur2_random -H 'h=v' -l -K '\\xa6\\x5e\\x91\\x3c' -D '\\xa7\\x5e\\x91\\x2c' -c 1 record-value.bin");
    const written = Uint8Array.from(atob(/printf '%s' '([^']+)'/.exec(write!)![1]!), (c) => c.charCodeAt(0));
    expect([...written]).toEqual([...key, 0xa6, 0x5e, 0x91, 0x3c, 0, 1, 2]);
    expect(kcatCommand('b:1', 't', record({ key: bytes([0]), value: null, headers: [] }))).toContain("-Z -l -K '\\xa7\\x5e\\x91\\x3c'");
  });

  it('says what the command cannot carry: a cut value, a null or binary header value', () => {
    expect(kcatCaveats(record())).toEqual([]);
    const cut: PayloadView = { ...text('x'), size: 70_000, truncated: true };
    expect(kcatCaveats(record({ value: cut, headers: [{ key: 'n', value: null }, { key: 'b', value: bytes([0xff]) }] }))).toEqual([
      'The value is 70000 bytes; the page holds its first 64 KiB, so the command writes only those.',
      "Header n has a null value; kcat's -H sends an empty one.",
      "Header b's value is not text a command-line argument can carry; the command sends it empty.",
    ]);
  });
});
