/**
 * The balancer's in-memory cluster: brokers with their replica, leader and byte loads, and
 * partitions with their working replica list and leader. Goals move replicas and leadership
 * here (greedy, no backtracking); the plan is the diff against the original lists.
 *
 * Invariants:
 * - Loads are always consistent with the partitions: a broker's `replicas` holds exactly the
 *   partitions listing it, `leaders` counts the partitions it leads, `bytes` sums their sizes,
 *   and `topicCounts` is the per-topic replica count.
 * - A replica move keeps the replica's position in the list; moving the leader's replica moves
 *   leadership with it. A leadership move only changes `leader` (the order is fixed at the end).
 * - `inSync` = the original ISR plus every replica the plan adds (it will have caught up once
 *   the reassignment completes), minus replicas moved away; only those can take leadership.
 * - Candidates (may receive replicas and leadership) are alive, non-excluded brokers; `drain`
 *   brokers (dead or excluded) may only give load away.
 */
import { KafkaError } from '../../api/errors.js';
import type { BalanceModel } from './types.js';

export interface BrokerLoad {
  id: number;
  rack: string | null;
  /** The rack used for rack awareness: the rack, or one of its own when the broker has none. */
  rackKey: string;
  alive: boolean;
  excluded: boolean;
  /** Dead or excluded: its limits are 0 and nothing may move onto it. */
  drain: boolean;
  /** Indices of the partitions it holds. */
  replicas: Set<number>;
  leaders: number;
  bytes: number;
}

export interface PartitionLoad {
  index: number;
  topic: string;
  partition: number;
  bytes: number;
  replicas: number[];
  leader: number;
  inSync: Set<number>;
  readonly original: readonly number[];
  readonly originalLeader: number;
  /** Not reassigning and online: the planner may change it. */
  movable: boolean;
}

/** One replica going from one broker to another. */
export interface ReplicaMove {
  p: PartitionLoad;
  from: number;
  to: number;
}

/**
 * What a goal can propose: move a replica, move leadership to an in-sync follower, or swap two
 * replicas between two brokers (`p` goes from → to, `q` goes to → from).
 */
export type Action =
  | { kind: 'replica'; p: PartitionLoad; from: number; to: number }
  | { kind: 'leadership'; p: PartitionLoad; from: number; to: number }
  | { kind: 'swap'; p: PartitionLoad; q: PartitionLoad; from: number; to: number };

/** The replica moves an action is made of (none for a leadership move). */
export function replicaMovesOf(a: Action): ReplicaMove[] {
  if (a.kind === 'leadership') return [];
  const first = { p: a.p, from: a.from, to: a.to };
  return a.kind === 'swap' ? [first, { p: a.q, from: a.to, to: a.from }] : [first];
}

export class ClusterState {
  /** Sorted by id. */
  readonly brokers: BrokerLoad[];
  readonly candidates: BrokerLoad[];
  readonly partitions: PartitionLoad[];
  /** Sorted topic names. */
  readonly topics: string[];
  readonly racksConfigured: boolean;
  /** Racks holding at least one candidate broker: where replicas may be spread. */
  readonly eligibleRacks: ReadonlySet<string>;
  private readonly byId = new Map<number, BrokerLoad>();
  private readonly topicCounts = new Map<string, Map<number, number>>();

  constructor(model: BalanceModel, exclude: ReadonlySet<number>) {
    const brokers = [...model.brokers].sort((a, b) => a.id - b.id);
    for (const b of brokers) {
      if (this.byId.has(b.id)) throw new KafkaError('INVALID_INPUT', `Broker ${b.id} appears twice in the balance model.`);
      const excluded = b.excluded === true || exclude.has(b.id);
      this.byId.set(b.id, { id: b.id, rack: b.rack, rackKey: b.rack ?? `\u0000${b.id}`, alive: b.alive, excluded, drain: !b.alive || excluded, replicas: new Set(), leaders: 0, bytes: 0 });
    }
    const parts = [...model.partitions].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    this.partitions = parts.map((m, index) => {
      // A replica on a broker the model does not list is on a dead broker.
      for (const r of m.replicas) if (!this.byId.has(r)) this.byId.set(r, { id: r, rack: null, rackKey: `\u0000${r}`, alive: false, excluded: false, drain: true, replicas: new Set(), leaders: 0, bytes: 0 });
      const leader = m.replicas.includes(m.leader) ? m.leader : -1;
      return {
        index,
        topic: m.topic,
        partition: m.partition,
        bytes: m.bytes,
        replicas: [...m.replicas],
        leader,
        inSync: new Set(m.isr.filter((r) => m.replicas.includes(r))),
        original: [...m.replicas],
        originalLeader: m.leader,
        movable: m.reassigning !== true && leader >= 0,
      };
    });
    this.brokers = [...this.byId.values()].sort((a, b) => a.id - b.id);
    this.candidates = this.brokers.filter((b) => !b.drain);
    this.racksConfigured = this.brokers.some((b) => b.rack !== null);
    this.eligibleRacks = new Set(this.candidates.map((b) => b.rackKey));
    this.topics = [...new Set(this.partitions.map((p) => p.topic))];
    for (const p of this.partitions) {
      for (const r of p.replicas) this.add(p, r);
      if (p.leader >= 0) this.broker(p.leader).leaders++;
    }
  }

  broker(id: number): BrokerLoad {
    const b = this.byId.get(id);
    if (!b) throw new KafkaError('INTERNAL', `Balancer: unknown broker ${id}.`);
    return b;
  }

  has(id: number): boolean {
    return this.byId.has(id);
  }

  topicCount(topic: string, id: number): number {
    return this.topicCounts.get(topic)?.get(id) ?? 0;
  }

  topicReplicas(topic: string): number {
    let n = 0;
    for (const c of this.topicCounts.get(topic)?.values() ?? []) n += c;
    return n;
  }

  /** Partitions held by a broker, as objects, in partition order. */
  partitionsOn(b: BrokerLoad): PartitionLoad[] {
    return [...b.replicas].sort((x, y) => x - y).map((i) => this.partitions[i]!);
  }

  /**
   * How far a replica list is from rack-aware: replicas on racks without candidates, plus, per
   * eligible rack, the count above ceil(RF/R) or below floor(RF/R). 0 = satisfied. With RF ≤ R
   * this is "no two replicas share a rack" (RackAwareGoal); with RF > R it is the even spread of
   * RackAwareDistributionGoal.
   */
  rackExcess(replicas: readonly number[]): number {
    const racks = this.eligibleRacks.size;
    if (!this.racksConfigured || racks === 0) return 0;
    // RF is small: count with arrays, no allocation of maps (this runs for every vetted move).
    const keys = replicas.map((r) => this.broker(r).rackKey);
    const ceil = Math.ceil(replicas.length / racks);
    const floor = Math.floor(replicas.length / racks);
    let excess = 0;
    let covered = 0;
    keys.forEach((key, i) => {
      if (keys.indexOf(key) !== i) return;
      let n = 0;
      for (const k of keys) if (k === key) n++;
      if (!this.eligibleRacks.has(key)) excess += n;
      else {
        excess += Math.max(0, n - ceil);
        covered += Math.min(n, floor);
      }
    });
    // Each eligible rack short of floor(RF/R) replicas adds its shortfall.
    return excess + floor * racks - covered;
  }

  /** The partition's replica list after a replica move. */
  replicasAfter(m: ReplicaMove): number[] {
    return m.p.replicas.map((r) => (r === m.from ? m.to : r));
  }

  /** Whether the action is legit (acceptance steps 1–2, docs/semantics.md#balancing): right holders, eligible destination(s). */
  legit(a: Action): boolean {
    const to = this.byId.get(a.to);
    if (!a.p.movable || !to || to.drain || a.from === a.to) return false;
    const moves = (p: PartitionLoad, from: number, dest: number): boolean => p.replicas.includes(from) && !p.replicas.includes(dest);
    switch (a.kind) {
      case 'replica':
        return moves(a.p, a.from, a.to);
      case 'leadership':
        return a.p.leader === a.from && a.p.replicas.includes(a.to) && a.p.inSync.has(a.to);
      case 'swap':
        return a.q.movable && a.q !== a.p && this.byId.get(a.from)?.drain === false && moves(a.p, a.from, a.to) && moves(a.q, a.to, a.from);
    }
  }

  apply(a: Action): void {
    if (a.kind === 'leadership') {
      this.broker(a.from).leaders--;
      this.broker(a.to).leaders++;
      a.p.leader = a.to;
      return;
    }
    for (const m of replicaMovesOf(a)) this.moveReplica(m);
  }

  private moveReplica(m: ReplicaMove): void {
    const { p } = m;
    this.remove(p, m.from);
    p.replicas = this.replicasAfter(m);
    this.add(p, m.to);
    p.inSync.delete(m.from);
    p.inSync.add(m.to);
    if (p.leader === m.from) {
      this.broker(m.from).leaders--;
      this.broker(m.to).leaders++;
      p.leader = m.to;
    }
  }

  private add(p: PartitionLoad, id: number): void {
    const b = this.broker(id);
    b.replicas.add(p.index);
    b.bytes += p.bytes;
    let t = this.topicCounts.get(p.topic);
    if (!t) this.topicCounts.set(p.topic, (t = new Map()));
    t.set(id, (t.get(id) ?? 0) + 1);
  }

  private remove(p: PartitionLoad, id: number): void {
    const b = this.broker(id);
    b.replicas.delete(p.index);
    b.bytes -= p.bytes;
    const t = this.topicCounts.get(p.topic)!;
    t.set(id, (t.get(id) ?? 0) - 1);
  }
}
