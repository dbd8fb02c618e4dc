/**
 * The Configs page: every config of one resource (the cluster-wide broker defaults, one broker,
 * or one topic) as `configs.describe` shows it, the resources one can pick, a topic's durability
 * explainer, and the edit actions. Editing goes through Kafka's IncrementalAlterConfigs
 * (`configs.alter`): `validate` runs it with validateOnly (nothing changes, the engine answers
 * INVALID_CONFIG with Kafka's message), `apply` sets a value, `reset` deletes the override
 * (null) so the value falls back to the next layer. Re-reads on `config.changed` for the shown
 * resource (a profile applied elsewhere, another window) and on reconnect.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { BrokerView, ConfigEntryView, ConfigSourceView, DurabilityView, TopicSummaryView } from '../../../app/api/contract.js';
import { ClientError } from '../api/client.js';
import { client } from '../api/instance.js';
import { throttle } from '../lib/debounce.js';
import { notifyError, notifySuccess } from '../lib/notify.js';
import { useConnectionStore } from './connection.js';

/** A config resource as the contract names it: a broker by id ('' = cluster-wide default) or a topic. */
export interface ConfigResource {
  type: 'broker' | 'topic';
  name: string;
}

/** `broker:` (cluster-wide default), `broker:1`, `topic:payments`: one string for selects and URLs. */
export function resourceKey(r: ConfigResource): string {
  return `${r.type}:${r.name}`;
}

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

const sameResource = (a: ConfigResource | null, b: ConfigResource | null): boolean => !!a && !!b && a.type === b.type && a.name === b.name;

export const useConfigsStore = defineStore('configs', () => {
  const resource = shallowRef<ConfigResource | null>(null);
  const entries = shallowRef<ConfigEntryView[]>([]);
  const loading = ref(false);
  /** The last failed describe (a ClientError or other), for the inline error state. */
  const error = shallowRef<unknown>(null);
  const topics = shallowRef<TopicSummaryView[]>([]);
  const brokers = shallowRef<BrokerView[]>([]);
  const resourcesError = shallowRef<unknown>(null);
  const durability = shallowRef<DurabilityView | null>(null);
  const durabilityError = shallowRef<unknown>(null);
  /** Config names with an alter in flight (Apply / Reset show a spinner). */
  const pending = ref<Set<string>>(new Set());
  let generation = 0;
  let started = false;

  const byName = computed(() => new Map(entries.value.map((e) => [e.name, e])));

  /** Topics and brokers for the resource picker. */
  async function loadResources(): Promise<void> {
    try {
      const [t, b] = await Promise.all([client().call('topics.list', {}), client().call('brokers.list', {})]);
      topics.value = [...t].sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      brokers.value = [...b].sort((x, y) => x.id - y.id);
      resourcesError.value = null;
    } catch (e) {
      resourcesError.value = e;
    }
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
    if (!r) return;
    const gen = generation;
    loading.value = true;
    try {
      const [list] = await Promise.all([client().call('configs.describe', { resource: r }), loadDurability(r, gen)]);
      if (gen !== generation) return;
      entries.value = list;
      error.value = null;
    } catch (e) {
      if (gen !== generation) return;
      entries.value = [];
      error.value = e;
    } finally {
      if (gen === generation) loading.value = false;
    }
  }

  /** Show another resource (clears what the previous one showed). */
  async function select(r: ConfigResource | null): Promise<void> {
    if (sameResource(r, resource.value)) return refresh();
    generation++;
    resource.value = r;
    entries.value = [];
    error.value = null;
    durability.value = null;
    durabilityError.value = null;
    loading.value = false;
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

  async function alter(name: string, value: string | null): Promise<AlterOutcome> {
    const r = resource.value;
    if (!r) return { ok: false, error: new Error('No resource selected.') };
    const gen = generation;
    pending.value = new Set([...pending.value, name]);
    try {
      const after = await client().call('configs.alter', { resource: r, set: { [name]: value } });
      if (gen === generation) {
        entries.value = after;
        await loadDurability(r, gen);
      }
      const entry = after.find((e) => e.name === name);
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

  /** Follow config changes, topic creation/deletion and reconnects; idempotent. */
  function start(): void {
    if (started) return;
    started = true;
    const connection = useConnectionStore();
    const soonConfigs = throttle(() => void refresh(), 200);
    const soonResources = throttle(() => void loadResources(), 300);
    connection.on((event) => {
      const r = resource.value;
      if (event.type === 'config.changed' && r) {
        // A cluster-wide broker change can change what a topic or a broker inherits.
        const inherited = event.resourceType === 'broker' && event.resourceName === '';
        if (inherited || (event.resourceType === r.type && event.resourceName === r.name)) soonConfigs();
      } else if (event.type === 'topic.created' || event.type === 'topic.deleted' || event.type === 'broker.stateChanged') {
        soonResources();
        if (event.type === 'topic.deleted' && r?.type === 'topic' && event.topic === r.name) soonConfigs();
      }
    });
    connection.onReconnect(() => {
      void loadResources();
      void refresh();
    });
  }

  return { resource, entries, byName, loading, error, topics, brokers, resourcesError, durability, durabilityError, pending, loadResources, select, refresh, validate, apply, reset, start };
});
