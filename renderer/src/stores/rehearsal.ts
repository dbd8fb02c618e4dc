/**
 * The Impact page's rehearsals and plans. A stop predicted on the page can be rehearsed on a
 * local cluster (`connections.rehearseStop`: the brokers really stop, and every touched
 * partition's prediction is set beside what the engine did). A reassignment plan (pasted as
 * Kafka's JSON, or the balancer's current plan) is predicted with `impact.ofPlan` (before, during,
 * after, per broker, the copy time at the throttle), rehearsed on a local cluster
 * (`connections.rehearsePlan`), exported as Kafka's JSON, or, on a twin, executed on its source
 * after the usual confirmation naming that cluster.
 */
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { ConnectionView, PlanImpactView, PlanRehearsalView, RehearsalFault, StopRehearsalView } from '../../../app/api/contract.js';
import type { ActiveConnection } from '../api/active-connection.js';
import { client } from '../api/instance.js';
import { describeError, notifyError, notifySuccess } from '../lib/notify.js';
import { useConnectionsStore } from './connections.js';
import type { ShownError } from './twins.js';

export interface PlanPartition {
  topic: string;
  partition: number;
  replicas: number[];
}

/** A pasted plan: Kafka's reassignment JSON (`{"version":1,"partitions":[…]}`) or its list; what is wrong, in words. */
export function parsePlan(text: string): { partitions: PlanPartition[] } | { problem: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { problem: `Not JSON: ${(e as Error).message}` };
  }
  const list = Array.isArray(v) ? v : (v as { partitions?: unknown } | null)?.partitions;
  if (!Array.isArray(list) || list.length === 0) return { problem: 'Give Kafka\'s reassignment JSON: {"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,2,3]}]}.' };
  const out: PlanPartition[] = [];
  for (const [i, p] of list.entries()) {
    const x = p as { topic?: unknown; partition?: unknown; replicas?: unknown };
    if (typeof x.topic !== 'string' || !Number.isInteger(x.partition) || !Array.isArray(x.replicas) || !x.replicas.every((r) => Number.isInteger(r))) {
      return { problem: `partitions[${i}] needs "topic" (a name), "partition" (a number) and "replicas" (broker ids).` };
    }
    out.push({ topic: x.topic, partition: x.partition as number, replicas: x.replicas as number[] });
  }
  return { partitions: out };
}

/** Kafka's reassignment JSON for a plan, as kafka-reassign-partitions.sh --execute reads it. */
export function planJson(partitions: readonly PlanPartition[]): string {
  return `${JSON.stringify({ version: 1, partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas, log_dirs: p.replicas.map(() => 'any') })) }, null, 2)}\n`;
}

export const useRehearsalStore = defineStore('rehearsal', () => {
  const connections = useConnectionsStore();
  /** The cluster this window looks at, as listed. */
  const cluster = computed<ConnectionView | null>(() => connections.current);
  const canRehearse = computed(() => cluster.value?.kind === 'local');
  /** A twin's source, as the confirmation names it. */
  const source = computed<ActiveConnection | null>(() => {
    const from = cluster.value?.twinOf;
    const c = from ? connections.list.find((x) => x.id === from.sourceId) : undefined;
    return c ? { id: c.id, name: c.name, kind: c.kind, ...(c.external ? { bootstrap: c.external.bootstrapServers.join(',') } : {}) } : null;
  });

  // ---- a rehearsed stop
  const fault = ref<RehearsalFault>('kill');
  const stop = shallowRef<StopRehearsalView | null>(null);
  const stopping = ref(false);
  const stopError = shallowRef<ShownError | null>(null);

  async function rehearseStop(brokers: number[], racks: string[]): Promise<StopRehearsalView | null> {
    const c = cluster.value;
    if (!c) return null;
    stopping.value = true;
    stopError.value = null;
    stop.value = null;
    try {
      stop.value = await client().call('connections.rehearseStop', { id: c.id, ...(brokers.length ? { brokers } : {}), ...(racks.length ? { racks } : {}), fault: fault.value, limit: 2_000 });
      return stop.value;
    } catch (e) {
      stopError.value = describeError(e);
      return null;
    } finally {
      stopping.value = false;
    }
  }

  /** Start the brokers the last rehearsal stopped. */
  async function restart(): Promise<void> {
    for (const brokerId of stop.value?.stopped ?? []) {
      try {
        await client().call('brokers.start', { brokerId });
      } catch (e) {
        notifyError(e, `Starting broker ${brokerId}`);
      }
    }
    notifySuccess('Started the stopped brokers');
  }

  // ---- a plan
  const planText = ref('');
  const throttle = ref<number | null>(null);
  const plan = shallowRef<PlanImpactView | null>(null);
  const planned = shallowRef<PlanPartition[]>([]);
  const planning = ref(false);
  const planError = shallowRef<ShownError | null>(null);
  const rehearsed = shallowRef<PlanRehearsalView | null>(null);
  const rehearsing = ref(false);
  const executing = ref(false);

  async function takeBalancePlan(): Promise<void> {
    planError.value = null;
    try {
      const balance = await client().call('balance.plan', {});
      if (balance.partitions.length === 0) {
        planError.value = { title: 'Nothing to move', message: 'The balancer finds this cluster balanced: its plan moves no replica.' };
        return;
      }
      planText.value = planJson(balance.partitions);
    } catch (e) {
      planError.value = describeError(e);
    }
  }

  const throttleInput = () => (throttle.value ? { throttleBytesPerSec: throttle.value } : {});

  async function predictPlan(): Promise<void> {
    const parsed = parsePlan(planText.value);
    plan.value = null;
    rehearsed.value = null;
    if ('problem' in parsed) {
      planError.value = { title: 'The plan cannot be read', message: parsed.problem };
      return;
    }
    planError.value = null;
    planning.value = true;
    try {
      plan.value = await client().call('impact.ofPlan', { partitions: parsed.partitions, ...throttleInput(), limit: 2_000 });
      planned.value = parsed.partitions;
    } catch (e) {
      planError.value = describeError(e);
    } finally {
      planning.value = false;
    }
  }

  async function rehearsePlan(): Promise<void> {
    const c = cluster.value;
    if (!c || planned.value.length === 0) return;
    rehearsing.value = true;
    planError.value = null;
    try {
      rehearsed.value = await client().call('connections.rehearsePlan', { id: c.id, partitions: planned.value, ...throttleInput() });
    } catch (e) {
      planError.value = describeError(e);
    } finally {
      rehearsing.value = false;
    }
  }

  /** The plan on the twin's source, with its throttle: the client asks first, naming that cluster. */
  async function executeOnSource(): Promise<boolean> {
    const target = source.value;
    if (!target || planned.value.length === 0) return false;
    executing.value = true;
    try {
      const results = await client().callOn(target, 'reassignments.execute', { partitions: planned.value, ...throttleInput() });
      const failed = results.filter((r) => r.errorCode !== 'NONE');
      if (failed.length) notifyError(new Error(failed.map((r) => `${r.topic}-${r.partition}: ${r.errorCode} ${r.message ?? ''}`).join('; ')), `Executing on ${target.name}`);
      else notifySuccess(`${target.name}: ${results.length} reassignment${results.length === 1 ? '' : 's'} started`);
      return failed.length === 0;
    } catch (e) {
      notifyError(e, `Executing on ${target.name}`);
      return false;
    } finally {
      executing.value = false;
    }
  }

  return {
    cluster,
    canRehearse,
    source,
    fault,
    stop,
    stopping,
    stopError,
    rehearseStop,
    restart,
    planText,
    throttle,
    plan,
    planned,
    planning,
    planError,
    rehearsed,
    rehearsing,
    executing,
    takeBalancePlan,
    predictPlan,
    rehearsePlan,
    executeOnSource,
  };
});
