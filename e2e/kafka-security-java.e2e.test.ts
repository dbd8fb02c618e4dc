/**
 * Apache Kafka's Java client (kafka-clients 3.8.0) against `npm run serve` with SASL and KRaft's
 * StandardAuthorizer: Admin's ACL, SCRAM credential and client quota calls, a user created with
 * alterUserScramCredentials logging in with SCRAM at once (and refused once deleted), and the
 * exceptions the client raises for hostile requests. The program is e2e/java-security/SecurityTour.java.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterView } from '../app/api/views.js';
import { api, removeDir, startServe, type ServedHost } from './support/harness.js';
import { compileSecurityPrograms, javaClient } from './support/java-security.js';

const client = javaClient();
if ('skipReason' in client) process.stderr.write(`${client.skipReason}\n`);

describe.skipIf('skipReason' in client)('the Java client on a secured local cluster', () => {
  let dir: string;
  let host: ServedHost;
  let cp = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rs-java-security-'));
    writeFileSync(join(dir, 'users.json'), JSON.stringify({ mechanisms: ['SCRAM-SHA-256', 'SCRAM-SHA-512'], users: { admin: 'admin-secret' } }));
    [host, cp] = await Promise.all([
      startServe({
        dataDir: join(dir, 'data'),
        extraArgs: ['--brokers', '3', '--kafka-sasl-users', join(dir, 'users.json'), '--broker-config', 'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer', '--broker-config', 'super.users=User:admin'],
      }),
      Promise.resolve().then(() => compileSecurityPrograms((client as { classpath: string }).classpath)),
    ]);
  }, 240_000);
  afterAll(async () => {
    await host?.stop();
    if (dir) removeDir(dir);
    if (cp) rmSync(cp.split(':')[0]!, { recursive: true, force: true });
  });

  it('manages ACLs, SCRAM credentials and quotas with Admin; a user it creates logs in at once, and not once deleted', async () => {
    const bootstrap = (await api<ClusterView>(host, 'cluster.describe', {})).bootstrapServers;
    const r = spawnSync('java', ['-cp', cp, 'SecurityTour', bootstrap, 'admin-secret'], { encoding: 'utf8', timeout: 180_000 });
    const lines = r.stdout.split('\n');
    expect(r.status, `${lines.find((l) => l.startsWith('FAILED')) ?? ''}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0);
    expect(lines.filter((l) => l.startsWith('OK ')).map((l) => l.slice(3))).toEqual([
      'acls created and described (MATCH)',
      'hostile bindings refused with InvalidRequestException',
      'scram credential created and described',
      'scram refusals',
      'dave logged in with SCRAM-SHA-256 and wrote',
      'dave refused on a topic no binding names',
      'dave refused once deleted',
      'quotas altered and described',
      'hostile quota requests refused',
      'acls deleted',
    ]);
    // The console reads what the Java client wrote: dave's quotas, no bindings left.
    expect(await api(host, 'quotas.list', { entity: { user: 'dave' } })).toEqual([{ entity: { user: 'dave' }, values: { producer_byte_rate: 1048576, request_percentage: 50 } }]);
    expect(await api<{ bindings: unknown[] }>(host, 'acls.list', {})).toMatchObject({ bindings: [] });
  }, 200_000);
});
