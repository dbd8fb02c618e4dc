/**
 * The soft distribution goals, in priority order: ReplicaDistribution, DiskUsageDistribution,
 * TopicReplicaDistribution, LeaderReplicaDistribution (docs/semantics.md#balancing).
 *
 * Invariants:
 * - Averages are over candidate brokers (alive, not excluded); a drained broker's band is
 *   [0, 0]: it is fixed whenever it holds load, nothing moves onto it, and its lower limit is
 *   never checked when load leaves it.
 * - Acceptance is Cruise Control's on the goal's band, applied to the action's net transfer
 *   between its two brokers: the receiver stays ≤ upper, the giver stays ≥ lower (unless
 *   drained). A transfer of 0 (a leadership move for a replica goal, a count-neutral swap) is
 *   accepted. A goal's own move must also carry load from the fuller broker to the emptier one
 *   (receiver + amount < giver), so it never churns and the variance over candidates strictly
 *   falls while nothing is being drained: the stdev-not-worse check holds by construction.
 * - A broker is fixed only when it is outside the band; the goal then keeps working on it until
 *   it is inside the inner band (`innerCountBand`; the inner band is the band for bytes and
 *   per-topic counts), so a broker it had to touch ends near the average, and a broker already
 *   inside the band is never touched.
 * - The leader goal tries leadership moves (no data) before moving leader replicas; the disk
 *   goal tries replica moves before swaps (count-neutral, so replica balance allows them).
 */
import { countBand, inBand, innerCountBand, resourceBand, topicReplicaBand, variance, type Band } from './bands.js';
import { byId, greedyPasses, pullReplicas, shedReplicas, type Goal, type Runner } from './goals.js';
import { replicaMovesOf, type Action, type BrokerLoad, type ClusterState, type PartitionLoad, type ReplicaMove } from './state.js';
import type { BalanceGoalName } from './types.js';

const EPS = 1e-9;
const le = (x: number, y: number): boolean => x <= y + EPS * Math.max(1, Math.abs(y));
const ge = (x: number, y: number): boolean => x >= y - EPS * Math.max(1, Math.abs(y));

type Value = (b: BrokerLoad) => number;

/** Net load an action carries from `a.from` to `a.to` (negative: the other way). */
function netTransfer(a: Action, amount: (m: ReplicaMove) => number, leadership: number): number {
  if (a.kind === 'leadership') return leadership;
  return replicaMovesOf(a).reduce((n, m) => n + (m.from === a.from ? amount(m) : -amount(m)), 0);
}

/** A move's acceptance, step 3 (docs/semantics.md#balancing), on a band: the receiver stays ≤ upper, the giver stays ≥ lower unless drained. */
function bandAllows(state: ClusterState, value: Value, band: Band, a: Action, net: number): boolean {
  if (net === 0) return true;
  const giver = state.broker(net > 0 ? a.from : a.to);
  const receiver = state.broker(net > 0 ? a.to : a.from);
  const d = Math.abs(net);
  return le(value(receiver) + d, band.upper) && (giver.drain || ge(value(giver) - d, band.lower));
}

/** A goal's own move: positive transfer, inside the band, from the fuller broker to the emptier one. */
function ownMoveAllowed(state: ClusterState, value: Value, band: Band, a: Action, net: number): boolean {
  if (net <= 0 || !bandAllows(state, value, band, a, net)) return false;
  const from = state.broker(a.from);
  return from.drain || value(state.broker(a.to)) + net < value(from);
}

function bandSatisfied(state: ClusterState, value: Value, band: Band): boolean {
  return state.brokers.every((b) => (b.drain ? value(b) <= 0 : inBand(value(b), band)));
}

/** The brokers outside a band, in words: "broker 5 holds 2 (band 10–14)"; null when none. */
function outsideBand(state: ClusterState, value: Value, band: Band, what: string): string | null {
  const fmt = (n: number): string => String(Number.isInteger(n) ? n : Math.round(n * 100) / 100);
  const out = state.brokers.filter((b) => (b.drain ? value(b) > 0 : !inBand(value(b), band)));
  if (out.length === 0) return null;
  const shown = out.slice(0, 4).map((b) => `broker ${b.id} ${b.drain ? 'is drained but still holds' : 'holds'} ${fmt(value(b))} ${what}`);
  return `${shown.join(', ')}${out.length > 4 ? ` and ${out.length - 4} more brokers` : ''} (band ${fmt(band.lower)}–${fmt(band.upper)} per broker).`;
}

/** The live brokers outside a band, each below or above it (a drained broker still holding load is 'high'). */
function sidesOutside(state: ClusterState, value: Value, band: Band): { id: number; side: 'low' | 'high' }[] {
  return state.brokers.filter((b) => (b.drain ? value(b) > 0 : !inBand(value(b), band))).map((b) => ({ id: b.id, side: b.drain || value(b) > band.upper ? 'high' : 'low' }));
}

function candidateVariance(state: ClusterState, value: Value, drainLoaded: (b: BrokerLoad) => boolean): number | null {
  if (state.brokers.some((b) => b.drain && drainLoaded(b))) return null;
  return variance(state.candidates.map(value));
}

const avgOver = (state: ClusterState, total: number): number => (state.candidates.length === 0 ? 0 : total / state.candidates.length);
const sum = (state: ClusterState, value: Value): number => state.brokers.reduce((n, b) => n + value(b), 0);
/** Cheap moves first off broker `b`: small replicas, followers before leaders. */
const smallFirst =
  (b: BrokerLoad) =>
  (x: PartitionLoad, y: PartitionLoad): number =>
    x.bytes - y.bytes || Number(x.leader === b.id) - Number(y.leader === b.id) || x.index - y.index;

interface Balancing {
  value: Value;
  band: Band;
  inner: Band;
  /** A broker's partitions to try, in order. */
  parts: (b: BrokerLoad) => PartitionLoad[];
  /** Extra attempts (swaps) on a broker still above / below after replica moves. */
  over?: (b: BrokerLoad, still: () => boolean) => void;
  under?: (b: BrokerLoad, still: () => boolean) => void;
}

/** Shed from brokers above the band and pull into brokers below it, by replica moves. */
function balanceByReplicaMoves(run: Runner, goal: Goal, x: Balancing): void {
  const s = run.state;
  const { value, band, inner } = x;
  greedyPasses(goal, () => {
    for (const b of s.brokers) {
      const v = value(b);
      if (b.drain ? v > 0 : !le(v, band.upper)) {
        const still = (): boolean => (b.drain ? value(b) > 0 : !le(value(b), inner.upper));
        shedReplicas(run, goal, b, still, x.parts(b), () => [...s.candidates].sort((p, q) => value(p) - value(q) || byId(p, q)));
        if (still()) x.over?.(b, still);
      } else if (!b.drain && !ge(v, band.lower)) {
        const still = (): boolean => !ge(value(b), inner.lower);
        const sources = s.brokers
          .filter((o) => o !== b && (o.drain ? value(o) > 0 : value(o) > inner.lower))
          .sort((p, q) => Number(q.drain) - Number(p.drain) || value(q) - value(p) || byId(p, q));
        pullReplicas(run, goal, b, still, sources, x.parts);
        if (still()) x.under?.(b, still);
      }
    }
  });
}

/** Swap partners tried per (replica, broker) pair: bounds the search on big clusters. */
const SWAP_TRIES = 32;

/** First index in `parts` (sorted by bytes) whose size is ≥ `bytes`. */
function lowerBound(parts: readonly PartitionLoad[], bytes: number): number {
  let lo = 0;
  let hi = parts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (parts[mid]!.bytes < bytes) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

abstract class SingleBandGoal implements Goal {
  abstract readonly name: BalanceGoalName;
  readonly hard = false;
  replicaMoves = 0;
  leadershipMoves = 0;
  constructor(
    protected readonly state: ClusterState,
    readonly band: Band,
    protected readonly inner: Band,
  ) {}
  abstract value(b: BrokerLoad): number;
  /** How much of the goal's load one replica move carries. */
  abstract amount(m: ReplicaMove): number;
  /** How much a leadership move carries (1 for the leader goal, else 0). */
  abstract readonly leadershipAmount: number;
  abstract optimize(run: Runner): void;
  abstract statistic(): number | null;
  protected net(a: Action): number {
    return netTransfer(a, (m) => this.amount(m), this.leadershipAmount);
  }
  selfAccepts(a: Action): boolean {
    return ownMoveAllowed(this.state, (b) => this.value(b), this.band, a, this.net(a));
  }
  accepts(a: Action): boolean {
    return bandAllows(this.state, (b) => this.value(b), this.band, a, this.net(a));
  }
  satisfied(): boolean {
    return bandSatisfied(this.state, (b) => this.value(b), this.band);
  }
  /** What the value counts, for `unmet` ("replicas", "bytes", "leaders"). */
  protected abstract readonly unit: string;
  unmet(): string | null {
    return outsideBand(this.state, (b) => this.value(b), this.band, this.unit);
  }
  outside(): { id: number; side: 'low' | 'high' }[] {
    return sidesOutside(this.state, (b) => this.value(b), this.band);
  }
}

export class ReplicaDistributionGoal extends SingleBandGoal {
  readonly name = 'ReplicaDistributionGoal';
  readonly leadershipAmount = 0;
  protected readonly unit = 'replicas';
  constructor(state: ClusterState, threshold: number, settle: boolean) {
    const avg = avgOver(state, sum(state, (b) => b.replicas.size));
    const band = countBand(avg, threshold);
    super(state, band, settle ? innerCountBand(avg, threshold, band) : band);
  }
  value(b: BrokerLoad): number {
    return b.replicas.size;
  }
  amount(): number {
    return 1;
  }
  statistic(): number | null {
    return candidateVariance(this.state, (b) => this.value(b), (b) => b.replicas.size > 0);
  }
  optimize(run: Runner): void {
    const parts = (b: BrokerLoad): PartitionLoad[] => this.state.partitionsOn(b).filter((p) => p.movable).sort(smallFirst(b));
    balanceByReplicaMoves(run, this, { value: (b) => this.value(b), band: this.band, inner: this.inner, parts });
  }
}

export class DiskUsageDistributionGoal extends SingleBandGoal {
  readonly name = 'DiskUsageDistributionGoal';
  readonly leadershipAmount = 0;
  protected readonly unit = 'bytes';
  constructor(state: ClusterState, threshold: number) {
    const band = resourceBand(avgOver(state, sum(state, (b) => b.bytes)), threshold);
    super(state, band, band);
  }
  value(b: BrokerLoad): number {
    return b.bytes;
  }
  amount(m: ReplicaMove): number {
    return m.p.bytes;
  }
  statistic(): number | null {
    return candidateVariance(this.state, (b) => this.value(b), (b) => b.bytes > 0);
  }
  optimize(run: Runner): void {
    // With no bytes anywhere every broker is at 0, inside [0, 0]: nothing to do.
    const s = this.state;
    const bigFirst = (b: BrokerLoad): PartitionLoad[] => s.partitionsOn(b).filter((p) => p.movable && p.bytes > 0).sort((x, y) => y.bytes - x.bytes || x.index - y.index);
    const smallOn = (b: BrokerLoad): PartitionLoad[] => s.partitionsOn(b).filter((p) => p.movable).sort((x, y) => x.bytes - y.bytes || x.index - y.index);
    /**
     * Swap a big replica of `heavy` for a smaller one of a `light` broker. Only partners whose
     * net transfer keeps both brokers in the band are tried (binary search on the sorted sizes),
     * the largest transfer first, at most SWAP_TRIES per pair.
     */
    const swaps = (heavy: BrokerLoad, lights: BrokerLoad[], still: () => boolean): void => {
      const sorted = new Map<BrokerLoad, PartitionLoad[]>();
      for (const p of bigFirst(heavy)) {
        if (!still()) return;
        search: for (const light of lights) {
          if (light === heavy) continue;
          let qs = sorted.get(light);
          if (!qs) sorted.set(light, (qs = smallOn(light)));
          const maxNet = Math.min(this.band.upper - light.bytes, heavy.bytes - this.band.lower);
          let i = lowerBound(qs, p.bytes - maxNet);
          for (let tries = 0; i < qs.length && tries < SWAP_TRIES; i++, tries++) {
            const q = qs[i]!;
            if (q.bytes >= p.bytes) break;
            if (run.tryApply(this, { kind: 'swap', p, q, from: heavy.id, to: light.id })) {
              sorted.delete(light);
              break search;
            }
          }
        }
      }
    };
    const byBytes = (): BrokerLoad[] => [...s.candidates].sort((x, y) => x.bytes - y.bytes || byId(x, y));
    balanceByReplicaMoves(run, this, {
      value: (b) => this.value(b),
      band: this.band,
      inner: this.inner,
      parts: bigFirst,
      over: (b, still) => swaps(b, byBytes(), still),
      under: (b, still) => {
        for (const heavy of byBytes().reverse()) if (heavy !== b && still()) swaps(heavy, [b], still);
      },
    });
  }
}

export class TopicReplicaDistributionGoal implements Goal {
  readonly name = 'TopicReplicaDistributionGoal';
  readonly hard = false;
  readonly band = null;
  replicaMoves = 0;
  leadershipMoves = 0;
  private readonly bands = new Map<string, Band>();

  constructor(
    private readonly state: ClusterState,
    threshold: number,
    minGap: number,
    maxGap: number,
  ) {
    for (const t of state.topics) this.bands.set(t, topicReplicaBand(avgOver(state, state.topicReplicas(t)), threshold, minGap, maxGap));
  }

  private count(topic: string): Value {
    return (b) => this.state.topicCount(topic, b.id);
  }
  private net(a: Action, topic: string): number {
    return netTransfer(a, (m) => (m.p.topic === topic ? 1 : 0), 0);
  }
  selfAccepts(a: Action): boolean {
    return a.kind === 'replica' && ownMoveAllowed(this.state, this.count(a.p.topic), this.bands.get(a.p.topic)!, a, 1);
  }
  accepts(a: Action): boolean {
    const topics = new Set(replicaMovesOf(a).map((m) => m.p.topic));
    return [...topics].every((t) => bandAllows(this.state, this.count(t), this.bands.get(t)!, a, this.net(a, t)));
  }
  satisfied(): boolean {
    return this.state.topics.every((t) => bandSatisfied(this.state, this.count(t), this.bands.get(t)!));
  }
  outside(): { id: number; side: 'low' | 'high' }[] {
    const seen = new Map<number, 'low' | 'high'>();
    for (const t of this.state.topics) for (const o of sidesOutside(this.state, this.count(t), this.bands.get(t)!)) if (!seen.has(o.id)) seen.set(o.id, o.side);
    return [...seen].map(([id, side]) => ({ id, side }));
  }
  unmet(): string | null {
    const off = this.state.topics.flatMap((t) => {
      const why = outsideBand(this.state, this.count(t), this.bands.get(t)!, `replicas of ${t}`);
      return why ? [why] : [];
    });
    return off.length === 0 ? null : `${off.slice(0, 2).join(' ')}${off.length > 2 ? ` ${off.length - 2} more topics likewise.` : ''}`;
  }
  statistic(): number | null {
    if (this.state.brokers.some((b) => b.drain && b.replicas.size > 0)) return null;
    return this.state.topics.reduce((n, t) => n + variance(this.state.candidates.map(this.count(t))), 0);
  }
  optimize(run: Runner): void {
    for (const t of this.state.topics) {
      const ofTopic = this.state.partitions.filter((p) => p.topic === t && p.movable);
      const band = this.bands.get(t)!;
      const parts = (b: BrokerLoad): PartitionLoad[] => ofTopic.filter((p) => p.replicas.includes(b.id)).sort(smallFirst(b));
      balanceByReplicaMoves(run, this, { value: this.count(t), band, inner: band, parts });
    }
  }
}

export class LeaderReplicaDistributionGoal extends SingleBandGoal {
  readonly name = 'LeaderReplicaDistributionGoal';
  readonly leadershipAmount = 1;
  protected readonly unit = 'leaders';
  constructor(state: ClusterState, threshold: number, settle: boolean) {
    const avg = avgOver(state, sum(state, (b) => b.leaders));
    const band = countBand(avg, threshold);
    super(state, band, settle ? innerCountBand(avg, threshold, band) : band);
  }
  value(b: BrokerLoad): number {
    return b.leaders;
  }
  amount(m: ReplicaMove): number {
    return m.p.leader === m.from ? 1 : 0;
  }
  statistic(): number | null {
    return candidateVariance(this.state, (b) => this.value(b), (b) => b.leaders > 0);
  }

  optimize(run: Runner): void {
    const s = this.state;
    const ledBy = (b: BrokerLoad): PartitionLoad[] => s.partitions.filter((p) => p.movable && p.leader === b.id);
    const fewestLeaders = (): BrokerLoad[] => [...s.candidates].sort((x, y) => x.leaders - y.leaders || byId(x, y));
    const preferred = (p: PartitionLoad, id: number): number => Number(p.original[0] === id);
    greedyPasses(this, () => {
      for (const b of s.brokers) {
        if (b.drain ? b.leaders > 0 : b.leaders > this.band.upper) {
          const still = (): boolean => b.leaders > (b.drain ? 0 : this.inner.upper);
          // Leadership moves first (no data); partitions it leads without being preferred go first.
          for (const p of ledBy(b).sort((x, y) => preferred(x, b.id) - preferred(y, b.id) || x.index - y.index)) {
            if (!still()) break;
            const dests = p.replicas
              .filter((r) => r !== b.id)
              .map((r) => s.broker(r))
              .sort((x, y) => x.leaders - y.leaders || preferred(p, y.id) - preferred(p, x.id) || byId(x, y));
            for (const d of dests) if (run.tryApply(this, { kind: 'leadership', p, from: b.id, to: d.id })) break;
          }
          if (still()) shedReplicas(run, this, b, still, ledBy(b).sort(smallFirst(b)), fewestLeaders);
        } else if (!b.drain && b.leaders < this.band.lower) {
          const still = (): boolean => b.leaders < this.inner.lower;
          const leaderOf = (p: PartitionLoad): BrokerLoad => s.broker(p.leader);
          const follows = s.partitions
            .filter((p) => p.movable && p.leader !== b.id && p.replicas.includes(b.id))
            .sort(
              (x, y) =>
                Number(leaderOf(y).drain) - Number(leaderOf(x).drain) ||
                leaderOf(y).leaders - leaderOf(x).leaders ||
                preferred(y, b.id) - preferred(x, b.id) ||
                x.index - y.index,
            );
          for (const p of follows) {
            if (!still()) break;
            run.tryApply(this, { kind: 'leadership', p, from: p.leader, to: b.id });
          }
          if (!still()) continue;
          const sources = s.brokers.filter((x) => x !== b && x.leaders > (x.drain ? 0 : this.inner.lower)).sort((x, y) => Number(y.drain) - Number(x.drain) || y.leaders - x.leaders || byId(x, y));
          pullReplicas(run, this, b, still, sources, (src) => ledBy(src).sort(smallFirst(src)));
        }
      }
    });
  }
}
