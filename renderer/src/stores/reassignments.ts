/**
 * Replica moves: execute a plan (with a replication throttle), follow the ongoing reassignments
 * (`reassignments.list`, then `reassignment.progress` events per partition: each adding replica's
 * log end offset against the leader's), cancel, and verify (`reassignments.verify`, which drops
 * the throttles once every partition is done, like `kafka-reassign-partitions.sh --verify`).
 * Kafka's reassignment JSON is read and written here too. The list is a live query while the page
 * shows: progress events patch it in place, a move starting, completing or being cancelled
 * re-reads it, and once the last plan has fully moved it is verified once.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import type { ReassignmentJsonView, ReassignmentResultView, ReassignmentVerifyView, ReassignmentView } from '../../../app/api/contract.js';
import { client } from '../api/instance.js';
import { useLeases, useLiveQuery } from '../composables/live-query.js';
import { describeError, notifyError } from '../lib/notify.js';

/** One target of a reassignment: what Kafka's JSON lists per partition. */
export interface ReassignmentTarget {
  topic: string;
  partition: number;
  replicas: number[];
}

export type ParsedReassignment = { ok: true; partitions: ReassignmentTarget[] } | { ok: false; errors: string[] };

/**
 * Read Kafka's reassignment JSON (`{"version":1,"partitions":[{"topic","partition","replicas",
 * "log_dirs"?}]}`), checking what `kafka-reassign-partitions.sh` checks before it calls the
 * broker: the version, each entry's fields, distinct replicas, log_dirs per replica, no partition twice.
 */
export function parseReassignmentJson(text: string): ParsedReassignment {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`Not JSON: ${e instanceof Error ? e.message : String(e)}`] };
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { ok: false, errors: ['Expected an object like {"version":1,"partitions":[…]}.'] };
  const o = doc as Record<string, unknown>;
  const errors: string[] = [];
  if (o.version !== undefined && o.version !== 1) errors.push(`Unsupported version ${JSON.stringify(o.version)}: only version 1 exists.`);
  if (!Array.isArray(o.partitions)) return { ok: false, errors: [...errors, '"partitions" must be a list.'] };
  const seen = new Set<string>();
  const partitions: ReassignmentTarget[] = [];
  o.partitions.forEach((entry: unknown, i) => {
    const at = `partitions[${i}]`;
    if (typeof entry !== 'object' || entry === null) return void errors.push(`${at} must be an object.`);
    const e = entry as Record<string, unknown>;
    const { topic, partition, replicas } = e;
    if (typeof topic !== 'string' || topic === '') return void errors.push(`${at}.topic must be a topic name.`);
    if (!Number.isInteger(partition) || (partition as number) < 0) return void errors.push(`${at}.partition must be a whole number ≥ 0.`);
    if (!Array.isArray(replicas) || !replicas.every((r) => Number.isInteger(r) && r >= 0)) return void errors.push(`${at}.replicas must be a list of broker ids.`);
    const list = replicas as number[];
    if (new Set(list).size !== list.length) errors.push(`${at}: replica list ${JSON.stringify(list)} names a broker twice.`);
    if (e.log_dirs !== undefined && (!Array.isArray(e.log_dirs) || e.log_dirs.length !== list.length)) errors.push(`${at}.log_dirs must have one entry per replica.`);
    const key = `${topic}/${String(partition)}`;
    if (seen.has(key)) errors.push(`${at}: ${topic}-${String(partition)} is listed twice.`);
    seen.add(key);
    partitions.push({ topic, partition: partition as number, replicas: [...list] });
  });
  return errors.length ? { ok: false, errors } : { ok: true, partitions };
}

/** Kafka's reassignment JSON for a list of targets (log_dirs "any", as the tool writes). */
export function toReassignmentJson(partitions: ReassignmentTarget[]): ReassignmentJsonView {
  return { version: 1, partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas], log_dirs: p.replicas.map(() => 'any') })) };
}

const key = (topic: string, partition: number): string => `${topic}/${partition}`;

/**
 * One moving partition as the console counts it: how many of its new replicas have caught up
 * (joined the ISR), and the share of the leader's log its new replicas hold on average, so a
 * partition with one of two new replicas caught up counts as half done, not as not started.
 */
export function partitionProgress(r: ReassignmentView): { caughtUp: number; adding: number; percent: number } {
  const adding = r.progress.addingReplicas;
  if (adding.length === 0) return { caughtUp: 0, adding: 0, percent: r.progress.percent };
  const leaderEnd = Math.max(0, r.progress.leaderLogEndOffset);
  const share = (a: (typeof adding)[number]): number => (a.inIsr || leaderEnd === 0 ? 1 : Math.min(1, Math.max(0, a.logEndOffset) / leaderEnd));
  const caughtUp = adding.filter((a) => a.inIsr).length;
  return { caughtUp, adding: adding.length, percent: Math.floor((100 * adding.reduce((n, a) => n + share(a), 0)) / adding.length) };
}

/** The new replicas a target adds: those not in the partition's current replica list. */
function addedBy(p: ReassignmentTarget & { currentReplicas?: readonly number[] }): number[] | null {
  return p.currentReplicas ? p.replicas.filter((b) => !p.currentReplicas!.includes(b)) : null;
}

export const useReassignmentsStore = defineStore('reassignments', () => {
  const query = useLiveQuery<ReassignmentView[]>({
    name: 'reassignments',
    initial: [],
    read: () => client().call('reassignments.list', {}),
    invalidatedBy: (e) => e.type === 'reassignment.changed',
    onEvent: (e) => {
      if (e.type === 'reassignment.progress') applyProgress(e);
    },
    throttleMs: 300,
  });
  const page = useLeases(() => [query.acquire()]);
  const active = query.data;
  const error = computed(() => (query.error.value ? describeError(query.error.value) : null));
  /**
   * The last plan executed from this console, for verify and the preferred election after it;
   * `adding` holds each partition's new replicas (from the plan, or from the first read of the
   * moves when the plan did not say what it replaces).
   */
  const lastPlan = shallowRef<{ partitions: ReassignmentTarget[]; throttleBytesPerSec: number | null; adding: Record<string, number[]> } | null>(null);
  const results = shallowRef<ReassignmentResultView[]>([]);
  const verifyResults = shallowRef<ReassignmentVerifyView[] | null>(null);
  const executing = ref(false);
  /** Why the last execute failed as a whole (null when it was accepted). */
  const executeError = ref<ReturnType<typeof describeError> | null>(null);
  const verifying = ref(false);

  /** The last plan's partitions still moving. */
  const lastPlanMoving = computed(() => {
    const plan = lastPlan.value;
    if (!plan) return 0;
    const moving = new Set(active.value.map((r) => key(r.topic, r.partition)));
    return plan.partitions.filter((p) => moving.has(key(p.topic, p.partition))).length;
  });
  /**
   * The last plan's new replicas caught up so far: a partition no longer moving has all of its
   * new replicas in (it completed), a moving one those already in its ISR.
   */
  const catchUp = computed(() => {
    const plan = lastPlan.value;
    if (!plan) return null;
    const moving = new Map(active.value.map((r) => [key(r.topic, r.partition), r]));
    let total = 0;
    let done = 0;
    for (const [k, adding] of Object.entries(plan.adding)) {
      total += adding.length;
      const r = moving.get(k);
      done += r ? r.progress.addingReplicas.filter((a) => a.inIsr && adding.includes(a.brokerId)).length : adding.length;
    }
    return { done, total };
  });
  const allVerified = computed(() => !!verifyResults.value?.length && verifyResults.value.every((v) => v.status === 'completed'));

  /** Start the moves. Returns the per-partition outcomes, or null when the call failed as a whole. */
  async function execute(partitions: (ReassignmentTarget & { currentReplicas?: readonly number[] })[], throttleBytesPerSec: number | null): Promise<ReassignmentResultView[] | null> {
    executing.value = true;
    try {
      const input = partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas] }));
      const out = await client().call('reassignments.execute', { partitions: input, ...(throttleBytesPerSec !== null ? { throttleBytesPerSec } : {}) });
      results.value = out;
      executeError.value = null;
      const started = input.filter((p) => out.some((r) => r.topic === p.topic && r.partition === p.partition && r.errorCode === 'NONE'));
      const adding: Record<string, number[]> = {};
      for (const p of partitions) {
        const added = addedBy(p);
        if (added && started.some((s) => s.topic === p.topic && s.partition === p.partition)) adding[key(p.topic, p.partition)] = added;
      }
      if (started.length) {
        lastPlan.value = { partitions: started, throttleBytesPerSec, adding };
        verifyResults.value = null;
      }
      await query.refresh();
      // Targets that did not say what they replace: their new replicas are what the moves are adding.
      const plan = lastPlan.value;
      if (started.length && plan) {
        const filled = { ...plan.adding };
        for (const r of active.value) {
          const k = key(r.topic, r.partition);
          if (!(k in filled) && started.some((s) => key(s.topic, s.partition) === k)) filled[k] = [...r.addingReplicas];
        }
        lastPlan.value = { ...plan, adding: filled };
      }
      return out;
    } catch (e) {
      executeError.value = describeError(e);
      notifyError(e, 'Execute reassignment');
      return null;
    } finally {
      executing.value = false;
    }
  }

  async function cancel(partitions?: { topic: string; partition: number }[]): Promise<ReassignmentResultView[] | null> {
    try {
      const out = await client().call('reassignments.cancel', partitions ? { partitions } : {});
      // A cancelled move adds nothing: it no longer counts towards "caught up".
      const plan = lastPlan.value;
      if (plan) {
        const adding = { ...plan.adding };
        for (const r of out) if (r.errorCode === 'NONE') delete adding[key(r.topic, r.partition)];
        lastPlan.value = { ...plan, adding };
      }
      await query.refresh();
      return out;
    } catch (e) {
      notifyError(e, 'Cancel reassignment');
      return null;
    }
  }

  /** `--verify` of the last plan (or the given one): completes it and removes the throttles when all are done. */
  async function verify(partitions: ReassignmentTarget[] | undefined = lastPlan.value?.partitions): Promise<ReassignmentVerifyView[] | null> {
    if (!partitions?.length) return null;
    verifying.value = true;
    try {
      const out = await client().call('reassignments.verify', { partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: [...p.replicas] })) });
      verifyResults.value = out;
      return out;
    } catch (e) {
      notifyError(e, 'Verify reassignment');
      return null;
    } finally {
      verifying.value = false;
    }
  }

  /** The current assignment of the given topics (all when absent) as Kafka's reassignment JSON. */
  async function exportCurrent(topics?: string[]): Promise<ReassignmentJsonView | null> {
    try {
      return await client().call('reassignments.export', topics ? { topics } : {});
    } catch (e) {
      notifyError(e, 'Export assignment');
      return null;
    }
  }

  function applyProgress(e: { topic: string; partition: number; percent: number; leaderLogEndOffset: number; addingReplicas: { brokerId: number; logEndOffset: number; inIsr: boolean }[] }): void {
    const i = active.value.findIndex((r) => r.topic === e.topic && r.partition === e.partition);
    if (i < 0) return;
    const next = active.value.slice();
    next[i] = { ...next[i]!, progress: { percent: e.percent, leaderLogEndOffset: e.leaderLogEndOffset, addingReplicas: e.addingReplicas } };
    // A patch between reads, not an answer: it must not drop a read in flight.
    active.value = next;
  }

  /** Once the last plan has fully moved, verify it once (which removes its throttles). */
  async function autoVerify(): Promise<void> {
    if (lastPlan.value && lastPlanMoving.value === 0 && verifyResults.value === null && !verifying.value) await verify();
  }

  // Every read of the list may be the one that shows the last plan done.
  watch(active, () => void autoVerify());

  return {
    active,
    loading: query.loading,
    error,
    lastPlan,
    results,
    verifyResults,
    executing,
    executeError,
    verifying,
    lastPlanMoving,
    catchUp,
    allVerified,
    refresh: query.refresh,
    execute,
    cancel,
    verify,
    exportCurrent,
    /** Follow the moves while the page shows (idempotent); `stop()` when it goes. */
    start: page.start,
    stop: page.stop,
    autoVerify,
  };
});
