/**
 * The cluster at a glance (`cluster.describe`) and the engine clock. Re-read after any event that
 * changes brokers, leaders or ISRs (throttled), after a reconnect, and every 2 s as a fallback.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ClockView, ClusterView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { throttle } from '../lib/debounce.js';
import { notifyError } from '../lib/notify.js';
import { useConnectionStore } from './connection.js';

const REFRESH_ON = new Set(['broker.stateChanged', 'controller.changed', 'isr.shrunk', 'isr.expanded', 'leader.changed', 'topic.created', 'topic.deleted', 'partitions.added', 'reassignment.changed', 'broker.storageFailed', 'replica.offline']);

export const useClusterStore = defineStore('cluster', () => {
  const cluster = shallowRef<ClusterView | null>(null);
  const clock = shallowRef<ClockView | null>(null);
  const loading = ref(false);
  const error = ref<string | null>(null);
  let started = false;
  let poll: ReturnType<typeof setInterval> | undefined;

  const brokers = computed(() => cluster.value?.brokers ?? []);
  const healthy = computed(() => {
    const c = cluster.value;
    return !!c && c.offlinePartitions === 0 && c.underReplicatedPartitions === 0 && c.underMinIsrPartitions === 0;
  });

  async function refresh(): Promise<void> {
    loading.value = true;
    try {
      const [c, k] = await Promise.all([client().call('cluster.describe', {}), client().call('clock.get', {})]);
      cluster.value = c;
      clock.value = k;
      error.value = null;
    } catch (e) {
      error.value = e instanceof Error ? e.message : String(e);
    } finally {
      loading.value = false;
    }
  }

  async function setScale(scale: number): Promise<void> {
    try {
      clock.value = await client().call('clock.setScale', { scale });
    } catch (e) {
      notifyError(e, 'Time scale');
    }
  }

  /** Subscribe to events and start polling; idempotent. */
  function start(): void {
    if (started) return;
    started = true;
    const connection = useConnectionStore();
    const soon = throttle(() => void refresh(), 250);
    connection.on((event) => {
      if (REFRESH_ON.has(event.type)) soon();
    });
    connection.onReconnect(() => void refresh());
    void refresh();
    poll = setInterval(() => void refresh(), 2000);
  }

  function stop(): void {
    if (poll) clearInterval(poll);
    poll = undefined;
    started = false;
  }

  return { cluster, clock, brokers, healthy, loading, error, refresh, setScale, start, stop };
});
