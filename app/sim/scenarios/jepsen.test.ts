/**
 * Scenario 25 (docs/semantics.md#the-scenario-suite): the Jepsen (2013) failure and "last replica standing",
 * part (c) without and with eligible leader replicas (KIP-966, eligible.leader.replicas.version=1).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ProduceResult } from '../../core/engine.js';
import { recordText, Simulation, textRecord } from '../simulation.js';
import { cleanUpStorages, replica, STORAGES, values, waitForIsr } from './support.js';

function jepsenSetup(seed: number, minIsr: string): Simulation {
  const sim = new Simulation({ seed });
  sim.createTopic('t', 1, 3, { 'min.insync.replicas': minIsr, 'unclean.leader.election.enable': 'true' }, [[1, 2, 3]]);
  for (const v of values(0, 9, 'before')) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
  sim.advance(1_000);
  return sim;
}

describe('scenario 25: Jepsen and last replica standing', () => {
  it('scenario 25: (a) Jepsen: with min ISR 1 and unclean election, acked writes are lost', () => {
    const sim = jepsenSetup(25, '1');
    sim.engine.cutLink(1, 2);
    sim.engine.cutLink(1, 3);
    const cutAt = sim.now;
    // An acks=all write waits until the followers are shrunk out, then ISR {1} acks it alone.
    expect(sim.produce('t', 0, ['during-cut'], 'all', 120_000).errorCode).toBe('NONE');
    expect(sim.partition('t', 0).isr).toEqual([1]);
    const shrinkAt = sim.eventsOf('isr.shrunk').at(-1)!.atMs;
    expect(shrinkAt - cutAt).toBeGreaterThan(30_000);
    expect(sim.engine.brokerState(2)).toBe('running'); // everyone still heartbeats
    expect(sim.engine.brokerState(3)).toBe('running');
    const acked = [...values(0, 99, 'lost'), 'during-cut'];
    for (const v of acked.slice(0, 100)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader !== 1, 20_000, 'a new leader');
    // The election record itself: leader 2, ISR [2], RECOVERING (3 may rejoin right after).
    const election = sim.internals.controller.records().map((r) => r.record).filter((r) => r.type === 'PartitionChange' && r.unclean);
    expect(election).toHaveLength(1);
    const elected = election[0]!.type === 'PartitionChange' ? election[0]!.state : null;
    expect({ leader: elected?.leader, isr: elected?.isr, rec: elected?.leaderRecoveryState }).toEqual({ leader: 2, isr: [2], rec: 'RECOVERING' });
    expect(sim.eventsOf('leader.changed').at(-1)).toMatchObject({ leader: 2, unclean: true, reason: 'unclean-election' });
    const onNewLeader = sim.replicaLog(2, 't').map((r) => r.value);
    for (const v of acked) expect(onNewLeader).not.toContain(v);
    sim.engine.cutLink(1, 2, false);
    sim.engine.cutLink(1, 3, false);
    sim.engine.startBroker(1);
    waitForIsr(sim, 't', 0, [1, 2, 3], 120_000);
    sim.advance(1_000);
    const onOldLeader = sim.replicaLog(1, 't').map((r) => r.value);
    for (const v of acked) expect(onOldLeader).not.toContain(v);
    expect(sim.eventsOf('replica.truncated').some((e) => e.brokerId === 1 && e.fromOffset - e.toOffset === 101)).toBe(true);
  });

  it('scenario 25: (b) with min ISR 2 nothing acknowledged is lost', () => {
    const sim = jepsenSetup(251, '2');
    const acked = values(0, 9, 'before');
    sim.engine.cutLink(1, 2);
    sim.engine.cutLink(1, 3);
    const pending: (ProduceResult | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const slot = pending.push(null) - 1;
      sim.engine.produce({ topic: 't', partition: 0, acks: 'all', timeoutMs: 60_000, records: [textRecord(`pending${i}`)] }, (r) => (pending[slot] = r));
    }
    waitForIsr(sim, 't', 0, [1], 60_000);
    expect(sim.produce('t', 0, ['after-shrink']).errorCode).toBe('NOT_ENOUGH_REPLICAS');
    sim.waitFor(() => pending.every((p) => p !== null), 60_000, 'pending writes to end');
    for (const p of pending) expect(p!.errorCode).toBe('REQUEST_TIMED_OUT');
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 20_000, 'unclean election of 2');
    const onNewLeader = sim.replicaLog(2, 't').map((r) => r.value);
    expect(onNewLeader).toEqual(acked); // every write that got NONE is present
  });

});

describe.each(STORAGES)('scenario 25 (c), $name', ({ make }) => {
  afterEach(cleanUpStorages);

  it('scenario 25: (c) last replica standing without ELR: a local loss becomes a global loss', () => {
    const sim = new Simulation({ seed: 252, storage: make() });
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
    for (const v of values(0, 9, 'all3-')) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.engine.stallFollower(3);
    sim.produce('t', 0, ['nudge3'], 1);
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    const committedWith2 = values(0, 9, 'isr12-');
    for (const v of committedWith2) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.engine.stallFollower(2);
    sim.produce('t', 0, ['nudge2'], 1);
    waitForIsr(sim, 't', 0, [1], 60_000);
    const committedHw = replica(sim, 1, 't').log.highWatermark;
    expect(committedHw).toBe(21); // everything acked so far is committed
    expect(replica(sim, 1, 't').log.flushedOffset).toBe(0); // Kafka's defaults never fsync per write

    sim.engine.powerLossBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === -1, 20_000, 'partition offline');
    expect(sim.partition('t', 0).isr).toEqual([1]); // the ISR keeps its last member
    sim.engine.startBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === 1, 30_000, '1 re-elected');
    expect(sim.eventsOf('replica.truncated').some((e) => e.brokerId === 1 && e.reason === 'power-loss' && e.topic === 't')).toBe(true);
    sim.engine.stallFollower(2, false);
    sim.engine.stallFollower(3, false);
    sim.advance(5_000);
    // 2 and 3 truncate to 1's shorter log: committed records are gone everywhere.
    for (const b of [1, 2, 3]) expect(sim.replicaLog(b, 't')).toHaveLength(0);
    expect(sim.eventsOf('replica.truncated').filter((e) => e.reason === 'diverging-epoch').map((e) => e.brokerId).sort()).toEqual([2, 3]);
    expect(sim.consumeAll('t', 0).map(recordText)).toEqual([]);
  });

  it('scenario 25: (c) last replica standing with ELR: the eligible replica leads and nothing committed is lost', () => {
    const sim = new Simulation({ seed: 253, storage: make() });
    // kafka-features.sh upgrade --feature eligible.leader.replicas.version=1
    expect(sim.engine.updateFeatures([{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 1 }])).toEqual([
      { feature: 'eligible.leader.replicas.version', errorCode: 'NONE' },
    ]);
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
    for (const v of values(0, 9, 'all3-')) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.engine.stallFollower(3);
    sim.produce('t', 0, ['nudge3'], 1);
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    expect(sim.partition('t', 0).elr ?? []).toEqual([]); // ISR {1,2} is at min ISR: 3 is not eligible
    const committedWith2 = values(0, 9, 'isr12-');
    for (const v of committedWith2) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.engine.stallFollower(2);
    sim.produce('t', 0, ['nudge2'], 1);
    waitForIsr(sim, 't', 0, [1], 60_000);
    // The ISR fell below min ISR: 2, which left it then, holds everything up to the (frozen) HW.
    expect(sim.partition('t', 0).elr).toEqual([2]);
    const committed = replica(sim, 1, 't').log.highWatermark;
    expect(committed).toBe(21);

    sim.engine.powerLossBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 20_000, 'the ELR member elected');
    const election = sim.eventsOf('leader.changed').at(-1)!;
    expect(election).toMatchObject({ leader: 2, previousLeader: 1, reason: 'broker-fenced', unclean: false });
    // 1 was the last ISR member: it leaves the ISR and joins the ELR; 2 leads with ISR {2}.
    expect(sim.partition('t', 0)).toMatchObject({ leader: 2, isr: [2], elr: [1] });
    // The new leader starts from its own HW (a follower's lags one fetch) and, with ISR {2}
    // below min ISR, keeps it frozen; its log holds every committed record.
    const hwAtElection = replica(sim, 2, 't').log.highWatermark;
    expect(hwAtElection).toBeLessThanOrEqual(committed);
    sim.advance(5_000);
    expect(replica(sim, 2, 't').log.highWatermark).toBe(hwAtElection);
    expect(sim.replicaLog(2, 't').slice(0, committed).map((r) => r.value)).toEqual([...values(0, 9, 'all3-'), 'nudge3', ...committedWith2]);

    // 1 comes back after a power loss: an unclean shutdown, so it leaves the ELR.
    // It leaves at its re-registration (the controller processes the new incarnation as an unclean
    // shutdown of the old one, KAFKA-18106), not later by rejoining the ISR, which would also clear
    // it: its fetcher is held until then.
    sim.engine.startBroker(1);
    sim.engine.stallFollower(1);
    sim.waitFor(() => !(sim.partition('t', 0).elr ?? []).includes(1), 30_000, '1 out of the ELR');
    expect(sim.partition('t', 0)).toMatchObject({ leader: 2, isr: [2], elr: [] });
    sim.engine.stallFollower(1, false);
    expect(sim.eventsOf('replica.truncated').some((e) => e.brokerId === 1 && e.reason === 'power-loss' && e.topic === 't')).toBe(true);
    expect(sim.partition('t', 0).leader).toBe(2);
    // Once 1 has copied 2's log and rejoined, the ISR is back at min ISR and the HW moves again.
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    sim.engine.stallFollower(3, false);
    waitForIsr(sim, 't', 0, [1, 2, 3], 60_000);
    sim.advance(2_000);
    expect(sim.eventsOf('replica.truncated').filter((e) => e.reason === 'diverging-epoch' && e.brokerId !== 1)).toEqual([]);
    const all = sim.consumeAll('t', 0).map(recordText);
    expect(all.slice(0, committed)).toEqual([...values(0, 9, 'all3-'), 'nudge3', ...committedWith2]);
    expect(sim.produce('t', 0, ['after']).errorCode).toBe('NONE');
  });
});
