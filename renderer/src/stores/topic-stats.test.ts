/**
 * The topic list's figures (records, size, rate) for the rows in view, against a real host: a
 * fling through the list does not ask the engine for every screenful it passes (one read per
 * SHOW_READ_MS at most while the rows keep changing), and the rows where it stops get their own
 * figures.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { SHOW_READ_MS, STATS_REFRESH_MS, useTopicStatsStore } from './topic-stats.js';

const NAMES = Array.from({ length: 100 }, (_, i) => `fling-${String(i).padStart(3, '0')}`);
/** Rows in view at once, and frames of the fling (one row further each frame, as a quick scroll moves). */
const VIEW = 20;
const FRAMES = NAMES.length - VIEW + 1;

describe('topic stats against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    await until(async () => (await h.client.call('cluster.describe', {})).brokers.filter((b) => b.state === 'running').length === 3, 30_000);
    const created = await h.client.call('topics.createMany', { topics: NAMES.map((name) => ({ name, partitions: 1, replicationFactor: 1 })) });
    expect(created.filter((r) => r.errorCode !== 'NONE')).toEqual([]);
    await h.client.call('records.produce', { topic: 'fling-099', acks: 'all', records: [1, 2, 3].map((i) => ({ key: `k${i}`, value: 'v' })) });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  }, 30_000);

  it('a fling through the list reads the rows in view at most once per SHOW_READ_MS, and the rows where it stops get their figures', async () => {
    const stats = useTopicStatsStore();
    const call = vi.spyOn(h.client, 'call');
    const reads = (): number => call.mock.calls.filter(([method]) => method === 'topics.stats').length;
    const started = performance.now();
    stats.show(NAMES.slice(0, VIEW));
    const release = stats.follow();
    for (let frame = 1; frame < FRAMES; frame++) {
      await new Promise((r) => setTimeout(r, 16));
      stats.show(NAMES.slice(frame, frame + VIEW));
    }
    // The last screenful (fling-080 … fling-099) is read once the fling stops.
    const last = await until(() => stats.byName.get('fling-099'));
    expect(last).toMatchObject({ name: 'fling-099', records: 3 });
    expect(stats.byName.get('fling-080')).toMatchObject({ name: 'fling-080', records: 0 });
    const elapsed = performance.now() - started;
    // The first read (on follow), the leading and the trailing read of the fling, one per SHOW_READ_MS between them, and any poll.
    expect(reads()).toBeLessThanOrEqual(3 + Math.floor(elapsed / SHOW_READ_MS) + Math.floor(elapsed / STATS_REFRESH_MS));
    release();
    call.mockRestore();
  });
});
