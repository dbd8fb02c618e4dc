/**
 * Size, record count and committed rate of the topics a list shows (`topics.stats`), read only
 * for the rows in view — a list of thousands of topics asks for a screenful, not for every
 * partition of the cluster — and re-read every few seconds while rows stay in view.
 */
import { defineStore } from 'pinia';
import { shallowRef } from 'vue';
import type { TopicStatsView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';

/** How often the rows in view are re-read. */
export const STATS_REFRESH_MS = 3000;
/** Most names asked for at once (the contract's limit). */
const MAX_NAMES = 500;

export const useTopicStatsStore = defineStore('topic-stats', () => {
  /** By topic name: the last figures read (kept for rows scrolled away, until re-read). */
  const byName = shallowRef<ReadonlyMap<string, TopicStatsView>>(new Map());
  let wanted: string[] = [];
  let timer: ReturnType<typeof setInterval> | null = null;
  let inFlight = false;

  async function read(): Promise<void> {
    if (inFlight || wanted.length === 0) return;
    inFlight = true;
    try {
      const stats = await client().call('topics.stats', { names: wanted.slice(0, MAX_NAMES) });
      const next = new Map(byName.value);
      for (const s of stats) next.set(s.name, s);
      byName.value = next;
    } catch {
      // A topic deleted meanwhile or a lost connection: the next round reads again.
    } finally {
      inFlight = false;
    }
  }

  /** The rows now in view: read them at once, then every STATS_REFRESH_MS while `follow` runs. */
  function show(names: readonly string[]): void {
    const same = names.length === wanted.length && names.every((n, i) => n === wanted[i]);
    wanted = [...names];
    if (!same) void read();
  }

  /** Re-read the rows in view periodically (idempotent); returns the stop function. */
  function follow(): () => void {
    timer ??= setInterval(() => void read(), STATS_REFRESH_MS);
    return () => {
      if (timer !== null) clearInterval(timer);
      timer = null;
    };
  }

  return { byName, show, follow, read };
});
