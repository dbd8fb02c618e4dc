import { describe, expect, it } from 'vitest';
import { filterMatches, MATCH_ANY, validateNewBinding, type AclBinding, type AclBindingFilter } from './acl.js';
import { Authorizer, authorizerConfig, STANDARD_AUTHORIZER, type RequestSession } from './authorizer.js';

const ON = authorizerConfig({ 'authorizer.class.name': STANDARD_AUTHORIZER, 'super.users': 'User:admin; User:ops' });
const alice: RequestSession = { principal: 'User:alice', clientHost: '127.0.0.1' };
const bob: RequestSession = { principal: 'User:bob', clientHost: '127.0.0.1' };

function acl(partial: Partial<AclBinding>): AclBinding {
  return { resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'READ', permissionType: 'ALLOW', ...partial };
}

describe('StandardAuthorizer rules', () => {
  it('is off unless authorizer.class.name names StandardAuthorizer, and then allows everything', () => {
    const off = new Authorizer(authorizerConfig({}), [acl({ permissionType: 'DENY' })]);
    expect(off.decide(alice, 'READ', 'TOPIC', 'orders')).toEqual({ allowed: true, rule: 'authorizer-off' });
    expect(() => authorizerConfig({ 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' })).toThrow(/only org.apache.kafka.metadata.authorizer.StandardAuthorizer/);
    expect(() => authorizerConfig({ 'authorizer.class.name': STANDARD_AUTHORIZER, 'super.users': 'admin' })).toThrow(/principalType:principalName/);
  });

  it('allows super users whatever the bindings say', () => {
    const a = new Authorizer(ON, [acl({ principal: 'User:*', operation: 'ALL', permissionType: 'DENY' })]);
    expect(a.decide({ principal: 'User:ops', clientHost: '10.0.0.1' }, 'ALTER', 'CLUSTER', 'kafka-cluster').rule).toBe('super-user');
    expect(a.authorize(alice, 'READ', 'TOPIC', 'orders')).toBe(false);
  });

  it('denies a resource without bindings unless allow.everyone.if.no.acl.found, and one with bindings for others always', () => {
    const bindings = [acl({ principal: 'User:bob' })];
    const strict = new Authorizer(ON, bindings);
    expect(strict.decide(alice, 'READ', 'TOPIC', 'payments')).toEqual({ allowed: false, rule: 'no-acl-found' });
    expect(strict.decide(alice, 'READ', 'TOPIC', 'orders')).toEqual({ allowed: false, rule: 'no-matching-acl' });
    const lenient = new Authorizer({ ...ON, allowEveryoneIfNoAclFound: true }, bindings);
    expect(lenient.decide(alice, 'READ', 'TOPIC', 'payments')).toEqual({ allowed: true, rule: 'no-acl-found' });
    // The topic has a binding (bob's): alice is denied even though everyone is allowed where no ACL is found.
    expect(lenient.authorize(alice, 'READ', 'TOPIC', 'orders')).toBe(false);
  });

  it('gives DESCRIBE to ALLOW bindings of READ, WRITE, DELETE and ALTER, DESCRIBE_CONFIGS to ALTER_CONFIGS, and nothing to a DENY', () => {
    for (const op of ['READ', 'WRITE', 'DELETE', 'ALTER', 'DESCRIBE'] as const) {
      expect(new Authorizer(ON, [acl({ operation: op })]).authorize(alice, 'DESCRIBE', 'TOPIC', 'orders'), op).toBe(true);
    }
    expect(new Authorizer(ON, [acl({ operation: 'CREATE' })]).authorize(alice, 'DESCRIBE', 'TOPIC', 'orders')).toBe(false);
    expect(new Authorizer(ON, [acl({ operation: 'ALTER_CONFIGS' })]).authorize(alice, 'DESCRIBE_CONFIGS', 'TOPIC', 'orders')).toBe(true);
    expect(new Authorizer(ON, [acl({ operation: 'READ' })]).authorize(alice, 'WRITE', 'TOPIC', 'orders')).toBe(false);
    // A DENY of READ does not deny DESCRIBE (DENY implies nothing); ALLOW READ still gives it.
    const a = new Authorizer(ON, [acl({ operation: 'READ' }), acl({ operation: 'READ', permissionType: 'DENY' })]);
    expect(a.authorize(alice, 'READ', 'TOPIC', 'orders')).toBe(false);
    expect(a.authorize(alice, 'DESCRIBE', 'TOPIC', 'orders')).toBe(true);
  });

  it('decides DENY before ALLOW, whatever the order the bindings were made in, and says which binding decided', () => {
    const deny = acl({ resourceName: 'ord', patternType: 'PREFIXED', permissionType: 'DENY', operation: 'ALL' });
    const a = new Authorizer(ON, [acl({}), deny]);
    expect(a.decide(alice, 'READ', 'TOPIC', 'orders')).toEqual({ allowed: false, rule: 'deny-acl', binding: deny });
    expect(new Authorizer(ON, [deny, acl({})]).decide(alice, 'READ', 'TOPIC', 'orders').binding).toBe(deny);
  });

  it('matches literal names exactly, the literal wildcard for every name, and prefixes by their start', () => {
    const a = new Authorizer(ON, [
      acl({ resourceName: 'orders' }),
      acl({ resourceName: 'pay', patternType: 'PREFIXED', principal: 'User:bob' }),
      acl({ resourceName: '*', operation: 'WRITE', principal: 'User:bob' }),
    ]);
    expect(a.authorize(alice, 'READ', 'TOPIC', 'orders')).toBe(true);
    expect(a.authorize(alice, 'READ', 'TOPIC', 'orders2')).toBe(false);
    expect(a.authorize(bob, 'READ', 'TOPIC', 'payments')).toBe(true);
    expect(a.authorize(bob, 'READ', 'TOPIC', 'pa')).toBe(false);
    expect(a.authorize(bob, 'WRITE', 'TOPIC', 'anything')).toBe(true);
    // A literal '*' binding is not a prefix: it does not match a topic named '*x'.
    expect(a.bindingsFor('TOPIC', '*x').map((b) => b.resourceName)).toEqual(['*']);
    // Resource types are separate: a topic binding says nothing about a group of the same name.
    expect(a.decide(alice, 'READ', 'GROUP', 'orders').rule).toBe('no-acl-found');
  });

  it('matches the wildcard principal User:* and hosts exactly or by *', () => {
    const a = new Authorizer(ON, [acl({ principal: 'User:*', host: '10.0.0.5' })]);
    expect(a.authorize({ principal: 'User:carol', clientHost: '10.0.0.5' }, 'READ', 'TOPIC', 'orders')).toBe(true);
    expect(a.authorize({ principal: 'User:carol', clientHost: '127.0.0.1' }, 'READ', 'TOPIC', 'orders')).toBe(false);
    // StandardAuthorizerData puts User:* in every request's matching principals, whatever their type.
    expect(a.authorize({ principal: 'Group:carol', clientHost: '10.0.0.5' }, 'READ', 'TOPIC', 'orders')).toBe(true);
  });

  it('authorizes by resource type as Kafka does: some ALLOW not dominated by a DENY of the same name or a shorter prefix', () => {
    const write = (p: Partial<AclBinding>): AclBinding => acl({ operation: 'WRITE', ...p });
    expect(new Authorizer(ON, []).authorizeByResourceType(alice, 'WRITE', 'TOPIC')).toBe(false);
    expect(new Authorizer(ON, [write({})]).authorizeByResourceType(alice, 'WRITE', 'TOPIC')).toBe(true);
    expect(new Authorizer(ON, [write({}), write({ permissionType: 'DENY' })]).authorizeByResourceType(alice, 'WRITE', 'TOPIC')).toBe(false);
    expect(new Authorizer(ON, [write({}), write({ resourceName: 'or', patternType: 'PREFIXED', permissionType: 'DENY' })]).authorizeByResourceType(alice, 'WRITE', 'TOPIC')).toBe(false);
    expect(new Authorizer(ON, [write({ resourceName: '*' }), write({ resourceName: '*', permissionType: 'DENY' })]).authorizeByResourceType(alice, 'WRITE', 'TOPIC')).toBe(false);
    expect(new Authorizer(ON, [write({ resourceName: '*' })]).authorizeByResourceType(alice, 'WRITE', 'TOPIC')).toBe(true);
  });

  it('answers authorized operations as a bitfield of the operations the resource type supports', () => {
    const a = new Authorizer(ON, [acl({ operation: 'WRITE' })]);
    // WRITE (4) and the DESCRIBE (8) it implies.
    expect(a.authorizedOperations(alice, 'TOPIC', 'orders')).toBe((1 << 4) | (1 << 8));
    expect(new Authorizer(ON, []).authorizedOperations({ principal: 'User:admin', clientHost: 'h' }, 'GROUP', 'g')).toBe((1 << 3) | (1 << 8) | (1 << 6));
  });
});

describe('bindings and filters', () => {
  const base = { resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'READ', permissionType: 'ALLOW' } as const;

  it('refuses what Kafka refuses with its messages', () => {
    expect(() => validateNewBinding({ ...base, resourceType: 'CLUSTER' })).toThrow('The only valid name for the CLUSTER resource is kafka-cluster');
    expect(() => validateNewBinding({ ...base, resourceName: '' })).toThrow('Invalid empty resource name');
    expect(() => validateNewBinding({ ...base, patternType: 'MATCH' })).toThrow('Invalid patternType MATCH');
    expect(() => validateNewBinding({ ...base, operation: 'ANY' })).toThrow('Invalid operation ANY');
    expect(() => validateNewBinding({ ...base, permissionType: 'UNKNOWN' })).toThrow('Invalid permissionType UNKNOWN');
    expect(() => validateNewBinding({ ...base, principal: 'alice' })).toThrow(/no colon is present/);
    expect(validateNewBinding({ ...base, resourceType: 'CLUSTER', resourceName: 'kafka-cluster' }).resourceType).toBe('CLUSTER');
  });

  it("matches filters as ResourcePatternFilter and AccessControlEntryFilter do, MATCH included", () => {
    const literal = validateNewBinding(base);
    const wildcard = validateNewBinding({ ...base, resourceName: '*' });
    const prefixed = validateNewBinding({ ...base, resourceName: 'ord', patternType: 'PREFIXED' });
    const f = (p: Partial<AclBindingFilter>): AclBindingFilter => ({ ...MATCH_ANY, ...p });
    const match = f({ resourceType: 'TOPIC', resourceName: 'orders', patternType: 'MATCH' });
    expect([literal, wildcard, prefixed].map((b) => filterMatches(match, b))).toEqual([true, true, true]);
    expect([literal, wildcard, prefixed].map((b) => filterMatches(f({ resourceName: 'orders' }), b))).toEqual([true, false, false]);
    expect([literal, wildcard, prefixed].map((b) => filterMatches(f({ patternType: 'PREFIXED' }), b))).toEqual([false, false, true]);
    expect(filterMatches(f({ resourceType: 'GROUP' }), literal)).toBe(false);
    expect(filterMatches(f({ principal: 'User:bob' }), literal)).toBe(false);
    expect(filterMatches(f({ operation: 'WRITE' }), literal)).toBe(false);
    expect(filterMatches(f({ permissionType: 'DENY' }), literal)).toBe(false);
    expect(filterMatches(f({ host: '*', principal: 'User:alice', operation: 'READ', permissionType: 'ALLOW' }), literal)).toBe(true);
  });
});
