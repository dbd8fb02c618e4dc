/**
 * Security against `npm run serve` with SASL and KRaft's StandardAuthorizer (issue 32), with
 * kafkajs 2.2.4, a client written by someone else: its ACL admin calls, its producer and consumer
 * refused and then allowed per ACL, a SCRAM login with a user created through the API (and none
 * once deleted), and a producer held to a byte-rate quota.
 *
 *   npm run serve -- --kafka-sasl-users users.json --broker-config authorizer.class.name=… --broker-config super.users=User:admin
 */
import { writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, Kafka, logLevel, ResourcePatternTypes, type Admin, type SASLOptions } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterView } from '../app/api/views.js';
import { api, removeDir, startServe, type ServedHost } from './support/harness.js';

const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';

/** A kafkajs error with its causes, types and messages, in one string. */
function errorText(e: unknown): string {
  if (!e || typeof e !== 'object') return String(e);
  const x = e as { name?: string; message?: string; type?: string; cause?: unknown; originalError?: unknown; errors?: unknown[] };
  return [x.name, x.type, x.message, x.cause ? errorText(x.cause) : '', x.originalError ? errorText(x.originalError) : '', ...(x.errors ?? []).map(errorText)].filter(Boolean).join(' | ');
}

describe('kafkajs against a secured local cluster', () => {
  let dir: string;
  let host: ServedHost;
  let brokers: string[];
  let admin: Admin;

  const kafka = (username: string, password: string, mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512' = 'scram-sha-512', clientId = `kafkajs-${username}`) =>
    new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 30_000, sasl: { mechanism, username, password } as SASLOptions, retry: { retries: 2, initialRetryTime: 100 } });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rs-security-'));
    writeFileSync(join(dir, 'users.json'), JSON.stringify({ mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'], users: { admin: 'admin-secret', alice: 'alice-secret' } }));
    host = await startServe({
      dataDir: join(dir, 'data'),
      extraArgs: ['--brokers', '3', '--kafka-sasl-users', join(dir, 'users.json'), '--broker-config', `authorizer.class.name=${STANDARD}`, '--broker-config', 'super.users=User:admin'],
    });
    brokers = (await api<ClusterView>(host, 'cluster.describe', {})).bootstrapServers.split(',');
    admin = kafka('admin', 'admin-secret').admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: 'orders', numPartitions: 1, replicationFactor: 3 }, { topic: 'payments', numPartitions: 1, replicationFactor: 3 }] });
  }, 120_000);
  afterAll(async () => {
    await admin?.disconnect();
    await host?.stop();
    if (dir) removeDir(dir);
  });

  const acl = (resourceType: AclResourceTypes, resourceName: string, operation: AclOperationTypes, principal = 'User:alice') => ({
    resourceType,
    resourceName,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal,
    host: '*',
    operation,
    permissionType: AclPermissionTypes.ALLOW,
  });

  it('refuses alice, who has no binding: her producer gets TOPIC_AUTHORIZATION_FAILED, her admin calls CLUSTER_AUTHORIZATION_FAILED', async () => {
    const producer = kafka('alice', 'alice-secret').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const refused = await producer.send({ topic: 'orders', messages: [{ value: 'nope' }] }).catch((e: unknown) => e);
    expect(errorText(refused)).toContain('TOPIC_AUTHORIZATION_FAILED');
    await producer.disconnect();
    const aliceAdmin = kafka('alice', 'alice-secret', 'plain').admin();
    await aliceAdmin.connect();
    const denied = await aliceAdmin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'orders', AclOperationTypes.WRITE)] }).catch((e: unknown) => e);
    expect(errorText(denied)).toContain('CLUSTER_AUTHORIZATION_FAILED');
    // Metadata for every topic leaves out what she may not describe.
    expect(await aliceAdmin.listTopics()).toEqual([]);
    await aliceAdmin.disconnect();
  });

  it("creates, describes and deletes ACLs with kafkajs's admin, and the console lists the same bindings", async () => {
    await admin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'orders', AclOperationTypes.WRITE), acl(AclResourceTypes.TOPIC, 'orders', AclOperationTypes.READ), acl(AclResourceTypes.GROUP, 'billing', AclOperationTypes.READ)] });
    const described = await admin.describeAcls({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    });
    const flat = described.resources.flatMap((r) => r.acls.map((a) => `${r.resourceType}:${r.resourceName}:${a.principal}:${a.operation}`)).sort();
    expect(flat).toEqual(
      [`${AclResourceTypes.GROUP}:billing:User:alice:${AclOperationTypes.READ}`, `${AclResourceTypes.TOPIC}:orders:User:alice:${AclOperationTypes.READ}`, `${AclResourceTypes.TOPIC}:orders:User:alice:${AclOperationTypes.WRITE}`].sort(),
    );
    const listed = await api<{ bindings: { resourceName: string; operation: string }[] }>(host, 'acls.list', {});
    expect(listed.bindings.map((b) => `${b.resourceName}:${b.operation}`).sort()).toEqual(['billing:READ', 'orders:READ', 'orders:WRITE']);
    await admin.createAcls({ acl: [acl(AclResourceTypes.TOPIC, 'payments', AclOperationTypes.WRITE, 'User:nobody')] });
    const deleted = await admin.deleteAcls({ filters: [{ resourceType: AclResourceTypes.TOPIC, resourceName: 'payments', resourcePatternType: ResourcePatternTypes.LITERAL, principal: 'User:nobody', host: '*', operation: AclOperationTypes.ANY, permissionType: AclPermissionTypes.ANY }] });
    expect(deleted.filterResponses[0]!.matchingAcls.map((a) => a.principal)).toEqual(['User:nobody']);
  });

  it('lets alice produce to orders and consume it in her group, and still refuses payments', async () => {
    const k = kafka('alice', 'alice-secret', 'scram-sha-256');
    const producer = k.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const [sent] = await producer.send({ topic: 'orders', acks: -1, messages: [{ key: 'k', value: 'first order' }] });
    expect(sent).toMatchObject({ topicName: 'orders', errorCode: 0 });
    const refused = await producer.send({ topic: 'payments', messages: [{ value: 'x' }] }).catch((e: unknown) => e);
    expect(errorText(refused)).toContain('TOPIC_AUTHORIZATION_FAILED');
    await producer.disconnect();

    // A group she has no binding for: FindCoordinator answers GROUP_AUTHORIZATION_FAILED, which
    // kafkajs reports as a coordinator it could not find (it keeps no cause), and the consumer stops.
    const stranger = k.consumer({ groupId: 'strangers', retry: { retries: 0 } });
    const crashed = new Promise<string>((resolve) => stranger.on(stranger.events.CRASH, (e) => resolve(String((e.payload as { error: Error }).error))));
    await stranger.connect();
    await stranger.subscribe({ topics: ['orders'], fromBeginning: true });
    void stranger.run({ eachMessage: async () => {} }).catch(() => {});
    expect(await crashed).toContain('Failed to find group coordinator');
    await stranger.disconnect();

    const consumer = k.consumer({ groupId: 'billing' });
    await consumer.connect();
    await consumer.subscribe({ topics: ['orders'], fromBeginning: true });
    const got = new Promise<string>((resolve) => void consumer.run({ eachMessage: async ({ message }) => resolve(message.value!.toString()) }));
    expect(await got).toBe('first order');
    await consumer.disconnect();
  }, 90_000);

  it('logs in with SCRAM as a user created through the API, at once, and not after the user is deleted', async () => {
    await api(host, 'users.upsert', { name: 'carol', mechanism: 'SCRAM-SHA-512', password: 'carol-secret' });
    const carol = kafka('carol', 'carol-secret').admin();
    await carol.connect();
    await carol.disconnect();
    const wrong = kafka('carol', 'not-her-password').admin();
    expect(String(await wrong.connect().catch((e: unknown) => e))).toMatch(/SASL SCRAM SHA512 authentication failed/);
    await api(host, 'users.delete', { name: 'carol' });
    const gone = kafka('carol', 'carol-secret').admin();
    expect(String(await gone.connect().catch((e: unknown) => e))).toMatch(/SASL SCRAM SHA512 authentication failed/);
  });

  it('holds a producer to its producer_byte_rate quota: the rate it gets, once past the first window, is within 10% of the quota', async () => {
    const quota = 200_000;
    await api(host, 'quotas.alter', { entity: { 'client-id': 'rate-test' }, set: { producer_byte_rate: quota } });
    await new Promise((r) => setTimeout(r, 1_500));
    const producer = kafka('admin', 'admin-secret', 'scram-sha-512', 'rate-test').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const value = Buffer.alloc(8_000, 'x');
    const started = Date.now();
    const acked: { at: number; bytes: number }[] = [];
    // Kafka lets a client burst until the rate over its window (10 to 11 s) reaches the quota;
    // from then on, throttled and muted, it gets the quota.
    while (Date.now() - started < 32_000) {
      await producer.send({ topic: 'orders', acks: 1, messages: [{ value }, { value }] });
      acked.push({ at: Date.now() - started, bytes: 2 * value.length });
    }
    await producer.disconnect();
    const steady = acked.filter((a) => a.at >= 12_000);
    const seconds = (steady[steady.length - 1]!.at - steady[0]!.at) / 1000;
    const rate = steady.slice(1).reduce((s, a) => s + a.bytes, 0) / seconds;
    expect(Math.abs(rate - quota) / quota, `measured ${Math.round(rate)} B/s against ${quota}`).toBeLessThan(0.1);
    const throttles = await api<{ clientId: string; key: string; lastThrottleMs: number }[]>(host, 'quotas.throttles', {});
    expect(throttles.some((t) => t.clientId === 'rate-test' && t.key === 'producer_byte_rate' && t.lastThrottleMs > 0)).toBe(true);
  }, 90_000);
});
