/**
 * A broker's own leaderships indexed by replica (the broker-side counterpart of the controller's
 * BrokersToIsrs): for each other broker B, the partitions hosted here whose last applied state
 * names this broker leader and B a replica. A registration change of B (fenced, unfenced,
 * shutting down, a new epoch) concerns only what B's fetches and the HW rule read, so only
 * these partitions are looked at again — not every partition this broker leads (with 100,000
 * partitions on 12 brokers, each leads about 8,000; a fence of one concerns about 1,500 of them).
 *
 * Invariants: `of(ids)` equals, in the order of the replica map's insertion, the keys k hosted
 * here with `state.leader === self` and `state.replicas` holding one of `ids` (the walk it
 * replaces); an entry exists exactly while the replica map holds k.
 */
import { sameList, type PartitionState } from '../metadata/records.js';

interface Entry {
  /** Order of insertion into the replica map (a key removed and hosted again comes last, as in a Map). */
  readonly seq: number;
  /** The replicas it is indexed under, this broker's own included (empty while another broker leads). */
  replicas: readonly number[];
}

const NONE: readonly number[] = [];

export class LeadersByReplica {
  private readonly entries = new Map<string, Entry>();
  private readonly byReplica = new Map<number, Set<string>>();
  private nextSeq = 0;

  constructor(private readonly self: number) {}

  /** The replica map holds `k` with this state (call after each reconcile that keeps it here). */
  update(k: string, state: PartitionState): void {
    let e = this.entries.get(k);
    if (!e) {
      e = { seq: this.nextSeq++, replicas: NONE };
      this.entries.set(k, e);
    }
    // The committed list itself is kept (states' lists are never changed in place), so the usual
    // update — a change that kept the replica list, which is then the same array — ends at once.
    const want = state.leader === this.self && state.replicas.length > 0 ? state.replicas : NONE;
    const prev = e.replicas;
    if (prev === want || sameList(prev, want)) {
      e.replicas = want;
      return;
    }
    for (let i = 0; i < prev.length; i++) if (!want.includes(prev[i]!)) this.unindex(prev[i]!, k);
    for (let i = 0; i < want.length; i++) {
      const r = want[i]!;
      if (prev.includes(r)) continue;
      let set = this.byReplica.get(r);
      if (!set) this.byReplica.set(r, (set = new Set()));
      set.add(k);
    }
    e.replicas = want;
  }

  /** The replica map no longer holds `k`. */
  remove(k: string): void {
    const e = this.entries.get(k);
    if (!e) return;
    const rs = e.replicas;
    for (let i = 0; i < rs.length; i++) this.unindex(rs[i]!, k);
    this.entries.delete(k);
  }

  clear(): void {
    this.entries.clear();
    this.byReplica.clear();
  }

  /** Keys led here (by their last applied state) with a replica among `brokerIds`, in the replica map's order. */
  of(brokerIds: Iterable<number>): string[] {
    const keys = new Set<string>();
    for (const id of brokerIds) {
      const set = this.byReplica.get(id);
      if (set) for (const k of set) keys.add(k);
    }
    // Each key's position looked up once, not in every comparison.
    const bySeq = [...keys].map((k) => ({ k, seq: this.entries.get(k)!.seq }));
    bySeq.sort((a, b) => a.seq - b.seq);
    return bySeq.map((e) => e.k);
  }

  /** Number of keys indexed under `brokerId` (tests). */
  sizeOf(brokerId: number): number {
    return this.byReplica.get(brokerId)?.size ?? 0;
  }

  private unindex(r: number, k: string): void {
    const set = this.byReplica.get(r);
    if (!set) return;
    set.delete(k);
    if (set.size === 0) this.byReplica.delete(r);
  }
}
