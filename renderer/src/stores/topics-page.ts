/**
 * The Topics page: what it does to the shared topic list (topics.ts): search (case-insensitive
 * substring), a health filter (offline / under-replicated / under-min-ISR, as the overview links
 * to it), sorting and row selection. Selection only ever names listed topics: a topic that leaves
 * the list (deleted here or elsewhere) leaves the selection at once.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import type { TopicSummaryView } from '../../../app/api/contract.js';
import { useTopicsStore } from './topics.js';

export type TopicSortKey = 'name' | 'partitions' | 'replicationFactor' | 'underReplicated' | 'underMinIsr' | 'offline';
export type SortOrder = 'asc' | 'desc';
export type HealthFilter = 'all' | 'offline' | 'under-replicated' | 'under-min-isr';

export const HEALTH_FILTERS: readonly HealthFilter[] = ['all', 'offline', 'under-replicated', 'under-min-isr'];

/** The filter a `?health=` query value names ('all' for anything else). */
export function parseHealthFilter(value: unknown): HealthFilter {
  const v = Array.isArray(value) ? value[0] : value;
  return typeof v === 'string' && (HEALTH_FILTERS as readonly string[]).includes(v) ? (v as HealthFilter) : 'all';
}

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

export const useTopicsPageStore = defineStore('topics-page', () => {
  const store = useTopicsStore();
  const search = ref('');
  const health = ref<HealthFilter>('all');
  const sortKey = ref<TopicSortKey>('name');
  const sortOrder = ref<SortOrder>('asc');
  const selected = shallowRef<ReadonlySet<string>>(new Set());

  const visible = computed(() => sortTopics(filterTopics(store.topics, search.value, health.value), sortKey.value, sortOrder.value));

  watch(
    () => store.names,
    (existing) => {
      if ([...selected.value].every((n) => existing.has(n))) return;
      selected.value = new Set([...selected.value].filter((n) => existing.has(n)));
    },
    { flush: 'sync' },
  );

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

  return { search, health, sortKey, sortOrder, selected, visible, sortBy, setSelected, setAllVisible, clearSelection, start: store.start, stop: store.stop };
});
