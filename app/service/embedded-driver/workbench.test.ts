/**
 * `records.search` on a real data directory: browsing across partitions in time order both ways,
 * bounded reads that say where they stopped and continue from there without re-examining a
 * record, the log start and high watermark as the bounds, server-side filters (text, regex,
 * headers, ranges, CEL with its errors), and payloads framed by the cluster's own registry
 * decoded by their schemas.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeDataDirs, dataDirService, ok } from '../../sim/test-support/data-dir.js';
import type { VirtualClusterService } from '../../sim/virtual-service.js';
import { SchemaRegistry } from '../../schemas/registry.js';
import { schemasTopic } from '../../schemas/schemas-topic.js';
import { frame, writeHeader } from '../../schemas/wire-format.js';
import type { RecordsSearchView } from '../../api/records-search-contract.js';

afterEach(closeDataDirs);

/** Topic `t` with 3 partitions; record i goes to partition i % 3 with timestamp 1000 + i. */
async function seeded(count = 30): Promise<VirtualClusterService> {
  const s = dataDirService({ brokers: 3, seed: 7 }).s;
  await ok(s.call('topics.create', { name: 't', partitions: 3, replicationFactor: 3 }));
  for (let i = 0; i < count; i++) {
    const value = i % 5 === 0 ? JSON.stringify({ n: i, kind: 'big', tags: ['a', 'b'] }) : `plain ${i}`;
    await ok(s.call('records.produce', { topic: 't', partition: i % 3, acks: 'all', records: [{ key: `k${i}`, value, timestamp: 1000 + i, headers: [{ key: 'trace', value: i % 2 === 0 ? 'even' : 'odd' }] }] }));
  }
  return s;
}

describe('records.search', () => {
  it('reads every partition in time order, oldest or newest first, with the batch fields', async () => {
    const s = await seeded();
    const oldest = await ok(s.call('records.search', { topic: 't', from: { beginning: true }, limit: 100 }));
    expect(oldest.records.map((r) => r.timestamp)).toEqual(Array.from({ length: 30 }, (_, i) => 1000 + i));
    expect(oldest.scanned).toBe(30);
    expect(oldest.stoppedBecause).toBe('end');
    expect(oldest.next.map((n) => [n.partition, n.offset, n.done])).toEqual([[0, 10, true], [1, 10, true], [2, 10, true]]);
    const r = oldest.records[5]!;
    expect(r).toMatchObject({ partition: 2, offset: 1, timestampType: 'CreateTime', compression: 'none', transactional: false });
    expect(r.key?.text).toBe('k5');
    expect(r.value).toMatchObject({ format: 'json', json: { n: 5, kind: 'big', tags: ['a', 'b'] } });
    expect(r.headers).toEqual([{ key: 'trace', value: expect.objectContaining({ text: 'odd', format: 'text' }) }]);
    expect(r.sizeBytes).toBe(2 + r.value!.size + 5 + 3);
    const newest = await ok(s.call('records.search', { topic: 't', from: { end: true }, order: 'newest-first', limit: 4 }));
    expect(newest.records.map((x) => x.timestamp)).toEqual([1029, 1028, 1027, 1026]);
    expect(newest.stoppedBecause).toBe('limit');
    // From the beginning, newest first: still the whole log, newest first.
    const whole = await ok(s.call('records.search', { topic: 't', partitions: [1], from: { beginning: true }, order: 'newest-first' }));
    expect(whole.records.map((x) => x.offset)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(whole.next).toEqual([expect.objectContaining({ partition: 1, offset: 0, done: true })]);
  });

  it('stops at maxScan, says where, and a continued read examines each record once', async () => {
    const s = await seeded();
    const seen: number[] = [];
    let from: { beginning: true } | { positions: { partition: number; offset: number }[] } = { beginning: true };
    let scannedTotal = 0;
    for (let round = 0; round < 10; round++) {
      const page: RecordsSearchView = await ok(s.call('records.search', { topic: 't', from, maxScan: 7 }));
      scannedTotal += page.scanned;
      seen.push(...page.records.map((x) => x.timestamp));
      if (page.stoppedBecause === 'end') break;
      expect(page.stoppedBecause).toBe('max-scan');
      from = { positions: page.next.map((n) => ({ partition: n.partition, offset: n.offset })) };
    }
    expect(scannedTotal).toBe(30);
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => 1000 + i));
  });

  it('starts at an offset, a time or the last N, within the log start and the high watermark', async () => {
    const s = await seeded();
    await ok(s.call('records.delete', { partitions: [{ topic: 't', partition: 0, offset: 4 }] }));
    const fromStart = await ok(s.call('records.search', { topic: 't', partitions: [0], from: { beginning: true } }));
    expect(fromStart.records.map((x) => x.offset)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(fromStart.next[0]).toMatchObject({ logStartOffset: 4, highWatermark: 10 });
    const atOffset = await ok(s.call('records.search', { topic: 't', partitions: [1], from: { offset: 7 } }));
    expect(atOffset.records.map((x) => x.offset)).toEqual([7, 8, 9]);
    const atTime = await ok(s.call('records.search', { topic: 't', from: { timestamp: 1025 } }));
    expect(atTime.records.map((x) => x.timestamp)).toEqual([1025, 1026, 1027, 1028, 1029]);
    const lastTwo = await ok(s.call('records.search', { topic: 't', from: { lastN: 2 } }));
    expect(lastTwo.records.map((x) => x.timestamp)).toEqual([1024, 1025, 1026, 1027, 1028, 1029]);
    const lastNewest = await ok(s.call('records.search', { topic: 't', partitions: [0], from: { lastN: 2 }, order: 'newest-first', limit: 2 }));
    expect(lastNewest.records.map((x) => x.offset)).toEqual([9, 8]);
    const unknown = await s.call('records.search', { topic: 't', partitions: [7], from: { beginning: true } });
    expect(unknown.ok === false && unknown.error.code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });

  it('filters on the server: text, regex, headers, ranges and CEL', async () => {
    const s = await seeded();
    const search = async (filter: object) => (await ok(s.call('records.search', { topic: 't', from: { beginning: true }, filter }))).records.map((x) => x.timestamp - 1000);
    expect(await search({ value: { contains: 'BIG' } })).toEqual([0, 5, 10, 15, 20, 25]);
    expect(await search({ value: { contains: 'BIG', caseSensitive: true } })).toEqual([]);
    expect(await search({ key: { regex: '^k1\\d$' } })).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    expect(await search({ header: { key: 'trace', value: { contains: 'even' } }, time: { fromMs: 1020 } })).toEqual([20, 22, 24, 26, 28]);
    expect(await search({ offsets: { from: 9 } })).toEqual([27, 28, 29]);
    expect(await search({ cel: 'value.n > 12 && value.kind == "big"' })).toEqual([15, 20, 25]);
    expect(await search({ cel: 'partition == 1 && offset < 2 && headers["trace"] == "odd"' })).toEqual([1]);
    expect(await search({ cel: '"b" in value.tags && timestamp >= 1010 && size > 30' })).toEqual([10, 15, 20, 25]);
    const page = await ok(s.call('records.search', { topic: 't', from: { beginning: true }, filter: { cel: 'value.n > 12' } }));
    // Plain-text values have no field n: those records do not match, and the read says so.
    expect(page.filterErrors).toBe(24);
    expect(page.firstFilterError).toMatch(/offset 0 of partition 1/);
    const bad = await s.call('records.search', { topic: 't', from: { beginning: true }, filter: { cel: 'value.n > ' } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.code).toBe('INVALID_INPUT');
      expect(bad.error.message).toMatch(/position 11/);
      expect(bad.error.details).toMatchObject({ issues: [{ path: ['filter', 'cel'] }] });
    }
    const unknownVar = await s.call('records.search', { topic: 't', from: { beginning: true }, filter: { cel: 'nope == 1' } });
    expect(!unknownVar.ok && unknownVar.error.message).toMatch(/position 1/);
    const badRegex = await s.call('records.search', { topic: 't', from: { beginning: true }, filter: { key: { regex: '(' } } });
    expect(!badRegex.ok && badRegex.error.details).toMatchObject({ issues: [{ path: ['filter', 'key', 'regex'] }] });
  });

  it("decodes values framed by the cluster's registry, and filters on what they decode to", async () => {
    const s = dataDirService({ brokers: 3, seed: 3 }).s;
    await ok(s.call('topics.create', { name: 'payments', partitions: 1, replicationFactor: 3 }));
    const registry = new SchemaRegistry(schemasTopic(s));
    const schema = JSON.stringify({ type: 'record', name: 'Payment', fields: [{ name: 'id', type: 'string' }, { name: 'amount', type: 'double' }] });
    const { id } = await registry.register('payments-value', { schema });
    const parsed = await registry.parsedById(id);
    const records = [12.5, 99, 3].map((amount, i) => ({ key: `p${i}`, value: null, amount }));
    for (const r of records) {
      // Once framed by hand (base64 of the bytes), once by the service's own encoder.
      const bytes = frame(writeHeader(id), parsed.encode({ id: r.key, amount: r.amount }).payload);
      await ok(s.call('records.produce', { topic: 'payments', partition: 0, acks: 'all', records: [{ key: r.key, value: Buffer.from(bytes).toString('base64'), valueFormat: 'base64' }] }));
      await ok(s.call('records.produce', { topic: 'payments', partition: 0, acks: 'all', schemas: { value: { subject: 'payments-value' } }, records: [{ key: r.key, value: JSON.stringify({ id: r.key, amount: r.amount }) }] }));
    }
    const wrong = await s.call('records.produce', { topic: 'payments', partition: 0, acks: 'all', schemas: { value: { subject: 'payments-value' } }, records: [{ value: '{"id": "x", "amount": "lots"}' }] });
    expect(!wrong.ok && wrong.error.details).toMatchObject({ issues: [{ path: ['records', 0, 'value'], message: expect.stringMatching(/amount/) }] });
    const noSubject = await s.call('records.produce', { topic: 'payments', partition: 0, acks: 'all', schemas: { value: { subject: 'nope' } }, records: [{ value: '{}' }] });
    expect(!noSubject.ok && noSubject.error.message).toMatch(/40401/);
    const page = await ok(s.call('records.search', { topic: 'payments', from: { beginning: true }, filter: { cel: 'value.amount > 10.0' } }));
    expect(page.records.map((x) => x.value?.json)).toEqual([
      { id: 'p0', amount: 12.5 },
      { id: 'p0', amount: 12.5 },
      { id: 'p1', amount: 99 },
      { id: 'p1', amount: 99 },
    ]);
    expect(page.records[0]!.value).toMatchObject({ format: 'schema', schema: { id, type: 'AVRO', subject: 'payments-value', version: 1 } });
  });
});
