/**
 * kafkajs 2.2.4's admin client against `npm run serve`'s Kafka listener: the admin APIs a
 * kafka-topics.sh / kafka-configs.sh / kafka-reassign-partitions.sh user needs, answered in
 * Kafka's bytes and read back by a client written by someone else. What the admin client did is
 * checked against the console's own view of the cluster (the contract over HTTP).
 */
import { Kafka, logLevel, ConfigResourceTypes, type Admin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './support/harness.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';

describe('kafkajs admin against the local cluster', () => {
  let k: KafkaServe;
  let admin: Admin;
  beforeAll(async () => {
    k = await startKafkaServe();
    const kafka = new Kafka({ clientId: 'kafkajs-admin-e2e', brokers: k.bootstrap.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 30_000 });
    admin = kafka.admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.disconnect();
    await k?.stop();
  });

  it('creates topics (with configs), refuses an existing one, and the console sees them', async () => {
    const created = await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic: 'orders', numPartitions: 3, replicationFactor: 2, configEntries: [{ name: 'retention.ms', value: '3600000' }] }],
    });
    expect(created).toBe(true);
    const view = await k.topic('orders');
    expect(view.partitions).toHaveLength(3);
    expect(view.partitions.every((p) => p.replicas.length === 2)).toBe(true);
    expect(await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 1, replicationFactor: 1 }] })).toBe(false);
    const refused = await admin.createTopics({ topics: [{ topic: 'too-wide', numPartitions: 1, replicationFactor: 9 }] }).catch((e: unknown) => e);
    // kafkajs gathers per-topic errors in one KafkaJSAggregateError.
    expect((refused as { errors?: { type: string; topic?: string }[] }).errors?.map((e) => e.type)).toEqual(['INVALID_REPLICATION_FACTOR']);
    expect(await admin.listTopics()).toEqual(expect.arrayContaining(['orders']));
  });

  it('describes a topic config with its source and synonyms, and alters it', async () => {
    const described = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'orders', configNames: ['retention.ms', 'min.insync.replicas'] }] });
    const entries = described.resources[0]!.configEntries;
    const retention = entries.find((c) => c.configName === 'retention.ms')!;
    expect(retention.configValue).toBe('3600000');
    // As Kafka lists them: the topic's override, then only its first broker synonym's layers
    // (log.retention.ms, set nowhere here), not log.retention.hours' default.
    expect(retention.configSynonyms.map((s) => [s.configName, s.configSource])).toEqual([['retention.ms', 1]]);
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'orders', configEntries: [{ name: 'min.insync.replicas', value: '2' }] }] });
    // AlterConfigs replaces the topic's dynamic configs: retention.ms, not named, is gone.
    const after = await api<{ name: string; value: string; source: string }[]>(k.host, 'configs.describe', { resource: { type: 'topic', name: 'orders' } });
    expect(after.find((c) => c.name === 'min.insync.replicas')).toMatchObject({ value: '2', source: 'DYNAMIC_TOPIC_CONFIG' });
    expect(after.find((c) => c.name === 'retention.ms')!.source).not.toBe('DYNAMIC_TOPIC_CONFIG');
  });

  it('deletes records below an offset (deleteTopicRecords): the log start moves on every replica and fetchTopicOffsets reports it', async () => {
    await api(k.host, 'records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [1, 2, 3, 4, 5].map((i) => ({ value: `o${i}` })) });
    await admin.deleteTopicRecords({ topic: 'orders', partitions: [{ partition: 0, offset: '3' }] });
    const p0 = (await k.topic('orders')).partitions[0]!;
    expect(p0.logStartOffset).toBe(3);
    await until(async () => (await k.topic('orders')).partitions[0]!.replicaStates.every((r) => r.logStartOffset === 3), 30_000, 'every replica to follow the log start');
    const offsets = await admin.fetchTopicOffsets('orders');
    expect(offsets.find((o) => o.partition === 0)).toMatchObject({ low: '3', high: '5' });
    // Past the high watermark: Kafka's OFFSET_OUT_OF_RANGE, and nothing moves.
    const refused = await admin.deleteTopicRecords({ topic: 'orders', partitions: [{ partition: 0, offset: '9' }] }).catch((e: unknown) => e);
    // kafkajs's retrier wraps its KafkaJSDeleteTopicRecordsError, which names each partition's error.
    const cause = (refused as { cause?: { partitions?: { error?: { type?: string } }[] } }).cause;
    expect(cause?.partitions?.[0]?.error?.type).toBe('OFFSET_OUT_OF_RANGE');
    expect((await k.topic('orders')).partitions[0]!.logStartOffset).toBe(3);
  });

  it('grows a topic, moves a replica with a reassignment it lists until done, and deletes the topic', async () => {
    await admin.createPartitions({ topicPartitions: [{ topic: 'orders', count: 4 }] });
    expect((await k.topic('orders')).partitions).toHaveLength(4);

    const before = (await k.topic('orders')).partitions[0]!.replicas;
    const brokers = (await k.describe()).brokers.map((b) => b.id);
    const target = [brokers.find((b) => !before.includes(b))!, before[0]!];
    await admin.alterPartitionReassignments({ topics: [{ topic: 'orders', partitionAssignment: [{ partition: 0, replicas: target }] }] });
    await until(async () => (await k.topic('orders')).partitions[0]!.replicas.join() === target.join(), 60_000, 'the reassignment to complete');
    const listed = await admin.listPartitionReassignments({});
    expect(listed.topics).toEqual([]);

    await admin.deleteTopics({ topics: ['orders'] });
    await until(async () => !(await admin.listTopics()).includes('orders'), 30_000, 'orders to be gone from Metadata');
    const sent = k.versions('kafkajs-admin-e2e');
    console.info(`kafkajs 2.2.4 admin sent: ${JSON.stringify(sent)}`);
    expect(Object.keys(sent)).toEqual(expect.arrayContaining(['CreateTopics', 'DescribeConfigs', 'AlterConfigs', 'CreatePartitions', 'AlterPartitionReassignments', 'ListPartitionReassignments', 'DeleteTopics', 'DeleteRecords']));
  });
});
