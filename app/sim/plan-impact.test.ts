/**
 * `impact.ofPlan` predicts what a reassignment does, by the controller's own code: the plan is then
 * executed with its throttle on the same simulated cluster, and every partition of the plan is
 * compared with the prediction while the new replicas copy (replicas added, none removed, out of
 * the ISR, the leader unchanged) and once the move has completed (the removed replicas gone, a
 * removed leader replaced by the controller's election); a rack's stop predicted for the cluster
 * during and after the move equals `impact.ofStop` asked of the cluster in those states; the
 * estimated copy time is within a quarter of the engine's.
 */
import { describe, expect, it } from 'vitest';
import type { PlanImpactView, PlanMomentView, StopImpactView } from '../api/impact-contract.js';
import { createVirtualClusterService, type VirtualClusterService } from './virtual-service.js';

const BROKERS = [1, 2, 3, 4, 5, 6].map((id) => ({ id, rack: ['a', 'b', 'c'][(id - 1) % 3]! }));
const sorted = (l: readonly number[]): number[] => [...l].sort((a, b) => a - b);

async function value<T>(svc: VirtualClusterService, method: string, input: unknown): Promise<T> {
  const r = await svc.call(method as 'impact.ofPlan', input);
  if (!r.ok) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
  return r.value as T;
}

function stateOf(svc: VirtualClusterService, topic: string, partition: number) {
  const s = svc.engine.metadata.topicsByName.get(topic)!.partitions.get(partition)!;
  return { replicas: [...s.replicas], addingReplicas: [...s.addingReplicas], removingReplicas: [...s.removingReplicas], leader: s.leader, isr: sorted(s.isr) };
}
const expected = (m: PlanMomentView) => ({ replicas: m.replicas, addingReplicas: m.addingReplicas, removingReplicas: m.removingReplicas, leader: m.leader, isr: sorted(m.isr) });
const stopSummary = (v: StopImpactView) => ({ before: v.before, after: v.after, partitions: v.partitions.map((p) => [`${p.topic}-${p.partition}`, p.after.leader, sorted(p.after.isr), p.after.outcome]) });

describe('impact.ofPlan equals what the engine does when the plan is executed', () => {
  it('during the move and after it, with a rack stopped in either state', { timeout: 120_000 }, async () => {
    // Followers fetch 16 KiB at a time (a batch of 10 KB each), so the throttle paces the copy (a fetch is throttled after it, as in Kafka).
    const svc = createVirtualClusterService({ seed: 5, brokers: BROKERS, staticConfigs: { 'auto.leader.rebalance.enable': 'false', 'replica.fetch.max.bytes': '16384', 'replica.fetch.response.max.bytes': '16384' } });
    svc.sim.createTopic('orders', 4, 2, { 'min.insync.replicas': '2' }, [[1, 2], [2, 3], [3, 4], [4, 5]]);
    svc.sim.createTopic('audit', 2, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3], [4, 5, 6]]);
    svc.sim.waitFor(() => [...svc.engine.metadata.topicsByName.values()].every((t) => [...t.partitions.values()].every((s) => s.isr.length === s.replicas.length)), 60_000, 'every ISR full');
    const value1k = 'v'.repeat(1_000);
    for (const [topic, n] of [['orders', 4], ['audit', 2]] as const) {
      for (let p = 0; p < n; p++) for (let i = 0; i < 20; i++) expect(svc.sim.produce(topic, p, Array.from({ length: 10 }, () => value1k), 'all', 10_000).errorCode).toBe('NONE');
    }
    const plan = [
      { topic: 'orders', partition: 0, replicas: [1, 2, 6] }, // RF 2 → 3
      { topic: 'orders', partition: 1, replicas: [4, 3] }, // the leader 2 leaves: once 4 is in the ISR the controller elects the first valid target replica, 4
      { topic: 'orders', partition: 2, replicas: [4, 3] }, // reordered only: nothing copies
      { topic: 'audit', partition: 0, replicas: [5, 6] }, // every replica replaced, RF 3 → 2
      { topic: 'audit', partition: 1, replicas: [4, 5, 6] }, // unchanged
    ];
    // Well below the bytes over the quota's window, so the copy is paced (Kafka measures the rate over its samples).
    const throttle = 2_000;
    const predicted = await value<PlanImpactView>(svc, 'impact.ofPlan', { partitions: plan, throttleBytesPerSec: throttle, racks: ['a'] });
    expect(predicted).toMatchObject({ partitionCount: 5, unchanged: 1, underReplicatedDuring: 3 });
    expect(predicted.moves.map((m) => `${m.topic}-${m.partition}`)).toEqual(['orders-0', 'orders-1', 'orders-2', 'audit-0']);
    expect(predicted.throttledReplicas.follower['orders']).toEqual(['0:6', '1:4']);
    expect(predicted.brokers.find((b) => b.brokerId === 6)!.bytesIn).toBeGreaterThan(0);

    const startedAt = svc.sim.now;
    expect((await value<{ errorCode: string }[]>(svc, 'reassignments.execute', { partitions: plan, throttleBytesPerSec: throttle })).every((r) => r.errorCode === 'NONE')).toBe(true);
    // While the new replicas copy: the state the controller committed at the start.
    for (const m of predicted.moves) {
      if (m.during.addingReplicas.length > 0) expect(stateOf(svc, m.topic, m.partition), `${m.topic}-${m.partition} during`).toEqual(expected(m.during));
    }
    expect(svc.engine.metadata.somePartition((s) => s.addingReplicas.length > 0)).toBe(true);
    const during = await value<StopImpactView>(svc, 'impact.ofStop', { racks: ['a'], limit: 100_000 });
    expect(stopSummary(during)).toEqual(stopSummary(predicted.stop!.during));

    svc.sim.waitFor(() => svc.engine.metadata.somePartition((s) => s.addingReplicas.length + s.removingReplicas.length > 0) === false, 600_000, 'the plan done');
    const tookSeconds = (svc.sim.now - startedAt) / 1_000;
    for (const m of predicted.moves) expect(stateOf(svc, m.topic, m.partition), `${m.topic}-${m.partition} after`).toEqual(expected(m.after));
    expect(predicted.moves.find((m) => m.partition === 1 && m.topic === 'orders')).toMatchObject({ leaderMoves: true, preferredLeader: 4, after: { leader: 4 } });
    expect(stopSummary(await value<StopImpactView>(svc, 'impact.ofStop', { racks: ['a'], limit: 100_000 }))).toEqual(stopSummary(predicted.stop!.after));
    // The estimate is the busiest broker's bytes over the rate; the engine's quota lets the first window's bytes through unthrottled.
    expect(predicted.estimatedSeconds!).toBeGreaterThan(tookSeconds * 0.8);
    expect(predicted.estimatedSeconds!).toBeLessThan(tookSeconds * 1.25);
  });
});
