/**
 * Throughput history for the overview's live chart: the engine's `metrics.sampled` events (one
 * per second of engine time) kept over the last `WINDOW_MS` of cluster time, never more than
 * `MAX_SAMPLES` of them. Seeded from `metrics.get` when started and after a reconnect, so the
 * latest figures show before the next sample arrives.
 *
 * Invariant: `samples` is ordered by `atMs`, strictly increasing, spans at most `WINDOW_MS` of
 * cluster time and holds at most `MAX_SAMPLES` entries. A sample older than the newest one kept
 * (a different cluster, a clock reset) starts a new history rather than drawing time backwards.
 * Seeding asks `metrics.get` for the window's history too, so a reloaded console (or one that
 * reconnects) draws the last two minutes at once instead of starting from an empty chart.
 *
 * At a 60× time scale the engine emits 60 samples per real second, so the published array is
 * refreshed at most every `PUBLISH_MS` of real time (the chart re-draws that often, not per event).
 * It follows the stream for as long as the console runs (started at boot), so the history has no
 * gaps when a page showing it opens.
 */
import { defineStore } from 'pinia';
import { computed, shallowRef } from 'vue';
import type { MetricsView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';
import { throttle } from '../lib/debounce.js';

/** How much cluster time the history covers. */
export const WINDOW_MS = 120_000;
/** Hard bound on the history (a sample per engine second over the window, plus slack). */
export const MAX_SAMPLES = 150;
const PUBLISH_MS = 200;

/** Whether a sample moved anything (a window of only such samples is "no traffic yet"). */
export function hasTraffic(s: MetricsView): boolean {
  return s.produceRecordsPerSec > 0 || s.produceBytesPerSec > 0 || s.consumeRecordsPerSec > 0 || s.replicationBytesPerSec > 0;
}

export const useMetricsStore = defineStore('metrics', () => {
  /** Oldest first; see the invariant above. */
  const samples = shallowRef<MetricsView[]>([]);
  let buffer: MetricsView[] = [];

  const latest = computed(() => samples.value.at(-1) ?? null);
  const anyTraffic = computed(() => samples.value.some(hasTraffic));

  const publishSoon = throttle(() => (samples.value = buffer.slice()), PUBLISH_MS);

  /** Add one sample (kept in order, bounded); the published history follows within PUBLISH_MS. */
  function add(sample: MetricsView): void {
    if (sample.intervalMs <= 0) return; // "no sample yet" placeholder from metrics.get
    const last = buffer.at(-1);
    if (last && sample.atMs === last.atMs) return;
    if (last && sample.atMs < last.atMs) buffer = [];
    buffer.push(sample);
    const from = sample.atMs - WINDOW_MS;
    let drop = 0;
    while (drop < buffer.length && (buffer[drop]!.atMs <= from || buffer.length - drop > MAX_SAMPLES)) drop++;
    if (drop) buffer = buffer.slice(drop);
    publishSoon();
  }

  const query = useLiveQuery<MetricsView | null>({
    name: 'metrics',
    initial: null,
    read: async () => {
      const { history, ...sample } = await client().call('metrics.get', { historyMs: WINDOW_MS });
      for (const h of history ?? []) add(h);
      add(sample);
      samples.value = buffer.slice();
      return sample;
    },
    onEvent(event) {
      if (event.type !== 'metrics.sampled') return;
      const { type: _type, ...sample } = event;
      add(sample);
    },
  });
  const app = useLeases(() => [query.acquire()]);

  function clear(): void {
    buffer = [];
    samples.value = [];
  }

  return {
    samples,
    latest,
    anyTraffic,
    loading: query.loading,
    error: query.error,
    add,
    /** Read the latest sample (`metrics.get`) into the history. */
    refresh: query.refresh,
    /** Follow `metrics.sampled` (idempotent); `stop()` releases it. */
    start: app.start,
    stop: app.stop,
    clear,
  };
});
