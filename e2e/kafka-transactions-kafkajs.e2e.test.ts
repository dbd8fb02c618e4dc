/**
 * Transactions seen by a real client: kafkajs 2.2.4 against `npm run serve` (three brokers, so
 * `__transaction_state` gets Kafka's replication factor 3 and min ISR 2). A transactional
 * producer commits and aborts; a read_committed consumer (kafkajs' default) sees only the
 * committed records — aborted ones are skipped through the Fetch response's aborted transactions,
 * the markers are never records — while a read_uncommitted consumer sees everything. With a
 * transaction left open the last stable offset (ListOffsets read_committed) stays at the
 * transaction's first offset below the high watermark, and read_committed consumers stop there
 * until it commits. A second producer with the same transactional id fences the first, whose
 * open transaction is aborted. Offsets sent in a transaction (sendOffsets: AddOffsetsToTxn and
 * TxnOffsetCommit) become the group's only if it commits.
 */
import { Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';

const TOPIC = 'payments';

describe('kafkajs transactions (KIP-98) against npm run serve', () => {
  let k: KafkaServe;
  let kafka: Kafka;
  let admin: Admin;
  const producers: Producer[] = [];

  beforeAll(async () => {
    k = await startKafkaServe({ brokers: 3 });
    kafka = new Kafka({ clientId: 'kafkajs-txn-e2e', brokers: k.bootstrap.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 30_000 });
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
  }, 120_000);
  afterAll(async () => {
    for (const p of producers) await p.disconnect().catch(() => {});
    await admin?.disconnect();
    await k?.stop();
  });

  async function transactionalProducer(transactionalId: string): Promise<Producer> {
    const p = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, retry: { initialRetryTime: 100, maxRetryTime: 1000, retries: 30 } });
    producers.push(p);
    await p.connect();
    return p;
  }

  /** Every value a fresh consumer of this isolation level reads from the start until `expected` values (or a value `expected` names) came, and 1.5 s more. */
  async function readAll(readUncommitted: boolean, expected: number | string): Promise<string[]> {
    const consumer = kafka.consumer({ groupId: `reader-${readUncommitted ? 'ru' : 'rc'}-${Date.now()}-${Math.random()}`, maxWaitTimeInMs: 200, readUncommitted });
    const values: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        values.push(message.value!.toString());
      },
    });
    await until(() => (typeof expected === 'number' ? values.length >= expected : values.includes(expected)), 60_000, `${expected} (${readUncommitted ? 'read_uncommitted' : 'read_committed'}), have ${values.length}`);
    // Anything past what is expected would show up within a few more polls.
    await new Promise((r) => setTimeout(r, 1_500));
    await consumer.disconnect();
    return values;
  }

  /** The partition's high watermark (the leader's, from the host) and its last stable offset (kafkajs' ListOffsets, read_committed). */
  async function offsets(): Promise<{ hw: number; lso: number }> {
    const hw = (await k.topic(TOPIC)).partitions[0]!.highWatermark;
    const lso = Number((await admin.fetchTopicOffsets(TOPIC)).find((o) => o.partition === 0)!.high);
    return { hw, lso };
  }

  it('a read_committed consumer sees committed transactions only; read_uncommitted sees aborted records too', async () => {
    const producer = await transactionalProducer('payments-writer');
    const t1 = await producer.transaction();
    await t1.send({ topic: TOPIC, messages: ['c1', 'c2', 'c3'].map((value) => ({ value, partition: 0 })) });
    await t1.commit();
    const t2 = await producer.transaction();
    await t2.send({ topic: TOPIC, messages: ['a1', 'a2'].map((value) => ({ value, partition: 0 })) });
    await t2.abort();
    const t3 = await producer.transaction();
    await t3.send({ topic: TOPIC, messages: ['c4', 'c5'].map((value) => ({ value, partition: 0 })) });
    await t3.commit();

    expect(await readAll(false, 5)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(await readAll(true, 7)).toEqual(['c1', 'c2', 'c3', 'a1', 'a2', 'c4', 'c5']);
    // Seven records and three markers: every offset is used, and nothing is open.
    const { hw, lso } = await offsets();
    expect(hw).toBe(10);
    expect(lso).toBe(10);
  }, 120_000);

  it('an open transaction holds the last stable offset at its first offset, below the high watermark, until it commits', async () => {
    const producer = await transactionalProducer('payments-open');
    const before = await offsets();
    const open = await producer.transaction();
    await open.send({ topic: TOPIC, messages: ['o1', 'o2'].map((value) => ({ value, partition: 0 })) });
    await until(async () => (await offsets()).hw === before.hw + 2, 10_000, 'the open transaction to be replicated');
    const during = await offsets();
    expect(during.lso).toBe(before.hw);
    expect(during.hw).toBe(before.hw + 2);
    // read_committed stops at the LSO: the open transaction's records are not delivered yet.
    expect(await readAll(false, 5)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);

    await open.commit();
    await until(async () => (await offsets()).lso === before.hw + 3, 10_000, 'the LSO to pass the COMMIT marker');
    expect(await offsets()).toEqual({ hw: before.hw + 3, lso: before.hw + 3 });
    expect(await readAll(false, 7)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'o1', 'o2']);
  }, 120_000);

  it('a new producer with the same transactional id fences the old one and aborts its open transaction', async () => {
    const old = await transactionalProducer('payments-fenced');
    const stale = await old.transaction();
    await stale.send({ topic: TOPIC, messages: [{ value: 'stale', partition: 0 }] });
    const fresh = await transactionalProducer('payments-fenced');
    // kafkajs sends InitProducerId when the first transaction begins: that bumps the epoch.
    const t = await fresh.transaction();
    // The old producer's epoch is fenced: its commit is refused, and its open transaction was aborted.
    await expect(stale.commit()).rejects.toThrow(/fenced|epoch|newer producer/i);
    await t.send({ topic: TOPIC, messages: [{ value: 'fresh', partition: 0 }] });
    await t.commit();
    // The fenced transaction's ABORT and the new one's COMMIT are both past: nothing holds the LSO back.
    await until(async () => {
      const { hw, lso } = await offsets();
      return hw === lso;
    }, 10_000, 'the LSO to reach the HW');
    const committed = await readAll(false, 'fresh');
    expect(committed).toContain('fresh');
    expect(committed).not.toContain('stale');
  }, 120_000);

  it('offsets sent in a transaction are committed with it, and dropped when it aborts', async () => {
    const producer = await transactionalProducer('payments-offsets');
    const group = 'payments-processor';
    const committedOffset = async (): Promise<string> => (await admin.fetchOffsets({ groupId: group, topics: [TOPIC] }))[0]!.partitions.find((p) => p.partition === 0)!.offset;

    const aborted = await producer.transaction();
    await aborted.send({ topic: TOPIC, messages: [{ value: 'processed-1', partition: 0 }] });
    await aborted.sendOffsets({ consumerGroupId: group, topics: [{ topic: TOPIC, partitions: [{ partition: 0, offset: '3' }] }] });
    await aborted.abort();
    expect(await committedOffset()).toBe('-1');

    const committed = await producer.transaction();
    await committed.send({ topic: TOPIC, messages: [{ value: 'processed-2', partition: 0 }] });
    await committed.sendOffsets({ consumerGroupId: group, topics: [{ topic: TOPIC, partitions: [{ partition: 0, offset: '5' }] }] });
    await committed.commit();
    await until(async () => (await committedOffset()) === '5', 10_000, 'the transaction offset to become the group offset');
    expect(await committedOffset()).toBe('5');
  }, 120_000);

  it('the transaction APIs were served in the versions ApiVersions advertised', () => {
    const v = k.versions('kafkajs-txn-e2e');
    for (const name of ['InitProducerId', 'AddPartitionsToTxn', 'EndTxn', 'AddOffsetsToTxn', 'TxnOffsetCommit']) expect(v[name], name).toBeDefined();
  });
});
