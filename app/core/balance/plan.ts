/**
 * `balance.plan`: a small Cruise Control (docs/semantics.md#balancing). Pure and deterministic: no
 * I/O, no randomness, sorted iteration, so the same model and options give the same plan.
 *
 * Invariants:
 * - Goals run in priority order (RackAware — only when racks are configured — ReplicaCapacity,
 *   ReplicaDistribution, DiskUsageDistribution, TopicReplicaDistribution,
 *   LeaderReplicaDistribution); each is optimised with every earlier goal as a veto.
 * - After each goal its statistic (variance, or the violation count of a hard goal) must not
 *   have grown; if it did the planner has a bug and throws INTERNAL rather than return a plan.
 *   Distribution statistics are not compared while a drained broker still holds load, because
 *   draining legitimately spreads load over the remaining brokers.
 * - Leadership is expressed through order: every partition the plan touches lists its intended
 *   leader first; `leaderChanges` are the preferred elections that realise it.
 * - Balancedness: "before" subtracts the weight of every goal that moved anything or is
 *   still violated; "after" only of goals still violated.
 */
import { KafkaError } from '../../api/errors.js';
import { balancednessScore, balancednessWeights } from './bands.js';
import { DiskUsageDistributionGoal, LeaderReplicaDistributionGoal, ReplicaDistributionGoal, TopicReplicaDistributionGoal } from './distribution.js';
import { RackAwareGoal, ReplicaCapacityGoal, Runner, type Goal } from './goals.js';
import { ClusterState, type PartitionLoad } from './state.js';
import {
  DEFAULT_BALANCE_THRESHOLDS,
  type BalanceBrokerLoadView,
  type BalanceDistributionView,
  type BalanceGoalView,
  type BalanceLeaderChangeView,
  type BalanceModel,
  type BalanceOptions,
  type BalancePlanView,
  type BalanceRackLoadView,
  type BalanceReassignmentView,
  type BalanceThresholds,
} from './types.js';

export function resolveThresholds(overrides: Partial<BalanceThresholds> = {}): BalanceThresholds {
  const t: BalanceThresholds = { ...DEFAULT_BALANCE_THRESHOLDS, ...overrides };
  const bad = (name: keyof BalanceThresholds, why: string): never => {
    throw new KafkaError('INVALID_INPUT', `Balance threshold ${name} ${why}, got ${t[name]}.`);
  };
  for (const name of ['replicaCountBalanceThreshold', 'diskBalanceThreshold', 'topicReplicaCountBalanceThreshold', 'leaderReplicaCountBalanceThreshold'] as const) {
    if (!Number.isFinite(t[name]) || t[name] < 1) bad(name, 'must be a number ≥ 1');
  }
  for (const name of ['maxReplicasPerBroker', 'topicReplicaCountBalanceMinGap', 'topicReplicaCountBalanceMaxGap'] as const) {
    if (!Number.isSafeInteger(t[name]) || t[name] < 0) bad(name, 'must be a whole number ≥ 0');
  }
  if (t.topicReplicaCountBalanceMaxGap < t.topicReplicaCountBalanceMinGap) bad('topicReplicaCountBalanceMaxGap', 'must not be below the min gap');
  return t;
}

function makeGoals(state: ClusterState, t: BalanceThresholds, settle: boolean): Goal[] {
  const goals: Goal[] = [];
  if (state.racksConfigured) goals.push(new RackAwareGoal(state));
  goals.push(
    new ReplicaCapacityGoal(state, t.maxReplicasPerBroker),
    new ReplicaDistributionGoal(state, t.replicaCountBalanceThreshold, settle),
    new DiskUsageDistributionGoal(state, t.diskBalanceThreshold),
    new TopicReplicaDistributionGoal(state, t.topicReplicaCountBalanceThreshold, t.topicReplicaCountBalanceMinGap, t.topicReplicaCountBalanceMaxGap),
    new LeaderReplicaDistributionGoal(state, t.leaderReplicaCountBalanceThreshold, settle),
  );
  return goals;
}

function distribution(state: ClusterState): BalanceDistributionView {
  const brokers = state.brokers.map((b) => ({ id: b.id, rack: b.rack, alive: b.alive, excluded: b.excluded, replicas: b.replicas.size, leaders: b.leaders, bytes: b.bytes }));
  const racks = new Map<string | null, BalanceRackLoadView>();
  for (const b of brokers) {
    let r = racks.get(b.rack);
    if (!r) racks.set(b.rack, (r = { rack: b.rack, brokers: [], replicas: 0, leaders: 0, bytes: 0 }));
    r.brokers.push(b.id);
    r.replicas += b.replicas;
    r.leaders += b.leaders;
    r.bytes += b.bytes;
  }
  const order = (x: BalanceRackLoadView, y: BalanceRackLoadView): number =>
    x.rack === y.rack ? 0 : x.rack === null ? 1 : y.rack === null ? -1 : x.rack < y.rack ? -1 : 1;
  return { brokers, racks: [...racks.values()].sort(order) };
}

/** The partition's replica list after the plan: unchanged if untouched, else leader first. */
function finalReplicas(p: PartitionLoad): number[] {
  const touched = p.leader !== p.originalLeader || p.replicas.some((r, i) => r !== p.original[i]);
  if (!touched || p.leader < 0) return [...p.replicas];
  return [p.leader, ...p.replicas.filter((r) => r !== p.leader)];
}

/**
 * Optimise one goal with the goals before it as vetoes, then check it did not make its own
 * statistic worse (Cruise Control's stats comparator): if it did, that is our bug, not bad input.
 */
export function optimizeGoal(goal: Goal, run: Runner): void {
  const s0 = goal.statistic();
  goal.optimize(run);
  const s1 = goal.statistic();
  if (s0 !== null && s1 !== null && s1 > s0 + 1e-9 * Math.max(1, s0)) {
    throw new KafkaError('INTERNAL', `Balancer bug: ${goal.name} made its own statistic worse (${s0} → ${s1}).`);
  }
  run.prior.push(goal);
}

/** Where a plan in steps got: `goalsDone` of `goals` goals optimised, the last one named. */
export interface BalancePlanStep {
  goal: string;
  goalsDone: number;
  goals: number;
}

/** Plan in one go (what `planBalanceSteps` yields, run to its end). */
export function planBalance(model: BalanceModel, options: BalanceOptions = {}): BalancePlanView {
  const steps = planBalanceSteps(model, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The plan one goal at a time: yields after each goal is optimised, so a caller can report
 * progress and stop between goals (a big cluster's plan takes seconds); returns the plan.
 */
export function* planBalanceSteps(model: BalanceModel, options: BalanceOptions = {}): Generator<BalancePlanStep, BalancePlanView, void> {
  const thresholds = resolveThresholds(options.thresholds);
  const exclude = new Set(options.excludeBrokers ?? []);
  const known = new Set(model.brokers.map((b) => b.id));
  const unknown = [...exclude].sort((a, b) => a - b).find((id) => !known.has(id));
  if (unknown !== undefined) throw new KafkaError('BROKER_NOT_FOUND', `Broker ${unknown} is not registered.`);

  const state = new ClusterState(model, exclude);
  if (state.candidates.length === 0 && state.partitions.length > 0) {
    throw new KafkaError('INVALID_REQUEST', 'No alive broker outside the excluded ones is left to hold replicas.');
  }
  const before = distribution(state);
  const goals = makeGoals(state, thresholds, options.settleInsideBand ?? true);
  const run = new Runner(state, options.leadersOnly === true);
  for (const [i, goal] of goals.entries()) {
    optimizeGoal(goal, run);
    yield { goal: goal.name, goalsDone: i + 1, goals: goals.length };
  }

  const partitions: BalanceReassignmentView[] = [];
  const leaderChanges: BalanceLeaderChangeView[] = [];
  let bytesToMove = 0;
  let replicaMoves = 0;
  for (const p of state.partitions) {
    const replicas = finalReplicas(p);
    if (replicas.every((r, i) => r === p.original[i]) && replicas.length === p.original.length) continue;
    partitions.push({ topic: p.topic, partition: p.partition, replicas, currentReplicas: [...p.original] });
    const added = replicas.filter((r) => !p.original.includes(r)).length;
    replicaMoves += added;
    bytesToMove += added * p.bytes;
    if (replicas[0] !== p.originalLeader) leaderChanges.push({ topic: p.topic, partition: p.partition, from: p.originalLeader, to: replicas[0]! });
  }

  // Credit each net change to the goal that made it last, so the goals' figures add up to the plan's.
  const planReplicaMoves = new Map<Goal, number>();
  const planLeaderChanges = new Map<Goal, number>();
  const credit = (m: Map<Goal, number>, g: Goal | undefined): void => void (g && m.set(g, (m.get(g) ?? 0) + 1));
  for (const p of state.partitions) {
    const replicas = finalReplicas(p);
    for (const r of replicas) if (!p.original.includes(r)) credit(planReplicaMoves, run.replicaPlacedBy.get(`${p.index}:${r}`));
    if (replicas.length > 0 && replicas[0] !== p.originalLeader && p.leader !== p.originalLeader) credit(planLeaderChanges, run.leaderSetBy.get(p.index));
  }
  const rackless = model.brokers.filter((b) => b.rack === null).map((b) => b.id);
  const racked = model.brokers.filter((b) => b.rack !== null).map((b) => b.id);
  const mixedRacks = rackless.length > 0 && racked.length > 0;

  const goalViews: BalanceGoalView[] = goals.map((g) => {
    const moves = g.replicaMoves + g.leadershipMoves;
    const status = !g.satisfied() ? 'violated' : moves > 0 ? 'optimized' : 'satisfied';
    const unmet = status === 'violated' ? g.unmet() : null;
    const binding = unmet && !g.hard ? bindingReason(g, run, state) : null;
    let reason =
      unmet && !g.hard
        ? `${unmet} ${binding ?? 'A soft goal: the balancer found no further move that the goals above it accept and that keeps every other broker inside the band, so the plan leaves it there.'}`
        : unmet;
    if (g instanceof RackAwareGoal && mixedRacks && status !== 'violated') {
      reason = `Met only as far as racks are known: broker ${rackless.join(', ')} ${rackless.length === 1 ? 'has' : 'have'} no broker.rack, so each counts as a rack of its own.`;
    }
    return {
      name: g.name,
      hard: g.hard,
      status,
      moves,
      replicaMoves: g.replicaMoves,
      leadershipMoves: g.leadershipMoves,
      planReplicaMoves: planReplicaMoves.get(g) ?? 0,
      planLeaderChanges: planLeaderChanges.get(g) ?? 0,
      reason,
      band: g.band ? { ...g.band } : null,
      weight: 0,
    };
  });
  const warnings: string[] = [];
  if (mixedRacks) {
    warnings.push(
      `Broker ${rackless.join(', ')} ${rackless.length === 1 ? 'has' : 'have'} no broker.rack while broker ${racked.join(', ')} ${racked.length === 1 ? 'has one' : 'have one'}: ` +
        'the balancer cannot tell which rack a broker without one shares, so rack awareness is only as good as the racks set. ' +
        "Set broker.rack on every broker (Kafka's ZooKeeper-era rack-aware assignment, KIP-36, refuses such a mix: \"Not all brokers have rack information\"; KRaft's placer puts every broker without a rack into one empty rack).",
    );
  }
  const weights = balancednessWeights(goalViews);
  goalViews.forEach((g, i) => (g.weight = Math.round(weights[i]! * 100) / 100));
  return {
    partitions,
    leaderChanges,
    bytesToMove,
    replicaMoves,
    before,
    after: distribution(state),
    balancedness: {
      before: balancednessScore(weights, goalViews.map((g) => g.moves > 0 || g.status === 'violated')),
      after: balancednessScore(weights, goalViews.map((g) => g.status === 'violated')),
    },
    goals: goalViews,
    warnings,
    manyMovesReason: whyManyMoves(before, replicaMoves, goalViews, exclude),
  };
}

/**
 * Why a soft goal stays unmet, when a goal above it decided it: the goal that refused the most of
 * its moves touching a broker left outside it, that broker, and — for rack awareness or the
 * replica cap — the fact of the cluster that binds ("broker 4 shares rack c with broker 3").
 * Null when no higher goal refused such a move (the goal ran out of moves of its own).
 */
export function bindingReason(goal: Goal, run: Runner, state: ClusterState): string | null {
  const outside = goal.outside?.() ?? [];
  const vetoes = run.vetoes.get(goal);
  if (outside.length === 0 || !vetoes) return null;
  // The goal that refused the most moves at the brokers left outside, then at each side its broker with the most.
  let binding: { by: Goal; n: number } | null = null;
  for (const [by, brokers] of vetoes) {
    const n = outside.reduce((sum, o) => sum + (brokers.get(o.id) ?? 0), 0);
    if (n > (binding?.n ?? 0)) binding = { by, n };
  }
  if (!binding) return null;
  const { by } = binding;
  const counts = vetoes.get(by)!;
  const clauses: string[] = [];
  for (const side of ['low', 'high'] as const) {
    let top: { id: number; n: number } | null = null;
    for (const o of outside) if (o.side === side && (counts.get(o.id) ?? 0) > (top?.n ?? 0)) top = { id: o.id, n: counts.get(o.id)! };
    if (!top) continue;
    const move = side === 'low' ? `onto broker ${top.id}` : `off broker ${top.id}`;
    clauses.push(`${top.n} move${top.n === 1 ? '' : 's'} ${move}${bindingFact(by, top.id, side, state)}`);
  }
  return `${by.name}${by.hard ? ', a hard goal above it,' : ', a goal above it,'} binds: it refused ${clauses.join('; and ')}.`;
}

/** The fact behind a veto at broker `id`, as a clause (" (broker 4 shares rack c with broker 3, …)"), or ''. */
function bindingFact(by: Goal, id: number, side: 'low' | 'high', state: ClusterState): string {
  const b = state.broker(id);
  if (by instanceof RackAwareGoal) {
    if (b.rack === null) return ` (broker ${id} has no broker.rack, so it counts as a rack of its own)`;
    const mates = state.candidates.filter((x) => x.rackKey === b.rackKey && x.id !== id).map((x) => x.id);
    const racks = state.eligibleRacks.size;
    if (mates.length === 0) {
      return ` (broker ${id} is the only broker of rack ${b.rack}: a partition keeps its replicas spread over the ${racks} racks, so ${side === 'high' ? `it holds every replica rack ${b.rack} gets` : `rack ${b.rack} gets no more replicas than that spread allows`})`;
    }
    return ` (broker ${id} shares rack ${b.rack} with broker ${mates.join(', ')}: a partition keeps its replicas spread over the ${racks} racks, so the brokers of rack ${b.rack} share what a broker alone in its rack holds by itself)`;
  }
  if (by instanceof ReplicaCapacityGoal) return ' (it would take a broker over max.replicas.per.broker)';
  return '';
}

/** A plan moving more than this share of all replicas says why. */
export const MANY_MOVES_SHARE = 0.05;

/**
 * A cluster whose topics the controller placed needs few moves: its placer already spreads each
 * topic's replicas and leaders evenly over the brokers that existed when the topic was created.
 * When a plan moves many, say why in the terms a user can act on: which goal asked for most of
 * them, and the brokers far from the average (typically brokers added after the topics were
 * created, which the controller never fills by itself, or brokers being drained).
 */
export function whyManyMoves(before: BalanceDistributionView, replicaMoves: number, goals: readonly BalanceGoalView[], excluded: ReadonlySet<number>): string | null {
  const total = before.brokers.reduce((s, b) => s + b.replicas, 0);
  if (total === 0 || replicaMoves <= MANY_MOVES_SHARE * total) return null;
  const pct = Math.round((100 * replicaMoves) / total);
  const top = [...goals].sort((a, b) => b.planReplicaMoves - a.planReplicaMoves)[0];
  let text = `This plan moves ${replicaMoves} of ${total} replicas (${pct}%)`;
  if (top && top.planReplicaMoves > 0) text += `, ${top.planReplicaMoves} of them for ${top.name}`;
  text += '.';
  const live = before.brokers.filter((b) => b.alive && !excluded.has(b.id));
  const mean = live.length > 0 ? live.reduce((s, b) => s + b.replicas, 0) / live.length : 0;
  const empty = live.filter((b) => b.replicas < 0.5 * mean);
  const full = live.filter((b) => b.replicas > 1.5 * mean);
  const drained = before.brokers.filter((b) => excluded.has(b.id) && b.replicas > 0);
  const list = (bs: BalanceBrokerLoadView[]): string => bs.map((b) => `${b.id} (${b.replicas})`).join(', ');
  if (drained.length > 0) text += ` Broker ${list(drained)} ${drained.length === 1 ? 'is' : 'are'} drained: every replica there moves.`;
  if (empty.length > 0) {
    text +=
      ` Broker ${list(empty)} ${empty.length === 1 ? 'holds' : 'hold'} far fewer replicas than the average of ${Math.round(mean)}: ` +
      'the controller places replicas only when a topic or partition is created, so brokers added later stay empty until replicas are moved to them.';
  }
  if (full.length > 0) text += ` Broker ${list(full)} ${full.length === 1 ? 'holds' : 'hold'} far more than the average: topics created with explicit assignments, or while other brokers were down, are not spread by the controller.`;
  if (drained.length === 0 && empty.length === 0 && full.length === 0) {
    text += ' No broker is far from the average: the moves even out smaller differences (per topic, disk or leaders) that the goals\' bands do not accept.';
  }
  return text;
}

