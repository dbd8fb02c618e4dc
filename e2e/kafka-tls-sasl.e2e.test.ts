/**
 * `connections.test` against our own listener over TLS and SASL (issue 14): a second
 * `npm run serve` with `--kafka-tls-cert/--kafka-tls-key` (a certificate for 127.0.0.1 signed by
 * a CA made here with openssl), `--kafka-tls-client-ca` (mutual TLS: a client certificate that CA
 * signed is required) and `--kafka-sasl-users` (PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512).
 * The console host tests settings against it and must name the exact failure: TLS (a CA that did
 * not sign the certificate, a server name the certificate does not carry, PLAINTEXT to a TLS
 * port, no client certificate or one another CA signed), SASL (a wrong password on each mechanism, a mechanism the listener does not enable —
 * the console host's own listener, SASL with PLAIN alone, serves as that one); and succeed with
 * the right ones — then the Kafka driver manages that cluster over SASL_SSL. The console host runs
 * with `--kafka-tls-self-signed`: a client trusting the CA it made in its data directory connects.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionTestView, ConnectionView } from '../app/api/connections.js';
import type { ClusterView, TopicView } from '../app/api/views.js';
import { api, removeDir, startServe, type ServedHost } from './support/harness.js';

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

/** A CA, a server and a client certificate signed by it, and a second CA that signed a client certificate of its own. */
function makeCertificates(dir: string): void {
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Replica Studio test CA');
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'other.key', '-out', 'other-ca.pem', '-days', '2', '-subj', '/CN=Some other CA');
  openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(dir, 'x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, ca] of [['client', 'ca'], ['stranger', 'other']] as const) {
    openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=alice');
    openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca === 'ca' ? 'ca' : 'other-ca'}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', 'client.ext');
  }
}

describe('connection tests over TLS and SASL against our own listener', () => {
  let dir: string;
  let secured: ServedHost;
  let console_: ServedHost;
  let bootstrap: string[];
  let plainOnly: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rs-tls-'));
    makeCertificates(dir);
    writeFileSync(join(dir, 'users.json'), JSON.stringify({ mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], users: { alice: 'alice-secret' } }));
    writeFileSync(join(dir, 'plain-only.json'), JSON.stringify({ mechanisms: ['PLAIN'], users: { alice: 'alice-secret' } }));
    [secured, console_] = await Promise.all([
      startServe({ extraArgs: ['--kafka-tls-cert', join(dir, 'server.pem'), '--kafka-tls-key', join(dir, 'server.key'), '--kafka-tls-client-ca', join(dir, 'ca.pem'), '--kafka-sasl-users', join(dir, 'users.json')] }),
      startServe({ extraArgs: ['--config', join(dir, 'config'), '--kafka-sasl-users', join(dir, 'plain-only.json'), '--kafka-tls-self-signed'] }),
    ]);
    bootstrap = (await api<ClusterView>(secured, 'cluster.describe', {})).bootstrapServers.split(',');
    plainOnly = (await api<ClusterView>(console_, 'cluster.describe', {})).bootstrapServers.split(',');
  }, 120_000);
  afterAll(async () => {
    await secured?.stop();
    await console_?.stop();
    if (dir) removeDir(dir);
  });

  const test = (settings: Record<string, unknown>): Promise<ConnectionTestView> => api<ConnectionTestView>(console_, 'connections.test', { settings: { bootstrapServers: bootstrap, ...settings } });
  const tls = (extra: Record<string, unknown> = {}) => ({ caFile: join(dir, 'ca.pem'), certFile: join(dir, 'client.pem'), keyFile: join(dir, 'client.key'), ...extra });
  const plain = (password: string) => ({ mechanism: 'PLAIN', username: 'alice', password });
  const scram = (mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512', password: string) => ({ mechanism, username: 'alice', password });

  it('finds the cluster with the right CA and password, over PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512', async () => {
    const { clusterId } = await api<ClusterView>(secured, 'cluster.describe', {});
    for (const sasl of [plain('alice-secret'), scram('SCRAM-SHA-256', 'alice-secret'), scram('SCRAM-SHA-512', 'alice-secret')]) {
      const found = await test({ security: 'SASL_SSL', tls: tls(), sasl });
      expect(found).toMatchObject({ ok: true, clusterId, brokerCount: 3 });
    }
  });

  it('names a TLS failure: a CA that did not sign the certificate, a server name it does not carry, PLAINTEXT to a TLS port', async () => {
    const wrongCa = await test({ security: 'SASL_SSL', tls: { caFile: join(dir, 'other-ca.pem') }, sasl: plain('alice-secret') });
    expect(wrongCa).toMatchObject({ ok: false, stage: 'tls' });
    const wrongName = await test({ security: 'SASL_SSL', tls: tls({ serverName: 'kafka.example.com' }), sasl: plain('alice-secret') });
    expect(wrongName).toMatchObject({ ok: false, stage: 'tls' });
    expect(wrongName.ok ? '' : wrongName.message).toMatch(/kafka\.example\.com|altnames|hostname/i);
    const plaintext = await test({});
    expect(plaintext.ok).toBe(false);
  });

  it('mutual TLS: names a TLS failure without a client certificate, or with one another CA signed', async () => {
    const none = await test({ security: 'SASL_SSL', tls: { caFile: join(dir, 'ca.pem') }, sasl: plain('alice-secret') });
    expect(none).toMatchObject({ ok: false, stage: 'tls' });
    expect(none.ok ? '' : none.message).toMatch(/certificate required/);
    const stranger = await test({ security: 'SASL_SSL', tls: tls({ certFile: join(dir, 'stranger.pem'), keyFile: join(dir, 'stranger.key') }), sasl: plain('alice-secret') });
    // The listener drops the handshake without an alert the client can read: it is told the likely reasons.
    expect(stranger).toMatchObject({ ok: false, stage: 'protocol' });
    expect(stranger.ok ? '' : stranger.message).toMatch(/client certificate/);
  });

  it('names a SASL failure: a wrong password, a mechanism the listener does not enable', async () => {
    const bad = await test({ security: 'SASL_SSL', tls: tls(), sasl: plain('wrong') });
    expect(bad).toMatchObject({ ok: false, stage: 'sasl' });
    expect(bad.ok ? '' : bad.message).toMatch(/Invalid username or password/);
    for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
      const scramBad = await test({ security: 'SASL_SSL', tls: tls(), sasl: scram(mechanism, 'wrong') });
      expect(scramBad).toMatchObject({ ok: false, stage: 'sasl' });
      expect(scramBad.ok ? '' : scramBad.message).toMatch(/Invalid username or password/);
    }
    const selfSigned = { caFile: join(console_.dataDir, 'tls', 'ca.pem') };
    const plainOnlyFound = await api<ConnectionTestView>(console_, 'connections.test', { settings: { bootstrapServers: plainOnly, security: 'SASL_SSL', tls: selfSigned, sasl: plain('alice-secret') } });
    expect(plainOnlyFound.ok).toBe(true);
    const notEnabled = await api<ConnectionTestView>(console_, 'connections.test', { settings: { bootstrapServers: plainOnly, security: 'SASL_SSL', tls: selfSigned, sasl: scram('SCRAM-SHA-512', 'alice-secret') } });
    expect(notEnabled).toMatchObject({ ok: false, stage: 'sasl' });
    expect(notEnabled.ok ? '' : notEnabled.message).toMatch(/SCRAM-SHA-512|mechanism/i);
  });

  it('manages the cluster through the Kafka driver over SASL_SSL with SCRAM-SHA-512: a topic created there is on the secured host', async () => {
    const added = await api<ConnectionView>(console_, 'connections.addExternal', { name: 'secured', settings: { bootstrapServers: bootstrap, security: 'SASL_SSL', tls: tls(), sasl: scram('SCRAM-SHA-512', 'alice-secret') } });
    await api(console_, 'topics.create', { name: 'over-tls', partitions: 2, replicationFactor: 3, connection: added.id });
    expect((await api<TopicView>(secured, 'topics.describe', { name: 'over-tls' })).partitions).toHaveLength(2);
  });

  it('--kafka-tls-self-signed: the console host made a CA and a 0600 key in its data directory; a client trusting that CA connects, one trusting another CA does not', async () => {
    expect(statSync(join(console_.dataDir, 'tls', 'server.key')).mode & 0o777).toBe(0o600);
    const trusted = await api<ConnectionTestView>(console_, 'connections.test', { settings: { bootstrapServers: plainOnly, security: 'SASL_SSL', tls: { caFile: join(console_.dataDir, 'tls', 'ca.pem') }, sasl: plain('alice-secret') } });
    expect(trusted).toMatchObject({ ok: true, brokerCount: 3 });
    const untrusted = await api<ConnectionTestView>(console_, 'connections.test', { settings: { bootstrapServers: plainOnly, security: 'SASL_SSL', tls: { caFile: join(dir, 'ca.pem') }, sasl: plain('alice-secret') } });
    expect(untrusted).toMatchObject({ ok: false, stage: 'tls' });
  });
});
