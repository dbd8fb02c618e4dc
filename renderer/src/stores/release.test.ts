/**
 * Every store that follows the engine releases what it listens to: when its page stops (or, for
 * the shell's stores, when they are stopped) no event or reconnect listener, throttle or poll of
 * it is left, and when the event stream stops every live query goes quiet until it starts again.
 * Against a real host, with the stores as the pages drive them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useBalanceStore } from './balance.js';
import { useBrokersStore } from './brokers.js';
import { useClusterStore } from './cluster.js';
import { useConfigsStore } from './configs.js';
import { useEventStreamStore } from './event-stream.js';
import { useDrillsStore } from './drills.js';
import { useLeadersStore } from './leaders.js';
import { useMessagesStore } from './messages.js';
import { useMetricsStore } from './metrics.js';
import { useReassignmentsStore } from './reassignments.js';
import { useTopicPageStore } from './topic-page.js';
import { useTopicsPageStore } from './topics-page.js';
import { useTopicStatsStore } from './topic-stats.js';

interface Page {
  name: string;
  start(): Promise<void> | void;
  stop(): void;
  /** The live queries it runs while shown. */
  queries: string[];
}

/** The topic list's figures for the rows in view, followed while its table is mounted (once). */
let releaseTopicStats: (() => void) | undefined;

const PAGES: Page[] = [
  { name: 'shell (cluster)', start: () => useClusterStore().start(), stop: () => useClusterStore().stop(), queries: ['cluster'] },
  { name: 'shell (metrics)', start: () => useMetricsStore().start(), stop: () => useMetricsStore().stop(), queries: ['metrics'] },
  { name: 'brokers', start: () => useBrokersStore().start(), stop: () => useBrokersStore().stop(), queries: ['brokers'] },
  {
    name: 'topics',
    start: () => {
      useTopicsPageStore().start();
      const stats = useTopicStatsStore();
      stats.show(['orders']);
      releaseTopicStats ??= stats.follow();
    },
    stop: () => {
      useTopicsPageStore().stop();
      releaseTopicStats?.();
      releaseTopicStats = undefined;
    },
    queries: ['topics', 'topic stats'],
  },
  {
    name: 'topic detail',
    start: async () => {
      const s = useTopicPageStore();
      await s.open('orders');
      s.live(true);
    },
    stop: () => useTopicPageStore().close(),
    queries: ['brokers', 'configs broker:', 'topic-page events', 'topic orders', 'configs topic:orders'],
  },
  {
    name: 'balance',
    start: () => {
      useBalanceStore().start();
      useReassignmentsStore().start();
    },
    stop: () => {
      useBalanceStore().stop();
      useReassignmentsStore().stop();
    },
    queries: ['brokers', 'balance', 'reassignments'],
  },
  { name: 'leaders', start: () => useLeadersStore().start(), stop: () => useLeadersStore().stop(), queries: ['leaders'] },
  {
    name: 'configs',
    start: async () => {
      const s = useConfigsStore();
      s.start();
      await s.select({ type: 'topic', name: 'orders' });
    },
    stop: () => useConfigsStore().stop(),
    queries: ['topics', 'brokers', 'configs topic:orders'],
  },
  { name: 'messages', start: () => useMessagesStore().start(), stop: () => useMessagesStore().stop(), queries: ['topics'] },
  {
    name: 'drills',
    start: async () => {
      const s = useDrillsStore();
      await s.start();
      await s.watch('orders', 0);
    },
    stop: () => useDrillsStore().stop(),
    queries: ['topics', 'brokers', 'drills timeline', 'topic orders', 'configs topic:orders'],
  },
];

describe('stores release their listeners against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    const stream = useEventStreamStore();
    stream.start();
    await until(() => stream.status === 'open');
    await until(async () => (await h.client.result('topics.create', { name: 'orders', partitions: 2, replicationFactor: 3 })).ok, 30_000);
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it.each(PAGES)('$name: its live queries run while it shows, and stopping it leaves nothing listening or polling', async (page) => {
    const stream = useEventStreamStore();
    const idle = stream.listening();
    expect(stream.running).toEqual([]);
    await page.start();
    expect([...stream.running].sort()).toEqual([...page.queries].sort());
    expect(stream.listening().events).toBeGreaterThanOrEqual(idle.events + page.queries.length);
    await page.start(); // starting twice (a page mounted again) takes nothing more
    expect(stream.running).toHaveLength(page.queries.length);
    page.stop();
    expect(stream.running).toEqual([]);
    expect(stream.listening()).toEqual(idle);
  });

  it('the topic list reads the figures of the rows in view while it follows them, and nothing polls once it lets go', async () => {
    const stream = useEventStreamStore();
    const stats = useTopicStatsStore();
    stats.show(['orders']);
    const release = stats.follow();
    expect(stream.running).toEqual(['topic stats']);
    const orders = await until(() => stats.byName.get('orders'));
    expect(orders).toMatchObject({ name: 'orders', records: 0 });
    release();
    release(); // idempotent
    expect(stream.running).toEqual([]);
  });

  it('a query two pages share runs once and stops only when the last of them stops', async () => {
    const stream = useEventStreamStore();
    useBrokersStore().start();
    await useDrillsStore().start();
    expect(stream.running.filter((q) => q === 'brokers')).toHaveLength(1);
    useBrokersStore().stop();
    expect(stream.running).toContain('brokers');
    useDrillsStore().stop();
    expect(stream.running).toEqual([]);
  });

  it('when the event stream stops every page goes quiet, and when it starts again they resume', async () => {
    const stream = useEventStreamStore();
    for (const page of PAGES) await page.start();
    const running = [...new Set(PAGES.flatMap((p) => p.queries))].sort();
    expect([...stream.running].sort()).toEqual(running);
    stream.stop();
    expect(stream.running).toEqual([]);
    expect(stream.listening()).toEqual({ events: 0, reconnect: 0 });

    // Nothing reads while stopped: a broker killed now is not seen until the connection is back.
    const victim = useBrokersStore().brokers.find((b) => !b.isController)!.id;
    await h.client.call('brokers.kill', { brokerId: victim });
    await new Promise((r) => setTimeout(r, 2500));
    expect(useBrokersStore().byId.get(victim)?.state).toBe('running');

    stream.start();
    expect([...stream.running].sort()).toEqual(running);
    await until(() => useBrokersStore().byId.get(victim)?.state === 'killed');
    for (const page of PAGES) page.stop();
    expect(stream.running).toEqual([]);
    expect(stream.listening().events).toBe(0);
    await h.client.call('brokers.start', { brokerId: victim });
  });
});
