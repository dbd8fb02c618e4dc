import { describe, expect, it } from 'vitest';
import { Simulation } from './simulation.js';

const leaders = (sim: Simulation): Record<number, number> => Object.fromEntries(sim.engine.listBrokers().map((b) => [b.id, b.leaderCount]));

describe('the read model’s per-broker counts', () => {
  it('follow every metadata record: a controlled shutdown moves the leaders the next brokers.list counts', () => {
    const sim = new Simulation({ brokers: 3, seed: 5 });
    sim.engine.createTopic({ name: 'orders', partitions: 6, replicationFactor: 3, configs: {} });
    sim.waitFor(() => sim.engine.listBrokers().every((b) => b.state === 'running' && b.leaderCount === 2), 60_000, 'two leaders per broker');
    expect(sim.engine.listBrokers().map((b) => b.partitionCount)).toEqual([6, 6, 6]);
    // Asked again with nothing committed in between: the same counts.
    expect(leaders(sim)).toEqual({ 1: 2, 2: 2, 3: 2 });

    const leaving = sim.engine.listBrokers().find((b) => !b.isController)!.id;
    sim.engine.stopBroker(leaving);
    sim.waitFor(() => sim.engine.listBrokers().find((b) => b.id === leaving)?.state === 'stopped', 60_000, 'the broker stopped');
    const after = leaders(sim);
    expect(after[leaving]).toBe(0);
    expect(Object.values(after).reduce((a, b) => a + b, 0)).toBe(6);

    sim.engine.createTopic({ name: 'payments', partitions: 2, replicationFactor: 2, configs: {} });
    sim.waitFor(() => sim.engine.listBrokers().reduce((n, b) => n + b.leaderCount, 0) === 8, 60_000, 'the new topic led');
    expect(sim.engine.listBrokers().reduce((n, b) => n + b.partitionCount, 0)).toBe(18 + 4);
  });
});
