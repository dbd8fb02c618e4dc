/**
 * One topic as its detail page shows it: the topic and its partitions (`topics.describe`), the
 * brokers' states, the topic's configs (`configs.describe`), the broker's replica.lag.time.max.ms,
 * the durability explainer per acks, and this topic's recent events. The engine stays the
 * source of truth: every action calls the typed client and re-reads.
 *
 * Live: while `live(true)`, events of this topic (high watermark, ISR, leader, truncation,
 * reassignment, config) and broker state changes trigger a throttled re-read, and a 1 s poll
 * runs as a fallback (the page turns it off while hidden). No DOM access, so it runs in Node.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type {
  BrokerView,
  ConfigEntryView,
  DurabilityView,
  EngineEvent,
  ReplicationFactorChangeView,
  TopicView,
} from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { ClientError } from '../api/client.js';
import { explainPartition, type PartitionExplanation } from '../components/topic-detail/partition-explainer.js';
import { throttle } from '../lib/debounce.js';
import { notifyError, notifySuccess } from '../lib/notify.js';
import { useConnectionStore } from './connection.js';

/** Events listed on the page (high-watermark moves are too frequent: they only refresh the bars). */
const LISTED: ReadonlySet<EngineEvent['type']> = new Set([
  'isr.shrunk',
  'isr.expanded',
  'leader.changed',
  'replica.truncated',
  'replica.offline',
  'reassignment.changed',
  'partitions.added',
  'config.changed',
  'topic.created',
  'broker.stateChanged',
]);
const EVENT_CAP = 400;

/** The producer acks the durability explainer takes. */
export type Acks = 0 | 1 | 'all';
const POLL_MS = 1000;
const THROTTLE_MS = 200;

/** The topic an event is about, or null for cluster-wide events. */
function topicOf(e: EngineEvent): string | null {
  if ('topic' in e) return e.topic;
  if (e.type === 'config.changed' && e.resourceType === 'topic') return e.resourceName;
  return null;
}

export const useTopicDetailStore = defineStore('topic-detail', () => {
  const name = ref<string | null>(null);
  const topic = shallowRef<TopicView | null>(null);
  const brokers = shallowRef<BrokerView[]>([]);
  const loading = ref(false);
  /** The last failure to read the topic (not-found is `notFound`). */
  const error = shallowRef<unknown>(null);
  const notFound = ref(false);
  const configs = shallowRef<ConfigEntryView[] | null>(null);
  const configsError = shallowRef<unknown>(null);
  const replicaLagTimeMaxMs = ref<number | null>(null);
  const durability = shallowRef<DurabilityView | null>(null);
  const durabilityError = shallowRef<unknown>(null);
  const events = shallowRef<EngineEvent[]>([]);
  /** Engine time of the last successful read. */
  const updatedAt = ref<number | null>(null);

  let generation = 0;
  let inflight: Promise<void> | null = null;
  let again = false;
  let poll: ReturnType<typeof setInterval> | undefined;
  let offEvents: (() => void) | undefined;
  let offReconnect: (() => void) | undefined;

  const brokerMap = computed(() => new Map(brokers.value.map((b) => [b.id, b])));
  const configValue = (key: string): string | undefined => configs.value?.find((c) => c.name === key)?.value ?? topic.value?.configs[key];
  const minInsyncReplicas = computed(() => Number(configValue('min.insync.replicas') ?? '1') || 1);
  const uncleanLeaderElectionEnable = computed(() => configValue('unclean.leader.election.enable') === 'true');
  const partitionCount = computed(() => topic.value?.partitions.length ?? 0);
  /** Kafka's notion: partition 0's replica count without the replicas a reassignment adds. */
  const replicationFactor = computed(() => {
    const p = topic.value?.partitions[0];
    return p ? p.replicas.length - p.addingReplicas.length : 0;
  });

  const explanations = computed(() => {
    const out = new Map<number, PartitionExplanation>();
    const t = topic.value;
    if (!t) return out;
    const ctx = {
      brokers: brokerMap.value,
      minInsyncReplicas: minInsyncReplicas.value,
      uncleanLeaderElectionEnable: uncleanLeaderElectionEnable.value,
      replicaLagTimeMaxMs: replicaLagTimeMaxMs.value,
      events: events.value,
    };
    for (const p of t.partitions) out.set(p.partition, explainPartition(p, ctx));
    return out;
  });

  const health = computed(() => {
    let offline = 0;
    let underReplicated = 0;
    let underMinIsr = 0;
    let lagging = 0;
    for (const x of explanations.value.values()) {
      if (x.flags.includes('lagging')) lagging++;
      if (x.flags.includes('offline')) offline++;
      if (x.flags.includes('under-replicated')) underReplicated++;
      if (x.flags.includes('under-min-isr')) underMinIsr++;
    }
    return { offline, underReplicated, underMinIsr, lagging, healthy: offline + underReplicated + underMinIsr === 0 };
  });

  function isNotFound(e: unknown): boolean {
    return e instanceof ClientError && (e.code === 'UNKNOWN_TOPIC_OR_PARTITION' || e.code === 'UNKNOWN_TOPIC_ID');
  }

  function addEvents(incoming: EngineEvent[]): void {
    if (!incoming.length) return;
    const seen = new Set(events.value.map((e) => JSON.stringify(e)));
    const next = events.value.slice();
    for (const e of incoming) {
      const key = JSON.stringify(e);
      if (seen.has(key)) continue;
      seen.add(key);
      next.push(e);
    }
    next.sort((a, b) => a.atMs - b.atMs);
    events.value = next.length > EVENT_CAP ? next.slice(-EVENT_CAP) : next;
  }

  /** Whether an event belongs on this topic's list. */
  function concerns(e: EngineEvent): boolean {
    if (!LISTED.has(e.type)) return false;
    if (e.type === 'broker.stateChanged') {
      const t = topic.value;
      return !!t && t.partitions.some((p) => p.replicas.includes(e.brokerId));
    }
    return topicOf(e) === name.value;
  }

  /** Re-read the topic and the brokers (coalesced: one read in flight, at most one queued). */
  async function refresh(): Promise<void> {
    if (inflight) {
      again = true;
      return inflight;
    }
    const run = async (): Promise<void> => {
      do {
        again = false;
        const gen = generation;
        const topicName = name.value;
        if (!topicName) return;
        try {
          const [t, b, clock] = await Promise.all([
            client().call('topics.describe', { name: topicName }),
            client().call('brokers.list', {}),
            client().call('clock.get', {}),
          ]);
          if (gen !== generation) return;
          topic.value = t;
          brokers.value = b;
          updatedAt.value = clock.nowMs;
          error.value = null;
          notFound.value = false;
        } catch (e) {
          if (gen !== generation) return;
          if (isNotFound(e)) {
            notFound.value = true;
            topic.value = null;
            error.value = null;
          } else {
            error.value = e;
          }
        }
      } while (again);
    };
    inflight = run().finally(() => (inflight = null));
    return inflight;
  }

  async function refreshConfigs(): Promise<void> {
    const topicName = name.value;
    if (!topicName) return;
    const gen = generation;
    try {
      const [topicConfigs, brokerConfigs] = await Promise.all([
        client().call('configs.describe', { resource: { type: 'topic', name: topicName } }),
        client().call('configs.describe', { resource: { type: 'broker', name: '' } }),
      ]);
      if (gen !== generation) return;
      configs.value = topicConfigs;
      const lag = brokerConfigs.find((c) => c.name === 'replica.lag.time.max.ms');
      replicaLagTimeMaxMs.value = lag ? Number(lag.value) : null;
      configsError.value = null;
    } catch (e) {
      if (gen !== generation) return;
      if (isNotFound(e)) notFound.value = true;
      else configsError.value = e;
    }
  }

  async function loadEvents(): Promise<void> {
    const gen = generation;
    try {
      const recent = await client().call('events.recent', { limit: 5000, types: [...LISTED] });
      if (gen !== generation) return;
      // The topic's history starts at its (latest) creation: an older topic of the same name is another topic.
      const created = [...recent].reverse().find((e) => e.type === 'topic.created' && e.topic === name.value);
      addEvents(recent.filter((e) => concerns(e) && (!created || e.atMs >= created.atMs)));
    } catch {
      // The list is a convenience: live events still arrive.
    }
  }

  /** Open a topic: read it, its configs and its recent events. Idempotent for the same name. */
  async function open(topicName: string): Promise<void> {
    if (name.value !== topicName) {
      generation++;
      name.value = topicName;
      topic.value = null;
      configs.value = null;
      durability.value = null;
      events.value = [];
      error.value = null;
      configsError.value = null;
      durabilityError.value = null;
      notFound.value = false;
      updatedAt.value = null;
    }
    loading.value = true;
    try {
      await refresh();
      if (!notFound.value) await Promise.all([refreshConfigs(), loadEvents()]);
    } finally {
      loading.value = false;
    }
  }

  const soon = throttle(() => void refresh(), THROTTLE_MS);
  const configsSoon = throttle(() => void refreshConfigs(), THROTTLE_MS);

  function onEvent(e: EngineEvent): void {
    if (!name.value) return;
    if (concerns(e)) addEvents([e]);
    if (e.type === 'topic.deleted' && e.topic === name.value) {
      notFound.value = true;
      topic.value = null;
      return;
    }
    if (e.type === 'topic.created' && e.topic === name.value) {
      void open(e.topic);
      return;
    }
    if (e.type === 'broker.stateChanged' || e.type === 'controller.changed') soon();
    else if (topicOf(e) === name.value && e.type !== 'config.changed') soon();
    if (e.type === 'config.changed' && (e.resourceType === 'broker' || e.resourceName === name.value)) configsSoon();
  }

  /** Live updates on (events + 1 s poll) or off (the page is hidden or gone). */
  function live(on: boolean): void {
    if (on) {
      if (!offEvents) {
        const connection = useConnectionStore();
        offEvents = connection.on(onEvent);
        offReconnect = connection.onReconnect(() => {
          void refresh();
          void refreshConfigs();
          void loadEvents();
        });
      }
      if (!poll) poll = setInterval(() => void refresh(), POLL_MS);
    } else {
      if (poll) clearInterval(poll);
      poll = undefined;
      offEvents?.();
      offReconnect?.();
      offEvents = undefined;
      offReconnect = undefined;
    }
  }

  /** The page left: stop live updates and forget the topic. */
  function close(): void {
    live(false);
    generation++;
    name.value = null;
    topic.value = null;
  }

  async function loadDurability(acks: Acks): Promise<void> {
    const topicName = name.value;
    if (!topicName) return;
    const gen = generation;
    try {
      const d = await client().call('topics.durability', { name: topicName, acks });
      if (gen !== generation) return;
      durability.value = d;
      durabilityError.value = null;
    } catch (e) {
      if (gen === generation) durabilityError.value = e;
    }
  }

  /** Check a config value without changing anything: the engine's error message, or null when valid. */
  async function validateConfig(key: string, value: string | null): Promise<string | null> {
    const topicName = name.value;
    if (!topicName) return null;
    const r = await client().result('configs.alter', { resource: { type: 'topic', name: topicName }, set: { [key]: value }, validateOnly: true });
    return r.ok ? null : `${r.error.code}: ${r.error.message}`;
  }

  /** Set a topic config (value) or delete its override (null). */
  async function alterConfig(key: string, value: string | null): Promise<boolean> {
    const topicName = name.value;
    if (!topicName) return false;
    try {
      configs.value = await client().call('configs.alter', { resource: { type: 'topic', name: topicName }, set: { [key]: value } });
      notifySuccess(value === null ? `${key} reset to its inherited value` : `${key} = ${value}`);
      void refresh();
      return true;
    } catch (e) {
      notifyError(e, value === null ? `Reset ${key}` : `Set ${key}`);
      return false;
    }
  }

  /** Grow the topic; `validateOnly` returns the topic as it would become. Throws ClientError. */
  async function addPartitions(totalCount: number, validateOnly = false): Promise<TopicView> {
    const topicName = name.value ?? '';
    const t = await client().call('partitions.add', { topic: topicName, totalCount, validateOnly });
    if (!validateOnly) await refresh();
    return t;
  }

  /** The reassignment a replication-factor change makes (`validateOnly`), or run it. Throws ClientError. */
  async function changeReplicationFactor(replicationFactor: number, validateOnly: boolean): Promise<ReplicationFactorChangeView> {
    const topicName = name.value ?? '';
    const plan = await client().call('topics.setReplicationFactor', { topic: topicName, replicationFactor, validateOnly });
    if (!validateOnly) await refresh();
    return plan;
  }

  /** Delete the topic. Throws ClientError. */
  async function deleteTopic(): Promise<void> {
    const topicName = name.value ?? '';
    await client().call('topics.delete', { name: topicName });
    notFound.value = true;
    topic.value = null;
  }

  /** The quick drill: kill a broker (its process dies; what it wrote survives). */
  async function killBroker(brokerId: number): Promise<boolean> {
    try {
      await client().call('brokers.kill', { brokerId });
      notifySuccess(`Broker ${brokerId} killed: watch the controller fence it and move its leaderships`);
      void refresh();
      return true;
    } catch (e) {
      notifyError(e, `Kill broker ${brokerId}`);
      return false;
    }
  }

  return {
    name,
    topic,
    brokers,
    brokerMap,
    loading,
    error,
    notFound,
    configs,
    configsError,
    replicaLagTimeMaxMs,
    durability,
    durabilityError,
    events,
    updatedAt,
    minInsyncReplicas,
    uncleanLeaderElectionEnable,
    partitionCount,
    replicationFactor,
    explanations,
    health,
    open,
    close,
    refresh,
    refreshConfigs,
    live,
    loadDurability,
    validateConfig,
    alterConfig,
    addPartitions,
    changeReplicationFactor,
    deleteTopic,
    killBroker,
  };
});
