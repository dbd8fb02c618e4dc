/**
 * Scenarios 6–10 (docs/semantics.md#the-scenario-suite): producer acks and min.insync.replicas (3.7+ strict rule).
 */
import { describe, expect, it } from 'vitest';
import type { ProduceResult } from '../../core/engine.js';
import { recordText, Simulation, textRecord } from '../simulation.js';
import { replica, waitForIsr } from './support.js';

/** A topic on [1,2,3] whose ISR has shrunk to the leader alone. */
function isrOfOne(seed: number): Simulation {
  const sim = new Simulation({ seed });
  sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
  sim.engine.stallFollower(2);
  sim.engine.stallFollower(3);
  expect(sim.produce('t', 0, ['first'], 1).errorCode).toBe('NONE');
  waitForIsr(sim, 't', 0, [1], 60_000);
  return sim;
}

describe('producer acks and min.insync.replicas', () => {
  it('scenario 6: acks=all admission check', () => {
    const sim = isrOfOne(6);
    const leader = replica(sim, 1, 't');
    const leo = leader.log.logEndOffset;
    const rejected = sim.produce('t', 0, ['x']);
    expect(rejected.errorCode).toBe('NOT_ENOUGH_REPLICAS');
    expect(leader.log.logEndOffset).toBe(leo); // nothing appended
    const acks1 = sim.produce('t', 0, ['y'], 1);
    expect(acks1.errorCode).toBe('NONE');
    expect(acks1.baseOffset).toBe(leo);
  });

  it('scenario 7: acks=all after-append, strict min ISR (3.7+)', () => {
    const sim = new Simulation({ seed: 7 });
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
    sim.engine.killBroker(3);
    waitForIsr(sim, 't', 0, [1, 2], 20_000);
    sim.advance(1_000);
    const leader = replica(sim, 1, 't');
    const hw = leader.log.highWatermark;
    sim.engine.stallFollower(2);
    const stalledAt = sim.now;
    let result: ProduceResult | null = null;
    sim.engine.produce({ topic: 't', partition: 0, acks: 'all', timeoutMs: 120_000, records: [textRecord('pending')] }, (r) => (result = r));
    sim.advance(10);
    expect(leader.log.logEndOffset).toBe(hw + 1); // appended, waiting
    expect(result).toBeNull();
    waitForIsr(sim, 't', 0, [1], 60_000);
    const shrinkAt = sim.eventsOf('isr.shrunk').find((e) => e.removed.includes(2))!.atMs;
    expect(shrinkAt - stalledAt).toBeGreaterThan(30_000);
    expect(shrinkAt - stalledAt).toBeLessThanOrEqual(45_000);
    sim.advance(100);
    expect(leader.log.highWatermark).toBe(hw); // frozen below min ISR
    expect(result).toBeNull(); // still waiting
    sim.waitFor(() => result !== null, 130_000, 'the produce response');
    expect(result!.errorCode).toBe('REQUEST_TIMED_OUT');
    expect(sim.now - stalledAt).toBeGreaterThanOrEqual(120_000);
    expect(sim.consumeAll('t', 0, hw)).toHaveLength(0); // invisible
    sim.engine.stallFollower(2, false);
    waitForIsr(sim, 't', 0, [1, 2], 30_000);
    sim.waitFor(() => leader.log.highWatermark === hw + 1, 5_000, 'HW past the record');
    expect(sim.consumeAll('t', 0, hw).map(recordText)).toEqual(['pending']);
  });

  it('scenario 8: acks=1 below min ISR is accepted but invisible (3.7+)', () => {
    const sim = isrOfOne(8);
    const r = sim.produce('t', 0, ['n'], 1);
    expect(r.errorCode).toBe('NONE');
    sim.advance(1_000);
    expect(sim.consumeAll('t', 0).map((x) => x.offset)).not.toContain(r.baseOffset);
    sim.engine.stallFollower(2, false);
    waitForIsr(sim, 't', 0, [1, 2], 30_000);
    sim.waitFor(() => replica(sim, 1, 't').log.highWatermark > r.baseOffset, 5_000, 'HW past N');
    expect(sim.consumeAll('t', 0).find((x) => x.offset === r.baseOffset)).toBeDefined();
  });

  it('scenario 9: effective min ISR is capped at the replica count', () => {
    const sim = new Simulation({ seed: 9 });
    // Accepted at creation and as a change: no INVALID_CONFIG although 3 > RF 2.
    sim.createTopic('t', 1, 2, { 'min.insync.replicas': '3' }, [[1, 2]]);
    sim.engine.alterConfigs('topic', 't', { 'min.insync.replicas': '3' });
    expect(sim.produce('t', 0, ['ok']).errorCode).toBe('NONE');
    sim.engine.stallFollower(2);
    sim.produce('t', 0, ['behind'], 1);
    waitForIsr(sim, 't', 0, [1], 60_000);
    expect(sim.produce('t', 0, ['rejected']).errorCode).toBe('NOT_ENOUGH_REPLICAS');
  });

  it('scenario 10: acks validation and acks=0', () => {
    const sim = new Simulation({ seed: 10 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    expect(sim.produce('t', 0, ['x'], 2).errorCode).toBe('INVALID_REQUIRED_ACKS');
    type Raw = Parameters<Parameters<typeof sim.engine.produceTo>[2]>[0];
    const toFollower = sim.await<Raw>((done) => sim.engine.produceTo(2, { topic: 't', partition: 0, acks: 0, records: [textRecord('lost')] }, done));
    expect(toFollower.baseOffset).toBe(-1);
    expect(toFollower.connectionClosed).toBe(true);
    const leader = replica(sim, 1, 't');
    const leo = leader.log.logEndOffset;
    const toLeader = sim.await<Raw>((done) => sim.engine.produceTo(1, { topic: 't', partition: 0, acks: 0, records: [textRecord('kept')] }, done));
    expect(toLeader.baseOffset).toBe(-1); // no response, so no offset
    expect(toLeader.connectionClosed).toBeUndefined();
    expect(leader.log.logEndOffset).toBe(leo + 1);
    sim.advance(1_000);
    expect(sim.consumeAll('t', 0).map(recordText)).toEqual(['kept']);
  });
});
