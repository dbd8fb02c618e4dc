/**
 * The topic list (`topics.list`) with what the Topics page does to it: search (case-insensitive
 * substring), a health filter (offline / under-replicated / under-min-ISR, as the overview links
 * to it), sorting, row selection, and the actions (preview and create through `topics.create`,
 * bulk delete through `topics.deleteMany`). The engine stays the source of truth: after an
 * action, and after any event that changes a topic's partitions, leaders or ISRs, the list is
 * re-read (throttled), and kept as the same array when nothing changed so a long list does not
 * re-render for nothing.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { EngineEvent, MethodInput, TopicBulkResultView, TopicSummaryView, TopicView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { throttle } from '../lib/debounce.js';
import { useConnectionStore } from './connection.js';

export type TopicSortKey = 'name' | 'partitions' | 'replicationFactor' | 'underReplicated' | 'underMinIsr' | 'offline';
export type SortOrder = 'asc' | 'desc';
export type HealthFilter = 'all' | 'offline' | 'under-replicated' | 'under-min-isr';

export const HEALTH_FILTERS: readonly HealthFilter[] = ['all', 'offline', 'under-replicated', 'under-min-isr'];

/** The filter a `?health=` query value names ('all' for anything else). */
export function parseHealthFilter(value: unknown): HealthFilter {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' && (HEALTH_FILTERS as readonly string[]).includes(v) ? (v as HealthFilter) : 'all';
}

/** What the wizard creates: `topics.create`'s input without `validateOnly`. */
export type NewTopic = Omit<MethodInput<'topics.create'>, 'validateOnly'>;

const SORT_VALUE: Record<Exclude<TopicSortKey, 'name'>, (t: TopicSummaryView) => number> = {
  partitions: (t) => t.partitionCount,
  replicationFactor: (t) => t.replicationFactor,
  underReplicated: (t) => t.underReplicatedPartitions,
  underMinIsr: (t) => t.underMinIsrPartitions,
  offline: (t) => t.offlinePartitions,
};

const byName = (a: TopicSummaryView, b: TopicSummaryView): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Topics matching `search` (case-insensitive substring of the name) and the health filter. */
export function filterTopics(topics: readonly TopicSummaryView[], search: string, health: HealthFilter): TopicSummaryView[] {
  const needle = search.trim().toLowerCase();
  return topics.filter((t) => {
    if (needle && !t.name.toLowerCase().includes(needle)) return false;
    if (health === 'offline') return t.offlinePartitions > 0;
    if (health === 'under-replicated') return t.underReplicatedPartitions > 0;
    if (health === 'under-min-isr') return t.underMinIsrPartitions > 0;
    return true;
  });
}

/** A sorted copy; ties (equal counts) are broken by name, ascending, whatever the order. */
export function sortTopics(topics: readonly TopicSummaryView[], key: TopicSortKey, order: SortOrder): TopicSummaryView[] {
  const sign = order === 'asc' ? 1 : -1;
  if (key === 'name') return [...topics].sort((a, b) => sign * byName(a, b));
  const value = SORT_VALUE[key];
  return [...topics].sort((a, b) => sign * (value(a) - value(b)) || byName(a, b));
}

function sameSummaries(a: readonly TopicSummaryView[], b: readonly TopicSummaryView[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (
      x.name !== y.name ||
      x.topicId !== y.topicId ||
      x.partitionCount !== y.partitionCount ||
      x.replicationFactor !== y.replicationFactor ||
      x.offlinePartitions !== y.offlinePartitions ||
      x.underReplicatedPartitions !== y.underReplicatedPartitions ||
      x.underMinIsrPartitions !== y.underMinIsrPartitions
    ) {
      return false;
    }
  }
  return true;
}

/** Events after which a topic's summary may read differently. */
const REFRESH_ON = new Set<EngineEvent['type']>([
  'topic.created',
  'topic.deleted',
  'partitions.added',
  'isr.shrunk',
  'isr.expanded',
  'leader.changed',
  'broker.stateChanged',
  'replica.offline',
  'broker.storageFailed',
  'reassignment.changed',
  'config.changed',
]);

export const useTopicsStore = defineStore('topics', () => {
  const topics = shallowRef<TopicSummaryView[]>([]);
  /** The list has been read at least once. */
  const loaded = ref(false);
  const loading = ref(false);
  /** Why the last read failed (a ClientError carries Kafka's error name), or null. */
  const error = shallowRef<unknown>(null);

  const search = ref('');
  const health = ref<HealthFilter>('all');
  const sortKey = ref<TopicSortKey>('name');
  const sortOrder = ref<SortOrder>('asc');
  const selected = shallowRef<ReadonlySet<string>>(new Set());

  const visible = computed(() => sortTopics(filterTopics(topics.value, search.value, health.value), sortKey.value, sortOrder.value));
  const names = computed(() => new Set(topics.value.map((t) => t.name)));
  const totals = computed(() => {
    let partitions = 0;
    let offline = 0;
    let underReplicated = 0;
    let underMinIsr = 0;
    for (const t of topics.value) {
      partitions += t.partitionCount;
      offline += t.offlinePartitions > 0 ? 1 : 0;
      underReplicated += t.underReplicatedPartitions > 0 ? 1 : 0;
      underMinIsr += t.underMinIsrPartitions > 0 ? 1 : 0;
    }
    return { topics: topics.value.length, partitions, offline, underReplicated, underMinIsr };
  });

  let reading: Promise<void> | null = null;
  let again = false;

  /** Re-read the list; calls made while a read is in flight coalesce into one more read. */
  function refresh(): Promise<void> {
    if (reading) {
      again = true;
      return reading;
    }
    loading.value = true;
    reading = (async () => {
      try {
        do {
          again = false;
          const next = await client().call('topics.list', {});
          if (!sameSummaries(topics.value, next)) topics.value = next;
          error.value = null;
          loaded.value = true;
        } while (again);
        pruneSelection();
      } catch (e) {
        error.value = e;
      } finally {
        loading.value = false;
        reading = null;
      }
    })();
    return reading;
  }

  /** Sort by `key`; the same key again flips the order. Counts sort most-first on the first click. */
  function sortBy(key: TopicSortKey): void {
    if (sortKey.value === key) {
      sortOrder.value = sortOrder.value === 'asc' ? 'desc' : 'asc';
    } else {
      sortKey.value = key;
      sortOrder.value = key === 'name' ? 'asc' : 'desc';
    }
  }

  function setSelected(name: string, on: boolean): void {
    if (selected.value.has(name) === on) return;
    const next = new Set(selected.value);
    if (on) next.add(name);
    else next.delete(name);
    selected.value = next;
  }

  /** Select (or unselect) every topic the filter shows. */
  function setAllVisible(on: boolean): void {
    const next = new Set(selected.value);
    for (const t of visible.value) {
      if (on) next.add(t.name);
      else next.delete(t.name);
    }
    selected.value = next;
  }

  function clearSelection(): void {
    selected.value = new Set();
  }

  function pruneSelection(): void {
    const existing = names.value;
    if ([...selected.value].every((n) => existing.has(n))) return;
    selected.value = new Set([...selected.value].filter((n) => existing.has(n)));
  }

  /** The topic as `topics.create` would make it (placement, leaders), without creating it. */
  function preview(topic: NewTopic): Promise<TopicView> {
    return client().call('topics.create', { ...topic, validateOnly: true });
  }

  /** Create the topic; throws the engine's ClientError (Kafka's error name) when refused. */
  async function create(topic: NewTopic): Promise<TopicView> {
    const created = await client().call('topics.create', topic);
    void refresh();
    return created;
  }

  /** Delete these topics; one outcome per name (errorCode NONE when deleted). */
  async function deleteMany(toDelete: string[]): Promise<TopicBulkResultView[]> {
    const results = await client().call('topics.deleteMany', { names: toDelete });
    const deleted = new Set(results.filter((r) => r.errorCode === 'NONE').map((r) => r.name));
    if (deleted.size > 0) {
      topics.value = topics.value.filter((t) => !deleted.has(t.name));
      selected.value = new Set([...selected.value].filter((n) => !deleted.has(n)));
    }
    await refresh();
    return results;
  }

  let users = 0;
  let unsubscribe: (() => void) | undefined;

  /** Keep the list live while a page shows it (reference-counted); `stop()` when it goes. */
  function start(): void {
    users++;
    if (users > 1) return;
    const connection = useConnectionStore();
    const soon = throttle(() => void refresh(), 500);
    const offEvent = connection.on((event) => {
      if (REFRESH_ON.has(event.type)) soon();
    });
    const offReconnect = connection.onReconnect(() => void refresh());
    unsubscribe = () => {
      offEvent();
      offReconnect();
    };
    void refresh();
  }

  function stop(): void {
    users = Math.max(0, users - 1);
    if (users > 0) return;
    unsubscribe?.();
    unsubscribe = undefined;
  }

  return {
    topics,
    loaded,
    loading,
    error,
    search,
    health,
    sortKey,
    sortOrder,
    selected,
    visible,
    names,
    totals,
    refresh,
    sortBy,
    setSelected,
    setAllVisible,
    clearSelection,
    preview,
    create,
    deleteMany,
    start,
    stop,
  };
});
