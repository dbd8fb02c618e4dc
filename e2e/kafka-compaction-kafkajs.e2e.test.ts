/**
 * Log compaction seen by a real client: kafkajs 2.2.4 against `npm run serve`. Its admin client
 * creates a compacted topic (cleanup.policy=compact as Kafka's CreateTopics takes it), an
 * idempotent producer writes keyed updates and tombstones while segments roll, the brokers'
 * cleaners compact every replica, and a kafkajs consumer reading the topic from the beginning
 * into a latest-value map — the "table" every compacted-topic reader builds (Kafka Streams'
 * changelogs, Connect's config topic) — gets each key's latest value at the offset the producer
 * was given for it, with fewer records than were written. A keyless record is refused with
 * Kafka's INVALID_RECORD, and the idempotent producer carries on after the cleaning.
 */
import { CompressionTypes, ConfigResourceTypes, Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './support/harness.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';

const TOPIC = 'profiles';
const KEYS = 40;

interface Entry {
  offset: number;
  value: string | null;
}

describe('a compacted topic read as a table by kafkajs', () => {
  let k: KafkaServe;
  let kafka: Kafka;
  let admin: Admin;
  let producer: Producer;
  /** What the producer was told: each key's last write and its offset. */
  const last = new Map<string, Entry>();
  let written = 0;

  beforeAll(async () => {
    k = await startKafkaServe();
    // The cleaner looks for dirty logs every half second (log.cleaner.backoff.ms is cluster-wide dynamic).
    await api(k.host, 'configs.alter', { resource: { type: 'broker', name: '' }, set: { 'log.cleaner.backoff.ms': '500' } });
    kafka = new Kafka({ clientId: 'kafkajs-compaction-e2e', brokers: k.bootstrap.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 30_000 });
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer({ idempotent: true, retry: { initialRetryTime: 100, maxRetryTime: 1000, retries: 30 } });
    await producer.connect();
  }, 120_000);
  afterAll(async () => {
    await producer?.disconnect();
    await admin?.disconnect();
    await k?.stop();
  });

  async function send(entries: [string, string | null][]): Promise<void> {
    const [r] = await producer.send({ topic: TOPIC, acks: -1, compression: CompressionTypes.GZIP, messages: entries.map(([key, value]) => ({ key, value, partition: 0 })) });
    const base = Number(r!.baseOffset);
    entries.forEach(([key, value], i) => last.set(key, { offset: base + i, value }));
    written += entries.length;
  }

  /** Read the whole partition from offset 0 with a fresh consumer group: the latest-value table and how many records came. */
  async function readTable(): Promise<{ table: Map<string, Entry>; records: number; offsets: number[] }> {
    const high = Number((await admin.fetchTopicOffsets(TOPIC)).find((o) => o.partition === 0)!.high);
    const consumer = kafka.consumer({ groupId: `table-reader-${Date.now()}-${Math.random()}`, maxWaitTimeInMs: 200 });
    const table = new Map<string, Entry>();
    const offsets: number[] = [];
    let reached = high === 0;
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) {
          const offset = Number(m.offset);
          offsets.push(offset);
          table.set(m.key!.toString(), { offset, value: m.value === null ? null : m.value.toString() });
        }
        // A compacted batch may end past its last record: the batch's last offset says how far it went.
        if (Number(batch.lastOffset()) + 1 >= high) reached = true;
      },
    });
    await until(() => reached, 60_000, `the table reader to reach offset ${high}`);
    await consumer.disconnect();
    return { table, records: offsets.length, offsets };
  }

  it('kafkajs admin creates a compacted topic, and describes its cleanup.policy as a topic override', async () => {
    expect(
      await admin.createTopics({
        waitForLeaders: true,
        topics: [
          {
            topic: TOPIC,
            numPartitions: 1,
            replicationFactor: 3,
            configEntries: [
              { name: 'cleanup.policy', value: 'compact' },
              { name: 'segment.ms', value: '1000' },
              { name: 'min.cleanable.dirty.ratio', value: '0.01' },
            ],
          },
        ],
      }),
    ).toBe(true);
    const described = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: TOPIC, configNames: ['cleanup.policy', 'delete.retention.ms'] }] });
    const entries = described.resources[0]!.configEntries;
    expect(entries.find((c) => c.configName === 'cleanup.policy')).toMatchObject({ configValue: 'compact', configSource: 1 });
    expect(entries.find((c) => c.configName === 'delete.retention.ms')).toMatchObject({ configValue: '86400000' });
  });

  it('refuses a keyless record with INVALID_RECORD', async () => {
    const plain = kafka.producer({ retry: { retries: 0 } });
    await plain.connect();
    try {
      const refused = await plain.send({ topic: TOPIC, acks: -1, messages: [{ value: 'no key' }] }).catch((e: unknown) => e);
      expect((refused as { type?: string; cause?: { type?: string } }).type ?? (refused as { cause?: { type?: string } }).cause?.type).toBe('INVALID_RECORD');
    } finally {
      await plain.disconnect();
    }
  });

  it('a reader from the beginning gets each key once, its latest value at its produced offset, from fewer records than were written', async () => {
    for (let round = 0; round < 8; round++) {
      const entries: [string, string | null][] = Array.from({ length: KEYS }, (_, i) => [`user-${i}`, `round ${round} of user ${i}`]);
      if (round === 5) for (let i = 0; i < 5; i++) entries.push([`user-${i}`, null]); // deleted: tombstones
      await send(entries);
      await new Promise((r) => setTimeout(r, 1_100)); // the next send rolls the segment
    }
    await send([['user-0', 'back again']]);
    await until(async () => (await readTable()).records < written - KEYS * 2, 90_000, 'the cleaners to compact the log');
    const { table, records, offsets } = await readTable();
    expect(records).toBeLessThan(written);
    for (let i = 1; i < offsets.length; i++) expect(offsets[i]!).toBeGreaterThan(offsets[i - 1]!);
    // Tombstones stay for delete.retention.ms (a day): a deleted key reads as null at its tombstone's offset.
    expect(table).toEqual(last);
  }, 180_000);

  it('the idempotent producer carries on after the cleaning: its next writes land in sequence', async () => {
    await send([['user-7', 'after the cleaning']]);
    await send([['user-8', 'after the cleaning too']]);
    const { table } = await readTable();
    expect(table.get('user-7')).toEqual(last.get('user-7'));
    expect(table.get('user-8')).toEqual(last.get('user-8'));
  }, 60_000);
});
