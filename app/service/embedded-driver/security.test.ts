/**
 * The security methods of the contract on the cluster the console runs: ACL bindings with a
 * delete preview and the effective-access check with its deciding bindings, SCRAM users (the
 * password never stored), client quotas and the throttles clients get.
 */
import { describe, expect, it } from 'vitest';
import type { AclBindingView, Result } from '../../api/contract.js';
import { createVirtualClusterService } from '../../sim/virtual-service.js';

function ok<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

const STANDARD = { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users': 'User:admin' };
const readOrders: AclBindingView = { resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:bob', host: '*', operation: 'READ', permissionType: 'ALLOW' };

describe('ACLs through the service', () => {
  it('says the authorizer is off and refuses changes with SECURITY_DISABLED, as Kafka does', async () => {
    const svc = createVirtualClusterService({ seed: 4 });
    expect(ok(await svc.call('acls.list', {}))).toEqual({ authorizer: { enabled: false, superUsers: [], allowEveryoneIfNoAclFound: false }, bindings: [] });
    const refused = await svc.call('acls.create', { bindings: [readOrders] });
    expect(!refused.ok && refused.error.code).toBe('SECURITY_DISABLED');
    const check = ok(await svc.call('acls.check', { principal: 'User:bob', host: '127.0.0.1', operation: 'WRITE', resourceType: 'TOPIC', resourceName: 'orders' }));
    expect(check).toMatchObject({ allowed: true, rule: 'authorizer-off' });
  });

  it('creates, lists, previews a delete without changing anything, then deletes', async () => {
    const svc = createVirtualClusterService({ seed: 4, staticConfigs: STANDARD });
    const prefix: AclBindingView = { ...readOrders, resourceName: 'ord', patternType: 'PREFIXED', permissionType: 'DENY', host: '10.0.0.9' };
    const created = ok(await svc.call('acls.create', { bindings: [readOrders, prefix, { ...readOrders, resourceType: 'CLUSTER' }] }));
    expect(created.map((r) => r.errorCode)).toEqual(['NONE', 'NONE', 'INVALID_REQUEST']);
    const listed = ok(await svc.call('acls.list', {}));
    expect(listed.authorizer).toEqual({ enabled: true, superUsers: ['User:admin'], allowEveryoneIfNoAclFound: false });
    expect(listed.bindings).toEqual([prefix, readOrders]);
    const preview = ok(await svc.call('acls.delete', { filters: [{ principal: 'User:bob', resourceType: 'TOPIC' }], dryRun: true }));
    expect(preview[0]!.bindings).toHaveLength(2);
    expect(ok(await svc.call('acls.list', {})).bindings).toHaveLength(2);
    const deleted = ok(await svc.call('acls.delete', { filters: [{ patternType: 'PREFIXED' }] }));
    expect(deleted[0]!.bindings).toEqual([prefix]);
    expect(ok(await svc.call('acls.list', {})).bindings).toEqual([readOrders]);
  });

  it('answers an effective-access check with the rule and the binding that decide it', async () => {
    const svc = createVirtualClusterService({ seed: 4, staticConfigs: STANDARD });
    const deny: AclBindingView = { ...readOrders, operation: 'ALL', permissionType: 'DENY', host: '10.0.0.9' };
    ok(await svc.call('acls.create', { bindings: [readOrders, deny] }));
    const q = { principal: 'User:bob', operation: 'DESCRIBE', resourceType: 'TOPIC', resourceName: 'orders' } as const;
    const fromHere = ok(await svc.call('acls.check', { ...q, host: '127.0.0.1' }));
    expect(fromHere).toMatchObject({ allowed: true, rule: 'allow-acl', decidingBinding: readOrders, assumed: null });
    expect(fromHere.explanation).toContain('READ implies DESCRIBE');
    expect(fromHere.bindings).toEqual([
      { binding: readOrders, applies: 'ALLOW' },
      { binding: deny, applies: null },
    ]);
    const fromThere = ok(await svc.call('acls.check', { ...q, host: '10.0.0.9' }));
    expect(fromThere).toMatchObject({ allowed: false, rule: 'deny-acl', decidingBinding: deny });
    expect(fromThere.explanation).toContain('a DENY decides before any ALLOW');
    const alice = ok(await svc.call('acls.check', { ...q, principal: 'User:alice', host: '127.0.0.1' }));
    expect(alice).toMatchObject({ allowed: false, rule: 'no-matching-acl' });
    expect(ok(await svc.call('acls.check', { ...q, principal: 'User:admin', host: '127.0.0.1', operation: 'DELETE' }))).toMatchObject({ allowed: true, rule: 'super-user' });
  });
});

describe('SCRAM users through the service', () => {
  it('creates a user from a password (never kept), rotates it, lists iterations and deletes every mechanism', async () => {
    const svc = createVirtualClusterService({ seed: 4 });
    expect(ok(await svc.call('users.upsert', { name: 'carol', mechanism: 'SCRAM-SHA-512', password: 'first-secret' }))).toEqual([{ user: 'carol', errorCode: 'NONE', errorMessage: null }]);
    ok(await svc.call('users.upsert', { name: 'carol', mechanism: 'SCRAM-SHA-256', password: 'first-secret', iterations: 8192 }));
    const before = svc.sim.engine.metadata.scramCredential('carol', 'SCRAM-SHA-512')!;
    ok(await svc.call('users.upsert', { name: 'carol', mechanism: 'SCRAM-SHA-512', password: 'second-secret' }));
    const after = svc.sim.engine.metadata.scramCredential('carol', 'SCRAM-SHA-512')!;
    expect(after.storedKey).not.toBe(before.storedKey);
    expect(JSON.stringify([...svc.sim.engine.metadata.scramCredentials.values()])).not.toMatch(/secret/);
    expect(ok(await svc.call('users.list', {}))).toEqual([{ name: 'carol', credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 8192 }, { mechanism: 'SCRAM-SHA-512', iterations: 4096 }] }]);
    const tooFew = ok(await svc.call('users.upsert', { name: 'dave', mechanism: 'SCRAM-SHA-256', password: 'x', iterations: 100 }));
    expect(tooFew).toEqual([{ user: 'dave', errorCode: 'UNACCEPTABLE_CREDENTIAL', errorMessage: 'Too few iterations' }]);
    expect(ok(await svc.call('users.delete', { name: 'carol' })).map((r) => r.errorCode)).toEqual(['NONE', 'NONE']);
    expect(ok(await svc.call('users.list', {}))).toEqual([]);
    expect(ok(await svc.call('users.delete', { name: 'carol' }))[0]!.errorCode).toBe('RESOURCE_NOT_FOUND');
  });
});

describe('client quotas through the service', () => {
  it('alters and lists by entity, refuses hostile ones with Kafka’s errors, and shows the throttle a client gets', async () => {
    const svc = createVirtualClusterService({ seed: 4 });
    expect(ok(await svc.call('quotas.alter', { entity: { user: 'alice' }, set: { producer_byte_rate: 2048, consumer_byte_rate: 4096 } })).errorCode).toBe('NONE');
    expect(ok(await svc.call('quotas.alter', { entity: { 'client-id': null }, set: { request_percentage: 25 } })).errorCode).toBe('NONE');
    expect(ok(await svc.call('quotas.alter', { entity: { user: 'alice', ip: '1.2.3.4' }, set: { producer_byte_rate: 1 } }))).toMatchObject({ errorCode: 'INVALID_REQUEST' });
    expect(ok(await svc.call('quotas.alter', { entity: { user: 'alice' }, set: { producer_byte_rate: -3 } }))).toMatchObject({ errorCode: 'INVALID_REQUEST', errorMessage: 'Quota producer_byte_rate must be greater than 0' });
    const empty = await svc.call('quotas.alter', { entity: {}, set: { producer_byte_rate: 1 } });
    expect(!empty.ok && empty.error.code).toBe('INVALID_REQUEST');
    expect(ok(await svc.call('quotas.list', {}))).toEqual([
      { entity: { user: 'alice' }, values: { producer_byte_rate: 2048, consumer_byte_rate: 4096 } },
      { entity: { 'client-id': null }, values: { request_percentage: 25 } },
    ]);
    expect(ok(await svc.call('quotas.list', { entity: { user: 'alice' } }))).toHaveLength(1);
    ok(await svc.call('quotas.alter', { entity: { user: 'alice' }, set: { consumer_byte_rate: null } }));
    expect(ok(await svc.call('quotas.list', { entity: { user: 'alice' } }))[0]!.values).toEqual({ producer_byte_rate: 2048 });

    // Broker 1 enforces once it has applied the quota records (as a Kafka broker does).
    svc.sim.advance(1_000);
    const now = svc.sim.scheduler.now();
    const quotas = svc.sim.engine.security.quotas(1);
    quotas.record('producer_byte_rate', { user: 'alice', clientId: 'p' }, 40_960, now);
    const throttles = ok(await svc.call('quotas.throttles', {}));
    expect(throttles).toEqual([
      expect.objectContaining({ brokerId: 1, key: 'producer_byte_rate', user: 'alice', clientId: '', limit: 2048, entity: { user: 'alice' }, lastThrottleMs: 10_000, throttledNow: true }),
    ]);
  });
});

describe('a profile with a security section through the service', () => {
  it('plans the bindings and quotas a cluster lacks, leaves users to a person, and applies', async () => {
    const svc = createVirtualClusterService({ seed: 4, brokers: 3, staticConfigs: STANDARD });
    const profile = {
      version: 1,
      name: 'team-access',
      cluster: { brokers: 3 },
      topicDefaults: { partitions: 1, replicationFactor: 3 },
      security: {
        acls: [readOrders],
        scramUsers: [{ name: 'bob', mechanism: 'SCRAM-SHA-512', iterations: 8192 }],
        quotas: [{ entity: { user: 'bob' }, values: { producer_byte_rate: 4096 } }],
      },
    };
    ok(await svc.call('profiles.import', { json: JSON.stringify(profile) }));
    const plan = ok(await svc.call('profiles.apply', { name: 'team-access' }));
    expect(plan.security).toEqual({ acls: [readOrders], quotas: [{ entity: { user: 'bob' }, set: { producer_byte_rate: 4096 } }] });
    expect(plan.manual).toContain('Create SCRAM user bob (SCRAM-SHA-512, 8192 iterations) on the Security page or with kafka-configs.sh: a profile carries no password.');
    expect(ok(await svc.call('acls.list', {})).bindings).toEqual([]);
    ok(await svc.call('profiles.apply', { name: 'team-access', dryRun: false }));
    expect(ok(await svc.call('acls.list', {})).bindings).toEqual([readOrders]);
    expect(ok(await svc.call('quotas.list', {}))).toEqual([{ entity: { user: 'bob' }, values: { producer_byte_rate: 4096 } }]);
    const again = ok(await svc.call('profiles.apply', { name: 'team-access' }));
    expect(again.security).toEqual({ acls: [], quotas: [] });
    const [script] = ok(await svc.call('profiles.export', { name: 'team-access', formats: ['security-commands'] }));
    expect(script!.contents).toContain('--operation Read --topic orders');
  });
});
