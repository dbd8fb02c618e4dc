import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../api/events.js';
import type { Simulation } from '../simulation.js';
import { FENCE_WITHIN_MS } from './checker.js';
import { runFaultSeed, type FaultRunResult, type TimedFault } from './run.js';

/**
 * Invariant 5 of the fault run (a broker that cannot heartbeat for a session timeout leads
 * nothing) is decided from every change of a broker's process and controller link as it happens.
 * The checker before sampled reachability every 500 ms and missed a heal between two samples.
 */

/** Broker 3 leads t0-0 (replicas 3, 4, 1; the controller on broker 1) on 4 brokers with seed 1. */
const LEADER = 3;
/**
 * The followers stop fetching, so the ISR shrinks to {3}; broker 3 is isolated and fenced (t0-0
 * goes offline); it is healed for 300 ms, in which its heartbeat reaches the controller and it is
 * unfenced and leads again, then isolated again. Times are from the start of the fault phase,
 * which begins 24 ms into the run: the heal is at 69.900 s and the second isolation at 70.200 s
 * of engine time, between two scans of the old checker (at 69.774 s and 70.274 s).
 */
const SHORT_HEAL: TimedFault[] = [
  { atMs: 1_000, action: { kind: 'stall', broker: 4 } },
  { atMs: 1_000, action: { kind: 'stall', broker: 1 } },
  { atMs: 49_976, action: { kind: 'isolate', broker: LEADER } },
  { atMs: 69_876, action: { kind: 'heal', broker: LEADER } },
  { atMs: 70_176, action: { kind: 'isolate', broker: LEADER } },
  { atMs: 90_000, action: { kind: 'heal', broker: LEADER } },
  { atMs: 90_000, action: { kind: 'unstall', broker: 4 } },
  { atMs: 90_000, action: { kind: 'unstall', broker: 1 } },
];

/** Engine times (ms) of the schedule lines that say `text`, in order. */
function timesOf(r: FaultRunResult, text: string): number[] {
  return r.schedule.filter((l) => l.endsWith(` ${text} (scheduled)`)).map((l) => Math.round(Number(/^t=([\d.]+)s/.exec(l)![1]) * 1000));
}

function leaderChanges(events: EngineEvent[]): Extract<EngineEvent, { type: 'leader.changed' }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: 'leader.changed' }> => e.type === 'leader.changed' && e.topic === 't0' && e.partition === 0);
}

function runShortHeal(inspect?: (sim: Simulation) => void): { r: FaultRunResult; events: EngineEvent[] } {
  const events: EngineEvent[] = [];
  const r = runFaultSeed(1, {
    brokers: 4,
    topics: [1],
    faults: SHORT_HEAL,
    faultPhaseMs: 100_000,
    inspect: (sim) => {
      sim.engine.subscribe((e) => events.push(e));
      inspect?.(sim);
    },
  });
  return { r, events };
}

/**
 * The faults seed 4242286 drew (its schedule lines, engine seconds; the fault phase begins 108 ms
 * into the run), fixed so that a change to what the traffic meets — which moves the draws of a
 * random run — keeps the window this test is about: broker 2 healed at 95.938 s, isolated again
 * at 96.152 s.
 */
const SEED_4242286_FAULTS: TimedFault[] = `8.237 kill 1, 13.590 stall 3, 18.424 stall 1, 26.641 unstall 1, 34.189 start 1, 36.451 cut 3-1,
  39.949 stall 1, 40.853 unstall 3, 42.172 kill 3, 46.721 start 3, 47.657 unstall 1, 51.232 isolate 2, 52.505 slow 1 100,
  52.998 restore 3-1, 56.372 slow 1 0, 59.759 stop 3, 61.788 start 3, 62.147 kill 1, 66.029 start 1, 76.572 stall 2,
  83.707 kill 3, 86.928 unstall 2, 91.994 start 3, 95.938 heal 2, 96.152 isolate 2, 104.877 stall 3, 110.141 kill 2,
  114.412 unstall 3, 126.922 power-loss 3, 130.219 start 3, 132.021 isolate 3`
  .split(',')
  .map((line): TimedFault => {
    const [t, kind, x, delayMs] = line.trim().split(' ') as [string, string, string, string | undefined];
    const atMs = Math.round(Number(t) * 1000) - 108;
    if (kind === 'cut' || kind === 'restore') {
      const [a, b] = x.split('-').map(Number) as [number, number];
      return { atMs, action: { kind, a, b } };
    }
    if (kind === 'slow') return { atMs, action: { kind, broker: Number(x), delayMs: Number(delayMs) } };
    return { atMs, action: { kind: kind as 'kill' | 'stop' | 'power-loss' | 'start' | 'isolate' | 'heal' | 'stall' | 'unstall', broker: Number(x) } };
  });

describe('invariant 5 is decided from events, not samples', () => {
  it('a leader healed for 300 ms (shorter than the old 500 ms scan) heartbeats, is unfenced and leads again: its silence counts from the second isolation, and the controller fences it within the session timeout of it', () => {
    const { r, events } = runShortHeal();
    const [isolated, isolatedAgain] = timesOf(r, `isolate ${LEADER}`) as [number, number];
    const [healed] = timesOf(r, `heal ${LEADER}`) as [number];
    expect(isolatedAgain - healed).toBeLessThan(500);
    const changes = leaderChanges(events);
    // Fenced during the first isolation: the partition went offline (its only ISR member).
    expect(changes.some((e) => e.leader === -1 && e.previousLeader === LEADER && e.reason === 'broker-fenced' && e.atMs > isolated && e.atMs < healed)).toBe(true);
    // In the window its heartbeat reached the controller: unfenced, it leads again.
    expect(changes.some((e) => e.leader === LEADER && e.reason === 'broker-unfenced' && e.atMs > healed && e.atMs < isolatedAgain)).toBe(true);
    // Fenced again within the bound counted from the second isolation (not from the first).
    const refenced = changes.find((e) => e.previousLeader === LEADER && e.reason === 'broker-fenced' && e.atMs > isolatedAgain);
    expect(refenced).toBeDefined();
    expect(refenced!.atMs - isolatedAgain).toBeLessThan(FENCE_WITHIN_MS);
    expect(refenced!.atMs - isolated).toBeGreaterThan(FENCE_WITHIN_MS);
    expect(r.violations).toEqual([]);
  });

  it('a controller that stops expiring sessions after that window is caught exactly at the deadline counted from the second isolation, and the history names what happened to broker 3 and t0-0', () => {
    const { r } = runShortHeal((sim) => {
      // The mutant: from 70.25 s on, the controller never fences a broker whose session ran out.
      sim.scheduler.schedule(70_250 - sim.now, () => {
        (sim.internals.controller as unknown as { brokerLifecycle: { onSessionExpired: (id: number) => void } }).brokerLifecycle.onSessionExpired = () => {};
      });
    });
    expect(r.violations).toEqual([
      `t=82.200s t0-0: broker ${LEADER} has been unable to heartbeat for 12.000 s (since t=70.200s) and still leads it (fencing should have moved its leadership)`,
    ]);
    const history = r.history.join('\n');
    expect(history).toContain(`t=70.200s checker    broker ${LEADER} cannot heartbeat: isolated`);
    expect(history).toContain(`t=69.900s checker    broker ${LEADER} can heartbeat again: process running, link to the controller up`);
    expect(history).toMatch(new RegExp(`t=70\\.0\\d\\ds t0-0 +leader ${LEADER} \\(was -1\\), epoch \\d+, broker-unfenced`));
    // Only the named broker and partition: the stalled followers' own changes are not listed.
    expect(history).not.toContain('checker    broker 4');
  });

  it('seed 4242286: broker 2, healed for 214 ms at 95.938 s, heartbeats in that window and leads again; it is fenced 9 s later and the seed passes', () => {
    const events: EngineEvent[] = [];
    const r = runFaultSeed(4242286, { faults: SEED_4242286_FAULTS, inspect: (sim) => sim.engine.subscribe((e) => events.push(e)) });
    expect(r.schedule).toContain('t=95.938s heal 2 (scheduled)');
    expect(r.schedule).toContain('t=96.152s isolate 2 (scheduled)');
    const unfenced = events.filter((e) => e.type === 'leader.changed' && e.leader === 2 && e.reason === 'broker-unfenced').map((e) => e.atMs);
    expect(unfenced.some((t) => t > 95_938 && t < 96_152)).toBe(true);
    const fenced = events.find((e) => e.type === 'broker.stateChanged' && e.brokerId === 2 && e.state === 'fenced' && e.atMs > 96_152);
    expect(fenced?.atMs).toBeLessThan(96_152 + FENCE_WITHIN_MS);
    expect(r.violations).toEqual([]);
  });
});
