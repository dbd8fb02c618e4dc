/**
 * The cluster at a glance (`cluster.describe`) and the engine clock, for the shell and the
 * overview. One live query for as long as the console runs: re-read after any event that changes
 * brokers, leaders or ISRs (throttled), after a reconnect, and every 2 s as a fallback.
 */
import { defineStore } from 'pinia';
import { computed } from 'vue';
import type { ClockView, ClusterView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';
import { describeError, notifyError } from '../lib/notify.js';
import { BROKER_EVENTS } from './brokers.js';

interface ClusterState {
  cluster: ClusterView | null;
  clock: ClockView | null;
}

export const useClusterStore = defineStore('cluster', () => {
  const query = useLiveQuery<ClusterState>({
    name: 'cluster',
    initial: { cluster: null, clock: null },
    read: async () => {
      const [cluster, clock] = await Promise.all([client().call('cluster.describe', {}), client().call('clock.get', {})]);
      return { cluster, clock };
    },
    // What cluster.describe shows (brokers, the controller, health counts) changes with the brokers' list.
    invalidatedBy: (e) => BROKER_EVENTS.has(e.type),
    throttleMs: 250,
    pollMs: 2000,
  });
  const app = useLeases(() => [query.acquire()]);

  const cluster = computed(() => query.data.value.cluster);
  const clock = computed(() => query.data.value.clock);
  const brokers = computed(() => cluster.value?.brokers ?? []);
  const healthy = computed(() => {
    const c = cluster.value;
    return !!c && c.offlinePartitions === 0 && c.underReplicatedPartitions === 0 && c.underMinIsrPartitions === 0;
  });
  const error = computed(() => (query.error.value ? describeError(query.error.value).message : null));
  /** Why the connection does not say which broker hosts the active controller (an external KRaft cluster), or null. */
  const controllerUnreported = computed(() => cluster.value?.unreported?.controller ?? null);
  /** The controller in words: "broker 2", "electing…" (null: an election), or "not reported". */
  const controllerText = computed(() => {
    const c = cluster.value;
    if (!c) return null;
    if (c.controllerId !== null) return `broker ${c.controllerId}`;
    return controllerUnreported.value ? 'not reported' : 'electing…';
  });

  async function setScale(scale: number): Promise<void> {
    try {
      const k = await client().call('clock.setScale', { scale });
      query.set({ ...query.data.value, clock: k });
    } catch (e) {
      notifyError(e, 'Time scale');
    }
  }

  return {
    cluster,
    clock,
    brokers,
    healthy,
    controllerUnreported,
    controllerText,
    loading: query.loading,
    error,
    refresh: query.refresh,
    setScale,
    /** Keep it live for as long as the console runs (idempotent); `stop()` releases it. */
    start: app.start,
    stop: app.stop,
  };
});
