/**
 * The drills page: one watched partition (its replicas' LEO, HW, flushed offset and ISR
 * membership, refreshed on its events and by a short poll), faults per broker, a producer whose
 * acknowledged records are kept for this session, the timeline of controller decisions and replica
 * events, the data lost by truncations, and the scripted scenarios run step by step.
 *
 * The engine stays the source of truth: every number shown comes from `topics.describe` /
 * `brokers.list` / the event stream; "lost" is decided by reading the partition back from its
 * leader and comparing acknowledged values, never inferred.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { BrokerView, EngineEvent, EventName, MethodInput, MethodName, PartitionView, ProduceResultView, TopicSummaryView, TopicView } from '../../../app/api/contract.js';
import { ClientError } from '../api/client.js';
import { client } from '../api/instance.js';
import { throttle } from '../lib/debounce.js';
import {
  SCENARIOS,
  applyFault,
  checkAcknowledged,
  newContext,
  nextDrillTopicName,
  removedByTruncation,
  stampAcknowledged,
  runStep,
  scenarioById,
  type AcknowledgedCheck,
  type AcknowledgedRecord,
  type Acks,
  type Call,
  type DrillContext,
  type FaultKind,
  FAULT_LABELS,
  type StepResult,
} from '../lib/drill-scenarios.js';
import { notifyError, notifySuccess } from '../lib/notify.js';
import { useConnectionStore } from './connection.js';

/** Events the timeline shows. */
export const TIMELINE_TYPES: EventName[] = ['leader.changed', 'isr.shrunk', 'isr.expanded', 'broker.stateChanged', 'controller.changed', 'replica.truncated', 'replica.offline', 'broker.storageFailed'];
const TIMELINE_SET = new Set<string>(TIMELINE_TYPES);
const PARTITION_EVENTS = new Set<string>(['leader.changed', 'isr.shrunk', 'isr.expanded', 'replica.truncated', 'replica.offline', 'highWatermark.advanced']);
const MAX_EVENTS = 2000;
const MAX_ACKNOWLEDGED = 20_000;
const POLL_MS = 1000;

export type TruncationEvent = Extract<EngineEvent, { type: 'replica.truncated' }>;

export interface ReplicaRow {
  brokerId: number;
  leader: boolean;
  inIsr: boolean;
  logEndOffset: number;
  highWatermark: number;
  flushedOffset: number;
  logStartOffset: number;
  broker: BrokerView | undefined;
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

const FAULT_METHOD: Record<FaultKind, MethodName> = {
  stop: 'brokers.stop',
  kill: 'brokers.kill',
  powerLoss: 'brokers.powerLoss',
  isolate: 'brokers.isolate',
  heal: 'brokers.heal',
  stall: 'brokers.stallFollower',
  unstall: 'brokers.stallFollower',
  start: 'brokers.start',
};

const eventKey = (e: EngineEvent) => JSON.stringify(e);

export const useDrillsStore = defineStore('drills', () => {
  const call: Call = <M extends MethodName>(m: M, input: MethodInput<M>) => client().result(m, input);

  const topics = shallowRef<TopicSummaryView[]>([]);
  const watched = shallowRef<{ topic: string; partition: number } | null>(null);
  const topic = shallowRef<TopicView | null>(null);
  const settings = shallowRef<WatchedSettings | null>(null);
  const brokers = shallowRef<BrokerView[]>([]);
  const loading = ref(false);
  const error = shallowRef<unknown>(null);
  const events = shallowRef<EngineEvent[]>([]);
  const seen = new Set<string>();
  const acknowledged = shallowRef<AcknowledgedRecord[]>([]);
  const lossCheck = shallowRef<AcknowledgedCheck | null>(null);
  const checkingLoss = ref(false);
  const lastProduce = shallowRef<{ acks: Acks; count: number; result: ProduceResultView } | null>(null);
  const producing = ref(false);
  /** `<brokerId>:<fault>` while a fault call is in flight. */
  const busy = ref<string | null>(null);
  const creating = ref(false);

  // ---- scenario runner
  const scenarioId = ref(SCENARIOS[0]!.id);
  const stepResults = shallowRef<(StepResult | null)[]>([]);
  const stepIndex = ref(0);
  const runningStep = ref<number | null>(null);
  const runningAll = ref(false);
  let ctx: DrillContext | null = null;
  let stopRequested = false;

  const scenario = computed(() => scenarioById(scenarioId.value) ?? SCENARIOS[0]!);
  const scenarioDone = computed(() => stepIndex.value >= scenario.value.steps.length);

  // ---- derived views of the watched partition
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
        logEndOffset: s?.logEndOffset ?? 0,
        highWatermark: s?.highWatermark ?? 0,
        flushedOffset: s?.flushedOffset ?? 0,
        logStartOffset: s?.logStartOffset ?? 0,
        broker: brokers.value.find((b) => b.id === id),
      };
    });
  });

  function isWatched(e: EngineEvent): boolean {
    const w = watched.value;
    if (!w || !('topic' in e) || !('partition' in e)) return false;
    // Power-loss truncations name the topic by its id.
    return (e.topic === w.topic || (topic.value !== null && e.topic === topic.value.topicId)) && e.partition === w.partition;
  }

  /** Newest first: the watched partition's events plus broker and controller events. */
  const timeline = computed(() => events.value.filter((e) => !PARTITION_EVENTS.has(e.type) || isWatched(e)));

  const truncations = computed<TruncationRow[]>(() =>
    timeline.value
      .filter((e): e is TruncationEvent => e.type === 'replica.truncated')
      .map((event) => ({
        event,
        removed: event.fromOffset - event.toOffset,
        acknowledged: removedByTruncation(acknowledged.value, event, watched.value?.topic ?? ''),
      })),
  );
  const uncleanElections = computed(() => timeline.value.filter((e) => e.type === 'leader.changed' && e.unclean));
  const acknowledgedHere = computed(() => acknowledged.value.filter((a) => a.topic === watched.value?.topic && a.partition === watched.value?.partition));
  const lostOffsets = computed(() => new Set((lossCheck.value?.lost ?? []).map((r) => r.offset)));

  // ---- loading
  async function loadTopics(): Promise<void> {
    try {
      topics.value = await client().call('topics.list', {});
    } catch (e) {
      error.value = e;
    }
  }

  async function refresh(): Promise<void> {
    const w = watched.value;
    try {
      const [b, t] = await Promise.all([client().call('brokers.list', {}), w ? client().call('topics.describe', { name: w.topic }) : Promise.resolve(null)]);
      brokers.value = b;
      if (w && watched.value === w) topic.value = t;
      error.value = null;
    } catch (e) {
      error.value = e;
    }
  }

  async function loadSettings(name: string): Promise<void> {
    try {
      const entries = await client().call('configs.describe', { resource: { type: 'topic', name } });
      const v = (k: string) => entries.find((c) => c.name === k)?.value ?? '';
      settings.value = { minInsyncReplicas: v('min.insync.replicas'), uncleanLeaderElection: v('unclean.leader.election.enable'), flushMessages: v('flush.messages'), flushMs: v('flush.ms') };
    } catch {
      settings.value = null;
    }
  }

  function addEvents(list: EngineEvent[]): void {
    const fresh = list.filter((e) => TIMELINE_SET.has(e.type) && !seen.has(eventKey(e)));
    if (fresh.length === 0) return;
    for (const e of fresh) seen.add(eventKey(e));
    events.value = [...fresh, ...events.value].sort((a, b) => b.atMs - a.atMs).slice(0, MAX_EVENTS);
  }

  /** Watch a partition: read it, its settings and (once) the recent history. */
  async function watch(name: string, partitionId = 0): Promise<void> {
    watched.value = { topic: name, partition: partitionId };
    topic.value = null;
    settings.value = null;
    lossCheck.value = null;
    loading.value = true;
    try {
      await Promise.all([refresh(), loadSettings(name)]);
    } finally {
      loading.value = false;
    }
  }

  function unwatch(): void {
    watched.value = null;
    topic.value = null;
    settings.value = null;
    lossCheck.value = null;
  }

  // ---- live updates
  let offEvents: (() => void) | undefined;
  let offReconnect: (() => void) | undefined;
  let poll: ReturnType<typeof setInterval> | undefined;
  const soon = throttle(() => void refresh(), 200);
  const checkSoon = throttle(() => void checkLoss({ quiet: true }), 500);

  function onEvent(e: EngineEvent): void {
    if (TIMELINE_SET.has(e.type)) addEvents([e]);
    if (PARTITION_EVENTS.has(e.type) ? isWatched(e) : e.type === 'broker.stateChanged') soon();
    if ((e.type === 'replica.truncated' || e.type === 'leader.changed') && isWatched(e) && (e.type === 'replica.truncated' || truncations.value.length > 0)) checkSoon();
  }

  /** Follow the event stream and poll; seeds the timeline from `events.recent`. Idempotent. */
  async function start(): Promise<void> {
    if (offEvents) return;
    const connection = useConnectionStore();
    offEvents = connection.on(onEvent);
    offReconnect = connection.onReconnect(() => void refresh());
    poll = setInterval(() => void refresh(), POLL_MS);
    await Promise.all([loadTopics(), refresh(), seedHistory()]);
  }

  async function seedHistory(): Promise<void> {
    const r = await call('events.recent', { types: TIMELINE_TYPES, limit: 1000 });
    if (r.ok) addEvents(r.value);
  }

  function stop(): void {
    offEvents?.();
    offReconnect?.();
    if (poll) clearInterval(poll);
    offEvents = offReconnect = poll = undefined;
  }

  // ---- actions
  async function createDrillTopic(): Promise<string | null> {
    creating.value = true;
    try {
      const name = nextDrillTopicName((await client().call('topics.list', {})).map((t) => t.name));
      const t = await client().call('topics.create', { name, partitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
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

  async function fault(brokerId: number, kind: FaultKind): Promise<boolean> {
    busy.value = `${brokerId}:${kind}`;
    try {
      const r = await applyFault(call, brokerId, kind);
      if (!r.ok) {
        notifyError(new ClientError(r.error, FAULT_METHOD[kind]), `${FAULT_LABELS[kind]} on broker ${brokerId}`);
        return false;
      }
      brokers.value = brokers.value.map((b) => (b.id === brokerId ? r.value : b));
      void refresh();
      return true;
    } finally {
      busy.value = null;
    }
  }

  function noteAcknowledged(records: AcknowledgedRecord[]): void {
    if (records.length === 0) return;
    acknowledged.value = [...acknowledged.value, ...records].slice(-MAX_ACKNOWLEDGED);
  }

  let manualBatches = 0;
  /** Produce `count` records to the watched partition; acknowledged ones are kept for the loss check. */
  async function produce(acks: Acks, count: number): Promise<ProduceResultView | null> {
    const w = watched.value;
    if (!w) return null;
    producing.value = true;
    const batch = ++manualBatches;
    const values = Array.from({ length: Math.max(1, Math.floor(count)) }, (_, i) => `${w.topic}/drill-batch-${batch}/${i}`);
    try {
      const result = await client().call('records.produce', { topic: w.topic, partition: w.partition, acks, records: values.map((value) => ({ value })), timeoutMs: 30_000 });
      lastProduce.value = { acks, count: values.length, result };
      if (result.errorCode === 'NONE' && acks !== 0) {
        noteAcknowledged(await stampAcknowledged(call, values.map((value, i) => ({ topic: w.topic, partition: w.partition, offset: result.baseOffset + i, value, acks }))));
      } else if (result.errorCode !== 'NONE') {
        notifyError(new ClientError({ code: result.errorCode, message: result.errorMessage ?? '', retriable: false }, 'records.produce'), 'Produce');
      }
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
      const r = await checkAcknowledged(call, w.topic, w.partition, acknowledged.value);
      if (watched.value === w) lossCheck.value = r;
      return r;
    } catch (e) {
      if (!opts.quiet) notifyError(e, 'Check acknowledged records');
      return null;
    } finally {
      checkingLoss.value = false;
    }
  }

  // ---- scenarios
  function selectScenario(id: string): void {
    if (runningStep.value !== null) return;
    scenarioId.value = id;
    resetScenario();
  }

  function resetScenario(): void {
    if (runningStep.value !== null) return;
    stepResults.value = [];
    stepIndex.value = 0;
    ctx = null;
  }

  /** Run the next step; resolves with its result. */
  async function next(): Promise<StepResult | null> {
    if (runningStep.value !== null || scenarioDone.value) return null;
    const steps = scenario.value.steps;
    const index = stepIndex.value;
    if (index === 0 || !ctx) {
      stopRequested = false;
      ctx = newContext(call, {
        stopped: () => stopRequested,
        onTopic: (name, p) => {
          void loadTopics();
          void watch(name, p);
        },
        onAcknowledged: noteAcknowledged,
      });
    }
    runningStep.value = index;
    try {
      const result = await runStep(steps[index]!, ctx);
      const results = stepResults.value.slice();
      results[index] = result;
      stepResults.value = results;
      stepIndex.value = index + 1;
      void refresh();
      if (truncations.value.length > 0 || uncleanElections.value.length > 0) void checkLoss({ quiet: true });
      return result;
    } finally {
      runningStep.value = null;
    }
  }

  /** Run the remaining steps; stops at the first one that does not succeed (or on stop()). */
  async function runAll(): Promise<void> {
    if (runningAll.value) return;
    runningAll.value = true;
    stopRequested = false;
    try {
      while (!scenarioDone.value && !stopRequested) {
        const r = await next();
        if (!r || r.status !== 'ok') break;
      }
    } finally {
      runningAll.value = false;
    }
  }

  function stopScenario(): void {
    stopRequested = true;
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
    busy,
    creating,
    partition,
    replicas,
    timeline,
    truncations,
    uncleanElections,
    scenarioId,
    scenario,
    scenarioDone,
    stepResults,
    stepIndex,
    runningStep,
    runningAll,
    loadTopics,
    refresh,
    watch,
    unwatch,
    start,
    stop,
    createDrillTopic,
    fault,
    produce,
    noteAcknowledged,
    checkLoss,
    selectScenario,
    resetScenario,
    next,
    runAll,
    stopScenario,
  };
});
