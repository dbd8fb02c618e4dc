import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useEventStreamStore } from './event-stream.js';
import { MAX_SAMPLES, WINDOW_MS, useMetricsStore } from './metrics.js';

describe('metrics store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    useEventStreamStore().start();
    await until(() => useEventStreamStore().status === 'open');
  }, 90_000);
  afterAll(async () => {
    if (h) useMetricsStore().stop();
    await h?.close();
  }, 30_000);

  it('follows the engine’s samples, one per second of engine time, and starts with no traffic', async () => {
    const store = useMetricsStore();
    store.start();
    await until(() => store.samples.length >= 2);
    const [a, b] = store.samples.slice(-2);
    if (!a || !b) throw new Error('two samples expected');
    expect(b.atMs - a.atMs).toBe(1000);
    expect(a.intervalMs).toBe(1000);
    expect(store.anyTraffic).toBe(false);
    expect(store.latest?.brokers.map((x) => x.brokerId)).toEqual([1, 2, 3]);
  });

  it('counts every produced record once, in the second its leader appended it, and the replication it caused', async () => {
    const store = useMetricsStore();
    await h.client.call('topics.create', { name: 'clicks', partitions: 1, replicationFactor: 3 });
    const from = store.latest!.atMs;
    const records = Array.from({ length: 40 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
    const produced = await h.client.call('records.produce', { topic: 'clicks', partition: 0, acks: 'all', records });
    expect(produced.errorCode).toBe('NONE');
    await until(() => store.anyTraffic && store.samples.some((s) => s.atMs > from && s.replicationBytesPerSec > 0));
    // Wait one more sample so the second that saw the append has closed.
    const seen = store.latest!.atMs;
    await until(() => store.latest!.atMs > seen);
    const after = store.samples.filter((s) => s.atMs > from);
    expect(after.reduce((n, s) => n + s.produceRecordsPerSec, 0)).toBe(40);
    const leader = (await h.client.call('topics.describe', { name: 'clicks' })).partitions[0]!.leader;
    expect(after.some((s) => s.brokers.find((x) => x.brokerId === leader)!.produceBytesPerSec > 0)).toBe(true);
  });

  it('a console opened later (a reload) starts with the history the host kept, not an empty chart', async () => {
    const store = useMetricsStore();
    const seen = store.samples.filter((s) => s.produceRecordsPerSec > 0).map((s) => s.atMs);
    expect(seen.length).toBeGreaterThan(0);
    // A reload: a fresh store with nothing in it reads the host again.
    store.clear();
    expect(store.anyTraffic).toBe(false);
    await store.refresh();
    expect(store.samples.length).toBeGreaterThan(2);
    expect(store.anyTraffic).toBe(true);
    expect(store.samples.filter((s) => s.produceRecordsPerSec > 0).map((s) => s.atMs)).toEqual(seen);
  });

  it('keeps a bounded, ordered history of the last two minutes of cluster time however fast the clock runs', async () => {
    const store = useMetricsStore();
    await h.client.call('clock.setScale', { scale: 60 });
    const start = store.latest!.atMs;
    // 60× → a sample every ~17 ms of real time: two and a half minutes of engine time in ~2.5 s.
    await until(() => store.latest!.atMs - start > WINDOW_MS + 30_000, 30_000);
    const s = store.samples;
    expect(s.length).toBeLessThanOrEqual(MAX_SAMPLES);
    expect(s.length).toBeGreaterThan(60);
    expect(s.at(-1)!.atMs - s[0]!.atMs).toBeLessThan(WINDOW_MS);
    for (let i = 1; i < s.length; i++) expect(s[i]!.atMs).toBeGreaterThan(s[i - 1]!.atMs);
    expect(s[0]!.atMs).toBeGreaterThan(start);
  });
});
