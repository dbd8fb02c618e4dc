/**
 * Twins on the Connections page: make one from a connection (`connections.createTwin`: the source
 * read, a local cluster started with its brokers, its topology copied), refresh one from its
 * source (`connections.refreshTwin`: the drift first, applied only once confirmed), and download a
 * twin's report (`connections.twinReport`). Making a twin reads the source and changes nothing
 * there, so no external confirmation is asked; the twin itself is a new local cluster.
 */
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ConnectionView, EventMap, TwinChangeKind, TwinChangeView, TwinResultView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { downloadText } from '../lib/impact/export.js';
import { describeError, notifyError, notifySuccess } from '../lib/notify.js';
import { useEventStreamStore } from './event-stream.js';

export type ShownError = { title: string; message: string; help?: string };

/** The drift's groups, as an operator reads them. */
export const DRIFT_GROUPS: { title: string; kinds: TwinChangeKind[] }[] = [
  { title: 'Brokers', kinds: ['broker-added', 'broker-removed', 'broker-rack', 'broker-down', 'broker-up', 'static-configs'] },
  { title: 'Topics', kinds: ['topic-added', 'topic-removed', 'partitions-added'] },
  { title: 'Assignments', kinds: ['assignment', 'leader'] },
  { title: 'Configs', kinds: ['cluster-config', 'topic-config', 'feature'] },
  { title: 'Offsets', kinds: ['offsets'] },
  { title: 'Security', kinds: ['acl-added', 'acl-removed', 'quota'] },
];

/** The drift by group, groups without a change left out. */
export function driftByGroup(changes: readonly TwinChangeView[]): { title: string; changes: TwinChangeView[] }[] {
  return DRIFT_GROUPS.map((g) => ({ title: g.title, changes: changes.filter((c) => g.kinds.includes(c.kind)) })).filter((g) => g.changes.length > 0);
}

export const useTwinsStore = defineStore('twins', () => {
  /** The source a twin is being made of, and since when (the page shows the time it takes). */
  const creating = shallowRef<{ source: ConnectionView; name: string; startedAt: number } | null>(null);
  const created = shallowRef<TwinResultView | null>(null);
  const createError = shallowRef<ShownError | null>(null);
  /** The steps the twin being made (or last made) reached, in order; the fill's count kept current. */
  const steps = shallowRef<EventMap['twin.progress'][]>([]);

  const refreshing = shallowRef<ConnectionView | null>(null);
  const drift = shallowRef<TwinResultView | null>(null);
  const driftError = shallowRef<ShownError | null>(null);
  const reading = ref(false);
  const applying = ref(false);

  async function create(source: ConnectionView, name: string, recordBudget: number | null): Promise<TwinResultView | null> {
    creating.value = { source, name, startedAt: Date.now() };
    created.value = null;
    createError.value = null;
    steps.value = [];
    const off = useEventStreamStore().on((e) => {
      if (e.type !== 'twin.progress' || e.twin !== name.trim() || e.source !== source.name) return;
      const last = steps.value[steps.value.length - 1];
      steps.value = last?.step === e.step ? [...steps.value.slice(0, -1), e] : [...steps.value, e];
    });
    try {
      created.value = await client().call('connections.createTwin', { name: name.trim(), source: source.id, ...(recordBudget !== null ? { recordBudget } : {}) });
      notifySuccess(`Made ${created.value.connection.name}, a twin of ${source.name}`);
      return created.value;
    } catch (e) {
      createError.value = describeError(e);
      return null;
    } finally {
      off();
      creating.value = null;
    }
  }

  function resetCreate(): void {
    created.value = null;
    createError.value = null;
    steps.value = [];
  }

  /** Read the source again and show what differs (nothing is changed yet). */
  async function checkDrift(twin: ConnectionView): Promise<void> {
    refreshing.value = twin;
    drift.value = null;
    driftError.value = null;
    reading.value = true;
    try {
      drift.value = await client().call('connections.refreshTwin', { id: twin.id, dryRun: true });
    } catch (e) {
      driftError.value = describeError(e);
    } finally {
      reading.value = false;
    }
  }

  /** Apply the drift shown (the user confirmed it): the twin becomes its source again. */
  async function applyDrift(): Promise<boolean> {
    const twin = refreshing.value;
    if (!twin) return false;
    applying.value = true;
    driftError.value = null;
    try {
      const done = await client().call('connections.refreshTwin', { id: twin.id, dryRun: false });
      const applied = done.changes.filter((c) => !c.notApplied).length;
      notifySuccess(`${twin.name}: ${applied} change${applied === 1 ? '' : 's'} applied from ${done.origin.sourceName}`);
      closeDrift();
      return true;
    } catch (e) {
      driftError.value = describeError(e);
      return false;
    } finally {
      applying.value = false;
    }
  }

  function closeDrift(): void {
    refreshing.value = null;
    drift.value = null;
    driftError.value = null;
  }

  /** The cluster's journal as a Markdown file. */
  async function downloadReport(id: string): Promise<void> {
    try {
      const report = await client().call('connections.twinReport', { id });
      downloadText(report.fileName, report.markdown, 'text/markdown');
    } catch (e) {
      notifyError(e, 'Writing the report');
    }
  }

  return { creating, created, createError, steps, create, resetCreate, refreshing, drift, driftError, reading, applying, checkDrift, applyDrift, closeDrift, downloadReport };
});
