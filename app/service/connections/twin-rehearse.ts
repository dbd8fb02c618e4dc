/**
 * Rehearsals (app/api/rehearsal-contract.ts): ask the prediction first, then do the thing on the
 * local cluster through the contract, as an operator would, and read back what the engine did.
 * Nothing here decides an outcome by itself: the prediction is impact.ofStop / impact.ofPlan, the
 * observation is the cluster's own metadata and events, and an observed partition's outcome is
 * named by the same rule the prediction uses (app/core/impact/stop-impact.ts `outcomeOf`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { MethodParsedInput } from '../../api/contract.js';
import type { ConnectionView } from '../../api/connections.js';
import { KafkaError } from '../../api/errors.js';
import type { EngineEvent } from '../../api/events.js';
import { PARTITION_OUTCOMES, type GroupCoordinatorImpactView, type OutcomeCounts, type PartitionImpactView } from '../../api/impact-contract.js';
import type { PlanRehearsalView, RehearsalCoordinatorView, RehearsalFault, RehearsalMoveView, RehearsalPartitionView, RehearsalStateView, StopRehearsalView } from '../../api/rehearsal-contract.js';
import type { BrokerView, PartitionView, TopicView } from '../../api/views.js';
import { outcomeOf } from '../../core/impact/stop-impact.js';
import { appendJournal } from './twin-journal.js';
import type { TwinCall } from './twin-topology.js';

export interface RehearseDeps {
  callOn(id: string): TwinCall;
  view(id: string): ConnectionView;
}

const DEFAULT_TIMEOUT_S = 300;
const DEFAULT_LIMIT = 5_000;
const ALL = 1_000_000;
const FAULT_METHOD = { kill: 'brokers.kill', 'power-loss': 'brokers.powerLoss', shutdown: 'brokers.stop' } as const satisfies Record<RehearsalFault, string>;
const DOWN = new Set<BrokerView['state']>(['stopped', 'killed', 'power-lost', 'storage-failed']);

/** The local cluster a rehearsal runs on: an external one is never stopped or moved from here. */
function localCluster(deps: RehearseDeps, id: string): ConnectionView & { dataDir: string } {
  const v = deps.view(id);
  if (v.kind !== 'local' || v.dataDir === undefined) {
    throw new KafkaError('UNSUPPORTED_FOR_CONNECTION', `${v.name} is an external cluster: a rehearsal stops brokers and moves replicas, so it runs on a local cluster (make a twin of ${v.name} and rehearse there).`);
  }
  return v as ConnectionView & { dataDir: string };
}

/** Poll `check` every `everyMs` until it answers a value, or throw REQUEST_TIMED_OUT saying `what`. */
async function until<T>(check: () => Promise<T | undefined | false>, deadline: number, what: string, everyMs = 200): Promise<T> {
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new KafkaError('REQUEST_TIMED_OUT', `${what} did not happen before the rehearsal's time was up; a faster cluster clock (clock.setScale) or a longer timeoutSeconds helps.`);
    await sleep(everyMs);
  }
}

const sorted = (l: readonly number[]): number[] => [...l].sort((a, b) => a - b);
const same = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
const list = (l: readonly number[]): string => (l.length ? l.join(',') : 'none');
const zero = (): OutcomeCounts => Object.fromEntries(PARTITION_OUTCOMES.map((o) => [o, 0])) as OutcomeCounts;

async function partitionsOf(call: TwinCall, topics: readonly string[]): Promise<Map<string, PartitionView>> {
  const out = new Map<string, PartitionView>();
  if (topics.length === 0) return out;
  for (const t of (await call('topics.describeMany', { names: [...topics] })) as TopicView[]) for (const p of t.partitions) out.set(`${t.name}-${p.partition}`, p);
  return out;
}

/** Engine events of `types` at or after `fromMs` of cluster time. */
async function eventsSince<T extends EngineEvent['type']>(call: TwinCall, types: T[], fromMs: number): Promise<Extract<EngineEvent, { type: T }>[]> {
  const events = (await call('events.recent', { types, limit: 5_000 })) as EngineEvent[];
  return events.filter((e): e is Extract<EngineEvent, { type: T }> => (types as string[]).includes(e.type) && e.atMs >= fromMs);
}

function differenceOf(predicted: RehearsalStateView, observed: RehearsalStateView): string {
  const out: string[] = [];
  if (predicted.leader !== observed.leader) out.push(`leader ${observed.leader} where ${predicted.leader} was predicted`);
  if (!same(sorted(predicted.isr), sorted(observed.isr))) out.push(`ISR ${list(observed.isr)} where ${list(predicted.isr)} was predicted`);
  if (!same(sorted(predicted.elr), sorted(observed.elr))) out.push(`ELR ${list(observed.elr)} where ${list(predicted.elr)} was predicted`);
  if (predicted.outcome !== observed.outcome) out.push(`${observed.outcome} where ${predicted.outcome} was predicted`);
  return out.join('; ');
}

/**
 * Each predicted partition beside the engine's: `observed` by `topic-partition`, `unclean` the
 * partitions whose leader the controller elected uncleanly, `live` the brokers still running.
 */
export function compareStop(
  predictions: readonly PartitionImpactView[],
  observed: ReadonlyMap<string, PartitionView>,
  unclean: ReadonlySet<string>,
  live: (b: number) => boolean,
): { rows: RehearsalPartitionView[]; predictedCounts: OutcomeCounts; observedCounts: OutcomeCounts } {
  const predictedCounts = zero();
  const observedCounts = zero();
  const rows: RehearsalPartitionView[] = predictions.map((p) => {
    const name = `${p.topic}-${p.partition}`;
    const seen = observed.get(name);
    const predicted: RehearsalStateView = { leader: p.after.leader, isr: sorted(p.after.isr), elr: sorted(p.after.elr), outcome: p.after.outcome };
    const obs: RehearsalStateView = seen
      ? {
          leader: seen.leader,
          isr: sorted(seen.isr),
          elr: sorted(seen.eligibleLeaderReplicas),
          outcome: outcomeOf(seen, p.effectiveMinIsr, unclean.has(name) || seen.leaderRecoveryState === 'RECOVERING', live),
        }
      : { leader: -1, isr: [], elr: [], outcome: 'offline' };
    predictedCounts[predicted.outcome]++;
    observedCounts[obs.outcome]++;
    const difference = seen ? differenceOf(predicted, obs) : 'the partition is gone';
    return { topic: p.topic, partition: p.partition, replicas: p.replicas, predicted, observed: obs, agrees: difference === '', difference };
  });
  return { rows, predictedCounts, observedCounts };
}

/** Each group's predicted coordinator beside the one the cluster names (`observed` by group id, -1: none), disagreements first. */
export function compareCoordinators(predictions: readonly GroupCoordinatorImpactView[], observed: ReadonlyMap<string, number>): RehearsalCoordinatorView[] {
  const rows = predictions.map((c) => {
    const seen = observed.get(c.groupId) ?? -1;
    const agrees = seen === c.after;
    const name = (b: number): string => (b < 0 ? 'none' : `broker ${b}`);
    return { groupId: c.groupId, partition: c.partition, predicted: c.after, observed: seen, agrees, difference: agrees ? '' : `coordinator ${name(seen)} where ${name(c.after)} was predicted` };
  });
  return [...rows.filter((r) => !r.agrees), ...rows.filter((r) => r.agrees)];
}

/** Answers that a coordinator is still being chosen or loaded: asked again until the deadline. */
const COORDINATOR_MOVING = new Set(['COORDINATOR_LOAD_IN_PROGRESS', 'NOT_COORDINATOR']);

/**
 * The broker each group's FindCoordinator names now (-1: none answers, COORDINATOR_NOT_AVAILABLE:
 * its `__consumer_offsets` partition has no leader).
 */
async function coordinatorsNow(call: TwinCall, groups: readonly string[], deadline: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const groupId of groups) {
    out.set(
      groupId,
      await until(
        async () => {
          try {
            return (await call('groups.describe', { groupId })).coordinatorId;
          } catch (e) {
            if (e instanceof KafkaError && COORDINATOR_MOVING.has(e.code)) return undefined;
            if (e instanceof KafkaError && e.code === 'COORDINATOR_NOT_AVAILABLE') return -1;
            throw e;
          }
        },
        deadline,
        `Group ${groupId}'s coordinator loading it`,
      ),
    );
  }
  return out;
}

export async function rehearseStop(deps: RehearseDeps, input: MethodParsedInput<'connections.rehearseStop'>): Promise<StopRehearsalView> {
  const cluster = localCluster(deps, input.id);
  const call = deps.callOn(input.id);
  const fault: RehearsalFault = input.fault ?? 'kill';
  const startedAtMs = Date.now();
  const deadline = startedAtMs + (input.timeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000;
  const prediction = await call('impact.ofStop', { ...(input.brokers ? { brokers: input.brokers } : {}), ...(input.racks ? { racks: input.racks } : {}), limit: ALL });
  const clock0 = (await call('clock.get', {})).nowMs;
  const states = new Map(((await call('brokers.list', {})) as BrokerView[]).map((b) => [b.id, b.state]));
  const alreadyDown = prediction.stopped.filter((b) => DOWN.has(states.get(b)!));
  const toStop = prediction.stopped.filter((b) => !alreadyDown.includes(b));

  // One at a time, each once the controller has fenced the one before: the order the prediction assumes.
  const fencedBefore = (await call('cluster.describe', {})).fencedBrokers;
  for (const [i, b] of toStop.entries()) {
    await call(FAULT_METHOD[fault], { brokerId: b });
    await until(async () => (await call('cluster.describe', {})).fencedBrokers >= fencedBefore + i + 1, deadline, `The controller fencing broker ${b}`);
  }

  // Settled: two reads a moment apart agree, and no touched partition is led by a stopped broker.
  const topics = [...new Set(prediction.partitions.map((p) => p.topic))];
  const stoppedSet = new Set(prediction.stopped);
  const key = (m: Map<string, PartitionView>) => JSON.stringify([...m].map(([k, p]) => [k, p.leader, p.isr, p.eligibleLeaderReplicas]));
  let last = '';
  const observed = await until(
    async () => {
      const now = await partitionsOf(call, topics);
      const k = key(now);
      const settled = k === last && [...now.values()].every((p) => !stoppedSet.has(p.leader));
      last = k;
      return settled ? now : undefined;
    },
    deadline,
    'The cluster settling after the stop',
    400,
  );
  const clusterMs = (await call('clock.get', {})).nowMs - clock0;
  const uncleanlyElected = new Set((await eventsSince(call, ['leader.changed'], clock0)).filter((e) => e.unclean).map((e) => `${e.topic}-${e.partition}`));
  const statesAfter = new Map(((await call('brokers.list', {})) as BrokerView[]).map((b) => [b.id, b.state]));
  const live = (b: number) => statesAfter.has(b) && !DOWN.has(statesAfter.get(b)!);

  const { rows, predictedCounts, observedCounts } = compareStop(prediction.partitions, observed, uncleanlyElected, live);
  const coordinators = compareCoordinators(prediction.coordinators, await coordinatorsNow(call, prediction.coordinators.map((c) => c.groupId), deadline));
  const agreed = rows.filter((r) => r.agrees).length;
  const view: StopRehearsalView = {
    kind: 'stop',
    fault,
    brokers: input.brokers ?? [],
    racks: input.racks ?? [],
    stopped: toStop,
    alreadyDown,
    startedAtMs,
    wallMs: Date.now() - startedAtMs,
    clusterMs,
    compared: rows.length,
    agreed,
    predictedCounts,
    observedCounts,
    // Disagreements first, then the prediction's order (worst outcome first).
    partitions: [...rows.filter((r) => !r.agrees), ...rows.filter((r) => r.agrees)].slice(0, input.limit ?? DEFAULT_LIMIT),
    coordinators,
  };
  appendJournal(cluster.dataDir, { kind: 'rehearsal', rehearsal: view });
  return view;
}

export async function rehearsePlan(deps: RehearseDeps, input: MethodParsedInput<'connections.rehearsePlan'>): Promise<PlanRehearsalView> {
  const cluster = localCluster(deps, input.id);
  const call = deps.callOn(input.id);
  const startedAtMs = Date.now();
  const deadline = startedAtMs + (input.timeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000;
  const partitions = input.partitions.map(({ topic, partition, replicas }) => ({ topic, partition, replicas }));
  const throttle = input.throttleBytesPerSec !== undefined ? { throttleBytesPerSec: input.throttleBytesPerSec } : {};
  const prediction = await call('impact.ofPlan', { partitions, ...throttle, limit: ALL });
  const clock0 = (await call('clock.get', {})).nowMs;
  await call('reassignments.execute', { partitions, ...throttle });
  await until(async () => ((await call('reassignments.list', {})) as unknown[]).length === 0, deadline, 'Every move of the plan completing', 250);
  // As kafka-reassign-partitions.sh --verify does once all are done: the throttles go.
  await call('reassignments.verify', { partitions });
  const changed = await eventsSince(call, ['reassignment.changed'], clock0);
  const started = changed.filter((e) => e.status === 'started').map((e) => e.atMs);
  const completed = changed.filter((e) => e.status === 'completed').map((e) => e.atMs);
  const copySeconds = started.length && completed.length ? (Math.max(...completed) - Math.min(...started)) / 1000 : 0;
  const clusterMs = (await call('clock.get', {})).nowMs - clock0;

  const observed = await partitionsOf(call, [...new Set(prediction.moves.map((m) => m.topic))]);
  const moves: RehearsalMoveView[] = prediction.moves.map((m) => {
    const seen = observed.get(`${m.topic}-${m.partition}`);
    const predicted = { replicas: m.after.replicas, leader: m.after.leader, isr: sorted(m.after.isr) };
    const obs = seen ? { replicas: seen.replicas, leader: seen.leader, isr: sorted(seen.isr) } : { replicas: [], leader: -1, isr: [] };
    const diff: string[] = [];
    if (!same(predicted.replicas, obs.replicas)) diff.push(`replicas ${list(obs.replicas)} where ${list(predicted.replicas)} was predicted`);
    if (predicted.leader !== obs.leader) diff.push(`leader ${obs.leader} where ${predicted.leader} was predicted`);
    if (!same(predicted.isr, obs.isr)) diff.push(`ISR ${list(obs.isr)} where ${list(predicted.isr)} was predicted`);
    return { topic: m.topic, partition: m.partition, predicted, observed: obs, agrees: diff.length === 0, difference: diff.join('; ') };
  });
  const view: PlanRehearsalView = {
    kind: 'plan',
    partitionCount: prediction.partitionCount,
    throttleBytesPerSec: input.throttleBytesPerSec ?? null,
    bytesToCopy: prediction.bytesToCopy,
    estimatedSeconds: prediction.estimatedSeconds,
    copySeconds,
    startedAtMs,
    wallMs: Date.now() - startedAtMs,
    clusterMs,
    compared: moves.length,
    agreed: moves.filter((m) => m.agrees).length,
    moves: [...moves.filter((m) => !m.agrees), ...moves.filter((m) => m.agrees)].slice(0, input.limit ?? DEFAULT_LIMIT),
  };
  appendJournal(cluster.dataDir, { kind: 'rehearsal', rehearsal: view });
  return view;
}
