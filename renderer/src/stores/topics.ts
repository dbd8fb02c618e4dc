/**
 * Every topic (`topics.list`), shared by every page that lists topics (the topics page, configs,
 * messages, drills), and the actions that change the list: preview and create through
 * `topics.create`, bulk delete through `topics.deleteMany`. The engine stays the source of
 * truth: after an action, and after any event that changes a topic's partitions, leaders or
 * ISRs, the list is re-read (throttled), and kept as the same array when nothing changed so a
 * long list does not re-render for nothing. What the topics page does to the list (search,
 * filter, sort, selection) is in topics-page.ts.
 */
import { defineStore } from 'pinia';
import { computed } from 'vue';
import type { EngineEvent, MethodInput, TopicBulkResultView, TopicSummaryView, TopicView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';

/** What the wizard creates: `topics.create`'s input without `validateOnly`. */
export type NewTopic = Omit<MethodInput<'topics.create'>, 'validateOnly'>;

function sameSummaries(a: readonly TopicSummaryView[], b: readonly TopicSummaryView[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (
      x.name !== y.name ||
      x.topicId !== y.topicId ||
      x.partitionCount !== y.partitionCount ||
      x.replicationFactor !== y.replicationFactor ||
      x.offlinePartitions !== y.offlinePartitions ||
      x.underReplicatedPartitions !== y.underReplicatedPartitions ||
      x.underMinIsrPartitions !== y.underMinIsrPartitions
    ) {
      return false;
    }
  }
  return true;
}

/** Events after which a topic's summary may read differently. */
const REFRESH_ON = new Set<EngineEvent['type']>([
  'topic.created',
  'topic.deleted',
  'partitions.added',
  'isr.shrunk',
  'isr.expanded',
  'leader.changed',
  'broker.stateChanged',
  'replica.offline',
  'broker.storageFailed',
  'reassignment.changed',
  'config.changed',
]);

export const useTopicsStore = defineStore('topics', () => {
  const query = useLiveQuery<TopicSummaryView[]>({
    name: 'topics',
    read: () => client().call('topics.list', {}),
    initial: [],
    invalidatedBy: (e) => REFRESH_ON.has(e.type),
    throttleMs: 500,
    same: sameSummaries,
  });
  const page = useLeases(() => [query.acquire()]);
  const topics = query.data;

  const names = computed(() => new Set(topics.value.map((t) => t.name)));
  const totals = computed(() => {
    let partitions = 0;
    let offline = 0;
    let underReplicated = 0;
    let underMinIsr = 0;
    for (const t of topics.value) {
      partitions += t.partitionCount;
      offline += t.offlinePartitions > 0 ? 1 : 0;
      underReplicated += t.underReplicatedPartitions > 0 ? 1 : 0;
      underMinIsr += t.underMinIsrPartitions > 0 ? 1 : 0;
    }
    return { topics: topics.value.length, partitions, offline, underReplicated, underMinIsr };
  });

  /** The topic as `topics.create` would make it (placement, leaders), without creating it. */
  function preview(topic: NewTopic): Promise<TopicView> {
    return client().call('topics.create', { ...topic, validateOnly: true });
  }

  /**
   * Create the topic; throws the engine's ClientError (Kafka's error name) when refused. With
   * `previewed` (a preview of this request), exactly the placement the preview showed is created:
   * the controller's placer picks at random (Kafka's StripedReplicaPlacer does too), so asking
   * it again could place the followers differently. The preview's replica lists go as a manual
   * assignment, as `kafka-topics --replica-assignment` would send them.
   */
  async function create(topic: NewTopic, previewed?: TopicView): Promise<TopicView> {
    const request: NewTopic =
      previewed && !topic.assignments
        ? { name: topic.name, ...(topic.configs ? { configs: topic.configs } : {}), assignments: previewed.partitions.map((p) => [...p.replicas]) }
        : topic;
    const created = await client().call('topics.create', request);
    void query.refresh();
    return created;
  }

  /** Delete these topics; one outcome per name (errorCode NONE when deleted). */
  async function deleteMany(toDelete: string[]): Promise<TopicBulkResultView[]> {
    const results = await client().call('topics.deleteMany', { names: toDelete });
    const deleted = new Set(results.filter((r) => r.errorCode === 'NONE').map((r) => r.name));
    if (deleted.size > 0) query.set(topics.value.filter((t) => !deleted.has(t.name)));
    await query.refresh();
    return results;
  }

  return {
    topics,
    /** The list has been read at least once. */
    loaded: query.loaded,
    loading: query.loading,
    /** Why the last read failed (a ClientError carries Kafka's error name), or null. */
    error: query.error,
    names,
    totals,
    /** Re-read the list; calls made while a read is in flight coalesce into one more read. */
    refresh: query.refresh,
    preview,
    create,
    deleteMany,
    /** Keep the list live for another store (released by the returned function). */
    acquire: query.acquire,
    /** Keep the list live while a page shows it (idempotent); `stop()` when it goes. */
    start: page.start,
    stop: page.stop,
  };
});
