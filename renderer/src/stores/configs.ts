/**
 * The Configs page: every config of one resource (the cluster-wide broker defaults, one broker,
 * or one topic) as `configs.describe` shows it, the resources one can pick, a topic's durability
 * explainer, and the edit actions. Editing goes through Kafka's IncrementalAlterConfigs
 * (`configs.alter`): `validate` runs it with validateOnly (nothing changes, the engine answers
 * INVALID_CONFIG with Kafka's message), `apply` sets a value, `reset` deletes the override
 * (null) so the value falls back to the next layer. The shown resource's configs are a shared live
 * store (resource-configs.ts): re-read on `config.changed` for it (a profile applied elsewhere,
 * another window) and on reconnect; the picker lists the shared brokers and topics.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ConfigEntryView, ConfigSourceView, DurabilityView } from '../../../app/api/contract.js';
import { ClientError } from '../api/client.js';
import { client } from '../api/instance.js';
import { notifyError, notifySuccess } from '../lib/notify.js';
import { useBrokersStore } from './brokers.js';
import { useResourceConfigsStore, type ConfigResource, type ResourceConfigsStore } from './resource-configs.js';
import { useTopicsStore } from './topics.js';

export { resourceKey, type ConfigResource } from './resource-configs.js';

export function parseResourceKey(key: string): ConfigResource | null {
  const i = key.indexOf(':');
  if (i < 0) return null;
  const type = key.slice(0, i);
  const name = key.slice(i + 1);
  if (type === 'broker' && (name === '' || /^\d+$/.test(name))) return { type, name };
  if (type === 'topic' && name !== '') return { type, name };
  return null;
}

export function resourceLabel(r: ConfigResource): string {
  if (r.type === 'topic') return `Topic ${r.name}`;
  return r.name === '' ? 'Cluster-wide broker defaults' : `Broker ${r.name}`;
}

/** The layer a `configs.alter` on this resource writes, so the one its reset removes. */
export function ownLayer(r: ConfigResource): ConfigSourceView {
  if (r.type === 'topic') return 'DYNAMIC_TOPIC_CONFIG';
  return r.name === '' ? 'DYNAMIC_DEFAULT_BROKER_CONFIG' : 'DYNAMIC_BROKER_CONFIG';
}

/** Configs whose change alters how many broker failures a topic's writes and data survive. */
export const DURABILITY_KEYS = new Set(['min.insync.replicas', 'unclean.leader.election.enable']);

/** Outcome of a validateOnly alter: the entry as it would become, or the engine's refusal. */
export type Validation = { ok: true; entry: ConfigEntryView | undefined } | { ok: false; code: string; message: string };

/** Outcome of a real alter. */
export type AlterOutcome = { ok: true; entry: ConfigEntryView | undefined } | { ok: false; error: unknown };

/** The last change made from this page, and how to take it back. */
export interface LastChange {
  resource: ConfigResource;
  name: string;
  from: string;
  to: string;
  /** What undo sets: the value the resource itself had, or null when it inherited (undo deletes the override). */
  restore: string | null;
}

const sameResource = (a: ConfigResource | null, b: ConfigResource | null): boolean => !!a && !!b && a.type === b.type && a.name === b.name;

export const useConfigsStore = defineStore('configs', () => {
  const brokersStore = useBrokersStore();
  const topicsStore = useTopicsStore();
  const resource = shallowRef<ConfigResource | null>(null);
  const shown = shallowRef<ResourceConfigsStore | null>(null);
  const durability = shallowRef<DurabilityView | null>(null);
  const durabilityError = shallowRef<unknown>(null);
  const lastChange = shallowRef<LastChange | null>(null);
  /** Config names with an alter in flight (Apply / Reset show a spinner). */
  const pending = ref<Set<string>>(new Set());
  /** While the page shows: leases on the picker's lists; `shownLease` on the shown resource. */
  let leases: (() => void)[] | null = null;
  let shownLease: (() => void) | null = null;
  let generation = 0;

  /** The last failed describe (a ClientError or other), for the inline error state. */
  const error = computed(() => shown.value?.error ?? null);
  const entries = computed<ConfigEntryView[]>(() => (shown.value && !shown.value.error ? shown.value.entries : []));
  const loading = computed(() => shown.value?.loading ?? false);
  const byName = computed(() => new Map(entries.value.map((e) => [e.name, e])));
  const brokers = computed(() => brokersStore.brokers);
  const topics = computed(() => [...topicsStore.topics].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0)));
  const resourcesError = computed(() => brokersStore.error ?? topicsStore.error ?? null);

  /** Topics and brokers for the resource picker. */
  async function loadResources(): Promise<void> {
    await Promise.all([topicsStore.refresh(), brokersStore.refresh()]);
  }

  async function loadDurability(r: ConfigResource, gen: number): Promise<void> {
    if (r.type !== 'topic') {
      durability.value = null;
      durabilityError.value = null;
      return;
    }
    try {
      const d = await client().call('topics.durability', { name: r.name });
      if (gen !== generation) return;
      durability.value = d;
      durabilityError.value = null;
    } catch (e) {
      if (gen !== generation) return;
      durability.value = null;
      durabilityError.value = e;
    }
  }

  /** Re-read the shown resource's configs (and a topic's durability). */
  async function refresh(): Promise<void> {
    const r = resource.value;
    if (!r || !shown.value) return;
    await Promise.all([shown.value.refresh(), loadDurability(r, generation)]);
  }

  function follow(): void {
    shownLease?.();
    shownLease = leases && shown.value ? shown.value.acquire() : null;
  }

  /** Show another resource (clears what the previous one showed). */
  async function select(r: ConfigResource | null): Promise<void> {
    if (!sameResource(r, resource.value)) {
      generation++;
      resource.value = r;
      shown.value = r ? useResourceConfigsStore(r) : null;
      durability.value = null;
      durabilityError.value = null;
      follow();
    }
    await refresh();
  }

  /** Check a value with the engine without changing anything (validateOnly). */
  async function validate(name: string, value: string): Promise<Validation> {
    const r = resource.value;
    if (!r) return { ok: false, code: 'INVALID_REQUEST', message: 'No resource selected.' };
    try {
      const after = await client().call('configs.alter', { resource: r, set: { [name]: value }, validateOnly: true });
      return { ok: true, entry: after.find((e) => e.name === name) };
    } catch (e) {
      if (e instanceof ClientError) return { ok: false, code: e.code, message: e.error.message };
      return { ok: false, code: 'Error', message: e instanceof Error ? e.message : String(e) };
    }
  }

  async function alter(name: string, value: string | null, undoing = false): Promise<AlterOutcome> {
    const r = resource.value;
    const target = shown.value;
    if (!r || !target) return { ok: false, error: new Error('No resource selected.') };
    const gen = generation;
    const was = byName.value.get(name);
    pending.value = new Set([...pending.value, name]);
    try {
      const after = await client().call('configs.alter', { resource: r, set: { [name]: value } });
      target.show(after);
      if (gen === generation) await loadDurability(r, gen);
      const entry = after.find((e) => e.name === name);
      lastChange.value =
        undoing || !was ? null : { resource: r, name, from: was.value, to: entry?.value ?? '', restore: was.source === ownLayer(r) ? was.value : null };
      notifySuccess(value === null ? `${name} reset: now ${entry?.value || '(none)'} from ${entry?.source ?? 'its default'}` : `${name} = ${value} on ${resourceLabel(r)}`);
      return { ok: true, entry };
    } catch (e) {
      notifyError(e, value === null ? `Reset ${name}` : `Set ${name}`);
      return { ok: false, error: e };
    } finally {
      const next = new Set(pending.value);
      next.delete(name);
      pending.value = next;
    }
  }

  /** Set `name` to `value` on the shown resource. */
  function apply(name: string, value: string): Promise<AlterOutcome> {
    return alter(name, value);
  }

  /** Delete the resource's own override of `name`: the value falls back to the next layer. */
  function reset(name: string): Promise<AlterOutcome> {
    return alter(name, null);
  }

  /** Take the last change back: its old value, or its inherited one again. Only while its resource shows. */
  async function undo(): Promise<AlterOutcome> {
    const c = lastChange.value;
    if (!c || !sameResource(c.resource, resource.value)) return { ok: false, error: new Error('Nothing to undo here.') };
    const r = await alter(c.name, c.restore, true);
    if (r.ok) lastChange.value = null;
    return r;
  }

  /** The topic's durability as if `name` were `value` (acks=all); null for other resources or when it cannot be read. */
  async function whatIf(name: string, value: string): Promise<DurabilityView | null> {
    const r = resource.value;
    if (r?.type !== 'topic') return null;
    try {
      return await client().call('topics.durability', { name: r.name, set: { [name]: value } });
    } catch {
      return null;
    }
  }

  /** Follow the shown resource's configs and the picker's brokers and topics while the page shows (idempotent). */
  function start(): void {
    if (leases) return;
    leases = [topicsStore.acquire(), brokersStore.acquire()];
    follow();
  }

  function stop(): void {
    for (const release of leases ?? []) release();
    leases = null;
    follow();
  }

  return { resource, entries, byName, loading, error, topics, brokers, resourcesError, durability, durabilityError, pending, lastChange, loadResources, select, refresh, validate, apply, reset, undo, whatIf, start, stop };
});
