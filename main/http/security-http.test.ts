/**
 * The security methods of the contract over real HTTP against a real data directory whose
 * brokers run KRaft's StandardAuthorizer: ACL bindings (with a delete preview and the effective
 * access check), SCRAM users and client quotas, answered as a user would recognise; the bindings
 * and users are still there after the cluster is closed and opened again. The last test checks
 * that this file called every security method.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AclBindingView, MethodInput, MethodName, MethodResult, Result } from '../../app/api/contract.js';
import { securityMethods } from '../../app/api/security-contract.js';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { startHttpHost, type HttpHost } from './http-host.js';
import { loadOrCreateToken } from './token.js';

const STATIC = { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users': 'User:admin', 'allow.everyone.if.no.acl.found': 'true' };
let dir: string;
let cluster: OpenCluster;
let host: HttpHost;
let token: string;
const quiet = { error: () => {} };
const called = new Set<string>();

async function open(staticConfigs?: Record<string, string>): Promise<void> {
  cluster = openCluster({ dataDir: dir, brokers: 3, logger: quiet, kafkaPort: 0, ...(staticConfigs ? { staticConfigs } : {}) });
  expect(await cluster.ready(15_000)).toBe(true);
  host = await startHttpHost({ service: cluster.service, port: 0, host: '127.0.0.1', token, logger: quiet });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-security-http-'));
  token = loadOrCreateToken(dir);
  await open(STATIC);
}, 30_000);

afterAll(async () => {
  await host?.close();
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

async function post<M extends MethodName>(method: M, input: MethodInput<M>): Promise<{ status: number; body: Result<MethodResult<M>> }> {
  called.add(method);
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: (await res.json()) as Result<MethodResult<M>> };
}

async function ok<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const { status, body } = await post(method, input);
  if (!body.ok) throw new Error(`${method} failed (${status}): ${JSON.stringify(body.error)}`);
  return body.value;
}

const writeOrders: AclBindingView = { resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:bob', host: '*', operation: 'WRITE', permissionType: 'ALLOW' };

describe('the security methods over HTTP', () => {
  it('acls.create, acls.list, acls.check and acls.delete (a preview first)', async () => {
    const created = await ok('acls.create', { bindings: [writeOrders, { ...writeOrders, resourceName: '' }] });
    expect(created.map((r) => [r.errorCode, r.errorMessage])).toEqual([
      ['NONE', null],
      ['INVALID_REQUEST', 'Invalid empty resource name'],
    ]);
    expect(await ok('acls.list', {})).toEqual({ authorizer: { enabled: true, superUsers: ['User:admin'], allowEveryoneIfNoAclFound: true }, bindings: [writeOrders] });
    const check = await ok('acls.check', { principal: 'User:carol', host: '127.0.0.1', operation: 'READ', resourceType: 'TOPIC', resourceName: 'orders' });
    expect(check).toMatchObject({ allowed: false, rule: 'no-matching-acl', bindings: [{ binding: writeOrders, applies: null }] });
    // No binding on payments at all, and allow.everyone.if.no.acl.found is true.
    expect(await ok('acls.check', { principal: 'User:carol', host: '127.0.0.1', operation: 'READ', resourceType: 'TOPIC', resourceName: 'payments' })).toMatchObject({ allowed: true, rule: 'no-acl-found' });
    const schema = await post('acls.create', { bindings: [{ ...writeOrders, operation: 'FLY' as never }] });
    expect(schema.status).toBe(400);
    expect(schema.body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    const preview = await ok('acls.delete', { filters: [{ resourceName: 'orders' }], dryRun: true });
    expect(preview[0]!.bindings).toEqual([writeOrders]);
    expect((await ok('acls.list', {})).bindings).toHaveLength(1);
  });

  it('users.upsert, users.list and users.delete', async () => {
    expect(await ok('users.upsert', { name: 'bob', mechanism: 'SCRAM-SHA-256', password: 'bob-secret', iterations: 4096 })).toEqual([{ user: 'bob', errorCode: 'NONE', errorMessage: null }]);
    await ok('users.upsert', { name: 'temp', mechanism: 'SCRAM-SHA-512', password: 'x' });
    expect(await ok('users.delete', { name: 'temp' })).toEqual([{ user: 'temp', errorCode: 'NONE', errorMessage: null }]);
    expect(await ok('users.list', {})).toEqual([{ name: 'bob', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 4096 }] }]);
  });

  it('quotas.alter, quotas.list and quotas.throttles', async () => {
    expect(await ok('quotas.alter', { entity: { user: 'bob', 'client-id': null }, set: { producer_byte_rate: 1_048_576 } })).toEqual({ entity: { user: 'bob', 'client-id': null }, errorCode: 'NONE', errorMessage: null });
    expect(await ok('quotas.alter', { entity: { user: 'bob' }, set: { no_such_key: 1 } })).toMatchObject({ errorCode: 'INVALID_REQUEST', errorMessage: 'Invalid configuration key no_such_key' });
    expect(await ok('quotas.list', {})).toEqual([{ entity: { user: 'bob', 'client-id': null }, values: { producer_byte_rate: 1_048_576 } }]);
    expect(Array.isArray(await ok('quotas.throttles', {}))).toBe(true);
  });

  it("security.export writes the cluster's bindings, users and quotas as Kafka's commands", async () => {
    const [script, section] = await ok('security.export', { bootstrapServers: 'prod:9092' });
    expect(script!.filename).toBe('security.sh');
    expect(script!.contents).toContain("kafka-acls.sh --bootstrap-server prod:9092 --add --allow-principal User:bob --allow-host '*' --operation Write --topic orders");
    expect(script!.contents).toContain("--add-config 'SCRAM-SHA-256=[iterations=4096,password=<password of bob>]' --entity-type users --entity-name bob");
    expect(script!.contents).toContain('--add-config producer_byte_rate=1048576 --entity-type users --entity-name bob --entity-type clients --entity-default');
    expect(script!.contents).not.toContain('bob-secret');
    expect(JSON.parse(section!.contents).security.scramUsers).toEqual([{ name: 'bob', mechanism: 'SCRAM-SHA-256', iterations: 4096 }]);
  });

  it('clients.produce: a client of its own (User:ANONYMOUS over the Kafka listener) is refused where only bob may write, and acknowledged where no binding exists', async () => {
    await ok('topics.create', { name: 'payments', partitions: 1, replicationFactor: 3 });
    const refused = await ok('clients.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ value: 'o-1' }], clientId: 'drill-anon', maxRealMs: 15_000 });
    expect(refused).toMatchObject({ errorCode: 'TOPIC_AUTHORIZATION_FAILED', requestsAcknowledged: 0 });
    const allowed = await ok('clients.produce', { topic: 'payments', partition: 0, acks: 'all', records: [{ key: 'k', value: 'p-1' }], repeat: 2, clientId: 'drill-anon', maxRealMs: 15_000 });
    expect(allowed).toMatchObject({ errorCode: 'NONE', errorMessage: null, requestsAcknowledged: 2, firstOffset: 0 });
    expect((await ok('records.consume', { topic: 'payments', partition: 0, offset: 0 })).records.map((r) => r.value)).toEqual(['p-1', 'p-1']);
  }, 40_000);

  it('keeps the bindings, users, quotas and its static configs (the authorizer) when the cluster is closed and opened again', async () => {
    await host.close();
    cluster.close();
    // Opened without static configs: the cluster kept the ones it was created with.
    await open();
    expect(await ok('acls.list', {})).toEqual({ authorizer: { enabled: true, superUsers: ['User:admin'], allowEveryoneIfNoAclFound: true }, bindings: [writeOrders] });
    expect((await ok('users.list', {})).map((u) => u.name)).toEqual(['bob']);
    expect(await ok('quotas.list', {})).toHaveLength(1);
  });

  it('called every security method', () => {
    expect(Object.keys(securityMethods).filter((m) => !called.has(m))).toEqual([]);
  });
});
