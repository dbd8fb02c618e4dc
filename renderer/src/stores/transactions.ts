/**
 * The Transactions page: the transactional ids every coordinator knows (`transactions.list`), the
 * hanging transactions `find-hanging` would flag (`transactions.findHanging`, with the page's
 * max-timeout threshold), and one topic's partitions with their log start, LSO, high watermark
 * and log end and the producers behind them (`transactions.producers`). Each is a live query while
 * the page shows: re-read on a transaction's state change or a coordinator load, polled (an
 * external cluster sends no events; ages grow). An abort is always previewed first (the
 * contract's dry run), then confirmed.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { HangingTransactionView, HangingTransactionsView, PartitionTransactionsView, TransactionAbortView, TransactionListView } from '../../../app/api/contract.js';
import { confirmedOnPage, externalTarget } from '../api/external-changes.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';
import { describeError, notifyError, notifySuccess } from '../lib/notify.js';
import { useTopicsStore } from './topics.js';

const TXN_EVENT = (e: { type: string }): boolean => e.type === 'transaction.stateChanged' || e.type === 'txnCoordinator.loaded';
/** kafka-transactions.sh find-hanging's default --max-transaction-timeout (transaction.max.timeout.ms's default), in minutes. */
const DEFAULT_MAX_TIMEOUT_MINUTES = 15;
const EMPTY_LIST: TransactionListView = { nowMs: 0, transactions: [], unanswered: [] };

export const useTransactionsStore = defineStore('transactions', () => {
  /** find-hanging's --max-transaction-timeout, in minutes as the tool takes it. */
  const maxTimeoutMinutes = ref(DEFAULT_MAX_TIMEOUT_MINUTES);
  const topic = ref<string | null>(null);

  const list = useLiveQuery<TransactionListView>({ name: 'transactions', initial: EMPTY_LIST, read: () => client().call('transactions.list', {}), invalidatedBy: TXN_EVENT, pollMs: 2_000 });
  const hanging = useLiveQuery<HangingTransactionsView | null>({
    name: 'hanging-transactions',
    initial: null,
    read: () => client().call('transactions.findHanging', { maxTransactionTimeoutMs: Math.round(maxTimeoutMinutes.value * 60_000) }),
    invalidatedBy: TXN_EVENT,
    pollMs: 5_000,
  });
  const partitions = useLiveQuery<PartitionTransactionsView[]>({
    name: 'transaction-partitions',
    initial: [],
    read: () => (topic.value === null ? Promise.resolve([]) : client().call('transactions.producers', { topic: topic.value })),
    invalidatedBy: TXN_EVENT,
    pollMs: 2_000,
  });
  const topics = useTopicsStore();
  const page = useLeases(() => [list.acquire(), hanging.acquire(), partitions.acquire(), topics.acquire()]);
  const topicNames = computed(() => topics.topics.map((t) => t.name).sort());

  const busy = ref(false);
  const preview = shallowRef<TransactionAbortView | null>(null);
  const aborted = shallowRef<TransactionAbortView | null>(null);
  const errorOf = (q: { error: { value: unknown } }) => computed(() => (q.error.value ? describeError(q.error.value) : null));

  function setThreshold(minutes: number): void {
    maxTimeoutMinutes.value = minutes;
    void hanging.refresh();
  }

  function selectTopic(name: string | null): void {
    if (topic.value === name) return;
    topic.value = name;
    partitions.reset();
    void partitions.refresh();
  }

  /** What aborting this hanging transaction would do (the contract's dry run): nothing changes yet. */
  async function previewAbort(h: Pick<HangingTransactionView, 'topic' | 'partition' | 'startOffset'>): Promise<TransactionAbortView | null> {
    busy.value = true;
    aborted.value = null;
    try {
      preview.value = await client().call('transactions.abort', { topic: h.topic, partition: h.partition, startOffset: h.startOffset });
      return preview.value;
    } catch (e) {
      notifyError(e, 'Preview abort');
      preview.value = null;
      return null;
    } finally {
      busy.value = false;
    }
  }

  /** Abort the previewed transaction: the same producer, epoch and coordinator epoch the preview named. */
  async function confirmAbort(): Promise<TransactionAbortView | null> {
    const p = preview.value;
    if (!p) return null;
    busy.value = true;
    try {
      const done = await confirmedOnPage(externalTarget(), ['transactions.abort'], () =>
        client().call('transactions.abort', { topic: p.topic, partition: p.partition, producerId: p.producerId, producerEpoch: p.producerEpoch, coordinatorEpoch: p.coordinatorEpoch, dryRun: false }),
      );
      aborted.value = done;
      preview.value = null;
      notifySuccess(`Aborted producer ${done.producerId}'s transaction on ${done.topic}-${done.partition}: the LSO is at ${done.after?.lastStableOffset ?? done.lastStableOffsetAfter} now`);
      await Promise.all([hanging.refresh(), list.refresh(), partitions.refresh()]);
      return done;
    } catch (e) {
      notifyError(e, 'Abort transaction');
      return null;
    } finally {
      busy.value = false;
    }
  }

  return {
    start: () => page.start(),
    stop: () => page.stop(),
    list: list.data,
    listError: errorOf(list),
    hanging: hanging.data,
    hangingError: errorOf(hanging),
    partitions: partitions.data,
    partitionsError: errorOf(partitions),
    topic,
    topicNames,
    maxTimeoutMinutes,
    busy,
    preview,
    aborted,
    setThreshold,
    selectTopic,
    previewAbort,
    confirmAbort,
    cancelAbort: () => (preview.value = null),
    refreshHanging: () => hanging.refresh(),
  };
});
