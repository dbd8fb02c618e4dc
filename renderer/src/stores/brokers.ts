/**
 * The brokers page: every broker (`brokers.list`) and the lifecycle and fault actions on them.
 * The engine stays the source of truth: an action shows the broker the engine answered with,
 * then the list is re-read (counts, the controller, other brokers move too). The list is also
 * re-read after any event that changes brokers, leaders or replicas (throttled), after a
 * reconnect, and every 2 s while started (disk use and flags change without events).
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { BrokerView, EngineEvent } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { throttle } from '../lib/debounce.js';
import { notifyError, notifySuccess } from '../lib/notify.js';
import { useConnectionStore } from './connection.js';

/** A lifecycle or fault action on one broker. */
export type BrokerAction = 'stop' | 'start' | 'kill' | 'powerLoss' | 'isolate' | 'heal' | 'stall' | 'unstall' | 'remove';

/** The last action that failed, for an inline explanation (the toast has already been shown). */
export interface BrokerFailure {
  action: BrokerAction | 'add';
  brokerId: number | null;
  error: unknown;
}

const REFRESH_ON = new Set<EngineEvent['type']>([
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

/** What each action is called in a toast: "Broker 2 killed". */
const DONE: Record<BrokerAction, string> = {
  stop: 'shut down (controlled)',
  start: 'started',
  kill: 'killed',
  powerLoss: 'lost power',
  isolate: 'isolated from the network',
  heal: 'healed (links restored, fetchers resumed)',
  stall: 'fetchers stalled',
  unstall: 'fetchers resumed',
  remove: 'removed from the cluster',
};

const TITLE: Record<BrokerAction, string> = {
  stop: 'Controlled shutdown',
  start: 'Start broker',
  kill: 'Kill broker',
  powerLoss: 'Power loss',
  isolate: 'Isolate broker',
  heal: 'Heal broker',
  stall: 'Stall follower',
  unstall: 'Resume follower',
  remove: 'Remove broker',
};

export const useBrokersStore = defineStore('brokers', () => {
  const brokers = shallowRef<BrokerView[]>([]);
  const loaded = ref(false);
  const loading = ref(false);
  /** Why the last read failed (null once a read succeeds). */
  const error = shallowRef<unknown>(null);
  /** Broker id → the action in flight on it. */
  const pending = ref<Record<number, BrokerAction>>({});
  const adding = ref(false);
  const lastFailure = shallowRef<BrokerFailure | null>(null);
  let readSeq = 0;
  let offEvents: (() => void) | undefined;
  let offReconnect: (() => void) | undefined;
  let poll: ReturnType<typeof setInterval> | undefined;

  const controllerId = computed(() => brokers.value.find((b) => b.isController)?.id ?? null);
  const byId = computed(() => new Map(brokers.value.map((b) => [b.id, b])));
  const nextId = computed(() => Math.max(0, ...brokers.value.map((b) => b.id)) + 1);

  async function refresh(): Promise<void> {
    const seq = ++readSeq;
    loading.value = true;
    try {
      const list = await client().call('brokers.list', {});
      if (seq !== readSeq) return; // a later read was issued: it wins
      brokers.value = list.slice().sort((a, b) => a.id - b.id);
      loaded.value = true;
      error.value = null;
    } catch (e) {
      if (seq === readSeq) error.value = e;
    } finally {
      if (seq === readSeq) loading.value = false;
    }
  }

  function show(view: BrokerView): void {
    readSeq++; // a read already in flight predates this answer
    loading.value = false;
    const others = brokers.value.filter((b) => b.id !== view.id);
    brokers.value = [...others, view].sort((a, b) => a.id - b.id);
  }

  function call(action: BrokerAction, brokerId: number): Promise<BrokerView | { brokerId: number }> {
    const c = client();
    switch (action) {
      case 'stop':
        return c.call('brokers.stop', { brokerId });
      case 'start':
        return c.call('brokers.start', { brokerId });
      case 'kill':
        return c.call('brokers.kill', { brokerId });
      case 'powerLoss':
        return c.call('brokers.powerLoss', { brokerId });
      case 'isolate':
        return c.call('brokers.isolate', { brokerId });
      case 'heal':
        return c.call('brokers.heal', { brokerId });
      case 'stall':
        return c.call('brokers.stallFollower', { brokerId, stalled: true });
      case 'unstall':
        return c.call('brokers.stallFollower', { brokerId, stalled: false });
      case 'remove':
        return c.call('brokers.remove', { brokerId });
    }
  }

  /**
   * Run a lifecycle/fault action. Resolves true when the engine accepted it; on a refusal the
   * toast names Kafka's error and `lastFailure` keeps it for an inline explanation.
   */
  async function perform(action: BrokerAction, brokerId: number): Promise<boolean> {
    if (pending.value[brokerId]) return false;
    pending.value = { ...pending.value, [brokerId]: action };
    try {
      const result = await call(action, brokerId);
      if (action === 'remove') {
        readSeq++;
        brokers.value = brokers.value.filter((b) => b.id !== brokerId);
      } else {
        show(result as BrokerView);
      }
      if (lastFailure.value?.brokerId === brokerId) lastFailure.value = null;
      notifySuccess(`Broker ${brokerId} ${DONE[action]}`);
      void refresh();
      return true;
    } catch (e) {
      lastFailure.value = { action, brokerId, error: e };
      notifyError(e, `${TITLE[action]} ${brokerId}`);
      void refresh();
      return false;
    } finally {
      const { [brokerId]: _done, ...rest } = pending.value;
      pending.value = rest;
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
      void refresh();
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

  /** Follow events and poll; idempotent. */
  function start(): void {
    if (offEvents) return;
    const connection = useConnectionStore();
    const soon = throttle(() => void refresh(), 250);
    offEvents = connection.on((event) => {
      if (REFRESH_ON.has(event.type)) soon();
    });
    offReconnect = connection.onReconnect(() => void refresh());
    poll = setInterval(() => void refresh(), 2000);
    void refresh();
  }

  function stop(): void {
    offEvents?.();
    offReconnect?.();
    if (poll) clearInterval(poll);
    offEvents = offReconnect = poll = undefined;
  }

  return { brokers, loaded, loading, error, pending, adding, lastFailure, controllerId, byId, nextId, refresh, perform, add, dismissFailure, start, stop };
});
