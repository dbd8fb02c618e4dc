/**
 * The goal framework (docs/semantics.md#balancing) and the two hard goals: rack awareness and
 * replica capacity.
 *
 * Invariants:
 * - An action is applied only when, in this order: it is legit (holders, eligible destination),
 *   the proposing goal accepts it (its own test; an action that does not move the goal's own
 *   load is never the goal's own move), and every previously optimised goal accepts it. The
 *   first refusal wins; accepted actions are applied at once (greedy, no backtracking).
 * - `leadersOnly` refuses every replica move, so only leadership moves reach the model.
 * - Rack awareness measures each partition's excess (ClusterState.rackExcess): its own moves
 *   strictly lower one partition's excess; it vetoes any move that raises it.
 * - Replica capacity: its own moves take a broker over the cap down without taking another over
 *   it; it vetoes any move onto a broker already at the cap (swaps leave counts as they are).
 * - A swap is judged as a whole: each of its two replica moves must keep its partition's rack
 *   excess, and count goals see its net transfer.
 */
import type { Band } from './bands.js';
import { replicaMovesOf, type Action, type BrokerLoad, type ClusterState, type PartitionLoad } from './state.js';
import type { BalanceGoalName } from './types.js';

export interface Goal {
  readonly name: BalanceGoalName;
  readonly hard: boolean;
  /** The single band per candidate broker, when the goal has one. */
  readonly band: Band | null;
  replicaMoves: number;
  leadershipMoves: number;
  /** The goal's own acceptance test for its moves (acceptance step 3). */
  selfAccepts(a: Action): boolean;
  /** Veto on a move proposed by a lower-priority goal (acceptance step 4). */
  accepts(a: Action): boolean;
  satisfied(): boolean;
  /** When not satisfied: what stays outside the goal, in words ("broker 5 holds 2, band 10–14"). */
  unmet(): string | null;
  /** What the goal's optimisation must not make worse; null when it cannot be compared (draining). */
  statistic(): number | null;
  optimize(run: Runner): void;
  /** When not satisfied: the brokers outside it, each below ('low') or above ('high') what it asks. */
  outside?(): { id: number; side: 'low' | 'high' }[];
}

/** Per vetoing goal, per broker an action touched (from or to): how many of a goal's actions it refused. */
export type Vetoes = Map<Goal, Map<number, number>>;

/** Applies actions for the goal being optimised, with the goals optimised before it as vetoes. */
export class Runner {
  readonly prior: Goal[] = [];
  /** Per "partition index:broker": the goal that last moved a replica of that partition onto that broker. */
  readonly replicaPlacedBy = new Map<string, Goal>();
  /** Per partition index: the goal that last changed its leader. */
  readonly leaderSetBy = new Map<number, Goal>();
  /**
   * Per proposing goal, the goals before it that refused its actions and the brokers those actions
   * touched: which higher goal binds when a goal is left unmet, and at which broker.
   */
  readonly vetoes = new Map<Goal, Vetoes>();
  constructor(
    readonly state: ClusterState,
    readonly leadersOnly: boolean,
  ) {}

  tryApply(goal: Goal, a: Action): boolean {
    if (a.kind !== 'leadership' && this.leadersOnly) return false;
    if (!this.state.legit(a) || !goal.selfAccepts(a)) return false;
    for (const g of this.prior) {
      if (!g.accepts(a)) {
        this.noteVeto(goal, g, a);
        return false;
      }
    }
    const leaders = replicaMovesOf(a).filter((m) => m.p.leader === m.from).map((m) => m.p.index);
    this.state.apply(a);
    if (a.kind === 'leadership') {
      goal.leadershipMoves++;
      this.leaderSetBy.set(a.p.index, goal);
    } else {
      goal.replicaMoves += replicaMovesOf(a).length;
      for (const m of replicaMovesOf(a)) this.replicaPlacedBy.set(`${m.p.index}:${m.to}`, goal);
      // Moving the leader's replica moves leadership with it.
      for (const index of leaders) this.leaderSetBy.set(index, goal);
    }
    return true;
  }

  private noteVeto(goal: Goal, by: Goal, a: Action): void {
    let byGoal = this.vetoes.get(goal);
    if (!byGoal) this.vetoes.set(goal, (byGoal = new Map()));
    let brokers = byGoal.get(by);
    if (!brokers) byGoal.set(by, (brokers = new Map()));
    for (const id of [a.from, a.to]) brokers.set(id, (brokers.get(id) ?? 0) + 1);
  }
}

/** Greedy passes stop when a pass applies nothing; this bounds them anyway. */
export const MAX_PASSES = 8;

export const byId = (a: BrokerLoad, b: BrokerLoad): number => a.id - b.id;

/** Try each partition in turn (a snapshot), moving it from `b` to the first destination that takes it. */
export function shedReplicas(run: Runner, goal: Goal, b: BrokerLoad, still: () => boolean, parts: PartitionLoad[], dests: () => BrokerLoad[]): void {
  for (const p of parts) {
    if (!still()) return;
    for (const d of dests()) if (run.tryApply(goal, { kind: 'replica', p, from: b.id, to: d.id })) break;
  }
}

/** Pull partitions onto `b` from each source in turn, while `still()`. */
export function pullReplicas(run: Runner, goal: Goal, b: BrokerLoad, still: () => boolean, sources: BrokerLoad[], partsOf: (s: BrokerLoad) => PartitionLoad[]): void {
  for (const s of sources) {
    for (const p of partsOf(s)) {
      if (!still()) return;
      if (!p.replicas.includes(b.id)) run.tryApply(goal, { kind: 'replica', p, from: s.id, to: b.id });
    }
  }
}

/** Runs `pass` until it applies nothing (or MAX_PASSES). */
export function greedyPasses(goal: Goal, pass: () => void): void {
  for (let i = 0; i < MAX_PASSES; i++) {
    const before = goal.replicaMoves + goal.leadershipMoves;
    pass();
    if (goal.replicaMoves + goal.leadershipMoves === before) return;
  }
}

abstract class BaseGoal implements Goal {
  replicaMoves = 0;
  leadershipMoves = 0;
  readonly band: Band | null = null;
  abstract readonly name: BalanceGoalName;
  abstract readonly hard: boolean;
  constructor(protected readonly state: ClusterState) {}
  abstract selfAccepts(a: Action): boolean;
  abstract accepts(a: Action): boolean;
  abstract satisfied(): boolean;
  abstract unmet(): string | null;
  abstract statistic(): number | null;
  abstract optimize(run: Runner): void;
}

/** RackAwareGoal (RF ≤ racks) or RackAwareDistributionGoal (some RF > racks): hard. */
export class RackAwareGoal extends BaseGoal {
  readonly name: BalanceGoalName;
  readonly hard = true;

  constructor(state: ClusterState) {
    super(state);
    const racks = state.eligibleRacks.size;
    this.name = state.partitions.some((p) => p.replicas.length > racks) ? 'RackAwareDistributionGoal' : 'RackAwareGoal';
  }

  selfAccepts(a: Action): boolean {
    return a.kind === 'replica' && this.state.rackExcess(this.state.replicasAfter(a)) < this.state.rackExcess(a.p.replicas);
  }

  accepts(a: Action): boolean {
    const s = this.state;
    // A move within one rack cannot change the spread; only cross-rack moves need counting.
    return replicaMovesOf(a).every((m) => s.broker(m.from).rackKey === s.broker(m.to).rackKey || s.rackExcess(s.replicasAfter(m)) <= s.rackExcess(m.p.replicas));
  }

  satisfied(): boolean {
    return this.statistic() === 0;
  }

  unmet(): string | null {
    const crowded = this.state.partitions.filter((p) => this.state.rackExcess(p.replicas) > 0);
    if (crowded.length === 0) return null;
    const first = crowded[0]!;
    return `${crowded.length} partition${crowded.length === 1 ? '' : 's'} still put more replicas in one rack than the racks allow (e.g. ${first.topic}-${first.partition} on brokers ${first.replicas.join(', ')}).`;
  }

  statistic(): number {
    return this.state.partitions.reduce((n, p) => n + this.state.rackExcess(p.replicas), 0);
  }

  optimize(run: Runner): void {
    const s = this.state;
    for (const p of s.partitions) {
      while (p.movable && s.rackExcess(p.replicas) > 0) {
        const inRack = (id: number): number => {
          const key = s.broker(id).rackKey;
          return s.eligibleRacks.has(key) ? p.replicas.filter((r) => s.broker(r).rackKey === key).length : Number.MAX_SAFE_INTEGER;
        };
        // Sources: drained brokers, the most crowded racks, followers before the leader.
        const sources = p.replicas
          .map((id) => s.broker(id))
          .sort((x, y) => Number(y.drain) - Number(x.drain) || inRack(y.id) - inRack(x.id) || Number(x.id === p.leader) - Number(y.id === p.leader) || y.replicas.size - x.replicas.size || x.id - y.id);
        const dests = s.candidates.filter((d) => !p.replicas.includes(d.id)).sort((x, y) => inRack(x.id) - inRack(y.id) || x.replicas.size - y.replicas.size || x.id - y.id);
        let moved = false;
        for (const src of sources) {
          for (const d of dests) if ((moved = run.tryApply(this, { kind: 'replica', p, from: src.id, to: d.id }))) break;
          if (moved) break;
        }
        if (!moved) break;
      }
    }
  }
}

/** ReplicaCapacityGoal: no alive broker holds more than `max.replicas.per.broker`; hard. */
export class ReplicaCapacityGoal extends BaseGoal {
  readonly name = 'ReplicaCapacityGoal';
  readonly hard = true;

  constructor(
    state: ClusterState,
    private readonly cap: number,
  ) {
    super(state);
  }

  selfAccepts(a: Action): boolean {
    return a.kind === 'replica' && this.state.broker(a.from).replicas.size > this.cap && this.accepts(a);
  }

  accepts(a: Action): boolean {
    // Leadership moves and swaps leave every replica count as it is.
    return a.kind !== 'replica' || this.state.broker(a.to).replicas.size + 1 <= this.cap;
  }

  satisfied(): boolean {
    return this.statistic() === 0;
  }

  unmet(): string | null {
    const over = this.state.brokers.filter((b) => b.alive && b.replicas.size > this.cap);
    return over.length === 0 ? null : `${over.map((b) => `broker ${b.id} holds ${b.replicas.size} replicas`).join(', ')}, above the cap of ${this.cap} per broker.`;
  }

  statistic(): number {
    return this.state.brokers.reduce((n, b) => n + (b.alive ? Math.max(0, b.replicas.size - this.cap) : 0), 0);
  }

  optimize(run: Runner): void {
    const s = this.state;
    greedyPasses(this, () => {
      for (const b of s.brokers) {
        if (!b.alive || b.replicas.size <= this.cap) continue;
        const parts = s.partitionsOn(b).sort((x, y) => x.bytes - y.bytes || x.index - y.index);
        const dests = (): BrokerLoad[] => [...s.candidates].sort((x, y) => x.replicas.size - y.replicas.size || byId(x, y));
        shedReplicas(run, this, b, () => b.replicas.size > this.cap, parts, dests);
      }
    });
  }
}
