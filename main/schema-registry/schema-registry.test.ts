/**
 * The Schema Registry over real HTTP on 127.0.0.1 and a real cluster (3 brokers, SQLite in a temp
 * dir), driven by two clients no one here wrote — @kafkajs/confluent-schema-registry and
 * @confluentinc/schemaregistry — and by plain fetch for Confluent's status and error codes. Each
 * client decodes what the other encoded; the schemas survive closing and reopening the cluster.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SchemaRegistry as KafkajsRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { AvroDeserializer, AvroSerializer, ProtobufDeserializer, SchemaRegistryClient, SerdeType } from '@confluentinc/schemaregistry';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { startSchemaRegistry, type SchemaRegistryServer } from './schema-registry-server.js';
import { frame, writeHeader } from '../../app/schemas/wire-format.js';

const quiet = { error: () => {} };
let dir: string;
let cluster: OpenCluster;
let server: SchemaRegistryServer;

const payment = {
  type: 'record',
  name: 'Payment',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'string' },
    { name: 'amount', type: 'double' },
  ],
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-schema-registry-'));
  cluster = openCluster({ dataDir: dir, brokers: 3, logger: quiet, kafkaPort: 0 });
  expect(await cluster.ready(15_000)).toBe(true);
  server = await startSchemaRegistry({ service: cluster.service, port: 0, logger: quiet });
}, 30_000);

afterAll(async () => {
  await server?.close();
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

async function http(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/vnd.schemaregistry.v1+json', ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(15_000),
  });
  expect(res.headers.get('content-type')).toBe('application/vnd.schemaregistry.v1+json');
  return { status: res.status, json: await res.json() };
}

describe('Schema Registry over HTTP', () => {
  it('kafkajs confluent-schema-registry registers, encodes and decodes; the Confluent client decodes its bytes', async () => {
    const kjs = new KafkajsRegistry({ host: server.url });
    const { id } = await kjs.register({ type: SchemaType.AVRO, schema: JSON.stringify(payment) }, { subject: 'payments-value' });
    expect(id).toBe(1);
    expect(await kjs.getLatestSchemaId('payments-value')).toBe(1);
    const bytes = await kjs.encode(id, { id: 'p-1', amount: 12.5 });
    expect(bytes[0]).toBe(0);
    expect(bytes.readInt32BE(1)).toBe(1);
    expect(await kjs.decode(bytes)).toEqual({ id: 'p-1', amount: 12.5 });

    const client = new SchemaRegistryClient({ baseURLs: [server.url] });
    const deser = new AvroDeserializer(client, SerdeType.VALUE, {});
    expect(await deser.deserialize('payments', bytes)).toEqual({ id: 'p-1', amount: 12.5 });
  });

  it('the Confluent client serializes (auto-registering, with BACKWARD checked) and kafkajs decodes', async () => {
    const client = new SchemaRegistryClient({ baseURLs: [server.url] });
    const v2 = { ...payment, fields: [...payment.fields, { name: 'currency', type: 'string', default: 'EUR' }] };
    const id = await client.register('payments-value', { schemaType: 'AVRO', schema: JSON.stringify(v2) }, false);
    expect(id).toBe(2);
    const latest = await client.getLatestSchemaMetadata('payments-value');
    expect(latest).toMatchObject({ id: 2, version: 2 });
    const ser = new AvroSerializer(client, SerdeType.VALUE, { useLatestVersion: true });
    const bytes = await ser.serialize('payments', { id: 'p-2', amount: 3, currency: 'NOK' });
    expect(bytes.readInt32BE(1)).toBe(2);
    const kjs = new KafkajsRegistry({ host: server.url });
    expect(await kjs.decode(bytes)).toEqual({ id: 'p-2', amount: 3, currency: 'NOK' });
    // A field without a default is refused by BACKWARD with Confluent's 409.
    const bad = { ...payment, fields: [...payment.fields, { name: 'note', type: 'string' }] };
    await expect(client.register('payments-value', { schemaType: 'AVRO', schema: JSON.stringify(bad) }, false)).rejects.toThrow(/409|incompatible/i);
  });

  it("Protobuf: kafkajs's client registers, our encoder frames with message indexes, Confluent's deserializer decodes", async () => {
    // @kafkajs/confluent-schema-registry writes Protobuf payloads without message indexes (not
    // Confluent's wire format), so its Protobuf bytes are not used here; its registration is.
    const proto = 'syntax = "proto3";\npackage shop;\nmessage Order {\n  string id = 1;\n  int32 qty = 2;\n  message Line { string sku = 1; }\n}\nmessage Refund { string order_id = 1; }\n';
    const kjs = new KafkajsRegistry({ host: server.url });
    const { id } = await kjs.register({ type: SchemaType.PROTOBUF, schema: proto }, { subject: 'orders-value' });
    const parsed = await server.registry.parsedById(id);
    const client = new SchemaRegistryClient({ baseURLs: [server.url] });
    const deser = new ProtobufDeserializer(client, SerdeType.VALUE, {});
    for (const [message, value] of [
      ['shop.Order', { id: 'o-1', qty: 3 }],
      ['shop.Refund', { order_id: 'o-1' }],
    ] as const) {
      const { payload, messageIndexes } = parsed.encode(value, message);
      const bytes = Buffer.from(frame(writeHeader(id, messageIndexes), payload));
      const decoded = (await deser.deserialize('orders', bytes)) as Record<string, unknown>;
      for (const [k, v] of Object.entries(value)) expect(decoded[k === 'order_id' ? 'orderId' : k] ?? decoded[k]).toEqual(v);
    }
  });

  it("answers Confluent's status and error codes", async () => {
    expect(await http('GET', '/subjects/nope/versions')).toEqual({ status: 404, json: { error_code: 40401, message: "Subject 'nope' not found." } });
    expect((await http('GET', '/subjects/payments-value/versions/9')).json).toMatchObject({ error_code: 40402 });
    expect((await http('GET', '/schemas/ids/999')).json).toMatchObject({ error_code: 40403 });
    expect(await http('POST', '/subjects/x/versions', { schema: '{"type": "nope"}' })).toMatchObject({ status: 422, json: { error_code: 42201 } });
    expect(await http('PUT', '/config', { compatibility: 'SIDEWAYS' })).toMatchObject({ status: 422, json: { error_code: 42203 } });
    expect(await http('GET', '/config')).toEqual({ status: 200, json: { compatibilityLevel: 'BACKWARD' } });
    expect(await http('GET', '/schemas/types')).toEqual({ status: 200, json: ['AVRO', 'PROTOBUF', 'JSON'] });
    const bad = { ...payment, fields: [{ name: 'id', type: 'int' }] };
    const check = await http('POST', '/compatibility/subjects/payments-value/versions/latest?verbose=true', { schema: JSON.stringify(bad) });
    expect(check.status).toBe(200);
    expect(check.json).toMatchObject({ is_compatible: false });
    expect((check.json as { messages: string[] }).messages.length).toBeGreaterThan(0);
    expect(await http('GET', '/subjects')).toEqual({ status: 200, json: ['orders-value', 'payments-value'] });
    expect(await http('DELETE', '/subjects/orders-value?permanent=true')).toMatchObject({ status: 404, json: { error_code: 40405 } });
    expect(await http('DELETE', '/subjects/orders-value')).toEqual({ status: 200, json: [1] });
    expect(await http('GET', '/subjects?deleted=true')).toEqual({ status: 200, json: ['orders-value', 'payments-value'] });
    expect(await http('PUT', '/mode/payments-value', { mode: 'READONLY' })).toEqual({ status: 200, json: { mode: 'READONLY' } });
    expect((await http('POST', '/subjects/payments-value/versions', { schema: JSON.stringify(payment) })).json).toMatchObject({ error_code: 42205 });
    expect(await http('DELETE', '/mode/payments-value')).toEqual({ status: 200, json: { mode: 'READONLY' } });
  });

  it('keeps its schemas in the compacted _schemas topic, read again after the cluster reopens', async () => {
    const described = await cluster.service.call('topics.describe', { name: '_schemas' });
    expect(described.ok && described.value.partitions.length).toBe(1);
    expect(described.ok && described.value.partitions[0]!.replicas.length).toBe(3);
    await server.close();
    cluster.close();
    cluster = openCluster({ dataDir: dir, brokers: 3, logger: quiet, kafkaPort: 0 });
    expect(await cluster.ready(15_000)).toBe(true);
    server = await startSchemaRegistry({ service: cluster.service, port: 0, logger: quiet });
    expect(await http('GET', '/subjects/payments-value/versions')).toEqual({ status: 200, json: [1, 2] });
    expect(await http('GET', '/subjects?deleted=true')).toEqual({ status: 200, json: ['orders-value', 'payments-value'] });
    // Ids go on from where the first run left them.
    const other = { ...payment, name: 'Refund' };
    expect(await http('POST', '/subjects/refunds-value/versions', { schema: JSON.stringify(other) })).toEqual({ status: 200, json: { id: 4 } });
  }, 60_000);

  it('asks for basic auth with the SASL users when it has them', async () => {
    const secured = await startSchemaRegistry({ service: cluster.service, port: 0, users: { alice: 'alice-secret' }, logger: quiet });
    try {
      const anonymous = await fetch(`${secured.url}/subjects`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ error_code: 401 });
      const wrong = await fetch(`${secured.url}/subjects`, { headers: { Authorization: `Basic ${Buffer.from('alice:nope').toString('base64')}` } });
      expect(wrong.status).toBe(401);
      const kjs = new KafkajsRegistry({ host: secured.url, auth: { username: 'alice', password: 'alice-secret' } });
      expect(await kjs.getLatestSchemaId('payments-value')).toBe(2);
      const client = new SchemaRegistryClient({ baseURLs: [secured.url], basicAuthCredentials: { credentialsSource: 'USER_INFO', userInfo: 'alice:alice-secret' } });
      expect(await client.getAllSubjects()).toContain('payments-value');
    } finally {
      await secured.close();
    }
  });

  it('takes a free port when asked for a taken one with fallbackToFreePort (the desktop app on 8081), and fails without', async () => {
    await expect(startSchemaRegistry({ service: cluster.service, port: server.port, logger: quiet })).rejects.toThrow(/EADDRINUSE/);
    const other = await startSchemaRegistry({ service: cluster.service, port: server.port, fallbackToFreePort: true, logger: quiet });
    try {
      expect(other.port).not.toBe(server.port);
      expect((await fetch(`${other.url}/subjects/payments-value/versions`)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});
