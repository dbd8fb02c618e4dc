/**
 * Leadership: leaders per broker and the partitions not led by their preferred replica
 * (`leaders.balance`, the list KIP-727 asked for), a preview of a preferred election's resulting
 * leader counts (`leaders.preview`), the election itself (`leaders.elect` type preferred) with its
 * per-partition outcome, and the cluster's auto leader rebalance settings. The balance is a live
 * query while the page shows: re-read on leadership, ISR, broker and topic changes (throttled).
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ElectionPreviewView, ElectionResultView, EngineEvent, LeaderBalanceView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';
import { describeError, notifyError } from '../lib/notify.js';

export interface PartitionRef {
  topic: string;
  partition: number;
}

/** Kafka's (ZooKeeper-era) auto-rebalance trigger per broker: 10 % of its preferred partitions led elsewhere. */
export const LEADER_IMBALANCE_PER_BROKER_PERCENTAGE = 10;

const REFRESH_ON = new Set<EngineEvent['type']>(['leader.changed', 'isr.shrunk', 'isr.expanded', 'broker.stateChanged', 'topic.created', 'topic.deleted', 'partitions.added', 'reassignment.changed']);

export const useLeadersStore = defineStore('leaders', () => {
  const query = useLiveQuery<LeaderBalanceView | null>({
    name: 'leaders',
    initial: null,
    read: () => client().call('leaders.balance', {}),
    invalidatedBy: (e) => REFRESH_ON.has(e.type),
    throttleMs: 300,
  });
  const page = useLeases(() => [query.acquire()]);
  const balance = query.data;
  const error = computed(() => (query.error.value ? describeError(query.error.value) : null));
  const preview = shallowRef<ElectionPreviewView | null>(null);
  /** The partitions the preview is for; null = every partition. */
  const previewFor = shallowRef<PartitionRef[] | null>(null);
  const previewing = ref(false);
  const results = shallowRef<ElectionResultView[] | null>(null);
  const electing = ref(false);

  /** Per broker: share of the partitions it should lead (preferred) that another broker leads. */
  const imbalance = computed(() =>
    (balance.value?.brokers ?? []).map((b) => ({
      brokerId: b.brokerId,
      ratio: b.preferredLeaders === 0 ? 0 : b.preferredButNotLeading / b.preferredLeaders,
    })),
  );

  /** What a preferred election would do, for the chosen partitions or (null) all. */
  async function runPreview(partitions: PartitionRef[] | null = null): Promise<ElectionPreviewView | null> {
    previewing.value = true;
    try {
      const out = await client().call('leaders.preview', { type: 'preferred', ...(partitions ? { partitions: partitions.map(ref2) } : {}) });
      preview.value = out;
      previewFor.value = partitions;
      return out;
    } catch (e) {
      notifyError(e, 'Preview election');
      return null;
    } finally {
      previewing.value = false;
    }
  }

  /** Run the preferred election (for the previewed partitions by default); per-partition outcome. */
  async function elect(partitions: PartitionRef[] | null = previewFor.value): Promise<ElectionResultView[] | null> {
    electing.value = true;
    try {
      const out = await client().call('leaders.elect', { type: 'preferred', ...(partitions ? { partitions: partitions.map(ref2) } : {}) });
      results.value = out;
      preview.value = null;
      await query.refresh();
      return out;
    } catch (e) {
      notifyError(e, 'Preferred leader election');
      return null;
    } finally {
      electing.value = false;
    }
  }

  function clearPreview(): void {
    preview.value = null;
    previewFor.value = null;
  }

  return {
    balance,
    loading: query.loading,
    error,
    preview,
    previewFor,
    previewing,
    results,
    electing,
    imbalance,
    refresh: query.refresh,
    runPreview,
    elect,
    clearPreview,
    /** Keep the balance live while the page shows (idempotent); `stop()` when it goes. */
    start: page.start,
    stop: page.stop,
  };
});

function ref2(p: PartitionRef): PartitionRef {
  return { topic: p.topic, partition: p.partition };
}
