/**
 * Size, record count and committed rate of the topics a list shows (`topics.stats`), read only
 * for the rows in view — a list of thousands of topics asks for a screenful, not for every
 * partition of the cluster — and re-read every few seconds while rows stay in view.
 *
 * One live query ('topic stats', composables/live-query.ts) owns the reads: it polls only while
 * the list follows it (`follow()`), goes quiet while the event stream is stopped, re-reads when the
 * event stream comes back, and leaves nothing polling once the list is gone.
 */
import { defineStore } from 'pinia';
import type { TopicStatsView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLiveQuery, type LiveQuery } from '../composables/live-query.js';

/** How often the rows in view are re-read. */
export const STATS_REFRESH_MS = 3000;
/**
 * While the rows in view keep changing (a scroll), at most one read per this many ms: the rows a
 * fling passes are not each asked for, and the figures fill in once it slows (the leading read
 * is at once, the trailing one asks for the rows in view then).
 */
export const SHOW_READ_MS = 250;
/** Most names asked for at once (the contract's limit). */
const MAX_NAMES = 500;

export const useTopicStatsStore = defineStore('topic-stats', () => {
  let wanted: string[] = [];

  /** By topic name: the last figures read (kept for rows scrolled away, until re-read). */
  const query: LiveQuery<ReadonlyMap<string, TopicStatsView>> = useLiveQuery<ReadonlyMap<string, TopicStatsView>>({
    name: 'topic stats',
    initial: new Map(),
    pollMs: STATS_REFRESH_MS,
    read: async (): Promise<ReadonlyMap<string, TopicStatsView>> => {
      const names = wanted.slice(0, MAX_NAMES);
      if (names.length === 0) return query.data.value;
      const stats = await client().call('topics.stats', { names });
      const next = new Map(query.data.value);
      for (const s of stats) next.set(s.name, s);
      return next;
    },
  });

  let lastShowRead = -Infinity;
  let trailing: ReturnType<typeof setTimeout> | null = null;
  function readShown(): void {
    lastShowRead = performance.now();
    if (query.running.value) void query.refresh();
  }

  /** The rows now in view: read them soon (at once, or SHOW_READ_MS after the last such read) while followed, then every STATS_REFRESH_MS. */
  function show(names: readonly string[]): void {
    const same = names.length === wanted.length && names.every((n, i) => n === wanted[i]);
    wanted = [...names];
    if (same || !query.running.value || trailing !== null) return;
    const wait = lastShowRead + SHOW_READ_MS - performance.now();
    if (wait <= 0) readShown();
    else
      trailing = setTimeout(() => {
        trailing = null;
        readShown();
      }, wait);
  }

  /** Re-read the rows in view periodically while the list shows; returns the release (idempotent). */
  function follow(): () => void {
    const release = query.acquire();
    return () => {
      release();
      if (!query.running.value && trailing !== null) {
        clearTimeout(trailing);
        trailing = null;
      }
    };
  }

  return { byName: query.data, show, follow, read: query.refresh };
});
