/**
 * The workbench store's long runs against a real host: an export with its progress, one
 * cancelled after its first chunk, and an import at a rate limit cancelled while it runs — the
 * cancel takes effect at the next chunk, and what was produced is what the progress says; a
 * copy to another topic; and live tail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useWorkbenchStore } from './workbench.js';

/** Calls `cancel` once the run has reported progress (polled, as a person pressing Cancel would). */
function cancelOnceStarted(store: ReturnType<typeof useWorkbenchStore>): { stop(): void } {
  const timer = setInterval(() => {
    if ((store.progress?.done ?? 0) > 0 && !store.progress?.finished) {
      store.cancel();
      clearInterval(timer);
    }
  }, 5);
  return { stop: () => clearInterval(timer) };
}

describe('workbench store: export and import with progress and cancel', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    await until(async () => (await h.client.call('brokers.list', {})).every((b) => b.state === 'running'));
    await h.client.call('topics.create', { name: 'events', partitions: 1, replicationFactor: 3 });
    await h.client.call('topics.create', { name: 'landing', partitions: 1, replicationFactor: 3 });
    await h.client.call('records.produce', { topic: 'events', partition: 0, acks: 'all', records: Array.from({ length: 5_000 }, (_, i) => ({ key: `k${i}`, value: `event ${i}` })) });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('exports every record with its progress, and a cancelled export stops after the chunk it was in and gives no file', async () => {
    const store = useWorkbenchStore();
    const whole = await store.exportFile({ topic: 'events', from: { beginning: true } }, 'jsonl');
    const lines = (await whole!.text()).trim().split('\n');
    expect(lines).toHaveLength(5_000);
    expect(JSON.parse(lines[4_999]!)).toMatchObject({ partition: 0, offset: 4_999, key: 'k4999', value: 'event 4999' });
    expect(store.progress).toMatchObject({ kind: 'export', done: 5_000, finished: true, error: null, message: 'Done: 5000 records (5000 scanned)' });

    const canceller = cancelOnceStarted(store);
    const cut = await store.exportFile({ topic: 'events', from: { beginning: true } }, 'jsonl');
    canceller.stop();
    expect(cut).toBeNull();
    expect(store.progress!.finished).toBe(true);
    expect(store.progress!.done).toBeLessThan(5_000);
    expect(store.progress!.message).toBe(`Cancelled after ${store.progress!.done} records`);
  });

  it('imports at the rate asked, and a cancel stops it at the next chunk: the topic holds exactly what the progress counted', async () => {
    const store = useWorkbenchStore();
    // 300 short lines: one read of the file holds them all.
    const file = new Blob([Array.from({ length: 300 }, (_, i) => JSON.stringify({ key: `i${i}`, value: `imported ${i}` })).join('\n') + '\n']);
    const canceller = cancelOnceStarted(store);
    await store.importFile(file, { topic: 'landing', keepPartitions: false, recordsPerSec: 50, dryRun: false });
    canceller.stop();
    const done = store.progress!.done;
    expect(store.progress).toMatchObject({ kind: 'import', finished: true, error: null, message: `Cancelled after ${done} records` });
    // Chunks of 50 at 50 a second: cancelled after the first of the six.
    expect(done).toBe(50);
    const landed = await h.client.call('records.search', { topic: 'landing', from: { beginning: true }, limit: 1000 });
    expect(landed.records.map((r) => r.key?.text)).toEqual(Array.from({ length: 50 }, (_, i) => `i${i}`));
  });

  it('copies what a search finds to another topic: keys, values, timestamps and partitions kept', async () => {
    const store = useWorkbenchStore();
    await h.client.call('topics.create', { name: 'copied', partitions: 1, replicationFactor: 3 });
    await store.copy({ topic: 'events', from: { beginning: true }, filter: { offsets: { from: 10, to: 19 }, key: { regex: '^k1[0-9]$' } } }, { topic: 'copied', keepPartitions: true });
    expect(store.progress).toMatchObject({ kind: 'copy', done: 10, finished: true, error: null });
    const source = await h.client.call('records.search', { topic: 'events', from: { offset: 10 }, limit: 10 });
    const copied = await h.client.call('records.search', { topic: 'copied', from: { beginning: true }, limit: 100 });
    const shape = (v: typeof copied) => v.records.map((r) => [r.partition, r.key?.text, r.value?.text, r.timestamp]);
    expect(shape(copied)).toEqual(shape(source));
  });

  it('tails live from the end: what is produced after it starts shows once each, in order, and nothing from before', async () => {
    const store = useWorkbenchStore();
    store.startTail({ topic: 'events', from: { beginning: true } });
    await until(() => store.result !== null);
    await h.client.call('records.produce', { topic: 'events', partition: 0, acks: 'all', records: [{ key: 'live-1', value: 'a' }, { key: 'live-2', value: 'b' }] });
    await until(() => store.records.length >= 2);
    await h.client.call('records.produce', { topic: 'events', partition: 0, acks: 'all', records: [{ key: 'live-3', value: 'c' }] });
    await until(() => store.records.length >= 3);
    // Two more ticks: nothing is read twice.
    await new Promise((r) => setTimeout(r, 2_500));
    store.stopTail();
    expect(store.tailing).toBe(false);
    expect(store.records.map((r) => [r.offset, r.key?.text])).toEqual([
      [5_000, 'live-1'],
      [5_001, 'live-2'],
      [5_002, 'live-3'],
    ]);
  });
});
