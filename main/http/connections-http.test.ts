/**
 * The connections.* methods over real HTTP, on the host as `npm run serve` builds it (the
 * connections service in front of the served cluster): a second local cluster addressed by
 * `connection`, an external connection whose secret never comes back, a connection test, and
 * deletion with the typed name. The last test checks that every connections.* method was called.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methodNames, targetsCluster, type MethodInput, type MethodName, type MethodResult, type Result } from '../../app/api/contract.js';
import { createHostConnections } from '../../app/service/connections/host-connections.js';
import type { ConnectionsService } from '../../app/service/connections/connections-service.js';
import { embeddedDriver } from '../../app/service/embedded-driver/embedded-driver.js';
import { startHttpHost, type HttpHost } from './http-host.js';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { loadOrCreateToken } from './token.js';

let dir: string;
let cluster: OpenCluster;
let connections: ConnectionsService;
let host: HttpHost;
let token: string;
const quiet = { error: () => {} };
const called = new Set<string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-connections-http-'));
  cluster = openCluster({ dataDir: join(dir, 'served'), brokers: 3, logger: quiet });
  token = loadOrCreateToken(join(dir, 'served'));
  expect(await cluster.ready(15_000)).toBe(true);
  connections = createHostConnections({
    configDir: join(dir, 'config'),
    host: () => ({ dataDir: join(dir, 'served'), driver: cluster.service }),
    async openLocal(dataDir, how) {
      const local = openCluster({ dataDir, logger: quiet, ...(how.brokers !== undefined ? { brokers: how.brokers } : { initialProfile: how.profile ?? 'balanced' }) });
      await local.ready(15_000);
      return embeddedDriver(local.service, async () => local.close());
    },
    logger: quiet,
    testTimeoutMs: 2_000,
  });
  host = await startHttpHost({ service: connections, port: 0, host: '127.0.0.1', token, logger: quiet });
}, 30_000);

afterAll(async () => {
  await host?.close();
  await connections?.close();
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

async function post<M extends MethodName>(method: M, input: MethodInput<M>): Promise<{ status: number; body: Result<MethodResult<M>> }> {
  called.add(method);
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as Result<MethodResult<M>> };
}

async function ok<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const { body } = await post(method, input);
  if (!body.ok) throw new Error(`${method} failed: ${JSON.stringify(body.error)}`);
  return body.value;
}

describe('connections over HTTP', () => {
  let localId = '';
  let externalId = '';

  it('lists the served cluster as the default connection', async () => {
    const list = await ok('connections.list', {});
    expect(list.map((c) => [c.name, c.isDefault])).toEqual([['served', true]]);
  });

  it('creates a local cluster and addresses it with `connection` while calls without it stay on the served one', async () => {
    const created = await ok('connections.createLocal', { name: 'second', brokers: 1 });
    localId = created.id;
    await ok('topics.create', { connection: localId, name: 'in-second', partitions: 2, replicationFactor: 1 });
    expect((await ok('topics.list', { connection: localId })).map((t) => t.name)).toEqual(['in-second']);
    expect((await ok('topics.list', {})).map((t) => t.name)).toEqual([]);
    expect((await ok('connections.get', { id: localId })).open).toBe(true);
    expect((await ok('connections.rename', { id: localId, name: 'second-renamed' })).name).toBe('second-renamed');
  });

  it('makes a twin of a connection, remembers its source, and refreshes it from there', async () => {
    const twin = await ok('connections.createTwin', { name: 'second-twin', source: localId });
    expect(twin.connection.twinOf).toMatchObject({ sourceId: localId, sourceName: 'second-renamed' });
    expect((await ok('topics.describeMany', { connection: twin.connection.id })).map((t) => [t.name, t.partitions.map((p) => p.replicas)])).toEqual([['in-second', [[1], [1]]]]);
    await ok('partitions.add', { connection: localId, topic: 'in-second', totalCount: 3 });
    const drift = await ok('connections.refreshTwin', { id: twin.connection.id });
    expect(drift.changes.map((c) => `${c.kind} ${c.subject} ${c.twin}->${c.source}`)).toEqual(['partitions-added topic in-second 2->3']);
    expect((await ok('connections.refreshTwin', { id: twin.connection.id, dryRun: false })).changes).toHaveLength(1);
    expect((await ok('connections.refreshTwin', { id: twin.connection.id })).changes).toEqual([]);
    expect((await post('connections.refreshTwin', { id: localId })).body).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect((await ok('connections.delete', { id: twin.connection.id, confirm: 'second-twin' })).dataDeleted).toBe(true);
  });

  it('rehearses a rack stop and a plan on a twin, prediction beside what the engine did, and reports both in Markdown', async () => {
    const source = await ok('connections.createLocal', { name: 'racked', profile: 'balanced' });
    const racks = new Map((await ok('brokers.list', { connection: source.id })).map((b) => [b.id, b.rack]));
    expect([...racks.values()].every((r) => r !== null)).toBe(true);
    await ok('topics.create', { connection: source.id, name: 'orders', assignments: [[1, 2, 3], [2, 3, 1], [3, 1, 2]], configs: { 'min.insync.replicas': '2' } });
    await ok('topics.create', { connection: source.id, name: 'solo', assignments: [[2], [3]] });
    const twin = (await ok('connections.createTwin', { name: 'racked-twin', source: source.id })).connection;
    await ok('clock.setScale', { connection: twin.id, scale: 60 });
    const stop = await ok('connections.rehearseStop', { id: twin.id, racks: [racks.get(2)!] });
    expect(stop).toMatchObject({ kind: 'stop', fault: 'kill', stopped: [2], alreadyDown: [], compared: 4 });
    const rows = new Map(stop.partitions.map((p) => [`${p.topic}-${p.partition}`, p]));
    // solo-0 lived on broker 2 alone: offline, predicted and observed; orders-1 was led by 2: its next in-sync replica leads.
    expect(rows.get('solo-0')).toMatchObject({ predicted: { leader: -1, outcome: 'offline' }, observed: { leader: -1, outcome: 'offline' }, agrees: true });
    expect(rows.get('orders-1')).toMatchObject({ predicted: { leader: 3, isr: [1, 3] }, observed: { leader: 3, isr: [1, 3], outcome: 'available' }, agrees: true });
    expect(stop.agreed).toBe(stop.compared);
    expect((await ok('brokers.list', { connection: twin.id })).find((b) => b.id === 2)!.state).toBe('killed');
    await ok('brokers.start', { connection: twin.id, brokerId: 2 });

    const plan = await ok('connections.rehearsePlan', { id: twin.id, partitions: [{ topic: 'solo', partition: 1, replicas: [1] }], throttleBytesPerSec: 1_000_000 });
    expect(plan).toMatchObject({ kind: 'plan', compared: 1, agreed: 1, moves: [{ topic: 'solo', partition: 1, observed: { replicas: [1], leader: 1, isr: [1] } }] });
    expect((await ok('topics.describe', { connection: twin.id, name: 'solo' })).partitions[1]!.replicas).toEqual([1]);

    // Nothing is ever stopped on an external cluster from here.
    const elsewhere = await ok('connections.addExternal', { name: 'production', settings: { bootstrapServers: ['127.0.0.1:1'] } });
    const refused = await post('connections.rehearseStop', { id: elsewhere.id, brokers: [1] });
    expect(refused.body.ok ? null : refused.body.error.code).toBe('UNSUPPORTED_FOR_CONNECTION');
    await ok('connections.delete', { id: elsewhere.id, confirm: 'production' });

    const report = await ok('connections.twinReport', { id: twin.id });
    expect(report).toMatchObject({ fileName: expect.stringMatching(/^rehearsal-racked-twin\.md$/), entries: 3 });
    expect(report.markdown).toContain('# Rehearsal report: racked-twin');
    expect(report.markdown).toContain('made from racked');
    expect(report.markdown).toContain(`stop rack ${racks.get(2)}`);
    expect(report.markdown).toContain('Prediction and engine agree on all 4 partitions.');
    expect(report.markdown).toMatch(/\| solo-0 \| 2 \| none \| none \| 2 \| 2 \| offline \| offline \| yes \|/);
    expect(report.markdown).toContain('reassignment of 1 partition\n');
    await ok('connections.delete', { id: twin.id, confirm: 'racked-twin' });
    await ok('connections.delete', { id: source.id, confirm: 'racked' });
  }, 120_000);

  it("rehearses a stop of a group's coordinator: the coordinator FindCoordinator names afterwards is the one predicted", async () => {
    const local = await ok('connections.createLocal', { name: 'grouped', profile: 'balanced' });
    await ok('clock.setScale', { connection: local.id, scale: 60 });
    await ok('topics.create', { connection: local.id, name: 'invoices', partitions: 2, replicationFactor: 3 });
    await ok('consumers.start', { connection: local.id, groupId: 'billing', topics: ['invoices'] });
    let coordinator = -1;
    for (const deadline = Date.now() + 30_000; coordinator < 0 && Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      const d = await post('groups.describe', { connection: local.id, groupId: 'billing' });
      if (d.body.ok && d.body.value.state === 'Stable') coordinator = d.body.value.coordinatorId;
    }
    expect(coordinator).toBeGreaterThan(0);

    const stop = await ok('connections.rehearseStop', { id: local.id, brokers: [coordinator] });
    const billing = stop.coordinators!.find((c) => c.groupId === 'billing')!;
    expect(billing.predicted).not.toBe(coordinator);
    expect(billing).toMatchObject({ observed: billing.predicted, agrees: true, difference: '' });
    expect((await ok('groups.describe', { connection: local.id, groupId: 'billing' })).coordinatorId).toBe(billing.predicted);
    expect((await ok('connections.twinReport', { id: local.id })).markdown).toContain('Every group coordinator is where it was predicted (1 group).');
    await ok('connections.delete', { id: local.id, confirm: 'grouped' });
  }, 120_000);

  it('opens an existing data directory as a local connection', async () => {
    const opened = await ok('connections.openLocal', { name: 'opened', dataDir: join(dir, 'elsewhere') });
    expect((await ok('cluster.describe', { connection: opened.id })).brokers.length).toBeGreaterThan(0);
    const deleted = await ok('connections.delete', { id: opened.id, confirm: 'opened' });
    // A directory the user chose is forgotten, not deleted.
    expect(deleted).toMatchObject({ dataDeleted: false });
    expect(deleted.note).toContain('left in place');
  });

  it('saves an external connection whose password never comes back, and tests it', async () => {
    const secret = 'http-secret-never-returned';
    const added = await ok('connections.addExternal', { name: 'ext', settings: { bootstrapServers: ['127.0.0.1:1'], security: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'u', password: secret } } });
    externalId = added.id;
    const updated = await ok('connections.updateExternal', { id: externalId, name: 'ext-2', settings: { bootstrapServers: ['127.0.0.1:1'], security: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'u2' } } });
    expect(updated.external?.sasl).toEqual({ mechanism: 'PLAIN', username: 'u2', passwordSaved: true });
    const raw = await (await fetch(`${host.origin}/api/connections.list`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: '{}' })).text();
    expect(raw).not.toContain(secret);
    const tested = await ok('connections.test', { id: externalId });
    expect(tested).toMatchObject({ ok: false, stage: 'refused' });
    const unsupported = await post('brokers.stop', { connection: externalId, brokerId: 1 });
    expect(unsupported.body.ok ? null : unsupported.body.error.code).toBe('UNSUPPORTED_FOR_CONNECTION');
  });

  it("drops a Schema Registry's saved token when the connection is updated to no authentication", async () => {
    const token = 'registry-token-http-secret';
    const reg = await ok('connections.addExternal', { name: 'reg', settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'http://127.0.0.1:1', auth: 'bearer', token } } });
    expect(reg.external?.schemaRegistry).toEqual({ url: 'http://127.0.0.1:1', passwordSaved: false, tokenSaved: true });
    const none = await ok('connections.updateExternal', { id: reg.id, settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'http://127.0.0.1:1', auth: 'none' } } });
    expect(none.external?.schemaRegistry).toEqual({ url: 'http://127.0.0.1:1', passwordSaved: false, tokenSaved: false });
    expect((await ok('connections.list', {})).find((c) => c.id === reg.id)?.external?.schemaRegistry?.tokenSaved).toBe(false);
    const bad = await post('connections.updateExternal', { id: reg.id, settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'http://127.0.0.1:1', auth: 'basic' } } });
    expect(bad.body.ok ? null : bad.body.error.code).toBe('INVALID_INPUT');
    await ok('connections.delete', { id: reg.id, confirm: 'reg' });
  });

  it('deletes only with the exact name', async () => {
    const refused = await post('connections.delete', { id: externalId, confirm: 'ext' });
    expect(refused.body.ok).toBe(false);
    await ok('connections.delete', { id: externalId, confirm: 'ext-2' });
    const local = await ok('connections.delete', { id: localId, confirm: 'second-renamed' });
    expect(local.dataDeleted).toBe(true);
    expect((await ok('connections.list', {})).map((c) => c.name)).toEqual(['served']);
  });

  it('called every connections.* method', () => {
    expect([...called].filter((m) => m.startsWith('connections.')).sort()).toEqual(methodNames.filter((m) => !targetsCluster(m)).sort());
  });
});
