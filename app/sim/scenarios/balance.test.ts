/**
 * The balancer's acceptance scenario: a cluster whose partitions all sit on half its brokers is
 * planned by `balance.plan`'s algorithm, the plan's `partitions` list is executed as a Kafka
 * reassignment, and its leader changes as preferred elections. The cluster ends balanced and
 * rack-aware, with every record still readable.
 */
import { describe, expect, it } from 'vitest';
import { buildBalanceModel, planBalance, type BalanceSizes } from '../../core/balance/index.js';
import { recordText, Simulation } from '../simulation.js';

const TOPIC = 'orders';
const PARTITIONS = 30;
const rackOf = (id: number): string => (id <= 3 ? 'rack-a' : 'rack-b');

/** Bytes per replica: the leader's log size, as a caller of balance.plan would measure it. */
function replicaSizes(sim: Simulation): BalanceSizes {
  return (topic, partition) => {
    const leader = sim.partition(topic, partition).leader;
    return sim.internals.brokers.get(leader)?.partitionFor(topic, partition)?.log.sizeBytes();
  };
}

/** Every partition's leader broker knows it leads (so clients reach it). */
function leadersReady(sim: Simulation): boolean {
  for (let p = 0; p < PARTITIONS; p++) {
    const leader = sim.partition(TOPIC, p).leader;
    if (!sim.internals.brokers.get(leader)?.partitionFor(TOPIC, p)?.isLeader) return false;
  }
  return true;
}

describe('balance.plan', () => {
  it('a skewed 6-broker 2-rack cluster is balanced by balance.plan and reassignments.execute', () => {
    const sim = new Simulation({ seed: 7, brokers: [1, 2, 3, 4, 5, 6].map((id) => ({ id, rack: rackOf(id) })) });
    const assignments = Array.from({ length: PARTITIONS }, (_, p) => [0, 1, 2].map((j) => ((p + j) % 3) + 1));
    sim.createTopic(TOPIC, PARTITIONS, 3, {}, assignments);
    const produced: string[][] = [];
    for (let p = 0; p < PARTITIONS; p++) {
      const values = Array.from({ length: 8 }, (_, i) => `p${String(p).padStart(2, '0')}-m${i}`);
      expect(sim.produce(TOPIC, p, values).errorCode).toBe('NONE');
      produced.push(values);
    }

    const plan = planBalance(buildBalanceModel(sim.engine.metadata, replicaSizes(sim)));
    expect(plan.before.brokers.map((b) => b.replicas)).toEqual([30, 30, 30, 0, 0, 0]);
    expect(plan.before.racks.map((r) => [r.rack, r.replicas])).toEqual([
      ['rack-a', 90],
      ['rack-b', 0],
    ]);
    expect(plan.bytesToMove).toBeGreaterThan(0);
    expect(plan.balancedness.after).toBeGreaterThanOrEqual(95);
    expect(plan.balancedness.before).toBeLessThan(plan.balancedness.after);

    // The plan's partitions list is exactly what reassignments.execute takes.
    const started = sim.engine.executeReassignment({ partitions: plan.partitions });
    expect(started.every((r) => r.errorCode === 'NONE')).toBe(true);
    sim.waitFor(() => sim.engine.listReassignments().length === 0, 600_000, 'every reassignment to complete');
    const elected = sim.engine.electLeaders('preferred', plan.leaderChanges.map(({ topic, partition }) => ({ topic, partition })));
    for (const r of elected) expect(['NONE', 'ELECTION_NOT_NEEDED']).toContain(r.errorCode);
    sim.waitFor(() => leadersReady(sim), 60_000, 'leaders to take over');

    const brokers = sim.engine.listBrokers();
    const replicas = brokers.reduce((n, b) => n + b.partitionCount, 0);
    expect(replicas).toBe(90);
    for (const b of brokers) {
      expect(Math.abs(b.partitionCount - 15), `broker ${b.id} holds ${b.partitionCount} replicas`).toBeLessThanOrEqual(1);
      expect(Math.abs(b.leaderCount - 5), `broker ${b.id} leads ${b.leaderCount} partitions`).toBeLessThanOrEqual(1);
    }
    for (let p = 0; p < PARTITIONS; p++) {
      const state = sim.partition(TOPIC, p);
      expect(state.replicas).toHaveLength(3);
      expect(new Set(state.replicas.map(rackOf)).size, `${TOPIC}-${p} spans both racks`).toBe(2);
      expect([...state.isr].sort()).toEqual([...state.replicas].sort());
      expect(state.leader).toBe(state.replicas[0]);
      expect(sim.consumeAll(TOPIC, p).map(recordText)).toEqual(produced[p]);
    }

    // The plan's "after" is what the cluster now shows, and planning again finds it balanced.
    expect(plan.after.brokers.map((b) => [b.id, b.replicas, b.leaders])).toEqual(brokers.map((b) => [b.id, b.partitionCount, b.leaderCount]));
    const again = planBalance(buildBalanceModel(sim.engine.metadata, replicaSizes(sim)));
    expect(again.balancedness.before).toBeGreaterThanOrEqual(95);
    expect(again.partitions).toEqual([]);
  });
});
