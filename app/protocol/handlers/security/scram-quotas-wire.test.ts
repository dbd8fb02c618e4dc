/**
 * SCRAM credentials (KIP-554) and client quotas (KIP-546) in Kafka's bytes, and the quotas
 * enforced: throttle_time_ms in the response and the connection muted for it, an empty answer to
 * a throttled fetch, topic creation throttled by controller_mutation_rate.
 */
import { createHash, createHmac, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../generated/index.js';
import { alice, secured } from '../../test-support/secured-sim.js';
import { clientBatch, clientRecord, WireSim } from '../../test-support/wire-sim.js';

const salt = Buffer.from('0123456789abcdef');
const salted = (password: string, iterations = 4096) => pbkdf2Sync(password, salt, iterations, 64, 'sha512');
const SHA512 = 2;

describe('SCRAM credentials on the wire', () => {
  it('stores the keys derived from the salted password, describes iterations per mechanism, deletes', async () => {
    const w = secured();
    const altered = await w.respond(1, ApiKey.AlterUserScramCredentials, 0, {
      deletions: [],
      upsertions: [{ name: 'carol', mechanism: SHA512, iterations: 8192, salt, saltedPassword: salted('carol-secret', 8192) }],
    });
    expect(altered.results).toEqual([{ user: 'carol', errorCode: 0, errorMessage: null }]);
    const stored = w.sim.engine.metadata.scramCredential('carol', 'SCRAM-SHA-512')!;
    const clientKey = createHmac('sha512', salted('carol-secret', 8192)).update('Client Key').digest();
    expect(stored).toEqual({
      name: 'carol',
      mechanism: 'SCRAM-SHA-512',
      iterations: 8192,
      salt: salt.toString('base64'),
      storedKey: createHash('sha512').update(clientKey).digest('base64'),
      serverKey: createHmac('sha512', salted('carol-secret', 8192)).update('Server Key').digest('base64'),
    });
    w.sim.advance(1_000);
    expect((await w.respond(2, ApiKey.DescribeUserScramCredentials, 0, { users: null })).results).toEqual([{ user: 'carol', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: SHA512, iterations: 8192 }] }]);
    const gone = await w.respond(1, ApiKey.AlterUserScramCredentials, 0, { deletions: [{ name: 'carol', mechanism: SHA512 }], upsertions: [] });
    expect(gone.results[0]!.errorCode).toBe(0);
    w.sim.advance(1_000);
    expect((await w.respond(2, ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: 'carol' }] })).results[0]).toMatchObject({ errorCode: 91 });
  });

  it("answers hostile alterations with Kafka's errors and needs ALTER / DESCRIBE on the cluster", async () => {
    const w = secured();
    const bad = await w.respond(1, ApiKey.AlterUserScramCredentials, 0, {
      deletions: [{ name: 'nobody', mechanism: SHA512 }],
      upsertions: [
        { name: 'x', mechanism: 7, iterations: 4096, salt, saltedPassword: salted('p') },
        { name: 'y', mechanism: SHA512, iterations: 10, salt, saltedPassword: salted('p') },
        { name: '', mechanism: SHA512, iterations: 4096, salt, saltedPassword: salted('p') },
      ],
    });
    expect(Object.fromEntries(bad.results.map((r) => [r.user, r.errorCode]))).toEqual({ nobody: 91, x: 33, y: 93, '': 93 });
    expect(w.sim.engine.metadata.scramCredentials.size).toBe(0);
    const refused = await w.request(1, ApiKey.AlterUserScramCredentials, 0, { deletions: [], upsertions: [{ name: 'z', mechanism: SHA512, iterations: 4096, salt, saltedPassword: salted('p') }] }, { session: alice });
    expect(refused).toMatchObject({ body: { results: [{ user: 'z', errorCode: 31 }] } });
    expect(await w.request(1, ApiKey.DescribeUserScramCredentials, 0, { users: null }, { session: alice })).toMatchObject({ body: { errorCode: 31 } });
  });
});

describe('client quotas on the wire', () => {
  it('alters and describes quotas by entity, with Kafka’s errors for hostile entities, keys and filters', async () => {
    const w = secured();
    const altered = await w.respond(1, ApiKey.AlterClientQuotas, 1, {
      entries: [
        { entity: [{ entityType: 'user', entityName: 'alice' }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] },
        { entity: [{ entityType: 'client-id', entityName: null }], ops: [{ key: 'consumer_byte_rate', value: 2048, remove: false }] },
        { entity: [{ entityType: 'user', entityName: 'bob' }], ops: [{ key: 'no_such_quota', value: 1, remove: false }] },
        { entity: [], ops: [{ key: 'producer_byte_rate', value: 1, remove: false }] },
      ],
      validateOnly: false,
    });
    expect(altered.entries.map((e) => [e.entity.map((x) => `${x.entityType}=${x.entityName}`).join(','), e.errorCode, e.errorMessage])).toEqual([
      ['user=alice', 0, null],
      ['client-id=null', 0, null],
      ['user=bob', 42, 'Invalid configuration key no_such_quota'],
      ['', 42, 'Invalid empty client quota entity'],
    ]);
    w.sim.advance(1_000);
    const described = await w.respond(2, ApiKey.DescribeClientQuotas, 1, { components: [{ entityType: 'user', matchType: 0, match: 'alice' }], strict: false });
    expect(described).toMatchObject({ errorCode: 0, entries: [{ entity: [{ entityType: 'user', entityName: 'alice' }], values: [{ key: 'producer_byte_rate', value: 1024 }] }] });
    const malformed = await w.respond(2, ApiKey.DescribeClientQuotas, 1, { components: [{ entityType: 'user', matchType: 0, match: null }], strict: false });
    expect(malformed).toMatchObject({ errorCode: 42, errorMessage: 'Request specified MATCH_TYPE_EXACT, but set match string to null.', entries: null });
    const unknownType = await w.respond(2, ApiKey.DescribeClientQuotas, 1, { components: [{ entityType: 'group', matchType: 2, match: null }], strict: false });
    expect(unknownType).toMatchObject({ errorCode: 35 });
    expect(await w.request(1, ApiKey.DescribeClientQuotas, 1, { components: [], strict: false }, { session: alice })).toMatchObject({ body: { errorCode: 31 } });
    const validateOnly = await w.respond(1, ApiKey.AlterClientQuotas, 1, { entries: [{ entity: [{ entityType: 'user', entityName: 'carol' }], ops: [{ key: 'request_percentage', value: 50, remove: false }] }], validateOnly: true });
    expect(validateOnly.entries[0]!.errorCode).toBe(0);
    expect(w.sim.engine.metadata.clientQuotas.size).toBe(2);
  });

  it('throttles a producer over producer_byte_rate: throttle_time_ms in the response, the connection muted for it', async () => {
    const w = new WireSim({ seed: 5 });
    w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    w.sim.engine.security.alterClientQuotas([{ entity: { 'client-id': 'loader' }, ops: [{ key: 'producer_byte_rate', value: 1000 }] }]);
    w.sim.advance(1_000);
    const body = { acks: -1, timeoutMs: 5_000, topicData: [{ name: 't', partitionData: [{ index: 0, records: clientBatch([clientRecord('x'.repeat(6_000))]) }] }] };
    const header = { clientId: 'loader' };
    const first = await w.request(1, ApiKey.Produce, 8, body, { header });
    // ~6 KB in the 10 s minimum window is within 1,000 B/s; the second is over it.
    expect(first).toMatchObject({ kind: 'respond', body: { throttleTimeMs: 0 } });
    expect(first.kind === 'respond' && first.throttle).toBeUndefined();
    const second = await w.request(1, ApiKey.Produce, 8, body, { header });
    if (second.kind !== 'respond') throw new Error(second.kind);
    expect(second.body.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    expect(second.body.throttleTimeMs).toBeGreaterThan(1_000);
    expect(second.throttle).toEqual({ ms: second.body.throttleTimeMs, clientThrottles: true });
    // Produce v5 clients do not throttle themselves: the response waits instead.
    const old = await w.request(1, ApiKey.Produce, 5, body, { header });
    expect(old.kind === 'respond' && old.throttle?.clientThrottles).toBe(false);
    // Another client id has no quota.
    expect(await w.request(1, ApiKey.Produce, 8, body, { header: { clientId: 'other' } })).toMatchObject({ body: { throttleTimeMs: 0 } });
    const sensors = w.sim.engine.security.quotaSensors().find((b) => b.brokerId === 1)!.sensors.find((s) => s.clientId === 'loader' && s.key === 'producer_byte_rate');
    expect(sensors).toMatchObject({ limit: 1000, entity: { 'client-id': 'loader' } });
    expect(sensors!.lastThrottleMs).toBeGreaterThan(1_000);
  });

  it('answers a throttled fetch with no data and counts none of it, as Kafka does', async () => {
    const w = new WireSim({ seed: 5 });
    w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    w.sim.produce('t', 0, ['x'.repeat(20_000)]);
    w.sim.engine.security.alterClientQuotas([{ entity: { user: null }, ops: [{ key: 'consumer_byte_rate', value: 500 }] }]);
    w.sim.advance(1_000);
    const fetch = { replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 1_000_000, topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1_000_000, currentLeaderEpoch: -1 }] }] };
    const throttled = await w.request(1, ApiKey.Fetch, 11, fetch);
    if (throttled.kind !== 'respond') throw new Error(throttled.kind);
    expect(throttled.body.throttleTimeMs).toBeGreaterThan(0);
    expect(throttled.body.responses).toEqual([]);
    const sensor = w.sim.engine.security.quotaSensors()[0]!.sensors.find((s) => s.key === 'consumer_byte_rate')!;
    expect(sensor.rate).toBe(0);
  });

  it('throttles topic creation over controller_mutation_rate (permissive below CreateTopics v6: created, then throttled)', async () => {
    const w = new WireSim({ seed: 5 });
    w.sim.engine.security.alterClientQuotas([{ entity: { 'client-id': null }, ops: [{ key: 'controller_mutation_rate', value: 1 }] }]);
    w.sim.advance(1_000);
    const create = (name: string, numPartitions: number) => ({ topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5_000, validateOnly: false });
    // The bucket holds 11 mutations (1/s × 11 samples × 1 s).
    expect(await w.request(1, ApiKey.CreateTopics, 4, create('a', 10))).toMatchObject({ body: { topics: [{ errorCode: 0 }], throttleTimeMs: 0 } });
    const over = await w.request(1, ApiKey.CreateTopics, 4, create('b', 6));
    expect(over).toMatchObject({ body: { topics: [{ name: 'b', errorCode: 0 }], throttleTimeMs: 5_000 }, throttle: { ms: 5_000, clientThrottles: true } });
  });
});
