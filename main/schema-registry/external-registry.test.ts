/**
 * An external cluster's Schema Registry by URL: the Kafka driver (the path every external
 * connection takes) against a real cluster's Kafka listeners and a real registry over HTTP on
 * 127.0.0.1 with basic auth. `schemas.*` answer as they do locally, records framed by the
 * registry are decoded by records.search, and refused credentials or no registry say why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { startSchemaRegistry, type SchemaRegistryServer } from './schema-registry-server.js';
import { createKafkaDriver, type KafkaDriver } from '../../app/service/kafka-driver/kafka-driver.js';
import { parseSchema } from '../../app/schemas/parse-schema.js';
import { frame, writeHeader } from '../../app/schemas/wire-format.js';
import type { RecordsSearchView } from '../../app/api/contract.js';

const quiet = { error: () => {} };
let dir: string;
let cluster: OpenCluster;
let server: SchemaRegistryServer;
let bootstrap: string[];
const drivers: KafkaDriver[] = [];

const V1 = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }] });
const V2 = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }, { name: 'qty', type: 'int', default: 1 }] });
const NO_DEFAULT = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }, { name: 'total', type: 'double' }] });

function driver(registry?: { username?: string; password?: string; token?: string }): KafkaDriver {
  const d = createKafkaDriver({ bootstrapServers: bootstrap, security: 'PLAINTEXT' }, { connection: 'ext', logger: quiet, ...(registry ? { schemaRegistry: { url: server.url, ...registry } } : {}) });
  drivers.push(d);
  return d;
}

async function ok<T>(p: Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-external-registry-'));
  cluster = openCluster({ dataDir: dir, brokers: 3, logger: quiet, kafkaPort: 0 });
  expect(await cluster.ready(15_000)).toBe(true);
  server = await startSchemaRegistry({ service: cluster.service, port: 0, users: { alice: 'alice-secret' }, logger: quiet });
  const described = await cluster.service.call('cluster.describe', {});
  if (!described.ok) throw new Error(described.error.message);
  bootstrap = described.value.bootstrapServers!.split(',');
}, 30_000);

afterAll(async () => {
  for (const d of drivers) await d.close();
  await server?.close();
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('an external Schema Registry by URL, through the Kafka driver', () => {
  it('registers, lists, checks and counts ids, and records.search decodes what it framed', async () => {
    const d = driver({ username: 'alice', password: 'alice-secret' });
    expect(d.capabilities().find((c) => c.name === 'schemaRegistry')?.available).toBe(true);
    const { id: v1 } = await ok(d.call('schemas.register', { subject: 'orders-value', schema: V1 }));
    const { id: v2 } = await ok(d.call('schemas.register', { subject: 'orders-value', schema: V2 }));
    expect(v2).toBe(v1 + 1);
    const refused = await d.call('schemas.register', { subject: 'orders-value', schema: NO_DEFAULT });
    expect(refused.ok ? null : refused.error).toMatchObject({ code: 'INVALID_REQUEST', details: { registryErrorCode: 409 } });
    const check = await ok(d.call('schemas.check', { subject: 'orders-value', schema: NO_DEFAULT }));
    expect(check).toMatchObject({ compatible: false, level: 'BACKWARD' });
    expect(check.messages.join('\n')).toMatch(/total/);
    expect(await ok(d.call('schemas.check', { subject: 'new-value', schema: NO_DEFAULT }))).toEqual({ compatible: true, level: 'BACKWARD', messages: [] });

    const list = await ok(d.call('schemas.list', {}));
    expect(list).toMatchObject({ globalCompatibility: 'BACKWARD', globalMode: 'READWRITE' });
    expect(list.subjects).toEqual([
      { subject: 'orders-value', compatibility: null, mode: null, versions: [expect.objectContaining({ version: 1, id: v1, schemaType: 'AVRO', deleted: false }), expect.objectContaining({ version: 2, id: v2, deleted: false })] },
    ]);

    // A record framed with v2's id, written over the Kafka protocol, decoded by the driver's read.
    await ok(d.call('topics.create', { name: 'orders', partitions: 1, replicationFactor: 3 }));
    const bytes = frame(writeHeader(v2), parseSchema('AVRO', V2).encode({ id: 'o-1', qty: 3 }).payload);
    await ok(d.call('records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ key: 'o-1', value: Buffer.from(bytes).toString('base64'), valueFormat: 'base64' }, { value: 'plain' }] }));
    const page: RecordsSearchView = await ok(d.call('records.search', { topic: 'orders', from: { beginning: true }, filter: { cel: 'value.qty == 3' } }));
    expect(page.records).toHaveLength(1);
    expect(page.records[0]!.value).toMatchObject({ format: 'schema', json: { id: 'o-1', qty: 3 }, schema: { id: v2, subject: 'orders-value', version: 2 } });
    expect(await ok(d.call('schemas.usage', { topic: 'orders' }))).toEqual({ topic: 'orders', scanned: 2, unframed: 1, complete: true, ids: [{ id: v2, part: 'value', records: 1, subjects: ['orders-value'] }] });
  }, 60_000);

  it('produces with a schema through the Kafka driver: framed with the id the registry gave, decoded by the cluster itself', async () => {
    const d = driver({ username: 'alice', password: 'alice-secret' });
    const { id } = await ok(d.call('schemas.register', { subject: 'shipments-value', schema: V1 }));
    await ok(d.call('topics.create', { name: 'shipments', partitions: 2, replicationFactor: 3 }));
    // The driver's first produce, to both partitions at once: one producer connects for both batches.
    const keys = ['s-1', 's-2', 's-3', 's-4'];
    const sent = await ok(d.call('records.produce', { topic: 'shipments', acks: 'all', records: keys.map((k) => ({ key: k, value: JSON.stringify({ id: k }) })), schemas: { value: { subject: 'shipments-value' } } }));
    expect(sent.batches.map((b) => [b.partition, b.errorCode]).sort()).toEqual([[0, 'NONE'], [1, 'NONE']]);
    // Read by the cluster's own service (not the driver): Confluent's magic byte 0, then the id.
    const read = await ok(cluster.service.call('records.search', { topic: 'shipments', from: { beginning: true } }));
    expect(read.records.map((r) => r.key?.text).sort()).toEqual(keys);
    for (const r of read.records) {
      const bytes = Buffer.from(r.value!.base64, 'base64');
      expect([bytes[0], bytes.readInt32BE(1)]).toEqual([0, id]);
      expect(parseSchema('AVRO', V1).decode(bytes.subarray(5))).toEqual({ id: r.key!.text });
    }
    // By id too, and a value that does not fit, or a subject the registry does not know, is refused naming why.
    await ok(d.call('records.produce', { topic: 'shipments', partition: 1, acks: 'all', records: [{ value: '{"id": "s-5"}' }], schemas: { value: { id } } }));
    const misfit = await d.call('records.produce', { topic: 'shipments', acks: 'all', records: [{ value: '{"id": 7}' }], schemas: { value: { subject: 'shipments-value' } } });
    expect(misfit.ok ? null : misfit.error).toMatchObject({ code: 'INVALID_INPUT', details: { issues: [{ path: ['records', 0, 'value'] }] } });
    const unknown = await d.call('records.produce', { topic: 'shipments', acks: 'all', records: [{ value: '{}' }], schemas: { value: { subject: 'nobody-value' } } });
    expect(unknown.ok ? '' : unknown.error.message).toMatch(/40401/);
    expect((await ok(cluster.service.call('records.search', { topic: 'shipments', from: { beginning: true } }))).records).toHaveLength(5);
  }, 60_000);

  it('says when the registry refuses the credentials, and without a registry answers UNSUPPORTED_FOR_CONNECTION', async () => {
    const wrong = await driver({ username: 'alice', password: 'nope' }).call('schemas.list', {});
    expect(wrong.ok ? null : wrong.error).toMatchObject({ code: 'INVALID_REQUEST', details: { status: 401 } });
    expect(wrong.ok ? '' : wrong.error.message).toMatch(/refused the credentials/);
    const none = driver();
    expect(none.capabilities().find((c) => c.name === 'schemaRegistry')).toMatchObject({ available: false, reason: expect.stringMatching(/URL/) });
    const unsupported = await none.call('schemas.list', {});
    expect(unsupported.ok ? null : unsupported.error.code).toBe('UNSUPPORTED_FOR_CONNECTION');
  }, 30_000);
});
