import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientError } from '../api/client.js';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { ownLayer, parseResourceKey, resourceKey, useConfigsStore } from './configs.js';
import { useEventStreamStore } from './event-stream.js';
import { durabilityLosses, inheritedLosses } from '../lib/configs/consequence.js';

describe('configs store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    // Brokers register a moment after the host starts: retry until they are unfenced.
    await until(async () => (await h.client.result('topics.create', { name: 'payments', partitions: 3, replicationFactor: 3 })).ok, 30_000);
  });
  afterAll(async () => {
    await h?.close();
  });

  const entry = (name: string) => useConfigsStore().byName.get(name);

  it('offers the cluster-wide defaults, every broker and every topic as resources', async () => {
    const store = useConfigsStore();
    await store.loadResources();
    expect(store.brokers.map((b) => b.id)).toEqual([1, 2, 3]);
    expect(store.topics.map((t) => t.name)).toContain('payments');
    expect(parseResourceKey(resourceKey({ type: 'broker', name: '' }))).toEqual({ type: 'broker', name: '' });
    expect(parseResourceKey('topic:payments')).toEqual({ type: 'topic', name: 'payments' });
    expect(parseResourceKey('broker:x')).toBeNull();
  });

  it('describes every config of a topic with Kafka’s default, its source layer, docs and effect', async () => {
    const store = useConfigsStore();
    await store.select({ type: 'topic', name: 'payments' });
    expect(store.error).toBeNull();
    expect(entry('retention.ms')).toMatchObject({ value: '604800000', default: '604800000', source: 'DEFAULT_CONFIG', readOnly: false, type: 'long' });
    expect(entry('min.insync.replicas')?.effect?.durability).toBeTruthy();
    expect(store.durability).toMatchObject({ replicationFactor: 3, minInsyncReplicas: 1, acks: 'all' });
  });

  it('validates as you type without changing anything: an invalid value gets Kafka’s INVALID_CONFIG message', async () => {
    const store = useConfigsStore();
    await store.select({ type: 'topic', name: 'payments' });
    const bad = await store.validate('retention.ms', 'soon');
    expect(bad).toMatchObject({ ok: false, code: 'INVALID_CONFIG' });
    expect(bad.ok ? '' : bad.message).toContain('retention.ms');
    const good = await store.validate('retention.ms', '3600000');
    expect(good).toMatchObject({ ok: true, entry: { value: '3600000', source: 'DYNAMIC_TOPIC_CONFIG' } });
    await store.refresh();
    expect(entry('retention.ms')).toMatchObject({ value: '604800000', source: 'DEFAULT_CONFIG' });
  });

  it('applies a topic override and resets it back to the inherited default', async () => {
    const store = useConfigsStore();
    await store.select({ type: 'topic', name: 'payments' });
    const applied = await store.apply('retention.ms', '3600000');
    expect(applied.ok).toBe(true);
    expect(entry('retention.ms')).toMatchObject({ value: '3600000', source: ownLayer({ type: 'topic', name: 'payments' }) });
    expect((await h.client.call('topics.describe', { name: 'payments' })).configs).toEqual({ 'retention.ms': '3600000' });
    const reset = await store.reset('retention.ms');
    expect(reset.ok).toBe(true);
    expect(entry('retention.ms')).toMatchObject({ value: '604800000', source: 'DEFAULT_CONFIG' });
    expect((await h.client.call('topics.describe', { name: 'payments' })).configs).toEqual({});
  });

  it('re-evaluates the topic’s durability after min.insync.replicas changes', async () => {
    const store = useConfigsStore();
    await store.select({ type: 'topic', name: 'payments' });
    await store.apply('min.insync.replicas', '2');
    expect(store.durability).toMatchObject({ minInsyncReplicas: 2, effectiveMinIsr: 2 });
    expect(store.durability?.acknowledgedWrites.brokerFailures).toBe(1);
    await store.reset('min.insync.replicas');
    expect(store.durability?.minInsyncReplicas).toBe(1);
  });

  it('shows what a typed value would do before it is applied, and undoes the last change', async () => {
    const store = useConfigsStore();
    await store.select({ type: 'topic', name: 'payments' });
    const before = store.durability!;
    // min.insync.replicas 3 on RF 3: acks=all writes would stop at the first broker failure.
    const after = (await store.whatIf('min.insync.replicas', '3'))!;
    expect(durabilityLosses(before, after)).toEqual(['acks=all writes keep working through 2 broker failures → 0 broker failures']);
    expect(store.durability?.minInsyncReplicas).toBe(1); // a what-if changes nothing
    expect((await h.client.call('topics.describe', { name: 'payments' })).configs).toEqual({});

    expect((await store.apply('min.insync.replicas', '3')).ok).toBe(true);
    expect(store.lastChange).toMatchObject({ name: 'min.insync.replicas', from: '1', to: '3', restore: null });
    expect((await store.undo()).ok).toBe(true);
    expect(entry('min.insync.replicas')).toMatchObject({ value: '1', source: 'DEFAULT_CONFIG' });
    expect((await h.client.call('topics.describe', { name: 'payments' })).configs).toEqual({});
    expect(store.lastChange).toBeNull();
    // At the cluster level, lowering what every inheriting topic needs is named too.
    expect(inheritedLosses('min.insync.replicas', '2', '1')[0]).toContain('acknowledged once 1 in-sync replica has them, not 2');
    expect(inheritedLosses('unclean.leader.election.enable', 'false', 'true')).toHaveLength(1);
    expect(inheritedLosses('min.insync.replicas', '1', '2')).toEqual([]);
  });

  it('refuses to change a read-only broker config dynamically, as Kafka does', async () => {
    const store = useConfigsStore();
    await store.select({ type: 'broker', name: '' });
    expect(entry('num.partitions')?.readOnly).toBe(true);
    const v = await store.validate('num.partitions', '6');
    expect(v).toMatchObject({ ok: false, code: 'INVALID_CONFIG' });
    expect(v.ok ? '' : v.message).toContain('Cannot update these configs dynamically');
    const r = await store.apply('num.partitions', '6');
    expect(r.ok).toBe(false);
    expect(entry('num.partitions')?.source).toBe('DEFAULT_CONFIG');
  });

  it('shows a cluster-wide default on a broker and a topic that inherit it, re-reading on config.changed', async () => {
    const stream = useEventStreamStore();
    stream.start();
    const store = useConfigsStore();
    store.start();
    await until(() => stream.status === 'open');
    await store.select({ type: 'broker', name: '2' });
    expect(entry('log.retention.ms')?.source).toBe('DEFAULT_CONFIG');
    await h.client.call('configs.alter', { resource: { type: 'broker', name: '' }, set: { 'log.retention.ms': '7200000' } });
    await until(() => entry('log.retention.ms')?.source === 'DYNAMIC_DEFAULT_BROKER_CONFIG');
    expect(entry('log.retention.ms')?.value).toBe('7200000');
    await store.select({ type: 'topic', name: 'payments' });
    expect(entry('retention.ms')).toMatchObject({ value: '7200000', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    await h.client.call('configs.alter', { resource: { type: 'broker', name: '' }, set: { 'log.retention.ms': null } });
    await until(() => entry('retention.ms')?.source === 'DEFAULT_CONFIG');
  });

  it('hears a new topic and offers it', async () => {
    const store = useConfigsStore();
    await h.client.call('topics.create', { name: 'audit', partitions: 1, replicationFactor: 1 });
    await until(() => store.topics.some((t) => t.name === 'audit'));
  });

  it('shows UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist', async () => {
    const store = useConfigsStore();
    await store.select({ type: 'topic', name: 'nope' });
    expect(store.entries).toEqual([]);
    expect(store.error).toBeInstanceOf(ClientError);
    expect((store.error as ClientError).code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });
});
