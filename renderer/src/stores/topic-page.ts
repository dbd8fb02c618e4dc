/**
 * The topic page: one topic as the shared topic store reads it (`topics.describe`), the shared
 * brokers, its configs and the cluster-wide broker defaults (for replica.lag.time.max.ms) from the
 * shared config stores, the durability explainer per acks, and this topic's recent events. The
 * engine stays the source of truth: every action calls the typed client and re-reads.
 *
 * Live: while `live(true)` the page holds leases on those stores (events of this topic and broker
 * changes re-read them, throttled, with a 1 s poll as the topic's fallback) and follows this
 * topic's events; `live(false)` (the page is hidden) and `close()` (it is gone) release them all.
 * No DOM access, so it runs in Node.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { DurabilityView, EngineEvent, ReplicationFactorChangeView, TopicView } from '../../../app/api/contract.js';
import type { DeleteRecordsResultView } from '../../../app/api/records-delete-contract.js';
import { client } from '../api/instance.js';
import { explainPartition, partitionSignature, type PartitionExplanation } from '../lib/topic-detail/partition-explainer.js';
import { useLiveQuery, type LiveQuery } from '../composables/live-query.js';
import { notifyError, notifySuccess } from '../lib/notify.js';
import { useBrokersStore } from './brokers.js';
import { useResourceConfigsStore, type ResourceConfigsStore } from './resource-configs.js';
import { topicOf, useTopicStore, type TopicStore } from './topic.js';

/** Events listed on the page (high-watermark moves are too frequent: they only refresh the bars). */
const LISTED: ReadonlySet<EngineEvent['type']> = new Set([
  'isr.shrunk',
  'isr.expanded',
  'leader.changed',
  'replica.truncated',
  'replica.offline',
  'log.cleaned',
  'log.uncleanable',
  'reassignment.changed',
  'partitions.added',
  'config.changed',
  'topic.created',
  'broker.stateChanged',
  'controller.changed',
]);
const EVENT_CAP = 400;

/** The producer acks the durability explainer takes. */
export type Acks = 0 | 1 | 'all';

export const useTopicPageStore = defineStore('topic-page', () => {
  const brokersStore = useBrokersStore();
  const brokerDefaults = useResourceConfigsStore({ type: 'broker', name: '' });
  const name = ref<string | null>(null);
  /** The shared stores of the open topic and of its configs. */
  const current = shallowRef<TopicStore | null>(null);
  const currentConfigs = shallowRef<ResourceConfigsStore | null>(null);
  const durability = shallowRef<DurabilityView | null>(null);
  const durabilityError = shallowRef<unknown>(null);
  const opening = ref(false);
  let generation = 0;
  /** Leases held while live: on the open topic's stores (renewed when it changes) and the shared ones. */
  let topicLeases: (() => void)[] | null = null;
  let sharedLeases: (() => void)[] | null = null;

  const events: LiveQuery<EngineEvent[]> = useLiveQuery<EngineEvent[]>({
    name: 'topic-page events',
    initial: [],
    read: async () => {
      const recent = await client().call('events.recent', { limit: 5000, types: [...LISTED] });
      // The topic's history starts at its (latest) creation: an older topic of the same name is another topic.
      const created = [...recent].reverse().find((e) => e.type === 'topic.created' && e.topic === name.value);
      return merged(events.data.value, recent.filter((e) => concerns(e) && (!created || e.atMs >= created.atMs)));
    },
    onEvent(e) {
      if (name.value && concerns(e)) events.data.value = merged(events.data.value, [e]);
    },
  });

  const topic = computed<TopicView | null>(() => current.value?.topic ?? null);
  const notFound = computed(() => current.value?.notFound ?? false);
  /** The last failure to read the topic (not-found is `notFound`). */
  const error = computed(() => current.value?.error ?? null);
  const updatedAt = computed(() => current.value?.updatedAt ?? null);
  const loading = computed(() => opening.value);
  const brokers = computed(() => brokersStore.brokers);
  const brokerMap = computed(() => brokersStore.byId);
  const configs = computed(() => (currentConfigs.value?.loaded ? currentConfigs.value.entries : null));
  const configsError = computed(() => currentConfigs.value?.error ?? null);
  const replicaLagTimeMaxMs = computed(() => {
    const v = brokerDefaults.value('replica.lag.time.max.ms');
    return v === undefined ? null : Number(v);
  });
  /** How long the controller waits for a silent broker's heartbeat before fencing it (read-only, static). */
  const brokerSessionTimeoutMs = computed(() => {
    const v = brokerDefaults.value('broker.session.timeout.ms');
    return v === undefined ? null : Number(v);
  });
  const configValue = (key: string): string | undefined => configs.value?.find((c) => c.name === key)?.value ?? topic.value?.configs[key];
  const minInsyncReplicas = computed(() => Number(configValue('min.insync.replicas') ?? '1') || 1);
  const uncleanLeaderElectionEnable = computed(() => configValue('unclean.leader.election.enable') === 'true');
  const partitionCount = computed(() => topic.value?.partitions.length ?? 0);
  /** Kafka's notion: partition 0's replica count without the replicas a reassignment adds. */
  const replicationFactor = computed(() => {
    const p = topic.value?.partitions[0];
    return p ? p.replicas.length - p.addingReplicas.length : 0;
  });

  /**
   * Each partition's explanation, kept from one read to the next while neither the partition (its
   * signature) nor what the explainer reads beside it (brokers, configs, events) changed: a topic of
   * 1,000 partitions is re-read every second, and explaining them all each time cost the page
   * most of a frame (the partition table then stuttered while it scrolled).
   */
  let explained: { ctx: readonly unknown[]; byPartition: Map<number, { sig: string; x: PartitionExplanation }> } = { ctx: [], byPartition: new Map() };
  const explanations = computed(() => {
    const out = new Map<number, PartitionExplanation>();
    const t = topic.value;
    if (!t) return out;
    const ctx = {
      brokers: brokerMap.value,
      minInsyncReplicas: minInsyncReplicas.value,
      uncleanLeaderElectionEnable: uncleanLeaderElectionEnable.value,
      replicaLagTimeMaxMs: replicaLagTimeMaxMs.value,
      brokerSessionTimeoutMs: brokerSessionTimeoutMs.value,
      events: events.data.value,
    };
    // The brokers list is re-read with every read of the topic: compare what the explainer reads of it, not its identity.
    const brokersSig = [...ctx.brokers.values()].map((b) => `${b.id}:${b.state}:${b.isolated}:${b.fetcherStalled}`).join(',');
    const key = [t.name, brokersSig, ctx.minInsyncReplicas, ctx.uncleanLeaderElectionEnable, ctx.replicaLagTimeMaxMs, ctx.brokerSessionTimeoutMs, ctx.events];
    const same = key.length === explained.ctx.length && key.every((v, i) => v === explained.ctx[i]);
    const previous = same ? explained.byPartition : new Map<number, { sig: string; x: PartitionExplanation }>();
    const next = new Map<number, { sig: string; x: PartitionExplanation }>();
    for (const p of t.partitions) {
      const sig = partitionSignature(p);
      const hit = previous.get(p.partition);
      const x = hit && hit.sig === sig ? hit.x : explainPartition(p, ctx);
      next.set(p.partition, { sig, x });
      out.set(p.partition, x);
    }
    explained = { ctx: key, byPartition: next };
    return out;
  });

  const health = computed(() => {
    let offline = 0;
    let underReplicated = 0;
    let underMinIsr = 0;
    let lagging = 0;
    let leaderUnreachable = 0;
    let followerUnreachable = 0;
    for (const x of explanations.value.values()) {
      if (x.flags.includes('leader-unreachable')) leaderUnreachable++;
      if (x.flags.includes('follower-unreachable')) followerUnreachable++;
      if (x.flags.includes('lagging')) lagging++;
      if (x.flags.includes('offline')) offline++;
      if (x.flags.includes('under-replicated')) underReplicated++;
      if (x.flags.includes('under-min-isr')) underMinIsr++;
    }
    return {
      offline,
      underReplicated,
      underMinIsr,
      lagging,
      leaderUnreachable,
      followerUnreachable,
      healthy: offline + underReplicated + underMinIsr + leaderUnreachable + followerUnreachable === 0,
    };
  });

  function merged(list: readonly EngineEvent[], incoming: readonly EngineEvent[]): EngineEvent[] {
    if (!incoming.length) return list as EngineEvent[];
    const seen = new Set(list.map((e) => JSON.stringify(e)));
    const next = list.slice();
    for (const e of incoming) {
      const key = JSON.stringify(e);
      if (seen.has(key)) continue;
      seen.add(key);
      next.push(e);
    }
    next.sort((a, b) => a.atMs - b.atMs);
    return next.length > EVENT_CAP ? next.slice(-EVENT_CAP) : next;
  }

  /** Whether an event belongs on this topic's list. */
  function concerns(e: EngineEvent): boolean {
    if (!LISTED.has(e.type)) return false;
    if (e.type === 'broker.stateChanged') {
      const t = topic.value;
      return !!t && t.partitions.some((p) => p.replicas.includes(e.brokerId));
    }
    // When the controller fences a dead broker depends on whether it has to be elected first.
    if (e.type === 'controller.changed') return true;
    return topicOf(e) === name.value;
  }

  function holdTopic(): void {
    for (const release of topicLeases ?? []) release();
    topicLeases = sharedLeases && current.value && currentConfigs.value ? [current.value.acquire(), currentConfigs.value.acquire()] : null;
  }

  /** Re-read the topic and the brokers. */
  async function refresh(): Promise<void> {
    await Promise.all([current.value?.refresh(), brokersStore.refresh()]);
  }

  /** Re-read the topic's configs and the cluster-wide broker defaults. */
  async function refreshConfigs(): Promise<void> {
    await Promise.all([currentConfigs.value?.refresh(), brokerDefaults.refresh()]);
  }

  /** Open a topic: read it, its configs and its recent events. Idempotent for the same name. */
  async function open(topicName: string): Promise<void> {
    if (name.value !== topicName) {
      generation++;
      name.value = topicName;
      current.value = useTopicStore(topicName);
      currentConfigs.value = useResourceConfigsStore({ type: 'topic', name: topicName });
      durability.value = null;
      durabilityError.value = null;
      events.reset();
      holdTopic();
    }
    opening.value = true;
    try {
      await refresh();
      if (!notFound.value) await Promise.all([refreshConfigs(), events.refresh()]);
    } finally {
      opening.value = false;
    }
  }

  /** Live updates on (leases on every store the page shows) or off (the page is hidden or gone). */
  function live(on: boolean): void {
    if (on && !sharedLeases) {
      sharedLeases = [brokersStore.acquire(), brokerDefaults.acquire(), events.acquire()];
      holdTopic();
    } else if (!on && sharedLeases) {
      for (const release of sharedLeases) release();
      sharedLeases = null;
      holdTopic();
    }
  }

  /** The page left: stop live updates and forget the topic. */
  function close(): void {
    live(false);
    generation++;
    name.value = null;
    current.value = null;
    currentConfigs.value = null;
    events.reset();
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

  /** The topic's durability (acks=all) now (`value` undefined), or as if `key` were `value`: a what-if, nothing changes. Null when it cannot be read. */
  async function durabilityWith(key: string, value?: string): Promise<DurabilityView | null> {
    const topicName = name.value;
    if (!topicName) return null;
    try {
      return await client().call('topics.durability', { name: topicName, ...(value !== undefined ? { set: { [key]: value } } : {}) });
    } catch {
      return null;
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
      const after = await client().call('configs.alter', { resource: { type: 'topic', name: topicName }, set: { [key]: value } });
      currentConfigs.value?.show(after);
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
    if (!validateOnly) {
      current.value?.show(t);
      await refresh();
    }
    return t;
  }

  /** The reassignment a replication-factor change makes (`validateOnly`), or run it. Throws ClientError. */
  async function changeReplicationFactor(replicationFactor: number, validateOnly: boolean): Promise<ReplicationFactorChangeView> {
    const topicName = name.value ?? '';
    const plan = await client().call('topics.setReplicationFactor', { topic: topicName, replicationFactor, validateOnly });
    if (!validateOnly) await refresh();
    return plan;
  }

  /** Delete the records below `offset` (-1: the high watermark) in each partition (`records.delete`). Throws ClientError. */
  async function deleteRecords(partitions: { partition: number; offset: number }[]): Promise<DeleteRecordsResultView[]> {
    const topicName = name.value ?? '';
    const out = await client().call('records.delete', { partitions: partitions.map((p) => ({ topic: topicName, ...p })) });
    await refresh();
    return out;
  }

  /** Delete the topic. Throws ClientError. */
  async function deleteTopic(): Promise<void> {
    const topicName = name.value ?? '';
    await client().call('topics.delete', { name: topicName });
    current.value?.gone();
  }

  /** The quick drill: kill a broker (its process dies; what it wrote survives). */
  async function killBroker(brokerId: number): Promise<boolean> {
    const ok = await brokersStore.perform('kill', brokerId, { success: `Broker ${brokerId} killed: watch the controller fence it and move its leaderships` });
    if (ok) void refresh();
    return ok;
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
    events: events.data,
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
    durabilityWith,
    alterConfig,
    addPartitions,
    changeReplicationFactor,
    deleteTopic,
    deleteRecords,
    killBroker,
  };
});
