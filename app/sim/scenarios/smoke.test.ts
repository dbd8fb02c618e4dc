import { describe, expect, it } from 'vitest';
import { Simulation, recordText } from '../simulation.js';

describe('a simulated 3-broker cluster', () => {
  it('starts, elects a controller, creates a topic, replicates and serves acks=all writes', () => {
    const sim = new Simulation({ seed: 3 });
    expect(sim.engine.controllerId).toBe(1);
    sim.createTopic('orders', 3, 3);
    const r = sim.produce('orders', 0, ['a', 'b', 'c']);
    expect(r.errorCode).toBe('NONE');
    expect(r.baseOffset).toBe(0);
    const records = sim.consumeAll('orders', 0);
    expect(records.map(recordText)).toEqual(['a', 'b', 'c']);
    const view = sim.partition('orders', 0);
    expect(view.isr.toSorted()).toEqual([1, 2, 3]);
    sim.advance(1000);
    for (const rs of sim.partition('orders', 0).replicaStates) expect(rs.logEndOffset).toBe(3);
  });
});
