import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientError } from '../api/client.js';
import { checkTopicName } from '../lib/topics/topic-name.js';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useEventStreamStore } from './event-stream.js';
import { parseHealthFilter, useTopicsPageStore } from './topics-page.js';
import { useTopicsStore } from './topics.js';

const shown = (): string[] => useTopicsPageStore().visible.map((t) => t.name);

describe('topics store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    await until(async () => (await h.client.call('cluster.describe', {})).brokers.filter((b) => b.state === 'running').length === 3, 30_000);
    const results = await h.client.call('topics.createMany', {
      topics: [
        { name: 'Orders', partitions: 6, replicationFactor: 3 },
        { name: 'audit.log', partitions: 1, replicationFactor: 1 },
        { name: 'clicks', partitions: 12, replicationFactor: 2 },
        { name: 'payments', partitions: 6, replicationFactor: 2 },
      ],
    });
    expect(results.map((r) => r.errorCode)).toEqual(['NONE', 'NONE', 'NONE', 'NONE']);
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  it('lists every topic with its partition count and replication factor, sorted by name by default', async () => {
    const store = useTopicsStore();
    await store.refresh();
    expect(store.loaded).toBe(true);
    expect(store.error).toBe(null);
    expect(shown()).toEqual(['Orders', 'audit.log', 'clicks', 'payments']); // code-unit order, as Kafka lists them
    expect(store.totals).toMatchObject({ topics: 4, partitions: 25, offline: 0, underReplicated: 0 });
    expect(store.topics.find((t) => t.name === 'clicks')).toMatchObject({ partitionCount: 12, replicationFactor: 2 });
  });

  it('searches names by case-insensitive substring', async () => {
    const list = useTopicsPageStore();
    list.search = 'OR';
    expect(shown()).toEqual(['Orders']);
    list.search = '  .LOG ';
    expect(shown()).toEqual(['audit.log']);
    list.search = 's';
    expect(shown()).toEqual(['Orders', 'clicks', 'payments']);
    list.search = 'nothing-like-it';
    expect(shown()).toEqual([]);
    list.search = '';
  });

  it('sorts by partitions and replication factor, most first on the first click, ties by name', async () => {
    const list = useTopicsPageStore();
    list.sortBy('partitions');
    expect([list.sortKey, list.sortOrder]).toEqual(['partitions', 'desc']);
    expect(shown()).toEqual(['clicks', 'Orders', 'payments', 'audit.log']);
    list.sortBy('partitions');
    expect(shown()).toEqual(['audit.log', 'Orders', 'payments', 'clicks']);
    list.sortBy('replicationFactor');
    expect(shown()).toEqual(['Orders', 'clicks', 'payments', 'audit.log']);
    list.sortBy('name');
    expect([list.sortKey, list.sortOrder]).toEqual(['name', 'asc']);
    list.sortBy('name');
    expect(shown()).toEqual(['payments', 'clicks', 'audit.log', 'Orders']);
    list.sortBy('name');
  });

  it('filters by health as the overview links do, and sorts the broken topics first, when a broker dies', async () => {
    const store = useTopicsStore();
    const list = useTopicsPageStore();
    const stream = useEventStreamStore();
    stream.start();
    store.start();
    await until(() => stream.status === 'open');
    await h.client.call('clock.setScale', { scale: 60 });
    // audit.log's only replica and min.insync.replicas=3 on Orders make every kind of trouble visible.
    await h.client.call('configs.alter', { resource: { type: 'topic', name: 'Orders' }, set: { 'min.insync.replicas': '3' } });
    const audit = await h.client.call('topics.describe', { name: 'audit.log' });
    const victim = audit.partitions[0]!.replicas[0]!;
    await h.client.call('brokers.kill', { brokerId: victim });

    // The store hears the engine's events and re-reads the list by itself.
    await until(() => store.topics.find((t) => t.name === 'audit.log')?.offlinePartitions === 1, 30_000);
    await until(() => (store.topics.find((t) => t.name === 'Orders')?.underMinIsrPartitions ?? 0) > 0, 30_000);
    const orders = store.topics.find((t) => t.name === 'Orders')!;
    expect(orders.underReplicatedPartitions).toBe(6); // RF 3: every partition had a replica on the dead broker

    list.health = parseHealthFilter('offline');
    expect(shown()).toEqual(['audit.log']);
    list.health = parseHealthFilter('under-min-isr');
    expect(shown()).toEqual(['Orders']);
    list.health = parseHealthFilter(['under-replicated']);
    expect(shown()).toContain('Orders');
    expect(shown()).not.toContain('audit.log'); // offline with RF 1 is not under-replicated: its ISR is its replica set
    list.sortBy('underReplicated');
    const counts = list.visible.map((t) => t.underReplicatedPartitions);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(counts.every((n) => n > 0)).toBe(true);
    list.health = parseHealthFilter('nonsense');
    expect(list.health).toBe('all');
    expect(store.totals.offline).toBe(1);
    list.sortBy('offline');
    expect(shown()[0]).toBe('audit.log');
    list.sortBy('name');

    await h.client.call('brokers.start', { brokerId: victim });
    await until(() => store.topics.every((t) => t.offlinePartitions === 0 && t.underReplicatedPartitions === 0), 30_000);
    store.stop();
  });

  it('previews a topic without creating it, then creates it with the same placement rules', async () => {
    const store = useTopicsStore();
    const preview = await store.preview({ name: 'events', partitions: 3, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
    expect(preview.partitions).toHaveLength(3);
    for (const p of preview.partitions) {
      expect(new Set(p.replicas).size).toBe(3);
      expect(p.leader).toBe(p.replicas[0]);
    }
    expect((await h.client.call('topics.list', {})).map((t) => t.name)).not.toContain('events');

    const created = await store.create({ name: 'events', partitions: 3, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
    expect(created.configs['min.insync.replicas']).toBe('2');
    await until(() => store.names.has('events'));

    // What the preview showed is what gets created, follower order included.
    const request = { name: 'seen', partitions: 12, replicationFactor: 3 };
    const seen = await store.preview(request);
    const made = await store.create(request, seen);
    expect(made.partitions.map((p) => p.replicas)).toEqual(seen.partitions.map((p) => p.replicas));
    expect((await h.client.call('topics.describe', { name: 'seen' })).partitions.map((p) => p.replicas)).toEqual(seen.partitions.map((p) => p.replicas));
    await h.client.call('topics.delete', { name: 'seen' });

    const explicit = await store.create({ name: 'pinned', assignments: [[1, 2], [2, 3]] });
    expect(explicit.partitions.map((p) => p.replicas)).toEqual([
      [1, 2],
      [2, 3],
    ]);
  });

  it('passes the engine’s refusal through with Kafka’s error name', async () => {
    const store = useTopicsStore();
    const refused = async (p: Promise<unknown>): Promise<string> => {
      try {
        await p;
      } catch (e) {
        expect(e).toBeInstanceOf(ClientError);
        return (e as ClientError).code;
      }
      throw new Error('expected a refusal');
    };
    expect(await refused(store.create({ name: 'events', partitions: 1, replicationFactor: 1 }))).toBe('TOPIC_ALREADY_EXISTS');
    expect(await refused(store.preview({ name: 'big', partitions: 1, replicationFactor: 4 }))).toBe('INVALID_REPLICATION_FACTOR');
    expect(await refused(store.preview({ name: 'audit_log', partitions: 1, replicationFactor: 1 }))).toBe('INVALID_TOPIC_EXCEPTION');
    expect(await refused(store.preview({ name: 'x', partitions: 1, replicationFactor: 1, configs: { 'retention.ms': '-5' } }))).toBe('INVALID_CONFIG');
    expect(await refused(store.preview({ name: 'x', assignments: [[1, 2], [3]] }))).toBe('INVALID_REPLICA_ASSIGNMENT');
  });

  it('checks names as Kafka does before the engine is asked, and agrees with it', async () => {
    const store = useTopicsStore();
    await store.refresh();
    const existing = store.names;
    expect(checkTopicName('events', existing).error?.code).toBe('TOPIC_ALREADY_EXISTS');
    expect(checkTopicName('audit_log', existing).error?.message).toContain('collides with existing topic: audit.log');
    expect(checkTopicName('a'.repeat(249), existing).error).toBeUndefined();
    expect(checkTopicName('a'.repeat(250), existing).error?.code).toBe('INVALID_TOPIC_EXCEPTION');
    expect(checkTopicName('..', existing).error?.code).toBe('INVALID_TOPIC_EXCEPTION');
    expect(checkTopicName('with space', existing).error?.message).toContain('not space');
    expect(checkTopicName('new_topic', existing)).toMatchObject({ warnings: [expect.stringContaining("'.' or '_'")] });
    expect(checkTopicName('fine-name', existing)).toEqual({ warnings: [] });
    // The engine refuses exactly the names the check refuses.
    for (const name of ['a'.repeat(250), '..', 'with space', 'audit_log', 'events']) {
      const r = await h.client.result('topics.create', { name, partitions: 1, replicationFactor: 1, validateOnly: true });
      expect(r.ok ? 'NONE' : r.error.code).toBe(checkTopicName(name, existing).error?.code);
    }
    const ok = await h.client.result('topics.create', { name: 'new_topic', partitions: 1, replicationFactor: 1, validateOnly: true });
    expect(ok.ok).toBe(true);
  });

  it('deletes the selected topics with an outcome per topic, and drops them from the selection', async () => {
    const store = useTopicsStore();
    const list = useTopicsPageStore();
    await store.refresh();
    list.setSelected('events', true);
    list.setSelected('pinned', true);
    list.setSelected('clicks', true);
    list.setSelected('clicks', false);
    expect([...list.selected].sort()).toEqual(['events', 'pinned']);

    const results = await store.deleteMany(['events', 'pinned', 'no-such-topic']);
    expect(results.map((r) => [r.name, r.errorCode])).toEqual([
      ['events', 'NONE'],
      ['pinned', 'NONE'],
      ['no-such-topic', 'UNKNOWN_TOPIC_OR_PARTITION'],
    ]);
    expect(store.names.has('events')).toBe(false);
    expect(store.names.has('pinned')).toBe(false);
    expect(list.selected.size).toBe(0);
    expect((await h.client.call('topics.list', {})).map((t) => t.name)).toEqual(['Orders', 'audit.log', 'clicks', 'payments']);
  });

  it('selects every topic the filter shows, and only those', async () => {
    const list = useTopicsPageStore();
    list.search = 'a';
    list.setAllVisible(true);
    expect([...list.selected].sort()).toEqual(['audit.log', 'payments']);
    list.search = '';
    list.setAllVisible(false);
    expect(list.selected.size).toBe(0);
  });
});
