/**
 * `schemas.*` on a real data directory: the Schemas page sees the same subjects, versions and ids
 * as the REST API's registry (a second registry on the same `_schemas` topic), checks a draft at
 * the subject's level and says why it does not fit, registers with Confluent's codes on refusal,
 * and counts which schema ids a topic's records carry between its log start and high watermark.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeDataDirs, dataDirService, ok } from '../../sim/test-support/data-dir.js';
import { SchemaRegistry } from '../../schemas/registry.js';
import { schemasTopic } from '../../schemas/schemas-topic.js';
import { frame, writeHeader } from '../../schemas/wire-format.js';

afterEach(closeDataDirs);

const V1 = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }] });
/** Adds a field without a default: a BACKWARD reader cannot read v1's records. */
const NO_DEFAULT = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }, { name: 'total', type: 'double' }] });
const WITH_DEFAULT = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }, { name: 'total', type: 'double', default: 0 }] });

describe('schemas.*', () => {
  it('lists nothing and creates no _schemas topic on a cluster that never registered', async () => {
    const s = dataDirService({ brokers: 3, seed: 1 }).s;
    expect(await ok(s.call('schemas.list', {}))).toEqual({ subjects: [], globalCompatibility: 'BACKWARD', globalMode: 'READWRITE' });
    expect(await ok(s.call('schemas.check', { subject: 'x-value', schema: V1 }))).toEqual({ compatible: true, level: 'BACKWARD', messages: [] });
    const topics = await ok(s.call('topics.list', {}));
    expect(topics.map((t) => t.name)).not.toContain('_schemas');
  });

  it('registers, checks drafts at the subject level and refuses with the registry code', async () => {
    const s = dataDirService({ brokers: 3, seed: 2 }).s;
    const first = await ok(s.call('schemas.register', { subject: 'orders-value', schema: V1 }));
    // The same schema in the same subject, or in another one, keeps its id.
    expect(await ok(s.call('schemas.register', { subject: 'orders-value', schema: V1 }))).toEqual(first);
    expect(await ok(s.call('schemas.register', { subject: 'archive-value', schema: V1 }))).toEqual(first);

    const bad = await ok(s.call('schemas.check', { subject: 'orders-value', schema: NO_DEFAULT }));
    expect(bad.compatible).toBe(false);
    expect(bad.level).toBe('BACKWARD');
    expect(bad.messages.join('\n')).toMatch(/total/);
    const refused = await s.call('schemas.register', { subject: 'orders-value', schema: NO_DEFAULT });
    expect(refused.ok ? null : refused.error).toMatchObject({ code: 'INVALID_REQUEST', details: { registryErrorCode: 409 } });
    const unparsable = await s.call('schemas.check', { subject: 'orders-value', schema: '{"type": "record"' });
    expect(unparsable.ok ? null : unparsable.error).toMatchObject({ code: 'INVALID_REQUEST', details: { registryErrorCode: 42201 } });

    expect(await ok(s.call('schemas.check', { subject: 'orders-value', schema: WITH_DEFAULT }))).toMatchObject({ compatible: true, messages: [] });
    const second = await ok(s.call('schemas.register', { subject: 'orders-value', schema: WITH_DEFAULT }));
    expect(second.id).toBe(first.id + 1);

    const list = await ok(s.call('schemas.list', {}));
    expect(list.subjects.map((x) => x.subject)).toEqual(['archive-value', 'orders-value']);
    expect(list.subjects[1]!.versions.map((v) => [v.version, v.id, v.schemaType, v.deleted])).toEqual([
      [1, first.id, 'AVRO', false],
      [2, second.id, 'AVRO', false],
    ]);
    expect(JSON.parse(list.subjects[1]!.versions[1]!.schema)).toMatchObject({ fields: [{ name: 'id' }, { name: 'total', default: 0 }] });
  });

  it("sees what the REST API's registry wrote: soft deletes marked, a subject's own level, NONE letting a draft through", async () => {
    const s = dataDirService({ brokers: 3, seed: 3 }).s;
    const rest = new SchemaRegistry(schemasTopic(s));
    const { id } = await rest.register('orders-value', { schema: V1 });
    await rest.register('orders-value', { schema: WITH_DEFAULT });
    await rest.deleteVersion('orders-value', '1');
    await rest.setConfig('orders-value', 'NONE');
    await rest.setMode(null, 'READONLY');
    const list = await ok(s.call('schemas.list', {}));
    expect(list.globalMode).toBe('READONLY');
    expect(list.subjects).toEqual([
      expect.objectContaining({ subject: 'orders-value', compatibility: 'NONE', mode: null, versions: [expect.objectContaining({ version: 1, id, deleted: true }), expect.objectContaining({ version: 2, deleted: false })] }),
    ]);
    expect(await ok(s.call('schemas.check', { subject: 'orders-value', schema: NO_DEFAULT }))).toEqual({ compatible: true, level: 'NONE', messages: [] });
    // Read-only: the page's register is refused as the REST API's would be (42205).
    const refused = await s.call('schemas.register', { subject: 'orders-value', schema: NO_DEFAULT });
    expect(refused.ok ? null : refused.error).toMatchObject({ code: 'INVALID_REQUEST', details: { registryErrorCode: 42205 } });
  });

  it('counts the schema ids records carry from the log start to the high watermark, keys and values apart', async () => {
    const s = dataDirService({ brokers: 3, seed: 4 }).s;
    await ok(s.call('topics.create', { name: 'orders', partitions: 2, replicationFactor: 3 }));
    const { id: v1 } = await ok(s.call('schemas.register', { subject: 'orders-value', schema: V1 }));
    const { id: v2 } = await ok(s.call('schemas.register', { subject: 'orders-value', schema: WITH_DEFAULT }));
    const { id: keyId } = await ok(s.call('schemas.register', { subject: 'orders-key', schema: '"string"' }));
    // Partition 0: two values framed with v1, the log start moved past the first, then one with v2 (the latest).
    for (const id of ['a', 'b']) {
      await ok(s.call('records.produce', { topic: 'orders', partition: 0, acks: 'all', schemas: { value: { subject: 'orders-value', version: 1 } }, records: [{ key: id, value: JSON.stringify({ id }) }] }));
    }
    await ok(s.call('records.delete', { partitions: [{ topic: 'orders', partition: 0, offset: 1 }] }));
    await ok(s.call('records.produce', { topic: 'orders', partition: 0, acks: 'all', schemas: { value: { subject: 'orders-value' } }, records: [{ key: 'c', value: '{"id": "c", "total": 2.5}' }] }));
    // Partition 1: a framed key (by hand) with a plain value, and a record in no wire format at all.
    const keyBytes = frame(writeHeader(keyId), new Uint8Array([2, 0x6b]));
    await ok(s.call('records.produce', { topic: 'orders', partition: 1, acks: 'all', records: [{ key: Buffer.from(keyBytes).toString('base64'), keyFormat: 'base64', value: 'plain' }] }));
    await ok(s.call('records.produce', { topic: 'orders', partition: 1, acks: 'all', records: [{ key: 'plain', value: 'plain' }] }));

    const usage = await ok(s.call('schemas.usage', { topic: 'orders' }));
    expect(usage).toMatchObject({ topic: 'orders', scanned: 4, unframed: 1, complete: true });
    // Offset 0 of partition 0 is below the log start: one v1 record counted, not two.
    expect(usage.ids).toEqual([
      { id: v1, part: 'value', records: 1, subjects: ['orders-value'] },
      { id: v2, part: 'value', records: 1, subjects: ['orders-value'] },
      { id: keyId, part: 'key', records: 1, subjects: ['orders-key'] },
    ]);

    const bounded = await ok(s.call('schemas.usage', { topic: 'orders', maxScan: 1 }));
    expect(bounded).toMatchObject({ scanned: 1, complete: false });
    const unknown = await s.call('schemas.usage', { topic: 'nope' });
    expect(unknown.ok ? null : unknown.error.code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });
});
