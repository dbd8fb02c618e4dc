/**
 * The Balance page's state: the current assignment (every partition's replicas, leader and ISR,
 * and every broker), the pending plan the user builds by moving replicas and leader badges, and
 * the balancer's suggestion (`balance.plan`).
 *
 * Invariants of the pending plan: it maps a partition to its target replica list (replicas[0] is
 * the intended leader, as in Kafka's reassignment JSON); a target always has the partition's
 * current replication factor and one replica per broker; an entry equal to the current list is
 * dropped. `planPartitions` is exactly what `reassignments.execute` takes.
 *
 * The board is built to open at 100,000 partitions: its per-broker figures (replicas, leaders,
 * bytes) are the aggregates `brokers.list` returns (the shared brokers store), its topic list is
 * `topics.list`, and partitions are read only for the topics the board drills into
 * (`topics.describeMany` with their names): the topics chosen in its filter, the topics of the
 * pending plan, and topics pinned by a preview. A cluster of at most `wholeAssignmentUpTo`
 * partitions is read whole, as before. The reads are one live query re-read when partitions,
 * leaders, ISRs, reassignments or broker states change. A plan entry that no longer applies (done,
 * or the partition is gone) is dropped after every read that described its topic.
 *
 * The "after" counts of a broker are its aggregate plus what the pending plan adds or removes on
 * it, so they stay exact without the partitions of the topics the plan does not touch.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import type { BalancePlanView, BalanceReassignmentView, BrokerView, EngineEvent, PartitionView, TopicSummaryView, TopicView } from '../../../app/api/contract.js';
import { ClientError } from '../api/client.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';
import { describeError, notifyError } from '../lib/notify.js';
import { useBrokersStore } from './brokers.js';
import { useEventStreamStore } from './event-stream.js';

/** A partition of the assignment, flattened. */
export interface AssignedPartition {
  key: string;
  topic: string;
  partition: number;
  replicas: number[];
  isr: number[];
  leader: number;
  /** A reassignment is moving it right now. */
  reassigning: boolean;
}

export type CheckLevel = 'error' | 'warning' | 'info';
/** The rule checks of one move: refused (an error), warnings to heed, or fine. */
export interface MoveCheck {
  verdict: 'ok' | 'warning' | 'refused';
  messages: { level: CheckLevel; text: string }[];
  /** The partition's replica list after the move (the current one when refused). */
  replicas: number[];
}

export interface SuggestOptions {
  excludeBrokers: number[];
  leadersOnly: boolean;
}

export const partitionKey = (topic: string, partition: number): string => `${topic}/${partition}`;
export const partitionLabel = (topic: string, partition: number): string => `${topic}-${partition}`;

function verdictOf(messages: MoveCheck['messages'], replicas: number[]): MoveCheck {
  const verdict = messages.some((m) => m.level === 'error') ? 'refused' : messages.some((m) => m.level === 'warning') ? 'warning' : 'ok';
  return { verdict, messages, replicas };
}

function rackWarnings(before: number[], after: number[], brokers: BrokerView[]): string[] {
  const rackOf = new Map(brokers.map((b) => [b.id, b.rack]));
  if (!brokers.some((b) => b.rack !== null)) return [];
  const dupes = (list: number[]): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const id of list) {
      const r = rackOf.get(id);
      if (r != null) counts.set(r, (counts.get(r) ?? 0) + 1);
    }
    return counts;
  };
  const was = dupes(before);
  const out: string[] = [];
  for (const [rack, n] of dupes(after)) {
    if (n > 1 && n > (was.get(rack) ?? 0)) out.push(`Rack awareness lost: ${n} replicas would sit in rack "${rack}", so losing that rack loses them all.`);
  }
  return out;
}

function stateWarning(to: number, brokers: BrokerView[]): string | null {
  const b = brokers.find((x) => x.id === to);
  if (!b || b.state === 'running') return null;
  return `Broker ${to} is ${b.state}: the move waits until it runs and catches up.`;
}

/** Rule checks for moving partition `p`'s replica from broker `from` to broker `to` (`replicas` = its list with the plan applied). */
export function checkReplicaMove(p: { topic: string; partition: number; replicas: number[] }, from: number, to: number, brokers: BrokerView[]): MoveCheck {
  const label = partitionLabel(p.topic, p.partition);
  const messages: MoveCheck['messages'] = [];
  if (!p.replicas.includes(from)) return verdictOf([{ level: 'error', text: `Broker ${from} holds no replica of ${label}.` }], p.replicas);
  if (from === to) return verdictOf([{ level: 'error', text: `The replica of ${label} is already on broker ${to}.` }], p.replicas);
  if (!brokers.some((b) => b.id === to)) return verdictOf([{ level: 'error', text: `Broker ${to} is not in the cluster.` }], p.replicas);
  if (p.replicas.includes(to)) {
    return verdictOf([{ level: 'error', text: `Refused: broker ${to} already holds a replica of ${label} (one replica per broker).` }], p.replicas);
  }
  const next = p.replicas.map((b) => (b === from ? to : b));
  for (const w of rackWarnings(p.replicas, next, brokers)) messages.push({ level: 'warning', text: w });
  const down = stateWarning(to, brokers);
  if (down) messages.push({ level: 'warning', text: down });
  messages.push({ level: 'info', text: `Replication factor unchanged (${next.length}).` });
  if (p.replicas[0] === from) messages.push({ level: 'info', text: `Broker ${to} becomes the preferred leader.` });
  return verdictOf(messages, next);
}

/** Rule checks for moving partition `p`'s leadership (its preferred leader) to broker `to`. */
export function checkLeaderMove(p: { topic: string; partition: number; replicas: number[]; isr: number[]; currentReplicas: number[] }, to: number, brokers: BrokerView[]): MoveCheck {
  const label = partitionLabel(p.topic, p.partition);
  if (!p.replicas.includes(to)) {
    return verdictOf([{ level: 'error', text: `Refused: broker ${to} holds no replica of ${label}; leadership moves only to a replica of the same partition.` }], p.replicas);
  }
  if (p.replicas[0] === to) return verdictOf([{ level: 'error', text: `Broker ${to} is already the preferred leader of ${label}.` }], p.replicas);
  const messages: MoveCheck['messages'] = [];
  if (p.currentReplicas.includes(to) && !p.isr.includes(to)) {
    messages.push({ level: 'warning', text: `Broker ${to} is not in the ISR of ${label}: a preferred election cannot move leadership there until it catches up.` });
  }
  const down = stateWarning(to, brokers);
  if (down) messages.push({ level: 'warning', text: down });
  messages.push({ level: 'info', text: `Broker ${to} becomes the preferred leader of ${label}: a preferred election after the move makes it the leader.` });
  messages.push({ level: 'info', text: `Replication factor unchanged (${p.replicas.length}); only the order changes (no data moves).` });
  return verdictOf(messages, [to, ...p.replicas.filter((b) => b !== to)]);
}

function flatten(topics: TopicView[]): AssignedPartition[] {
  const out: AssignedPartition[] = [];
  for (const t of topics) {
    for (const p of t.partitions as PartitionView[]) {
      out.push({
        key: partitionKey(t.name, p.partition),
        topic: t.name,
        partition: p.partition,
        // While moving, the target is the replica set without the ones being removed.
        replicas: p.replicas.filter((b) => !p.removingReplicas.includes(b)),
        isr: p.isr,
        leader: p.leader,
        reassigning: p.addingReplicas.length + p.removingReplicas.length > 0,
      });
    }
  }
  return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

/** One broker's column figures: its aggregate now, and with the pending plan applied. */
export interface BrokerLoad {
  id: number;
  replicasBefore: number;
  replicasAfter: number;
  leadersBefore: number;
  leadersAfter: number;
  /** Bytes its disk holds for its replicas (`BrokerView.logBytes`, -1 when unreadable). */
  logBytes: number;
}

/** One read of the board: every topic's summary and the partitions of the topics it drilled into. */
interface BoardRead {
  topics: TopicSummaryView[];
  partitions: AssignedPartition[];
  /** Topics whose partitions were read: 'all', or their names. */
  described: 'all' | ReadonlySet<string>;
}

/** Up to this many partitions the board reads every partition (its chips need no topic chosen). */
export const WHOLE_ASSIGNMENT_UP_TO = 2_000;

const sortedUnique = (names: Iterable<string>): string[] => [...new Set(names)].sort();

const REFRESH_ON = new Set<EngineEvent['type']>(['topic.created', 'topic.deleted', 'partitions.added', 'reassignment.changed', 'leader.changed', 'isr.shrunk', 'isr.expanded', 'broker.stateChanged']);

export const useBalanceStore = defineStore('balance', () => {
  const brokersStore = useBrokersStore();
  /** The topics chosen in the board's filter: their partitions are read and shown. */
  const shownTopics = ref<string[]>([]);
  /** Topics read for a preview (an imported plan) until the plan is cleared. */
  const pinnedTopics = ref<string[]>([]);
  /** key → target replicas. */
  const pending = ref<Record<string, number[]>>({});
  /** Read every partition when the cluster has at most this many (tests lower it to drill in). */
  const wholeAssignmentUpTo = ref(WHOLE_ASSIGNMENT_UP_TO);
  const planTopics = computed(() => sortedUnique(Object.keys(pending.value).map((k) => k.slice(0, k.lastIndexOf('/')))));
  const wantedTopics = computed(() => sortedUnique([...shownTopics.value, ...pinnedTopics.value, ...planTopics.value]));

  const assignment = useLiveQuery<BoardRead>({
    name: 'balance',
    initial: { topics: [], partitions: [], described: new Set() },
    read: async () => {
      const topics = await client().call('topics.list', {});
      const total = topics.reduce((n, t) => n + t.partitionCount, 0);
      if (total <= wholeAssignmentUpTo.value) return { topics, partitions: flatten(await client().call('topics.describeMany', {})), described: 'all' };
      const known = new Set(topics.map((t) => t.name));
      const names = wantedTopics.value.filter((n) => known.has(n));
      const partitions = names.length ? flatten(await client().call('topics.describeMany', { names })) : [];
      return { topics, partitions, described: new Set(names) };
    },
    invalidatedBy: (e) => REFRESH_ON.has(e.type),
    throttleMs: 400,
  });
  const brokers = computed<BrokerView[]>(() => brokersStore.brokers);
  /** The partitions read: every one of a small cluster, else those of the topics drilled into. */
  const partitions = computed(() => assignment.data.value.partitions);
  /** Every topic with its partition count (`topics.list`). */
  const topics = computed(() => assignment.data.value.topics);
  const partitionCount = computed(() => topics.value.reduce((n, t) => n + t.partitionCount, 0));
  /** Every partition is read (a small cluster): chips show without choosing a topic. */
  const wholeAssignment = computed(() => assignment.data.value.described === 'all');
  // A topic chosen or planned that the last read did not describe: read again.
  watch(wantedTopics, (names, before) => {
    if (names.join() === before?.join() || wholeAssignment.value) return;
    const described = assignment.data.value.described;
    if (described !== 'all' && names.some((n) => !described.has(n))) void assignment.refresh();
  });
  const loading = computed(() => assignment.loading.value || brokersStore.loading);
  const loaded = computed(() => assignment.loaded.value && brokersStore.loaded);
  const error = computed(() => {
    const e = assignment.error.value ?? brokersStore.error;
    return e ? describeError(e) : null;
  });
  const lastCheck = shallowRef<MoveCheck | null>(null);

  const suggestion = shallowRef<BalancePlanView | null>(null);
  const suggesting = ref(false);
  const suggestError = ref<ReturnType<typeof describeError> | null>(null);
  /** How far the running suggestion got (its `balance.progress` events), null when none runs. */
  const suggestProgress = ref<{ goalsDone: number; goals: number; goal: string } | null>(null);
  let runningPlanId: string | null = null;
  let planSeq = 0;
  const suggestOptions = ref<SuggestOptions>({ excludeBrokers: [], leadersOnly: false });

  const byKey = computed(() => new Map(partitions.value.map((p) => [p.key, p])));

  function effective(p: AssignedPartition): number[] {
    return pending.value[p.key] ?? p.replicas;
  }

  /** The pending plan as `reassignments.execute` takes it, with the lists it replaces. */
  const planPartitions = computed<BalanceReassignmentView[]>(() =>
    partitions.value.filter((p) => pending.value[p.key]).map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...pending.value[p.key]!], currentReplicas: [...p.replicas] })),
  );

  /**
   * Each broker's replicas and leaders (its aggregate from `brokers.list`) and its bytes, before
   * and after the pending plan: the plan's partitions are always read, so its deltas are exact.
   */
  const brokerLoads = computed<BrokerLoad[]>(() => {
    const loads = new Map<number, BrokerLoad>(
      brokers.value.map((b) => [b.id, { id: b.id, replicasBefore: b.partitionCount, replicasAfter: b.partitionCount, leadersBefore: b.leaderCount, leadersAfter: b.leaderCount, logBytes: b.logBytes }]),
    );
    for (const [key, target] of Object.entries(pending.value)) {
      const p = byKey.value.get(key);
      if (!p) continue;
      for (const b of p.replicas) {
        const l = loads.get(b);
        if (!l) continue;
        l.replicasAfter--;
        if (p.leader === b) l.leadersAfter--;
      }
      for (const b of target) {
        const l = loads.get(b);
        if (!l) continue;
        l.replicasAfter++;
        if (target[0] === b) l.leadersAfter++;
      }
    }
    return [...loads.values()];
  });

  /** Re-read the brokers, the topics and the partitions the board shows. */
  async function load(): Promise<void> {
    await Promise.all([brokersStore.refresh(), assignment.refresh()]);
  }

  /** Read the partitions of `names` too (a preview of a plan over them); kept until the plan is cleared. */
  async function includeTopics(names: string[]): Promise<void> {
    const next = sortedUnique([...pinnedTopics.value, ...names]);
    if (next.length !== pinnedTopics.value.length) pinnedTopics.value = next;
    const described = assignment.data.value.described;
    if (!assignment.loaded.value || (described !== 'all' && names.some((n) => !described.has(n)))) await assignment.refresh();
  }

  // Drop plan entries that no longer apply (done, or the partition is gone) whenever a read described their topic.
  watch(
    () => assignment.data.value,
    (read) => {
      const next: Record<string, number[]> = {};
      for (const [key, target] of Object.entries(pending.value)) {
        const p = byKey.value.get(key);
        const topic = key.slice(0, key.lastIndexOf('/'));
        const described = read.described === 'all' || read.described.has(topic);
        if (p ? target.join() !== p.replicas.join() && target.length === p.replicas.length : !described) next[key] = target;
      }
      if (Object.keys(next).length !== Object.keys(pending.value).length) pending.value = next;
    },
    { flush: 'sync' },
  );

  function setTarget(p: AssignedPartition, replicas: number[]): void {
    const next = { ...pending.value };
    if (replicas.join() === p.replicas.join()) delete next[p.key];
    else next[p.key] = replicas;
    pending.value = next;
  }

  function find(topic: string, partition: number): AssignedPartition | undefined {
    return byKey.value.get(partitionKey(topic, partition));
  }

  function checkReplica(topic: string, partition: number, from: number, to: number): MoveCheck {
    const p = find(topic, partition);
    if (!p) return verdictOf([{ level: 'error', text: `${partitionLabel(topic, partition)} does not exist.` }], []);
    return checkReplicaMove({ topic, partition, replicas: effective(p) }, from, to, brokers.value);
  }

  function checkLeader(topic: string, partition: number, to: number): MoveCheck {
    const p = find(topic, partition);
    if (!p) return verdictOf([{ level: 'error', text: `${partitionLabel(topic, partition)} does not exist.` }], []);
    return checkLeaderMove({ topic, partition, replicas: effective(p), isr: p.isr, currentReplicas: p.replicas }, to, brokers.value);
  }

  /** Move a replica in the pending plan; refused moves change nothing. Returns the checks. */
  function moveReplica(topic: string, partition: number, from: number, to: number): MoveCheck {
    const check = checkReplica(topic, partition, from, to);
    lastCheck.value = check;
    const p = find(topic, partition);
    if (p && check.verdict !== 'refused') setTarget(p, check.replicas);
    return check;
  }

  /** Make broker `to` the intended (preferred) leader in the pending plan. */
  function moveLeader(topic: string, partition: number, to: number): MoveCheck {
    const check = checkLeader(topic, partition, to);
    lastCheck.value = check;
    const p = find(topic, partition);
    if (p && check.verdict !== 'refused') setTarget(p, check.replicas);
    return check;
  }

  function undo(topic: string, partition: number): void {
    const next = { ...pending.value };
    delete next[partitionKey(topic, partition)];
    pending.value = next;
  }

  function clearPlan(): void {
    pending.value = {};
    pinnedTopics.value = [];
    lastCheck.value = null;
  }

  /**
   * Put a plan (a suggestion, an imported file) on the board, replacing the pending one. Entries
   * for unknown partitions or with another replication factor are skipped and returned.
   */
  async function loadPlan(list: { topic: string; partition: number; replicas: number[] }[]): Promise<{ loaded: number; skipped: string[] }> {
    await includeTopics(list.map((e) => e.topic));
    const next: Record<string, number[]> = {};
    const skipped: string[] = [];
    for (const e of list) {
      const p = find(e.topic, e.partition);
      if (!p || e.replicas.length !== p.replicas.length || new Set(e.replicas).size !== e.replicas.length) skipped.push(partitionLabel(e.topic, e.partition));
      else if (e.replicas.join() !== p.replicas.join()) next[p.key] = [...e.replicas];
    }
    pending.value = next;
    lastCheck.value = null;
    return { loaded: Object.keys(next).length, skipped };
  }

  async function suggest(options: SuggestOptions = suggestOptions.value): Promise<BalancePlanView | null> {
    suggesting.value = true;
    // A named plan reports each goal and can be stopped (a big cluster's plan takes seconds).
    const planId = `console-${Date.now().toString(36)}-${++planSeq}`;
    runningPlanId = planId;
    suggestProgress.value = null;
    const off = useEventStreamStore().on((e) => {
      if (e.type === 'balance.progress' && e.planId === planId) suggestProgress.value = { goalsDone: e.goalsDone, goals: e.goals, goal: e.goal };
    });
    try {
      const plan = await client().call('balance.plan', {
        ...(options.excludeBrokers.length ? { excludeBrokers: options.excludeBrokers } : {}),
        ...(options.leadersOnly ? { leadersOnly: true } : {}),
        planId,
      });
      suggestion.value = plan;
      suggestError.value = null;
      return plan;
    } catch (e) {
      if (e instanceof ClientError && e.code === 'CANCELLED') return null; // stopped on purpose
      suggestError.value = describeError(e);
      notifyError(e, 'Suggest a plan');
      return null;
    } finally {
      off();
      runningPlanId = null;
      suggestProgress.value = null;
      suggesting.value = false;
    }
  }

  /** Stop the running suggestion (it ends without a plan). */
  async function stopSuggesting(): Promise<void> {
    if (runningPlanId) await client().call('balance.cancel', { planId: runningPlanId });
  }

  function clearSuggestion(): void {
    suggestion.value = null;
    suggestError.value = null;
  }

  /** Keep the brokers and the assignment live while the page shows (idempotent); `stop()` when it goes. */
  const page = useLeases(() => [brokersStore.acquire(), assignment.acquire()]);

  return {
    brokers,
    brokerLoads,
    partitions,
    topics,
    partitionCount,
    wholeAssignment,
    wholeAssignmentUpTo,
    shownTopics,
    includeTopics,
    loading,
    loaded,
    error,
    pending,
    lastCheck,
    planPartitions,
    suggestion,
    suggesting,
    suggestError,
    suggestProgress,
    stopSuggesting,
    suggestOptions,
    effective,
    load,
    checkReplica,
    checkLeader,
    moveReplica,
    moveLeader,
    undo,
    clearPlan,
    loadPlan,
    suggest,
    clearSuggestion,
    start: page.start,
    stop: page.stop,
  };
});
