import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../api/events.js';
import { closeDataDirs, dataDirService, ok } from '../../sim/test-support/data-dir.js';
import { createVirtualClusterService } from '../../sim/virtual-service.js';
import { embeddedDriver } from '../embedded-driver/embedded-driver.js';
import { createHostConnections } from './host-connections.js';

const dirs: string[] = [];
const servers: Server[] = [];
const sockets = new Set<Socket>();

afterEach(async () => {
  closeDataDirs();
  for (const s of sockets) s.destroy();
  sockets.clear();
  for (const s of servers.splice(0)) await new Promise((done) => s.close(done));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** A host serving a simulated cluster, with its connection list in a fresh config dir. */
function hostWithConnections() {
  const configDir = join(tempDir('rs-config-'), 'config');
  const hostDir = tempDir('rs-host-');
  const host = createVirtualClusterService({ seed: 3, brokers: 3 });
  const service = createHostConnections({
    configDir,
    host: () => ({ dataDir: hostDir, driver: host }),
    openLocal: async (dataDir, how) => {
      const d = dataDirService({ dir: dataDir, brokers: how.brokers ?? 3, seed: 7 });
      return embeddedDriver(d.s);
    },
    testTimeoutMs: 1_500,
  });
  return { service, host, configDir, hostDir };
}

async function listening(server: Server): Promise<number> {
  servers.push(server);
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as { port: number }).port;
}

describe('connections: the list of clusters one console manages', () => {
  it('lists the cluster the host serves first, with every capability, and writes nothing to the config dir for it', async () => {
    const { service, configDir, hostDir } = hostWithConnections();
    const list = await ok(service.call('connections.list', {}));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ kind: 'local', isDefault: true, open: true, dataDir: hostDir });
    expect(list[0]!.capabilities.every((c) => c.available)).toBe(true);
    // Calls without `connection` reach the host's cluster, as before connections existed.
    expect((await ok(service.call('cluster.describe', {}))).brokers).toHaveLength(3);
    expect(existsSync(configDir)).toBe(false);
  });

  it('creates a second local cluster in its own data directory and routes calls and events by connection', async () => {
    const { service, configDir } = hostWithConnections();
    const events: EngineEvent[] = [];
    service.subscribe((e) => events.push(e));
    const created = await ok(service.call('connections.createLocal', { name: 'staging', brokers: 2 }));
    expect(created).toMatchObject({ name: 'staging', kind: 'local', isDefault: false, open: true });
    expect(created.dataDir!.startsWith(join(configDir, 'clusters'))).toBe(true);

    await ok(service.call('topics.create', { connection: created.id, name: 'only-in-staging', partitions: 1, replicationFactor: 2 }));
    expect((await ok(service.call('topics.list', { connection: created.id }))).map((t) => t.name)).toEqual(['only-in-staging']);
    expect((await ok(service.call('topics.list', {}))).map((t) => t.name)).not.toContain('only-in-staging');
    expect((await ok(service.call('cluster.describe', { connection: created.id }))).brokers).toHaveLength(2);
    const createdEvent = events.find((e) => e.type === 'topic.created' && e.topic === 'only-in-staging');
    expect(createdEvent?.connection).toBe(created.id);

    // The list file is owner-only and survives a new service on the same config dir.
    expect(statSync(join(configDir, 'connections.json')).mode & 0o777).toBe(0o600);
    const again = createHostConnections({ configDir, host: () => undefined, openLocal: () => Promise.reject(new Error('not here')) });
    expect((await ok(again.call('connections.list', {}))).map((c) => c.name)).toEqual(['staging']);
  });

  it('renames, and deletes only with the name typed exactly, removing the data directory it created', async () => {
    const { service } = hostWithConnections();
    const c = await ok(service.call('connections.createLocal', { name: 'scratch', brokers: 1 }));
    const renamed = await ok(service.call('connections.rename', { id: c.id, name: 'scratch-2' }));
    expect(renamed.name).toBe('scratch-2');

    const wrong = await service.call('connections.delete', { id: c.id, confirm: 'scratch' });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.error.message).toContain('"scratch-2"');
    expect(existsSync(c.dataDir!)).toBe(true);

    const deleted = await ok(service.call('connections.delete', { id: c.id, confirm: 'scratch-2' }));
    expect(deleted).toMatchObject({ name: 'scratch-2', dataDeleted: true });
    expect(existsSync(c.dataDir!)).toBe(false);
    const gone = await service.call('topics.list', { connection: c.id });
    expect(gone.ok ? null : gone.error.code).toBe('CONNECTION_NOT_FOUND');
  });

  it('refuses to delete the cluster the host serves', async () => {
    const { service } = hostWithConnections();
    const [host] = await ok(service.call('connections.list', {}));
    const r = await service.call('connections.delete', { id: host!.id, confirm: host!.name });
    expect(r.ok ? null : r.error.code).toBe('INVALID_STATE');
  });

  it('stores a SASL password and a key passphrase apart, 0600, and never returns them', async () => {
    const { service, configDir } = hostWithConnections();
    const password = 'pa55-word-that-must-not-leak';
    const passphrase = 'key-passphrase-that-must-not-leak';
    const added = await ok(
      service.call('connections.addExternal', {
        name: 'prod',
        settings: { bootstrapServers: ['kafka-1.example:9093'], security: 'SASL_SSL', sasl: { mechanism: 'SCRAM-SHA-512', username: 'ops', password }, tls: { caFile: '/etc/ca.pem', certFile: '/etc/c.pem', keyFile: '/etc/k.pem', keyPassphrase: passphrase } },
      }),
    );
    expect(added.external).toEqual({
      bootstrapServers: ['kafka-1.example:9093'],
      security: 'SASL_SSL',
      sasl: { mechanism: 'SCRAM-SHA-512', username: 'ops', passwordSaved: true },
      tls: { caFile: '/etc/ca.pem', certFile: '/etc/c.pem', keyFile: '/etc/k.pem', keyPassphraseSaved: true },
    });
    const everything = JSON.stringify([added, await ok(service.call('connections.list', {})), await ok(service.call('connections.get', { id: added.id }))]);
    expect(everything).not.toContain(password);
    expect(everything).not.toContain(passphrase);
    expect(readFileSync(join(configDir, 'connections.json'), 'utf8')).not.toContain(password);
    const secrets = join(configDir, 'secrets.json');
    expect(statSync(secrets).mode & 0o777).toBe(0o600);
    expect(readFileSync(secrets, 'utf8')).toContain(password);

    // An update without the password keeps the saved one; leaving SASL forgets it.
    const kept = await ok(service.call('connections.updateExternal', { id: added.id, settings: { bootstrapServers: ['kafka-2.example:9093'], security: 'SASL_SSL', sasl: { mechanism: 'SCRAM-SHA-512', username: 'ops' } } }));
    expect(kept.external!.sasl!.passwordSaved).toBe(true);
    const plain = await ok(service.call('connections.updateExternal', { id: added.id, settings: { bootstrapServers: ['kafka-2.example:9092'] } }));
    expect(plain.external).toEqual({ bootstrapServers: ['kafka-2.example:9092'], security: 'PLAINTEXT' });
    expect(readFileSync(secrets, 'utf8')).not.toContain(password);

    await ok(service.call('connections.delete', { id: added.id, confirm: 'prod' }));
    expect(readFileSync(secrets, 'utf8')).not.toContain(added.id);
  });

  it("keeps an external connection's Schema Registry URL in the list and its password or token with the secrets", async () => {
    const { service, configDir } = hostWithConnections();
    const secrets = join(configDir, 'secrets.json');
    const ext = await ok(service.call('connections.addExternal', { name: 'with-registry', settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'https://registry.example:8081', username: 'svc', password: 'registry-secret' } } }));
    expect(ext.external?.schemaRegistry).toEqual({ url: 'https://registry.example:8081', username: 'svc', passwordSaved: true, tokenSaved: false });
    expect(ext.capabilities.find((c) => c.name === 'schemaRegistry')?.available).toBe(true);
    expect(readFileSync(secrets, 'utf8')).toContain(ext.id);
    expect(JSON.stringify(await ok(service.call('connections.list', {})))).not.toContain('registry-secret');
    // Updated without the password: kept; without a registry: dropped with its secret.
    const kept = await ok(service.call('connections.updateExternal', { id: ext.id, settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'https://registry.example:8081', username: 'svc' } } }));
    expect(kept.external?.schemaRegistry?.passwordSaved).toBe(true);
    // A bearer token, then basic auth again: the token is dropped, not kept behind the username.
    const bearer = await ok(service.call('connections.updateExternal', { id: ext.id, settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'https://registry.example:8081', token: 'tok-secret' } } }));
    expect(bearer.external?.schemaRegistry).toEqual({ url: 'https://registry.example:8081', passwordSaved: false, tokenSaved: true });
    const basic = await ok(service.call('connections.updateExternal', { id: ext.id, settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'https://registry.example:8081', username: 'svc', password: 'p2' } } }));
    expect(basic.external?.schemaRegistry).toEqual({ url: 'https://registry.example:8081', username: 'svc', passwordSaved: true, tokenSaved: false });
    expect(readFileSync(secrets, 'utf8')).not.toContain('tok-secret');
    // Another token; a URL alone keeps it, "no authentication" drops it (and a password with it).
    await ok(service.call('connections.updateExternal', { id: ext.id, settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'https://registry.example:8081', auth: 'bearer', token: 'tok-2-secret' } } }));
    const urlOnly = await ok(service.call('connections.updateExternal', { id: ext.id, settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'https://registry.example:8081' } } }));
    expect(urlOnly.external?.schemaRegistry?.tokenSaved).toBe(true);
    const none = await ok(service.call('connections.updateExternal', { id: ext.id, settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'https://registry.example:8081', auth: 'none' } } }));
    expect(none.external?.schemaRegistry).toEqual({ url: 'https://registry.example:8081', passwordSaved: false, tokenSaved: false });
    expect(readFileSync(secrets, 'utf8')).not.toContain('tok-2-secret');
    const contradictory = await service.call('connections.updateExternal', { id: ext.id, settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'https://registry.example:8081', auth: 'none', token: 't' } } });
    expect(contradictory.ok ? null : contradictory.error.code).toBe('INVALID_INPUT');
    const dropped = await ok(service.call('connections.updateExternal', { id: ext.id, settings: { bootstrapServers: ['127.0.0.1:1'] } }));
    expect(dropped.external?.schemaRegistry).toBeUndefined();
    expect(dropped.capabilities.find((c) => c.name === 'schemaRegistry')?.available).toBe(false);
    const bad = await service.call('connections.addExternal', { name: 'bad', settings: { bootstrapServers: ['127.0.0.1:1'], schemaRegistry: { url: 'ftp://x' } } });
    expect(bad.ok ? null : bad.error.code).toBe('INVALID_INPUT');
  });

  it('answers what a real cluster cannot do with UNSUPPORTED_FOR_CONNECTION and the reason, before connecting', async () => {
    const { service } = hostWithConnections();
    const ext = await ok(service.call('connections.addExternal', { name: 'remote', settings: { bootstrapServers: ['127.0.0.1:1'] } }));
    expect(ext.capabilities.filter((c) => !c.available).map((c) => c.name)).toEqual(['faults', 'brokerMembership', 'replicaStates', 'timeline', 'liveEvents', 'clockScale', 'metrics', 'inAppConsumers', 'schemaRegistry', 'quotaThrottles', 'compaction']);
    expect(ext.capabilities.every((c) => c.available || (c.reason ?? '').length > 20)).toBe(true);
    for (const [method, input, capability] of [
      ['brokers.kill', { brokerId: 1 }, 'faults'],
      ['brokers.add', {}, 'brokerMembership'],
      ['events.recent', {}, 'timeline'],
      ['clock.setScale', { scale: 10 }, 'clockScale'],
      ['metrics.get', {}, 'metrics'],
      ['consumers.list', {}, 'inAppConsumers'],
      ['schemas.list', {}, 'schemaRegistry'],
      ['quotas.throttles', {}, 'quotaThrottles'],
      ['topics.compaction', { name: 't' }, 'compaction'],
    ] as const) {
      const r = await service.call(method, { ...input, connection: ext.id });
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error.code).toBe('UNSUPPORTED_FOR_CONNECTION');
      expect(r.error.details).toMatchObject({ capability, connection: ext.id });
      expect(r.error.message.length).toBeGreaterThan(40);
    }
    // What needs the cluster fails with where the connection failed.
    const down = await service.call('topics.list', { connection: ext.id });
    expect(down.ok ? null : down.error).toMatchObject({ code: 'NETWORK_EXCEPTION', details: { stage: 'refused' } });
  });

  it('reports the exact failure of a connection test: refused, DNS, timeout, protocol', async () => {
    const { service } = hostWithConnections();
    const refused = await ok(service.call('connections.test', { settings: { bootstrapServers: ['127.0.0.1:1'] } }));
    expect(refused).toMatchObject({ ok: false, stage: 'refused' });
    const dns = await ok(service.call('connections.test', { settings: { bootstrapServers: ['no-such-host.invalid:9092'] } }));
    expect(dns).toMatchObject({ ok: false, stage: 'dns' });
    // A port that accepts and never answers.
    const silent = await listening(createServer(() => {}));
    const timeout = await ok(service.call('connections.test', { settings: { bootstrapServers: [`127.0.0.1:${silent}`] } }));
    expect(timeout).toMatchObject({ ok: false, stage: 'timeout' });
    expect(timeout.elapsedMs).toBeLessThan(10_000);
    // A port that closes every connection at once (not a Kafka listener).
    const closer = await listening(createServer((socket) => socket.destroy()));
    const closed = await ok(service.call('connections.test', { settings: { bootstrapServers: [`127.0.0.1:${closer}`] } }));
    expect(closed.ok).toBe(false);
    if (!closed.ok) expect(['protocol', 'refused']).toContain(closed.stage);
  });

  it('refuses an unknown connection id and a malformed one', async () => {
    const { service } = hostWithConnections();
    const unknown = await service.call('topics.list', { connection: 'c-nope' });
    expect(unknown.ok ? null : unknown.error.code).toBe('CONNECTION_NOT_FOUND');
    const malformed = await service.call('topics.list', { connection: 42 });
    expect(malformed.ok ? null : malformed.error).toMatchObject({ code: 'INVALID_INPUT', details: [{ path: ['connection'] }] });
  });
});
