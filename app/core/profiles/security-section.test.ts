import { describe, expect, it } from 'vitest';
import { exportProfile, profileToJson } from './export.js';
import { planSecurity } from './security-section.js';
import { parseProfileJson, validateProfile } from './validate.js';

const base = { version: 1, name: 'secured', cluster: { brokers: 3 }, topicDefaults: { partitions: 1, replicationFactor: 3 } };
const security = {
  acls: [
    { resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:bob', host: '*', operation: 'WRITE', permissionType: 'ALLOW' },
    { resourceType: 'GROUP', resourceName: 'billing-', patternType: 'PREFIXED', principal: 'User:bob', host: '10.0.0.1', operation: 'READ', permissionType: 'DENY' },
    { resourceType: 'CLUSTER', resourceName: 'kafka-cluster', patternType: 'LITERAL', principal: 'User:ops', host: '*', operation: 'IDEMPOTENT_WRITE', permissionType: 'ALLOW' },
  ],
  scramUsers: [{ name: 'bob', mechanism: 'SCRAM-SHA-512', iterations: 8192 }],
  quotas: [
    { entity: { user: 'bob', 'client-id': null }, values: { producer_byte_rate: 1048576, request_percentage: 50 } },
    { entity: { 'client-id': null }, values: { consumer_byte_rate: 2097152 } },
  ],
};

describe("a profile's security section", () => {
  it('validates bindings, users and quotas as Kafka would take them, each problem at its path', () => {
    expect(validateProfile({ ...base, security })).toMatchObject({ ok: true });
    const bad = validateProfile({
      ...base,
      security: {
        acls: [{ ...security.acls[0], principal: 'bob' }, { ...security.acls[2], resourceName: 'cluster' }],
        scramUsers: [{ name: 'eve', mechanism: 'SCRAM-SHA-1', iterations: 4096 }, { name: 'amy', mechanism: 'SCRAM-SHA-256', iterations: 4096, password: 'x' }, { name: 'z', mechanism: 'SCRAM-SHA-256', iterations: 100 }],
        quotas: [{ entity: {}, values: {} }, { entity: { user: 'x' }, values: { producer_byte_rate: 10.5 } }, { entity: { user: 'x' }, values: { byte_rate: 1 } }],
        extra: [],
      },
    });
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.errors.map((e) => e.path)).toEqual([
      'security.extra',
      'security.acls[0]',
      'security.acls[1]',
      'security.scramUsers[0].mechanism',
      'security.scramUsers[1].password',
      'security.scramUsers[2].iterations',
      'security.quotas[0].entity',
      'security.quotas[1].values.producer_byte_rate',
      'security.quotas[2].values.byte_rate',
    ]);
  });

  it("exports as Kafka's commands (a password placeholder per user), and round-trips through the profile JSON", () => {
    const parsed = validateProfile({ ...base, security });
    if (!parsed.ok) throw new Error('invalid');
    const [script] = exportProfile(parsed.profile, { formats: ['security-commands'], bootstrapServers: 'kafka:9092' });
    expect(script!.filename).toBe('secured.security.sh');
    expect(script!.contents.split('\n').filter((l) => l.startsWith('kafka-'))).toEqual([
      "kafka-configs.sh --bootstrap-server kafka:9092 --alter --add-config 'SCRAM-SHA-512=[iterations=8192,password=<password of bob>]' --entity-type users --entity-name bob",
      'kafka-configs.sh --bootstrap-server kafka:9092 --alter --add-config producer_byte_rate=1048576,request_percentage=50 --entity-type users --entity-name bob --entity-type clients --entity-default',
      'kafka-configs.sh --bootstrap-server kafka:9092 --alter --add-config consumer_byte_rate=2097152 --entity-type clients --entity-default',
      "kafka-acls.sh --bootstrap-server kafka:9092 --add --allow-principal User:bob --allow-host '*' --operation Write --topic orders",
      'kafka-acls.sh --bootstrap-server kafka:9092 --add --deny-principal User:bob --deny-host 10.0.0.1 --operation Read --group billing- --resource-pattern-type prefixed',
      "kafka-acls.sh --bootstrap-server kafka:9092 --add --allow-principal User:ops --allow-host '*' --operation IdempotentWrite --cluster",
    ]);
    const json = profileToJson(parsed.profile);
    const again = parseProfileJson(json);
    expect(again.ok && profileToJson(again.profile)).toBe(json);
    // A profile without security writes no section and no script.
    const plain = validateProfile(base);
    if (!plain.ok) throw new Error('invalid');
    expect(profileToJson(plain.profile)).not.toContain('security');
    expect(exportProfile(plain.profile, { formats: ['security-commands'] })).toEqual([]);
  });

  it('plans against a live cluster: the bindings and quota values it lacks, the users it has not', () => {
    const parsed = validateProfile({ ...base, security });
    if (!parsed.ok) throw new Error('invalid');
    const plan = planSecurity(parsed.profile.security, {
      acls: [parsed.profile.security.acls[0]!],
      users: [{ name: 'bob', mechanism: 'SCRAM-SHA-256' }],
      quotas: [{ entity: { user: 'bob', 'client-id': null }, values: { producer_byte_rate: 1048576 } }],
    });
    expect(plan.acls.map((b) => b.resourceName)).toEqual(['billing-', 'kafka-cluster']);
    expect(plan.users).toEqual([{ name: 'bob', mechanism: 'SCRAM-SHA-512', iterations: 8192 }]);
    expect(plan.quotas).toEqual([
      { entity: { user: 'bob', 'client-id': null }, set: { request_percentage: 50 } },
      { entity: { 'client-id': null }, set: { consumer_byte_rate: 2097152 } },
    ]);
  });
});
