/**
 * The registry's `_schemas` topic on a cluster with a log cleaner (real SQLite files): made with
 * `cleanup.policy=compact` as Confluent's is, and once the cleaner has removed superseded settings
 * and a permanent delete's records, a registry that reads the compacted log from the start has the
 * same subjects, versions, ids and settings as the one that wrote it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStorage } from '../../storage/sqlite-storage.js';
import { createVirtualClusterService } from '../../sim/virtual-service.js';
import { ok } from '../../sim/test-support/data-dir.js';
import { SchemaRegistry } from '../../schemas/registry.js';
import { schemasTopic } from '../../schemas/schemas-topic.js';

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

const avro = (fields: object[]) => JSON.stringify({ type: 'record', name: 'Order', fields });

describe('_schemas on a compacting cluster', () => {
  it('is compacted, and a registry reading the cleaned log has the same state as the one that wrote it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rs-schemas-topic-'));
    const storage = SqliteStorage.open(dir);
    cleanup.push(() => {
      storage.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const s = createVirtualClusterService({ seed: 5, brokers: 3, storage, staticConfigs: { 'log.cleaner.backoff.ms': '1000' } });
    const writer = new SchemaRegistry(schemasTopic(s));
    const v1 = await writer.register('orders-value', { schema: avro([{ name: 'id', type: 'string' }]) });
    const gone = await writer.register('scratch-value', { schema: avro([{ name: 'tmp', type: 'int' }]) });
    const v2 = await writer.register('orders-value', { schema: avro([{ name: 'id', type: 'string' }, { name: 'total', type: 'double', default: 0 }]) });
    for (const level of ['FULL', 'NONE', 'FORWARD']) await writer.setConfig('orders-value', level);
    await writer.deleteSubject('scratch-value');
    await writer.deleteSubject('scratch-value', true);

    const policy = await ok(s.call('configs.describe', { resource: { type: 'topic', name: '_schemas' } }));
    expect(policy.find((c) => c.name === 'cleanup.policy')?.value).toBe('compact');
    const written = await ok(s.call('records.consume', { topic: '_schemas', partition: 0, offset: 0, maxRecords: 100 }));
    expect(written.records).toHaveLength(8);

    // Small segments, any dirt cleanable, tombstones kept one second: then roll past the last write.
    await ok(s.call('configs.alter', { resource: { type: 'topic', name: '_schemas' }, set: { 'segment.ms': '10000', 'min.cleanable.dirty.ratio': '0.01', 'delete.retention.ms': '1000' } }));
    s.sim.advance(11_000);
    await writer.setMode('orders-value', 'READWRITE');
    s.sim.waitFor(() => s.sim.eventsOf('log.cleaned').length >= 3, 120_000, 'every replica of _schemas cleaned');
    s.sim.advance(11_000);
    await writer.setMode(null, 'READWRITE');
    s.sim.waitFor(() => s.sim.eventsOf('log.cleaned').length >= 6, 120_000, 'a second cleaning past the tombstones');

    const cleaned = await ok(s.call('records.consume', { topic: '_schemas', partition: 0, offset: 0, maxRecords: 100 }));
    const keys = cleaned.records.map((r) => JSON.parse(r.key!) as { keytype: string; subject: string | null });
    // Gone: two superseded levels and scratch-value's registration, soft delete and tombstone.
    expect(keys.filter((k) => k.keytype === 'CONFIG')).toHaveLength(1);
    expect(keys.some((k) => k.subject === 'scratch-value')).toBe(false);

    const reader = new SchemaRegistry(schemasTopic(s, { create: false }));
    expect(await reader.subjects(true)).toEqual(['orders-value']);
    expect(await reader.versions('orders-value')).toEqual([1, 2]);
    expect((await reader.version('orders-value', '1')).id).toBe(v1.id);
    expect((await reader.version('orders-value', 'latest')).id).toBe(v2.id);
    expect(reader.compatibility('orders-value')).toBe('FORWARD');
    expect(reader.mode('orders-value')).toBe('READWRITE');
    await expect(reader.schemaById(gone.id)).rejects.toMatchObject({ code: 40403 });
    // The next schema continues after the highest id still in the log.
    const next = await reader.register('refunds-value', { schema: avro([{ name: 'refund', type: 'string' }]) });
    expect(next.id).toBe(v2.id + 1);
  }, 60_000);
});
