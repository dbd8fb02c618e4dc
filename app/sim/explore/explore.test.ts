import { describe, expect, it } from 'vitest';
import { explore, replay } from './explorer.js';
import { fingerprint } from './fingerprint.js';
import type { ExploreScope } from './world.js';

const TWO: ExploreScope = { brokers: 2, records: 1, faults: 1, minInsyncReplicas: 1, uncleanLeaderElectionEnable: false };
const THREE: ExploreScope = { brokers: 3, records: 1, faults: 1, minInsyncReplicas: 2, uncleanLeaderElectionEnable: false };
/** RF 2, min ISR 2, ELR on: s0 acknowledged by both, so any loss takes the ISR below min ISR. */
const ELR_TWO: ExploreScope = { brokers: 2, records: 1, faults: 2, minInsyncReplicas: 2, uncleanLeaderElectionEnable: false, elr: true };

/** A write acknowledged with acks=all by ISR {1,2}: the produce, the follower's fetches, the answer. */
const ACKED_R0 = ['produce r0', 'deliver client→1 produce', 'deliver 1→2 answer', 'deliver 2→1 fetch', 'deliver 1→client answer'];

describe('exhaustive small-scope exploration of the engine', () => {
  it('holds every invariant on every path of 5 moves over 2 brokers (deliveries, time, a crash or power loss, a write)', () => {
    const r = explore({ ...TWO, depth: 5 });
    expect(r.violations).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.depthReached).toBe(5);
    expect(r.states).toBeGreaterThan(500);
    expect(r.transitions).toBeGreaterThan(r.states);
  }, 120_000);

  it('holds every invariant on every path of 3 moves over 3 brokers', () => {
    const r = explore({ ...THREE, depth: 3 });
    expect(r.violations).toEqual([]);
    expect(r.states).toBeGreaterThan(50);
  }, 120_000);

  it('with eligible leader replicas on, holds every invariant (the ELR ones too) on every path of 4 moves from the min-ISR edge', () => {
    const r = explore({ ...ELR_TWO, depth: 4 });
    expect(r.violations).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.states).toBeGreaterThan(300);
  }, 180_000);

  it('reaches the ELR in a few moves: a power-lost follower becomes eligible when fenced and leaves the ELR at its unclean re-registration', () => {
    const partition = (w: { sim: { partition(t: string, p: number): { isr: readonly number[]; elr?: readonly number[] } } }) => {
      const p = w.sim.partition('t', 0);
      return { isr: p.isr, elr: p.elr ?? [] };
    };
    const fenced = replay(ELR_TWO, ['power-loss 2', 'time +1s', 'time +1s']);
    expect(partition(fenced.world)).toEqual({ isr: [1], elr: [2] });
    const back = replay(ELR_TWO, ['power-loss 2', 'time +1s', 'time +1s', 'restart 2']);
    expect(partition(back.world)).toEqual({ isr: [1], elr: [] });
    expect([...fenced.checker.violations, ...back.checker.violations]).toEqual([]);
  });

  it('replays a trace to the same state, so every violation it prints can be reproduced', () => {
    const a = replay(TWO, ACKED_R0);
    const b = replay(TWO, ACKED_R0);
    expect(a.world.acked).toEqual([{ value: 'r0', offset: 0 }]);
    expect(fingerprint(a.world, a.checker.summary())).toBe(fingerprint(b.world, b.checker.summary()));
    expect(fingerprint(a.world, a.checker.summary())).not.toBe(fingerprint(replay(TWO, ACKED_R0.slice(0, 4)).world, ''));
    expect(() => replay(TWO, ['deliver 2→1 produce'])).toThrow(/not enabled/);
  });

  it('reports an acknowledged record the current leader no longer holds', () => {
    const { world, checker } = replay(TWO, ACKED_R0);
    expect(checker.violations).toEqual([]);
    // Break the leader's log behind the engine's back: the checker must notice.
    world.sim.internals.brokers.get(1)!.partitionFor('t', 0)!.log.truncateTo(0);
    checker.check();
    expect(checker.violations.join('\n')).toMatch(/acknowledged r0@0 lost: leader 1/);
  });
});
