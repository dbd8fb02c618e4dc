/**
 * ISR membership and the high watermark under steady traffic (docs/semantics.md#high-watermark-and-what-consumers-read, #isr-membership): what
 * scenarios 1–5 set up with single produces, here with a producer that keeps several requests in
 * flight over a network with delay, as real clusters run. Each test names the rule it holds to.
 */
import { describe, expect, it } from 'vitest';
import { LATEST_TIMESTAMP } from '../../core/engine.js';
import { Simulation } from '../simulation.js';
import { replica, steadyProducer, values, waitForIsr } from './support.js';

const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);

describe('ISR and high watermark under steady traffic', () => {
  // Rules: a fetch at the leader's LEO marks the follower caught up now, and one that reached the
  // LEO the leader had at its previous fetch is caught up as of that fetch; under a stream of
  // writes a follower's fetch offset almost never equals the live LEO, so the second rule is
  // what keeps it in sync.
  it.each([1, 5])('healthy followers stay in the ISR under steady acks=all traffic with %i ms of network delay', (delayMs) => {
    const sim = new Simulation({ seed: 300 + delayMs, networkDelayMs: delayMs });
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
    // Writes arrive faster than one fetch round trip (2 × delay), so no fetch sees an idle log.
    const traffic = steadyProducer(sim, 't', 0, 'all', Math.max(1, delayMs / 2));
    // Four ISR-shrink checks (every replica.lag.time.max.ms / 2 = 15 s) past the 30 s lag limit.
    sim.advance(75_000);
    traffic.stop();
    sim.advance(1_000);
    expect(sim.eventsOf('isr.shrunk')).toEqual([]);
    expect(sorted(sim.partition('t', 0).isr)).toEqual([1, 2, 3]);
    expect(traffic.answered).toBe(traffic.sent);
    expect(traffic.errors).toEqual([]);
    expect(traffic.sent).toBeGreaterThan(10_000);
    // acks=all answers within a few round trips: the followers never fell behind.
    expect(Math.max(...traffic.latenciesMs)).toBeLessThan(20 * delayMs + 20);
  });

  // Rule: a fetch at the leader's log end makes the follower caught up as of that fetch, so its
  // lag is counted from its last fetch, however long fetches wait on an idle partition
  // (replica.fetch.wait.max.ms, here 25 s: at most replica.socket.timeout.ms).
  it("a stalled follower's lag counts from its last fetch at the leader's log end, however long fetches wait", () => {
    const sim = new Simulation({ seed: 305, networkDelayMs: 1, staticConfigs: { 'replica.fetch.wait.max.ms': '25000' } });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    expect(sim.produce('t', 0, ['first']).errorCode).toBe('NONE');
    // The followers' next fetches park on the idle leader for up to 25 s.
    sim.advance(20_000);
    // This write completes the parked fetches; the followers fetch again at once, at the new log
    // end, and that fetch is what lets the HW (and the acks=all answer) pass the record.
    expect(sim.produce('t', 0, ['second']).errorCode).toBe('NONE');
    const lastFetchAt = sim.now - 1;
    sim.engine.stallFollower(3);
    expect(sim.produce('t', 0, ['third'], 1).errorCode).toBe('NONE');
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    const shrinkAt = sim.eventsOf('isr.shrunk').find((e) => e.removed.includes(3))!.atMs;
    // Out of sync once replica.lag.time.max.ms (30 s) has passed since that fetch, found by the
    // next check (every 15 s) — not counted from the fetch before it, 20 s earlier.
    expect(shrinkAt - lastFetchAt).toBeGreaterThan(30_000);
    expect(shrinkAt - lastFetchAt).toBeLessThanOrEqual(45_000);
  });

  // Rule: a caught-up, ISR-eligible follower that is not in the ISR still holds the HW back;
  // otherwise, with ISR = {leader} and writes arriving, the HW runs ahead with the leader's LEO
  // and the follower (which must reach the HW to join) never does.
  it('a follower unstalled under steady acks=1 traffic rejoins an ISR of one within a few fetches', () => {
    const sim = new Simulation({ seed: 310, networkDelayMs: 2 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.engine.stallFollower(2);
    sim.engine.stallFollower(3);
    for (const v of values(0, 9)) sim.produce('t', 0, [v], 1);
    waitForIsr(sim, 't', 0, [1], 60_000);
    const traffic = steadyProducer(sim, 't', 0, 1, 1);
    sim.advance(2_000);
    const unstalledAt = sim.now;
    sim.engine.stallFollower(2, false);
    const took = waitForIsr(sim, 't', 0, [1, 2], 5_000);
    expect(took).toBeLessThan(1_000);
    expect(sim.now - unstalledAt).toBeLessThan(1_000);
    sim.advance(2_000);
    traffic.stop();
    sim.advance(1_000);
    expect(traffic.errors).toEqual([]);
    expect(traffic.sent).toBeGreaterThan(3_000); // the writes never paused
    expect(sorted(sim.partition('t', 0).isr)).toEqual([1, 2]);
  });

  // KAFKA-7128: a follower joins the ISR only once its LEO reaches the current leader epoch's
  // start offset, even when its LEO already reached the HW. Here the HW (frozen by strict min ISR)
  // is below the new leader's epoch start, so the HW alone would let it in too early.
  it('a follower whose LEO reached the HW but not the leader epoch start stays out of the ISR (KAFKA-7128)', () => {
    const sim = new Simulation({ seed: 320, staticConfigs: { 'replica.fetch.max.bytes': '1' } });
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '3' }, [[1, 2, 3]]);
    for (const v of values(0, 9)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.engine.stallFollower(3);
    for (const v of values(10, 19)) sim.produce('t', 0, [v], 1);
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    sim.advance(1_000);
    // ISR {1,2} is below min ISR 3: the HW stays at 10 although 1 and 2 hold 20 records.
    expect([replica(sim, 1, 't').log.highWatermark, replica(sim, 2, 't').log.logEndOffset]).toEqual([10, 20]);
    sim.engine.stopBroker(1);
    sim.waitFor(() => sim.internals.brokers.get(2)!.partitionFor('t', 0)?.isLeader === true, 30_000, 'broker 2 leading');
    const leader = replica(sim, 2, 't');
    expect([leader.log.highWatermark, leader.leaderEpochStartOffset, leader.log.logEndOffset]).toEqual([10, 20, 20]);

    let leoAtJoin = -1;
    sim.engine.subscribe((e) => {
      if (e.type === 'isr.expanded' && e.added.includes(3)) leoAtJoin = leader.followerLogEndOffset(3);
    });
    sim.engine.stallFollower(3, false);
    // One batch per fetch: 3's LEO climbs 10, 11, ... 20; it is at or above the HW from the start.
    sim.waitFor(() => leoAtJoin >= 0, 30_000, 'broker 3 joining the ISR');
    expect(leoAtJoin).toBe(20);
    expect(sorted(sim.partition('t', 0).isr)).toEqual([2, 3]);
  });

  // Rule: a follower's HW = min(the leader's HW in the fetch answer, its own LEO).
  it("a catching-up follower's high watermark never passes its own log end", () => {
    const sim = new Simulation({ seed: 330, networkDelayMs: 1, staticConfigs: { 'replica.fetch.max.bytes': '1' } });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.engine.stallFollower(3);
    for (const v of values(0, 19)) sim.produce('t', 0, [v], 1);
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    sim.advance(1_000);
    expect(sim.partition('t', 0).highWatermark).toBe(20);
    sim.engine.stallFollower(3, false);
    const seen: { leo: number; hw: number }[] = [];
    sim.waitFor(
      () => {
        const r = sim.partition('t', 0).replicaStates.find((s) => s.brokerId === 3)!;
        if (seen.at(-1)?.leo !== r.logEndOffset) seen.push({ leo: r.logEndOffset, hw: r.highWatermark });
        return r.logEndOffset === 20 && r.highWatermark === 20;
      },
      30_000,
      'broker 3 caught up',
    );
    // The product's replica view: while 3 climbs one batch per fetch its HW follows its LEO.
    expect(seen.length).toBeGreaterThan(10);
    for (const s of seen) expect(s.hw).toBeLessThanOrEqual(s.leo);
    expect(seen.filter((s) => s.leo > 0 && s.leo < 20).every((s) => s.hw === s.leo)).toBe(true);
  });

  // Rules: a leader's HW never decreases; a new leader answers ListOffsets(latest) with
  // OFFSET_NOT_AVAILABLE until its HW reaches its epoch start (KIP-207), so the committed end a
  // client reads never moves backwards across failovers either.
  it('the high watermark a client reads never moves backwards across leader changes', () => {
    const sim = new Simulation({ seed: 340, networkDelayMs: 3 });
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
    const traffic = steadyProducer(sim, 't', 0, 'all', 4);
    const latest: { atMs: number; offset: number }[] = [];
    const byEpoch = new Map<number, number[]>();
    let sampling = true;
    const sample = (): void => {
      if (!sampling) return;
      sim.engine.listOffsets({ topic: 't', partition: 0, timestamp: LATEST_TIMESTAMP }, (r) => {
        if (r.error === 'NONE') latest.push({ atMs: sim.now, offset: r.offset });
      });
      const view = sim.partition('t', 0);
      // The leader's own HW while it serves (a dead leader's view is its last checkpoint).
      if (view.leader >= 0 && sim.engine.brokerState(view.leader) === 'running') byEpoch.set(view.leaderEpoch, [...(byEpoch.get(view.leaderEpoch) ?? []), view.highWatermark]);
      sim.scheduler.schedule(7, sample);
    };
    sample();
    const leader = (): number => sim.partition('t', 0).leader;
    const steps: (() => void)[] = [
      () => sim.engine.stopBroker(leader()), // controlled shutdown
      () => sim.engine.startBroker(1),
      () => sim.engine.killBroker(leader()), // fencing after broker.session.timeout.ms
      () => sim.engine.startBroker([1, 2, 3].find((b) => sim.engine.brokerState(b) === 'killed' || sim.engine.brokerState(b) === 'stopped') ?? 1),
      () => sim.engine.stallFollower(3),
      () => sim.engine.killBroker(leader()),
      () => sim.engine.stallFollower(3, false),
    ];
    for (const step of steps) {
      step();
      sim.advance(15_000);
    }
    for (const b of [1, 2, 3]) if (!['running', 'fenced', 'starting'].includes(sim.engine.brokerState(b))) sim.engine.startBroker(b);
    sim.advance(30_000);
    expect(sim.engine.electLeaders('preferred', [{ topic: 't', partition: 0 }])[0]!.errorCode).toBe('NONE');
    sim.advance(10_000);
    traffic.stop();
    sampling = false;
    sim.advance(2_000);

    expect(new Set(sim.eventsOf('leader.changed').map((e) => e.leaderEpoch)).size).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < latest.length; i++) {
      if (latest[i]!.offset < latest[i - 1]!.offset) {
        throw new Error(`ListOffsets(latest) went back from ${latest[i - 1]!.offset} to ${latest[i]!.offset} at ${latest[i]!.atMs} ms`);
      }
    }
    for (const [epoch, hws] of byEpoch) {
      for (let i = 1; i < hws.length; i++) expect(hws[i], `HW within leader epoch ${epoch}`).toBeGreaterThanOrEqual(hws[i - 1]!);
    }
    expect(latest.at(-1)!.offset).toBeGreaterThan(1_000);
    expect(traffic.sent).toBeGreaterThan(30_000);
  });
});
