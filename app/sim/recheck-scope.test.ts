/**
 * A broker registration change (fenced, unfenced, shutting down) makes each leader look again
 * only at the partitions it leads with that broker as a replica (ReplicaManager's
 * LeadersByReplica, app/core/broker/leaders-by-replica.ts): with 100,000 partitions a fence must
 * not make every broker walk every partition it leads.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplicaPartition } from '../core/broker/partition.js';
import { ReplicaManager } from '../core/broker/replica-manager.js';
import { replicaKey } from '../core/log/log-store.js';
import { Simulation } from './simulation.js';

afterEach(() => {
  vi.restoreAllMocks();
});

interface ManagerInside {
  host: { brokerId: number };
  recheckReplicasOf(brokerIds: ReadonlySet<number>, reconciled: ReadonlyMap<string, unknown>): void;
}

/**
 * Every recheck of registrations: which brokers changed, and which partitions the leader looked
 * at (`leader:topic-partition`, one per read of a replica's role while it rechecked).
 */
function watchRechecks(): { rechecks: { on: number; changed: number[] }[]; looked: string[]; managers: Set<ReplicaManager> } {
  const proto = ReplicaManager.prototype as unknown as ManagerInside;
  const seen = { rechecks: [] as { on: number; changed: number[] }[], looked: [] as string[], managers: new Set<ReplicaManager>() };
  let inside: number | null = null;
  const recheck = proto.recheckReplicasOf;
  vi.spyOn(proto, 'recheckReplicasOf').mockImplementation(function (this: ManagerInside, ids: ReadonlySet<number>, reconciled: ReadonlyMap<string, unknown>) {
    seen.rechecks.push({ on: this.host.brokerId, changed: [...ids] });
    seen.managers.add(this as unknown as ReplicaManager);
    inside = this.host.brokerId;
    try {
      recheck.call(this, ids, reconciled);
    } finally {
      inside = null;
    }
  });
  const isLeader = Object.getOwnPropertyDescriptor(ReplicaPartition.prototype, 'isLeader')!.get!;
  vi.spyOn(ReplicaPartition.prototype, 'isLeader', 'get').mockImplementation(function (this: ReplicaPartition) {
    if (inside !== null) seen.looked.push(`${inside}:${this.topic}-${this.partition}`);
    return isLeader.call(this) as boolean;
  });
  return seen;
}

/** What the index must say for broker `id` on this manager: a walk of every replica it hosts. */
function walk(m: ReplicaManager, id: number): string[] {
  const brokerId = (m as unknown as ManagerInside).host.brokerId;
  return [...m.partitions.values()].filter((p) => p.state.leader === brokerId && p.state.replicas.includes(id)).map((p) => replicaKey(p.topicId, p.partition));
}

describe('a registration change rechecks only the partitions the changed broker replicates', () => {
  it('fencing and unfencing broker 4 makes brokers 1–3 look at the one partition each leads with 4, never at the others they lead', () => {
    const sim = new Simulation({ seed: 41, brokers: 4 });
    // others: 9 partitions on brokers 1–3 only; mine-p: led by broker p+1, replicated to 4.
    sim.createTopic('others', 9, 3, {}, [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 3, 2], [2, 1, 3], [3, 2, 1], [1, 2, 3], [2, 3, 1], [3, 1, 2]]);
    sim.createTopic('mine', 3, 2, {}, [[1, 4], [2, 4], [3, 4]]);
    sim.waitFor(() => [0, 1, 2].every((p) => sim.partition('mine', p).isr.length === 2), 30_000, 'mine in sync');
    sim.waitFor(() => [...Array(9).keys()].every((p) => sim.partition('others', p).isr.length === 3), 30_000, 'others in sync');
    sim.advance(3_000);

    const seen = watchRechecks();
    sim.engine.killBroker(4);
    sim.waitFor(() => sim.engine.metadata.brokers.get(4)?.fenced === true, 60_000, 'broker 4 fenced');
    sim.engine.startBroker(4);
    sim.waitFor(() => [0, 1, 2].every((p) => sim.partition('mine', p).isr.includes(4)), 60_000, 'broker 4 back in sync');

    // Broker 4's registration changed and brokers 1–3 rechecked it (a fence, a new epoch, an unfence).
    const onOthers = seen.rechecks.filter((r) => r.on !== 4 && r.changed.includes(4));
    expect(new Set(onOthers.map((r) => r.on))).toEqual(new Set([1, 2, 3]));
    // What they looked at: only their own partition of 'mine' (each leads three of 'others', which
    // the walk this replaces looked at on every recheck).
    expect(seen.looked.filter((l) => !l.startsWith('4:'))).not.toHaveLength(0);
    expect(new Set(seen.looked.filter((l) => !l.startsWith('4:')))).toEqual(new Set(['1:mine-0', '2:mine-1', '3:mine-2']));
    // The leaders still serve and the follower on 4 is back: a produce with acks=all succeeds.
    for (const p of [0, 1, 2]) expect(sim.partition('mine', p).leader).toBe(p + 1);
    expect(sim.produce('mine', 0, ['after the unfence']).errorCode).toBe('NONE');

    // On every broker the index equals a walk of the replicas it hosts, for every broker id.
    for (const m of seen.managers) {
      for (const id of [1, 2, 3, 4]) expect(m.leadersByReplica.of([id]).sort()).toEqual(walk(m, id).sort());
    }
  });
});
