/**
 * The drills page: one watched partition (its replicas' LEO, HW, flushed offset and ISR
 * membership, from the shared topic store of its topic), faults per broker (the shared brokers
 * store and its action table), a producer whose acknowledged records join this session's ledger,
 * the timeline of controller decisions and replica events, and the data lost by truncations.
 * The scripted scenarios run in drill-runner.ts.
 *
 * The engine stays the source of truth: every number shown comes from `topics.describe` /
 * `brokers.list` / the event stream; "lost" is decided by reading the partition back from its
 * leader and comparing acknowledged values, never inferred. While the page shows (`start()` …
 * `stop()`), it holds leases on the topic list, the brokers, the watched topic and its configs,
 * and follows the timeline.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { EngineEvent, EventName, MethodInput, MethodName, PartitionView, ProduceResultView, TopicView } from '../../../app/api/contract.js';
import { ClientError, type Call } from '../api/client.js';
import { client } from '../api/instance.js';
import { useLiveQuery } from '../composables/live-query.js';
import type { BrokerAction } from '../lib/broker-actions.js';
import { acknowledgedRecords, checkAcknowledged, removedByTruncation, type AcknowledgedCheck, type AcknowledgedRecord, type Acks } from '../lib/drills/data-loss.js';
import { createDrillTopic as createTopic } from '../lib/drills/steps.js';
import { notifyError, notifySuccess } from '../lib/notify.js';
import { useAcknowledgedStore } from './acknowledged.js';
import { useBrokersStore } from './brokers.js';
import { useResourceConfigsStore, type ResourceConfigsStore } from './resource-configs.js';
import { useTopicStore, type TopicStore } from './topic.js';
import { useTopicsStore } from './topics.js';

/** Events the timeline shows. */
export const TIMELINE_TYPES: EventName[] = ['leader.changed', 'isr.shrunk', 'isr.expanded', 'broker.stateChanged', 'controller.changed', 'replica.truncated', 'replica.offline', 'broker.storageFailed'];
const TIMELINE_SET = new Set<string>(TIMELINE_TYPES);
const PARTITION_EVENTS = new Set<string>(['leader.changed', 'isr.shrunk', 'isr.expanded', 'replica.truncated', 'replica.offline', 'highWatermark.advanced']);
const MAX_EVENTS = 2000;

export type TruncationEvent = Extract<EngineEvent, { type: 'replica.truncated' }>;

export interface ReplicaRow {
  brokerId: number;
  leader: boolean;
  inIsr: boolean;
  /** The replica's own log as its broker sees it; null where the connection does not report it (an external cluster). */
  log: { logEndOffset: number; highWatermark: number; flushedOffset: number; logStartOffset: number } | null;
  broker: ReturnType<typeof useBrokersStore>['brokers'][number] | undefined;
}

export interface TruncationRow {
  event: TruncationEvent;
  /** Offsets [toOffset, fromOffset) removed on that replica. */
  removed: number;
  /** Acknowledged records of this session in the removed range. */
  acknowledged: AcknowledgedRecord[];
}

export interface WatchedSettings {
  minInsyncReplicas: string;
  uncleanLeaderElection: string;
  flushMessages: string;
  flushMs: string;
}

const eventKey = (e: EngineEvent) => JSON.stringify(e);

export const useDrillsStore = defineStore('drills', () => {
  const call: Call = <M extends MethodName>(m: M, input: MethodInput<M>) => client().result(m, input);
  const topicsStore = useTopicsStore();
  const brokersStore = useBrokersStore();
  const ledger = useAcknowledgedStore();

  const watched = shallowRef<{ topic: string; partition: number } | null>(null);
  const watchedTopic = shallowRef<TopicStore | null>(null);
  const watchedConfigs = shallowRef<ResourceConfigsStore | null>(null);
  const loading = ref(false);
  const lossCheck = shallowRef<AcknowledgedCheck | null>(null);
  const checkingLoss = ref(false);
  const lastProduce = shallowRef<{ acks: Acks; count: number; result: ProduceResultView } | null>(null);
  const producing = ref(false);
  const creating = ref(false);
  /** Leases while the page shows; `watchedLeases` follow the watched topic. */
  let leases: (() => void)[] | null = null;
  let watchedLeases: (() => void)[] = [];

  /** Arrival order of each event: the engine emits a cause before its effects, often in the same millisecond. */
  const order = new Map<string, number>();
  let arrivals = 0;
  /** Cluster time the watched topic was created: the timeline starts there (older events are another story). */
  const since = ref<number | null>(null);
  const timelineQuery = useLiveQuery<EngineEvent[]>({
    name: 'drills timeline',
    initial: [],
    read: async () => addEvents(await client().call('events.recent', { types: TIMELINE_TYPES, limit: 1000 })),
    onEvent(e) {
      if (TIMELINE_SET.has(e.type)) timelineQuery.data.value = addEvents([e]);
      if ((e.type === 'replica.truncated' || e.type === 'leader.changed') && isWatched(e) && (e.type === 'replica.truncated' || truncations.value.length > 0)) checkSoon();
    },
  });


  // ---- what the page shows
  const topics = computed(() => topicsStore.topics);
  const brokers = computed(() => brokersStore.brokers);
  const topic = computed<TopicView | null>(() => watchedTopic.value?.topic ?? null);
  const error = computed(() => watchedTopic.value?.error ?? brokersStore.error ?? topicsStore.error ?? null);
  const settings = computed<WatchedSettings | null>(() => {
    const c = watchedConfigs.value;
    if (!c?.loaded) return null;
    const v = (k: string) => c.value(k) ?? '';
    return { minInsyncReplicas: v('min.insync.replicas'), uncleanLeaderElection: v('unclean.leader.election.enable'), flushMessages: v('flush.messages'), flushMs: v('flush.ms') };
  });
  const events = timelineQuery.data;
  const acknowledged = computed(() => ledger.records);
  /** Broker id → the action in flight on it. */
  const pending = computed(() => brokersStore.pending);

  /** Why the replicas' own logs are not shown (the connection does not report them), or null. */
  const replicaStatesUnavailable = computed(() => topic.value?.unavailable?.replicaStates ?? null);
  const partition = computed<PartitionView | null>(() => topic.value?.partitions.find((p) => p.partition === watched.value?.partition) ?? null);

  const replicas = computed<ReplicaRow[]>(() => {
    const p = partition.value;
    if (!p) return [];
    return p.replicas.map((id) => {
      const s = p.replicaStates.find((r) => r.brokerId === id);
      return {
        brokerId: id,
        leader: p.leader === id,
        inIsr: p.isr.includes(id),
        log: s ? { logEndOffset: s.logEndOffset, highWatermark: s.highWatermark, flushedOffset: s.flushedOffset, logStartOffset: s.logStartOffset } : null,
        broker: brokersStore.byId.get(id),
      };
    });
  });

  function isWatched(e: EngineEvent): boolean {
    const w = watched.value;
    if (!w || !('topic' in e) || !('partition' in e)) return false;
    return (e.topic === w.topic || (topic.value !== null && e.topic === topic.value.topicId)) && e.partition === w.partition;
  }

  /** Newest first: the watched partition's events plus broker and controller events, since the watched topic was created. */
  const timeline = computed(() => events.value.filter((e) => (since.value === null || e.atMs >= since.value) && (!PARTITION_EVENTS.has(e.type) || isWatched(e))));

  const truncations = computed<TruncationRow[]>(() =>
    timeline.value
      .filter((e): e is TruncationEvent => e.type === 'replica.truncated')
      .map((event) => ({
        event,
        removed: event.fromOffset - event.toOffset,
        acknowledged: removedByTruncation(ledger.records, event, watched.value?.topic ?? ''),
      })),
  );
  const uncleanElections = computed(() => timeline.value.filter((e) => e.type === 'leader.changed' && e.unclean));
  const acknowledgedHere = computed(() => ledger.records.filter((a) => a.topic === watched.value?.topic && a.partition === watched.value?.partition));
  const lostOffsets = computed(() => new Set((lossCheck.value?.lost ?? []).map((r) => r.offset)));

  // ---- loading
  async function loadTopics(): Promise<void> {
    await topicsStore.refresh();
  }

  /** Re-read the brokers and the watched topic. */
  async function refresh(): Promise<void> {
    await Promise.all([brokersStore.refresh(), watchedTopic.value?.refresh()]);
  }

  /**
   * The timeline with these events (oldest first, as the engine emitted them) added once each,
   * newest first, bounded. Events of one millisecond keep the engine's order reversed, so an
   * effect shows above its cause, never below it.
   */
  function addEvents(list: EngineEvent[]): EngineEvent[] {
    const fresh = list.filter((e) => TIMELINE_SET.has(e.type) && !order.has(eventKey(e)));
    if (fresh.length === 0) return timelineQuery.data.value;
    for (const e of fresh) order.set(eventKey(e), arrivals++);
    const rank = (e: EngineEvent): number => order.get(eventKey(e)) ?? 0;
    const kept = [...fresh, ...timelineQuery.data.value].sort((a, b) => b.atMs - a.atMs || rank(b) - rank(a)).slice(0, MAX_EVENTS);
    if (order.size > MAX_EVENTS * 2) {
      const keep = new Set(kept.map(eventKey));
      for (const k of [...order.keys()]) if (!keep.has(k)) order.delete(k);
    }
    return kept;
  }

  /** When `name` was (last) created, from the recent events; null when they no longer say. */
  async function createdAt(name: string): Promise<number | null> {
    const r = await call('events.recent', { types: ['topic.created'], limit: 5000 });
    if (!r.ok) return null;
    const e = [...r.value].reverse().find((x) => x.type === 'topic.created' && x.topic === name);
    return e ? e.atMs : null;
  }

  function followWatched(): void {
    for (const release of watchedLeases) release();
    watchedLeases = leases && watchedTopic.value && watchedConfigs.value ? [watchedTopic.value.acquire(), watchedConfigs.value.acquire()] : [];
  }

  /** Watch a partition: read it and its settings. */
  async function watch(name: string, partitionId = 0): Promise<void> {
    watched.value = { topic: name, partition: partitionId };
    since.value = null;
    void createdAt(name).then((t) => {
      if (watched.value?.topic === name) since.value = t;
    });
    watchedTopic.value = useTopicStore(name);
    watchedConfigs.value = useResourceConfigsStore({ type: 'topic', name });
    lossCheck.value = null;
    followWatched();
    loading.value = true;
    try {
      await Promise.all([refresh(), watchedConfigs.value.refresh()]);
    } finally {
      loading.value = false;
    }
  }

  function unwatch(): void {
    watched.value = null;
    since.value = null;
    watchedTopic.value = null;
    watchedConfigs.value = null;
    lossCheck.value = null;
    followWatched();
  }

  // ---- live updates
  let checkTimer: ReturnType<typeof setTimeout> | null = null;
  function checkSoon(): void {
    if (checkTimer !== null) return;
    checkTimer = setTimeout(() => {
      checkTimer = null;
      if (leases) void checkLoss({ quiet: true });
    }, 500);
  }

  /** Follow the topic list, the brokers, the watched topic and the timeline while the page shows (seeded from `events.recent`). Idempotent. */
  async function start(): Promise<void> {
    if (leases) return;
    leases = [topicsStore.acquire(), brokersStore.acquire(), timelineQuery.acquire()];
    followWatched();
    await Promise.all([loadTopics(), refresh(), timelineQuery.refresh()]);
  }

  function stop(): void {
    for (const release of leases ?? []) release();
    leases = null;
    followWatched();
    if (checkTimer !== null) clearTimeout(checkTimer);
    checkTimer = null;
  }

  // ---- actions
  async function createDrillTopic(): Promise<string | null> {
    creating.value = true;
    try {
      const t = await createTopic(call, { 'min.insync.replicas': '2' });
      notifySuccess(`Created ${t.name} (RF 3, min.insync.replicas 2)`);
      await loadTopics();
      await watch(t.name, 0);
      return t.name;
    } catch (e) {
      notifyError(e, 'Create drill topic');
      return null;
    } finally {
      creating.value = false;
    }
  }

  /** A fault (or restart) on one broker, through the shared brokers store's action table. */
  async function fault(brokerId: number, action: BrokerAction): Promise<boolean> {
    const ok = await brokersStore.perform(action, brokerId);
    if (ok) void refresh();
    return ok;
  }

  let manualBatches = 0;
  /** Produce `count` records to the watched partition; acknowledged ones join the session's ledger for the loss check. */
  async function produce(acks: Acks, count: number): Promise<ProduceResultView | null> {
    const w = watched.value;
    if (!w) return null;
    producing.value = true;
    const batch = ++manualBatches;
    const values = Array.from({ length: Math.max(1, Math.floor(count)) }, (_, i) => `${w.topic}/drill-batch-${batch}/${i}`);
    try {
      const result = await client().call('records.produce', { topic: w.topic, partition: w.partition, acks, records: values.map((value) => ({ value })), timeoutMs: 30_000 });
      lastProduce.value = { acks, count: values.length, result };
      ledger.note(acknowledgedRecords(w.topic, acks, result, values));
      if (result.errorCode !== 'NONE') notifyError(new ClientError({ code: result.errorCode, message: result.errorMessage ?? '', retriable: false }, 'records.produce'), 'Produce');
      void refresh();
      return result;
    } catch (e) {
      notifyError(e, 'Produce');
      return null;
    } finally {
      producing.value = false;
    }
  }

  /** Read the watched partition back from its leader and compare every acknowledged record. */
  async function checkLoss(opts: { quiet?: boolean } = {}): Promise<AcknowledgedCheck | null> {
    const w = watched.value;
    if (!w) return null;
    checkingLoss.value = true;
    try {
      const r = await checkAcknowledged(call, w.topic, w.partition, ledger.records);
      if (watched.value === w) lossCheck.value = r;
      return r;
    } catch (e) {
      if (!opts.quiet) notifyError(e, 'Check acknowledged records');
      return null;
    } finally {
      checkingLoss.value = false;
    }
  }

  return {
    topics,
    watched,
    topic,
    settings,
    brokers,
    loading,
    error,
    events,
    acknowledged,
    acknowledgedHere,
    lossCheck,
    lostOffsets,
    checkingLoss,
    lastProduce,
    producing,
    pending,
    creating,
    partition,
    replicaStatesUnavailable,
    replicas,
    timeline,
    truncations,
    uncleanElections,
    loadTopics,
    refresh,
    watch,
    unwatch,
    start,
    stop,
    createDrillTopic,
    fault,
    produce,
    checkLoss,
  };
});
