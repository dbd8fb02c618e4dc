import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientError } from '../api/client.js';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useDrillsStore } from './drills.js';
import { useMessagesStore, type ProduceForm } from './messages.js';

const form = (over: Partial<ProduceForm>): ProduceForm => ({ topic: 'orders', partition: null, acks: 'all', key: '', value: 'v', headers: [], count: 1, timeoutMs: 30_000, ...over });

describe('messages store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    await until(async () => (await h.client.call('brokers.list', {})).every((b) => b.state === 'running'));
    await h.client.call('topics.create', { name: 'orders', partitions: 3, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('lists the topics with their partition counts', async () => {
    const store = useMessagesStore();
    await store.loadTopics();
    expect(store.topics.map((t) => t.name)).toContain('orders');
    expect(store.partitionCount('orders')).toBe(3);
  });

  it('produces 3 records with acks=all and shows one outcome per record with consecutive offsets', async () => {
    const store = useMessagesStore();
    const rows = await store.produce(form({ partition: 1, key: 'k{n}', value: 'order #{n}', headers: [{ key: 'source', value: 'console-{n}' }], count: 3 }));
    expect(rows.map((r) => [r.partition, r.offset, r.errorCode])).toEqual([
      [1, 0, 'NONE'],
      [1, 1, 'NONE'],
      [1, 2, 'NONE'],
    ]);
    expect(store.outcomes.slice(0, 3).map((r) => r.offset)).toEqual([0, 1, 2]);
    // Acknowledged records are kept for the drills page's data-loss check.
    expect(useDrillsStore().acknowledged.filter((a) => a.topic === 'orders').map((a) => a.value)).toEqual(['order #0', 'order #1', 'order #2']);
  });

  it('consumes from the log start offset and gets the same keys, values and headers back, up to the high watermark', async () => {
    const store = useMessagesStore();
    await store.consume({ topic: 'orders', partition: 1, offset: null, maxRecords: 100 });
    expect(store.consumeError).toBeNull();
    expect(store.records.map((r) => [r.offset, r.key, r.value])).toEqual([
      [0, 'k0', 'order #0'],
      [1, 'k1', 'order #1'],
      [2, 'k2', 'order #2'],
    ]);
    expect(store.records[2]!.headers).toEqual([{ key: 'source', value: 'console-2' }]);
    expect(store.highWatermark).toBe(3);
    expect(store.logStartOffset).toBe(0);
    expect(store.canLoadMore).toBe(false);
  });

  it('loads more from after the last offset read', async () => {
    const store = useMessagesStore();
    await store.consume({ topic: 'orders', partition: 1, offset: 0, maxRecords: 2 });
    expect(store.records.map((r) => r.offset)).toEqual([0, 1]);
    expect(store.canLoadMore).toBe(true);
    expect(store.nextOffset).toBe(2);
    await store.loadMore();
    expect(store.records.map((r) => r.offset)).toEqual([0, 1, 2]);
    expect(store.canLoadMore).toBe(false);
  });

  it('keeps the consumed partition’s high watermark current after records are produced to it, so Load more reads them', async () => {
    const store = useMessagesStore();
    await store.consume({ topic: 'orders', partition: 0, offset: null, maxRecords: 100 });
    const before = store.highWatermark!;
    expect(store.canLoadMore).toBe(false);
    await store.produce(form({ partition: 0, value: 'late {n}', count: 2 }));
    await until(() => store.highWatermark === before + 2);
    expect(store.canLoadMore).toBe(true);
    await store.loadMore();
    expect(store.records.slice(-2).map((r) => r.value)).toEqual(['late 0', 'late 1']);
    // A produce to another partition leaves the consumed one's bounds alone.
    await store.produce(form({ partition: 2, value: 'elsewhere' }));
    expect(store.highWatermark).toBe(before + 2);
  });

  it('lets the partitioner choose: records with one key land in one partition', async () => {
    const store = useMessagesStore();
    const a = await store.produce(form({ key: 'customer-42', value: 'a' }));
    const b = await store.produce(form({ key: 'customer-42', value: 'b' }));
    expect(a[0]!.errorCode).toBe('NONE');
    expect(b[0]!.partition).toBe(a[0]!.partition);
    expect(b[0]!.offset).toBe(a[0]!.offset! + 1);
  });

  it('partitions each record of one produce by its own key, as Kafka’s default partitioner (murmur2) does', async () => {
    await h.client.call('topics.create', { name: 'keyed', partitions: 12, replicationFactor: 3 });
    await until(async () => (await h.client.call('topics.describe', { name: 'keyed' })).partitions.every((p) => p.leader >= 0));
    const store = useMessagesStore();
    const rows = await store.produce(form({ topic: 'keyed', key: 'order-{n}', value: 'v{n}', count: 5 }));
    // murmur2("order-n") toPositive % 12, each record on its own key's partition, in the order sent.
    expect(rows.map((r) => [r.key, r.partition, r.errorCode])).toEqual([
      ['order-0', 4, 'NONE'],
      ['order-1', 10, 'NONE'],
      ['order-2', 3, 'NONE'],
      ['order-3', 3, 'NONE'],
      ['order-4', 2, 'NONE'],
    ]);
    // order-2 and order-3 share partition 3: consecutive offsets in one batch.
    expect(rows[3]!.offset).toBe(rows[2]!.offset! + 1);
    const read = await h.client.call('records.consume', { topic: 'keyed', partition: 3, offset: 0 });
    expect(read.records.map((r) => r.key)).toEqual(['order-2', 'order-3']);
  });

  it('shows Kafka’s error per record: an unknown partition, and acks=0 without an offset', async () => {
    const store = useMessagesStore();
    const bad = await store.produce(form({ partition: 7, count: 2 }));
    expect(bad.map((r) => [r.errorCode, r.offset])).toEqual([
      ['UNKNOWN_TOPIC_OR_PARTITION', null],
      ['UNKNOWN_TOPIC_OR_PARTITION', null],
    ]);
    const fire = await store.produce(form({ partition: 0, acks: 0, value: 'fire and forget' }));
    expect(fire[0]).toMatchObject({ errorCode: 'NONE', offset: null });
  });

  it('refuses acks=all with NOT_ENOUGH_REPLICAS when two of three brokers are down (min.insync.replicas 2), and accepts acks=1', async () => {
    const store = useMessagesStore();
    await h.client.call('clock.setScale', { scale: 60 });
    const t = await h.client.call('topics.describe', { name: 'orders' });
    const followers = t.partitions[2]!.replicas.filter((r) => r !== t.partitions[2]!.leader);
    for (const b of followers) await h.client.call('brokers.stop', { brokerId: b });
    await until(async () => (await h.client.call('topics.describe', { name: 'orders' })).partitions[2]!.isr.length === 1);
    const refused = await store.produce(form({ partition: 2, count: 2 }));
    expect(refused.map((r) => r.errorCode)).toEqual(['NOT_ENOUGH_REPLICAS', 'NOT_ENOUGH_REPLICAS']);
    const accepted = await store.produce(form({ partition: 2, acks: 1 }));
    expect(accepted[0]!.errorCode).toBe('NONE');
    for (const b of followers) await until(async () => (await h.client.result('brokers.start', { brokerId: b })).ok || (await h.client.call('brokers.list', {})).find((x) => x.id === b)!.state === 'running');
  });

  it('shows OFFSET_OUT_OF_RANGE with the partition’s bounds when reading past the high watermark', async () => {
    const store = useMessagesStore();
    // The brokers the previous test stopped are back: wait until every replica is in sync again (a
    // leader elected meanwhile may briefly report a high watermark behind the log, as in Kafka).
    await until(async () => {
      const p = (await h.client.call('topics.describe', { name: 'orders' })).partitions[1]!;
      return p.isr.length === p.replicas.length && p.highWatermark === 3;
    });
    await store.consume({ topic: 'orders', partition: 1, offset: 50, maxRecords: 10 });
    expect(store.consumeError).toBeInstanceOf(ClientError);
    expect((store.consumeError as ClientError).code).toBe('OFFSET_OUT_OF_RANGE');
    expect(store.highWatermark).toBe(3);
    expect(store.records).toEqual([]);
  });
});
