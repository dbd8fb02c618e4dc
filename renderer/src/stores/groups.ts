/**
 * Consumer groups: every group with its state, coordinator, members and total lag
 * (`groups.list`); the chosen group in detail (`groups.describe`: members with client id, host and
 * assignment; committed offset, log end and lag per partition) with its total lag over time; the
 * admin actions Kafka allows on an empty group — reset offsets (previewed first) and delete.
 * Both reads are live queries while the page shows: re-read on group and coordinator events, and
 * polled, since lag moves with every produce and commit.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { EngineEvent, GroupListingView, GroupView, MethodInput, OffsetResetView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';
import { describeError, notifyError } from '../lib/notify.js';

export type ResetSpec = MethodInput<'groups.resetOffsets'>['to'];
export type ResetScope = MethodInput<'groups.resetOffsets'>['topics'];

/** One point of the lag chart: cluster time and Σ lag of the chosen group. */
export interface LagPoint {
  atMs: number;
  totalLag: number;
}

/** How many lag points the chart keeps (at one read a second: two minutes). */
export const LAG_HISTORY = 120;

const GROUP_EVENTS = new Set<EngineEvent['type']>(['group.stateChanged', 'coordinator.loaded', 'topic.deleted']);

export const useGroupsStore = defineStore('groups', () => {
  const list = useLiveQuery<GroupListingView[]>({
    name: 'groups',
    initial: [],
    read: () => client().call('groups.list', {}),
    invalidatedBy: (e) => GROUP_EVENTS.has(e.type),
    throttleMs: 300,
    pollMs: 2_000,
  });
  const selectedId = ref<string | null>(null);
  const lagHistory = shallowRef<LagPoint[]>([]);
  const detail = useLiveQuery<GroupView | null>({
    name: 'group',
    initial: null,
    read: async () => {
      const id = selectedId.value;
      if (id === null) return null;
      const [g, clock] = await Promise.all([client().call('groups.describe', { groupId: id }), client().call('clock.get', {})]);
      if (selectedId.value === id) lagHistory.value = [...lagHistory.value, { atMs: clock.nowMs, totalLag: g.totalLag }].slice(-LAG_HISTORY);
      return g;
    },
    invalidatedBy: (e) => (e.type === 'group.stateChanged' && e.groupId === selectedId.value) || e.type === 'coordinator.loaded',
    throttleMs: 200,
    pollMs: 1_000,
  });
  const page = useLeases(() => [list.acquire(), detail.acquire()]);

  const preview = shallowRef<OffsetResetView | null>(null);
  const previewSpec = shallowRef<{ to: ResetSpec; topics: ResetScope } | null>(null);
  const busy = ref(false);

  const group = detail.data;
  const error = computed(() => (list.error.value ? describeError(list.error.value) : null));
  const detailError = computed(() => (detail.error.value ? describeError(detail.error.value) : null));
  /** Kafka resets and deletes only groups without members. */
  const inactive = computed(() => group.value !== null && group.value.state === 'Empty');

  /** Show another group: its own detail and lag history. */
  function select(id: string | null): void {
    if (id === selectedId.value) return;
    selectedId.value = id;
    lagHistory.value = [];
    preview.value = null;
    previewSpec.value = null;
    detail.reset();
    void detail.refresh();
  }

  /** What a reset would do (`groups.resetOffsets` with dryRun); nothing is committed. */
  async function previewReset(to: ResetSpec, topics: ResetScope = undefined): Promise<OffsetResetView | null> {
    if (selectedId.value === null) return null;
    busy.value = true;
    try {
      preview.value = await client().call('groups.resetOffsets', { groupId: selectedId.value, to, dryRun: true, ...(topics ? { topics } : {}) });
      previewSpec.value = { to, topics };
      return preview.value;
    } catch (e) {
      preview.value = null;
      notifyError(e, 'Preview offset reset');
      return null;
    } finally {
      busy.value = false;
    }
  }

  /** Commit the previewed reset. */
  async function applyReset(): Promise<OffsetResetView | null> {
    const spec = previewSpec.value;
    if (selectedId.value === null || spec === null) return null;
    busy.value = true;
    try {
      const done = await client().call('groups.resetOffsets', { groupId: selectedId.value, to: spec.to, dryRun: false, ...(spec.topics ? { topics: spec.topics } : {}) });
      preview.value = null;
      previewSpec.value = null;
      await Promise.all([detail.refresh(), list.refresh()]);
      return done;
    } catch (e) {
      notifyError(e, 'Reset offsets');
      return null;
    } finally {
      busy.value = false;
    }
  }

  /** Delete the chosen group (Kafka: only an empty one) and its offsets. */
  async function deleteGroup(): Promise<boolean> {
    const id = selectedId.value;
    if (id === null) return false;
    busy.value = true;
    try {
      await client().call('groups.delete', { groupId: id });
      select(null);
      await list.refresh();
      return true;
    } catch (e) {
      notifyError(e, `Delete group ${id}`);
      return false;
    } finally {
      busy.value = false;
    }
  }

  return {
    groups: list.data,
    loading: list.loading,
    error,
    selectedId,
    group,
    detailError,
    lagHistory,
    inactive,
    preview,
    busy,
    select,
    refresh: () => Promise.all([list.refresh(), detail.refresh()]).then(() => undefined),
    previewReset,
    applyReset,
    deleteGroup,
    clearPreview: () => {
      preview.value = null;
      previewSpec.value = null;
    },
    /** Keep the list and the chosen group live while the page shows (idempotent); `stop()` when it goes. */
    start: page.start,
    stop: page.stop,
  };
});
