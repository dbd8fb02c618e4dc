import { describe, expect, it } from 'vitest';
import type { AclBindingView } from '../../../../app/api/contract.js';
import { aclCommandLine, bindingWords, entityWords } from './binding-words.js';

const b = (o: Partial<AclBindingView>): AclBindingView => ({ resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:bob', host: '*', operation: 'READ', permissionType: 'ALLOW', ...o });

describe('an ACL binding in words', () => {
  it('says who, from where, what and on which resources, with what the authorizer implies', () => {
    expect(bindingWords(b({}))).toBe('Allows User:bob, from any host, to read on topic “orders” (which also lets it describe).');
    expect(bindingWords(b({ resourceName: 'pay.', patternType: 'PREFIXED', operation: 'ALL', permissionType: 'DENY', host: '10.0.0.1', principal: 'User:*' }))).toBe(
      'Denies every principal, from 10.0.0.1 only, to do anything on every topic whose name starts with “pay.”, whatever any ALLOW says.',
    );
    expect(bindingWords(b({ resourceType: 'GROUP', resourceName: '*', operation: 'DESCRIBE' }))).toBe('Allows User:bob, from any host, to describe on every consumer group.');
    expect(bindingWords(b({ resourceType: 'CLUSTER', resourceName: 'kafka-cluster', operation: 'ALTER_CONFIGS' }))).toBe('Allows User:bob, from any host, to alter configs on the cluster (which also lets it describe configs).');
  });

  it("writes kafka-acls.sh's line for it", () => {
    expect(aclCommandLine(b({ resourceName: 'pay.', patternType: 'PREFIXED', operation: 'DESCRIBE_CONFIGS', permissionType: 'DENY' }))).toBe(
      "kafka-acls.sh --bootstrap-server localhost:9092 --add --deny-principal 'User:bob' --deny-host '*' --operation DescribeConfigs --topic 'pay.' --resource-pattern-type prefixed",
    );
    expect(aclCommandLine(b({ resourceType: 'CLUSTER', resourceName: 'kafka-cluster', operation: 'IDEMPOTENT_WRITE' }))).toContain('--operation IdempotentWrite --cluster');
  });

  it('names quota entities, defaults included', () => {
    expect(entityWords({ user: 'alice', 'client-id': null })).toBe('user alice, every client-id (default)');
    expect(entityWords({ user: null })).toBe('every user (default)');
  });
});
