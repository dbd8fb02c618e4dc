/**
 * Every broker (`brokers.list`), shared by every page that shows brokers (the brokers page, the
 * topic page, balance, configs, drills), and the lifecycle and fault actions on them (the table
 * in lib/broker-actions.ts). One live query: re-read after any event that changes brokers,
 * leaders or replicas (throttled), after a reconnect, and every 2 s while in use (disk use and
 * flags change without events). The engine stays the source of truth: an action shows the broker
 * the engine answered with, then the list is re-read (counts, the controller, other brokers move
 * too).
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { BrokerView, EngineEvent } from '../../../app/api/contract.js';
import { ClientError } from '../api/client.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';
import { BROKER_ACTION, callBrokerAction, type BrokerAction } from '../lib/broker-actions.js';
import { notifyError, notifySuccess } from '../lib/notify.js';

export type { BrokerAction } from '../lib/broker-actions.js';

/** The last action that failed, for an inline explanation (the toast has already been shown). */
export interface BrokerFailure {
  action: BrokerAction | 'add';
  brokerId: number | null;
  error: unknown;
}

/** Events after which brokers' states, the controller or their replica and leader counts may read differently. */
export const BROKER_EVENTS: ReadonlySet<EngineEvent['type']> = new Set<EngineEvent['type']>([
  'broker.stateChanged',
  'controller.changed',
  'leader.changed',
  'isr.shrunk',
  'isr.expanded',
  'topic.created',
  'topic.deleted',
  'partitions.added',
  'reassignment.changed',
  'broker.storageFailed',
  'replica.offline',
]);

const byBrokerId = (a: BrokerView, b: BrokerView): number => a.id - b.id;

export const useBrokersStore = defineStore('brokers', () => {
  const query = useLiveQuery<BrokerView[]>({
    name: 'brokers',
    read: async () => (await client().call('brokers.list', {})).slice().sort(byBrokerId),
    initial: [],
    invalidatedBy: (e) => BROKER_EVENTS.has(e.type),
    throttleMs: 250,
    pollMs: 2000,
  });
  const page = useLeases(() => [query.acquire()]);
  /** Broker id → the action in flight on it. */
  const pending = ref<Record<number, BrokerAction>>({});
  const adding = ref(false);
  const lastFailure = shallowRef<BrokerFailure | null>(null);

  const brokers = query.data;
  const controllerId = computed(() => brokers.value.find((b) => b.isController)?.id ?? null);
  const byId = computed(() => new Map(brokers.value.map((b) => [b.id, b])));
  const nextId = computed(() => Math.max(0, ...brokers.value.map((b) => b.id)) + 1);

  function show(view: BrokerView): void {
    query.set([...brokers.value.filter((b) => b.id !== view.id), view].sort(byBrokerId));
  }

  /**
   * Run a lifecycle/fault action. Resolves true when the engine accepted it; on a refusal the
   * toast names Kafka's error and `lastFailure` keeps it for an inline explanation.
   */
  async function perform(action: BrokerAction, brokerId: number, opts: { success?: string } = {}): Promise<boolean> {
    if (pending.value[brokerId]) return false;
    pending.value = { ...pending.value, [brokerId]: action };
    const spec = BROKER_ACTION[action];
    try {
      const r = await callBrokerAction(client().result, action, brokerId);
      if (!r.ok) throw new ClientError(r.error, spec.method);
      if (action === 'remove') query.set(brokers.value.filter((b) => b.id !== brokerId));
      else show(r.value as BrokerView);
      if (lastFailure.value?.brokerId === brokerId) lastFailure.value = null;
      notifySuccess(opts.success ?? `Broker ${brokerId} ${spec.done}`);
      return true;
    } catch (e) {
      lastFailure.value = { action, brokerId, error: e };
      notifyError(e, `${spec.label} on broker ${brokerId}`);
      return false;
    } finally {
      const { [brokerId]: _done, ...rest } = pending.value;
      pending.value = rest;
      void query.refresh();
    }
  }

  /** Add a broker (`id` absent: the next free id); it starts and registers. */
  async function add(input: { id?: number | null; rack?: string | null }): Promise<BrokerView | null> {
    adding.value = true;
    const rack = input.rack?.trim() ? input.rack.trim() : null;
    try {
      const view = await client().call('brokers.add', { ...(input.id != null ? { id: input.id } : {}), rack });
      show(view);
      if (lastFailure.value?.action === 'add') lastFailure.value = null;
      notifySuccess(`Broker ${view.id} added${rack ? ` on rack ${rack}` : ''}`);
      void query.refresh();
      return view;
    } catch (e) {
      lastFailure.value = { action: 'add', brokerId: input.id ?? null, error: e };
      notifyError(e, 'Add broker');
      return null;
    } finally {
      adding.value = false;
    }
  }

  function dismissFailure(): void {
    lastFailure.value = null;
  }

  return {
    brokers,
    loaded: query.loaded,
    loading: query.loading,
    /** Why the last read failed (null once a read succeeds). */
    error: query.error,
    pending,
    adding,
    lastFailure,
    controllerId,
    byId,
    nextId,
    refresh: query.refresh,
    perform,
    add,
    dismissFailure,
    /** Keep the list live for another store (released by the returned function). */
    acquire: query.acquire,
    /** The brokers page: keep the list live while it shows (idempotent); `stop()` when it goes. */
    start: page.start,
    stop: page.stop,
  };
});
