/**
 * What each API checks with the StandardAuthorizer on, in Kafka's bytes: a principal without a
 * binding is refused with Kafka's error for that API, one with the binding Kafka asks for is
 * served, and undescribable topics stay out of Metadata.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../generated/index.js';
import { alice, creation, grant, secured } from '../../test-support/secured-sim.js';
import { clientBatch, clientRecord, WireSim } from '../../test-support/wire-sim.js';

const produce = (topic: string, acks = -1) => ({ acks, timeoutMs: 5_000, topicData: [{ name: topic, partitionData: [{ index: 0, records: clientBatch([clientRecord('v')]) }] }] });
const fetch = (topic: string) => ({
  replicaId: -1,
  maxWaitMs: 0,
  minBytes: 1,
  maxBytes: 1_000_000,
  topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1_000_000, currentLeaderEpoch: -1 }] }],
});
// Wire codes: TOPIC 2, GROUP 3, CLUSTER 4, TRANSACTIONAL_ID 5; READ 3, WRITE 4, CREATE 5, DELETE 6, ALTER 7, DESCRIBE 8; PREFIXED 4; DENY 2.

describe('the authorizer on the data path', () => {
  it('Produce needs WRITE on the topic: TOPIC_AUTHORIZATION_FAILED per partition, acks=0 closes the connection', async () => {
    const w = secured();
    const refused = await w.respond(1, ApiKey.Produce, 8, produce('orders'), undefined);
    expect(refused.responses[0]!.partitionResponses[0]!.errorCode).toBe(0); // admin is a super user
    const denied = await w.request(1, ApiKey.Produce, 8, produce('orders'), { session: alice });
    expect(denied).toMatchObject({ kind: 'respond', body: { responses: [{ name: 'orders', partitionResponses: [{ index: 0, errorCode: 29, baseOffset: -1n }] }] } });
    expect((await w.request(1, ApiKey.Produce, 8, produce('orders', 0), { session: alice })).kind).toBe('close');
    await grant(w, creation({ operation: 4 }));
    const allowed = await w.request(1, ApiKey.Produce, 8, { ...produce('orders'), topicData: [...produce('orders').topicData, ...produce('payments').topicData] }, { session: alice });
    expect(allowed).toMatchObject({
      body: {
        responses: [
          { name: 'orders', partitionResponses: [{ errorCode: 0, baseOffset: 1n }] },
          { name: 'payments', partitionResponses: [{ errorCode: 29 }] },
        ],
      },
    });
  });

  it('Fetch needs READ, ListOffsets and OffsetForLeaderEpoch DESCRIBE (which WRITE implies)', async () => {
    const w = secured();
    await w.respond(1, ApiKey.Produce, 8, produce('orders'));
    const denied = await w.request(1, ApiKey.Fetch, 11, fetch('orders'), { session: alice });
    expect(denied).toMatchObject({ body: { responses: [{ topic: 'orders', partitions: [{ errorCode: 29, highWatermark: -1n, records: null }] }] } });
    const offsets = { replicaId: -1, isolationLevel: 0, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1 }] }] };
    expect(await w.request(1, ApiKey.ListOffsets, 5, offsets, { session: alice })).toMatchObject({ body: { topics: [{ partitions: [{ errorCode: 29 }] }] } });
    await grant(w, creation({ operation: 4 }));
    expect(await w.request(1, ApiKey.ListOffsets, 5, offsets, { session: alice })).toMatchObject({ body: { topics: [{ partitions: [{ errorCode: 0, offset: 1n }] }] } });
    // WRITE does not give READ.
    expect(await w.request(1, ApiKey.Fetch, 11, fetch('orders'), { session: alice })).toMatchObject({ body: { responses: [{ partitions: [{ errorCode: 29 }] }] } });
    await grant(w, creation({ operation: 3 }));
    const read = await w.request(1, ApiKey.Fetch, 11, fetch('orders'), { session: alice });
    expect(read).toMatchObject({ body: { responses: [{ partitions: [{ errorCode: 0, highWatermark: 1n }] }] } });
  });

  it('Metadata leaves out the topics the principal may not describe, and names them TOPIC_AUTHORIZATION_FAILED when asked by name', async () => {
    const w = secured();
    await grant(w, creation({ operation: 3 }));
    const all = await w.request(1, ApiKey.Metadata, 8, { topics: null }, { session: alice });
    expect(all.kind === 'respond' && all.body.topics.map((t) => t.name)).toEqual(['orders']);
    const named = await w.request(1, ApiKey.Metadata, 8, { topics: [{ name: 'orders' }, { name: 'payments' }, { name: 'nope' }], includeTopicAuthorizedOperations: true }, { session: alice });
    expect(named.kind === 'respond' && named.body.topics.map((t) => [t.name, t.errorCode, t.topicAuthorizedOperations])).toEqual([
      ['orders', 0, (1 << 3) | (1 << 8)],
      ['payments', 29, -2147483648],
      ['nope', 29, -2147483648],
    ]);
    // A super user sees both.
    const everything = await w.respond(1, ApiKey.Metadata, 8, { topics: null });
    expect(everything.topics.map((t) => t.name).sort()).toEqual(['orders', 'payments']);
  });

  it('InitProducerId needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic, else CLUSTER_AUTHORIZATION_FAILED', async () => {
    const w = secured();
    const body = { transactionalId: null, transactionTimeoutMs: 60_000 };
    expect(await w.request(1, ApiKey.InitProducerId, 1, body, { session: alice })).toMatchObject({ body: { errorCode: 31 } });
    await grant(w, creation({ resourceName: 'pay', resourcePatternType: 4, operation: 4 }));
    expect(await w.request(1, ApiKey.InitProducerId, 1, body, { session: alice })).toMatchObject({ body: { errorCode: 0 } });
    expect(await w.request(1, ApiKey.InitProducerId, 1, { ...body, transactionalId: 'tx' }, { session: alice })).toMatchObject({ body: { errorCode: 53 } });
  });
});

describe('the authorizer on transactions', () => {
  it('the transaction APIs need WRITE on the transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), AddPartitionsToTxn WRITE on each topic too', async () => {
    const w = secured();
    const ids = { producerId: 0n, producerEpoch: 0 };
    expect(await w.request(1, ApiKey.EndTxn, 1, { transactionalId: 'tx', ...ids, committed: true }, { session: alice })).toMatchObject({ body: { errorCode: 53 } });
    expect(await w.request(1, ApiKey.AddOffsetsToTxn, 1, { transactionalId: 'tx', ...ids, groupId: 'g' }, { session: alice })).toMatchObject({ body: { errorCode: 53 } });
    const txnProduce = { ...produce('orders'), transactionalId: 'tx' };
    expect(await w.request(1, ApiKey.Produce, 8, txnProduce, { session: alice })).toMatchObject({ body: { responses: [{ partitionResponses: [{ errorCode: 53 }] }] } });
    const add = { transactions: [], v3AndBelowTransactionalId: 'tx', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [{ name: 'orders', partitions: [0] }, { name: 'payments', partitions: [0] }] };
    expect(await w.request(1, ApiKey.AddPartitionsToTxn, 1, add, { session: alice })).toMatchObject({ body: { resultsByTopicV3AndBelow: [{ resultsByPartition: [{ partitionErrorCode: 53 }] }, { resultsByPartition: [{ partitionErrorCode: 53 }] }] } });
    await grant(w, creation({ resourceType: 5, resourceName: 'tx', operation: 4 }), creation({ operation: 4 }));
    // WRITE on tx and on orders, not on payments: payments is refused and orders not attempted.
    expect(await w.request(1, ApiKey.AddPartitionsToTxn, 1, add, { session: alice })).toMatchObject({
      body: { resultsByTopicV3AndBelow: [{ name: 'orders', resultsByPartition: [{ partitionErrorCode: 55 }] }, { name: 'payments', resultsByPartition: [{ partitionErrorCode: 29 }] }] },
    });
    // Allowed through: the coordinator answers (no such producer on this broker).
    expect(await w.request(1, ApiKey.EndTxn, 1, { transactionalId: 'tx', ...ids, committed: true }, { session: alice })).not.toMatchObject({ body: { errorCode: 53 } });
  });
});

describe('the authorizer on groups and admin APIs', () => {
  it('group APIs need their group permission (GROUP_AUTHORIZATION_FAILED) and OffsetCommit READ on the topic too', async () => {
    const w = secured();
    const join = { groupId: 'g1', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: new Uint8Array() }] };
    expect(await w.request(1, ApiKey.FindCoordinator, 2, { key: 'g1', keyType: 0 }, { session: alice })).toMatchObject({ body: { errorCode: 30 } });
    expect(await w.request(1, ApiKey.JoinGroup, 5, join, { session: alice })).toMatchObject({ body: { errorCode: 30 } });
    const commit = { groupId: 'g1', generationIdOrMemberEpoch: -1, memberId: '', retentionTimeMs: -1n, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedMetadata: '' }] }] };
    expect(await w.request(1, ApiKey.OffsetCommit, 7, commit, { session: alice })).toMatchObject({ body: { topics: [{ partitions: [{ errorCode: 30 }] }] } });
    await grant(w, creation({ resourceType: 3, resourceName: 'g1' }));
    expect(await w.request(1, ApiKey.OffsetCommit, 7, commit, { session: alice })).toMatchObject({ body: { topics: [{ name: 'orders', partitions: [{ errorCode: 29 }] }] } });
    expect(await w.request(1, ApiKey.DescribeGroups, 4, { groups: ['g1', 'g2'] }, { session: alice })).toMatchObject({ body: { groups: [{ groupId: 'g1' }, { groupId: 'g2', errorCode: 30 }] } });
  });

  it('CreateTopics is allowed by CREATE on the cluster or on the topic (a prefix binding), else TOPIC_AUTHORIZATION_FAILED', async () => {
    const w = secured();
    const create = (...names: string[]) => ({ topics: names.map((name) => ({ name, numPartitions: 1, replicationFactor: 3, assignments: [], configs: [] })), timeoutMs: 5_000, validateOnly: false });
    expect(await w.request(1, ApiKey.CreateTopics, 4, create('team-a.x'), { session: alice })).toMatchObject({ body: { topics: [{ name: 'team-a.x', errorCode: 29 }] } });
    await grant(w, creation({ resourceName: 'team-a.', resourcePatternType: 4, operation: 5 }));
    const mixed = await w.request(1, ApiKey.CreateTopics, 4, create('team-a.x', 'team-b.y'), { session: alice });
    expect(mixed.kind === 'respond' && mixed.body.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['team-a.x', 0],
      ['team-b.y', 29],
    ]);
    expect(w.sim.engine.metadata.topicsByName.has('team-b.y')).toBe(false);
    await grant(w, creation({ resourceType: 4, resourceName: 'kafka-cluster', operation: 5 }));
    expect(await w.request(1, ApiKey.CreateTopics, 4, create('team-b.y'), { session: alice })).toMatchObject({ body: { topics: [{ errorCode: 0 }] } });
  });

  it('configs need DESCRIBE_CONFIGS / ALTER_CONFIGS per resource; cluster operations CLUSTER_AUTHORIZATION_FAILED', async () => {
    const w = secured();
    const described = await w.request(1, ApiKey.DescribeConfigs, 3, { resources: [{ resourceType: 2, resourceName: 'orders', configurationKeys: null }, { resourceType: 4, resourceName: '1', configurationKeys: null }] }, { session: alice });
    expect(described.kind === 'respond' && described.body.results.map((r) => [r.resourceName, r.errorCode])).toEqual([
      ['orders', 29],
      ['1', 31],
    ]);
    expect(await w.request(1, ApiKey.ElectLeaders, 1, { electionType: 0, topicPartitions: null, timeoutMs: 1000 }, { session: alice })).toMatchObject({ body: { errorCode: 31 } });
    expect(await w.request(1, ApiKey.DescribeLogDirs, 1, { topics: null }, { session: alice })).toMatchObject({ body: { results: [] } });
  });

  it('a DENY binding wins over an ALLOW, and a binding for another host does not apply', async () => {
    const w = secured();
    await grant(w, creation({ operation: 4, principal: 'User:*' }), creation({ operation: 4, permissionType: 2, host: '127.0.0.1' }));
    expect(await w.request(1, ApiKey.Produce, 8, produce('orders'), { session: alice })).toMatchObject({ body: { responses: [{ partitionResponses: [{ errorCode: 29 }] }] } });
    expect(await w.request(1, ApiKey.Produce, 8, produce('orders'), { session: { principal: 'User:alice', clientHost: '10.1.1.1' } })).toMatchObject({ body: { responses: [{ partitionResponses: [{ errorCode: 0 }] }] } });
    expect(await w.request(1, ApiKey.Produce, 8, produce('orders'), { session: { principal: 'User:bob', clientHost: '127.0.0.1' } })).toMatchObject({ body: { responses: [{ partitionResponses: [{ errorCode: 0 }] }] } });
  });

  it('without an authorizer every principal is served', async () => {
    const w = new WireSim({ seed: 3 });
    w.sim.createTopic('orders', 1, 3, {}, [[1, 2, 3]]);
    expect(await w.request(1, ApiKey.Produce, 8, produce('orders'), { session: alice })).toMatchObject({ body: { responses: [{ partitionResponses: [{ errorCode: 0 }] }] } });
  });
});
