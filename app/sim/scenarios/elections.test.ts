/**
 * Scenarios 11–15 (docs/semantics.md#the-scenario-suite): clean, offline, unclean and preferred elections,
 * auto leader rebalance and controlled shutdown.
 */
import { describe, expect, it } from 'vitest';
import { recordText, Simulation, textRecord } from '../simulation.js';
import { clusterHealth, replica, values, waitForIsr } from './support.js';

/** Scenario 11's setup: replicas [1,2,3], ISR {1,3} (2 lagging), leader 1. */
function lagging2(seed: number, staticConfigs: Record<string, string> = {}): Simulation {
  const sim = new Simulation({ seed, staticConfigs });
  sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
  for (const v of values(0, 4)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
  sim.engine.stallFollower(2);
  for (const v of values(5, 9)) sim.produce('t', 0, [v], 1);
  waitForIsr(sim, 't', 0, [1, 3], 60_000);
  sim.advance(1_000);
  return sim;
}

/** Scenarios 11 and 12 up to "partition offline, ISR {3}". */
function offlineWith3Last(seed: number, staticConfigs: Record<string, string> = {}): Simulation {
  const sim = lagging2(seed, staticConfigs);
  sim.engine.killBroker(1);
  sim.waitFor(() => sim.partition('t', 0).leader === 3, 20_000, 'leader 3');
  sim.advance(1_000);
  sim.engine.killBroker(3);
  sim.waitFor(() => sim.partition('t', 0).leader === -1, 20_000, 'partition offline');
  return sim;
}

describe('leader election', () => {
  it('scenario 11: clean election picks the first ISR replica in assignment order', () => {
    const sim = lagging2(11);
    const before = sim.partition('t', 0);
    expect(before.leader).toBe(1);
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader !== 1, 20_000, 'a new leader');
    const after = sim.partition('t', 0);
    expect(after.leader).toBe(3); // not 2: 2 is not in the ISR
    expect(after.isr).toEqual([3]);
    expect(after.leaderEpoch).toBe(before.leaderEpoch + 1);
    expect(after.partitionEpoch).toBeGreaterThan(before.partitionEpoch);
    sim.advance(1_000);
    sim.engine.killBroker(3);
    sim.waitFor(() => sim.partition('t', 0).leader === -1, 20_000, 'partition offline');
    const offline = sim.partition('t', 0);
    expect(offline.isr).toEqual([3]); // the last member stays
    expect(offline.leaderEpoch).toBe(after.leaderEpoch + 1);
    sim.advance(60_000);
    expect(sim.partition('t', 0).leader).toBe(-1); // 2 is never elected
  });

  it('scenario 12: offline partition recovers without loss', async () => {
    const sim = offlineWith3Last(12);
    const viaClient = sim.produce('t', 0, ['x']);
    expect(viaClient.errorCode).toBe('LEADER_NOT_AVAILABLE'); // what Metadata shows for leader -1
    type Raw = Parameters<Parameters<typeof sim.engine.produceTo>[2]>[0];
    const toBroker2 = sim.await<Raw>((done) => sim.engine.produceTo(2, { topic: 't', partition: 0, acks: -1, records: [textRecord('x')] }, done));
    expect(toBroker2.errorCode).toBe('NOT_LEADER_OR_FOLLOWER');
    expect((await clusterHealth(sim)).offlinePartitions).toBe(1);
    sim.engine.startBroker(3);
    sim.waitFor(() => sim.partition('t', 0).leader === 3, 30_000, 'broker 3 leading again');
    const unfencedAt = sim.eventsOf('broker.stateChanged').filter((e) => e.brokerId === 3 && e.state === 'running').at(-1)!.atMs;
    const electedAt = sim.eventsOf('leader.changed').filter((e) => e.leader === 3).at(-1)!.atMs;
    expect(electedAt).toBeLessThanOrEqual(unfencedAt); // elected in the unfencing batch
    expect((await clusterHealth(sim)).offlinePartitions).toBe(0);
    // Everything acked before (0-4 with acks=all) is present; 5-9 were on 3 as well.
    expect(sim.consumeAll('t', 0).map(recordText)).toEqual(values(0, 9));
  });

  it('scenario 13: unclean election loses data, and only when allowed', () => {
    const sim = new Simulation({ seed: 13 });
    sim.createTopic('t', 1, 2, {}, [[1, 2]]);
    for (const v of values(0, 4)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.advance(1_000);
    sim.engine.stallFollower(2);
    // acks=all with ISR {1,2}: waits until 2 is shrunk out, then ISR {1} (min ISR 1) acks it.
    const acked = sim.produce('t', 0, values(5, 9), 'all', 120_000);
    expect(acked.errorCode).toBe('NONE');
    expect(sim.partition('t', 0).isr).toEqual([1]);
    expect(replica(sim, 2, 't').log.logEndOffset).toBe(5);
    sim.engine.killBroker(1);
    sim.engine.stallFollower(2, false);
    sim.waitFor(() => sim.partition('t', 0).leader === -1, 20_000, 'partition offline');
    const offlineEpoch = sim.partition('t', 0).leaderEpoch;
    sim.engine.alterConfigs('topic', 't', { 'unclean.leader.election.enable': 'true' });
    const enabledAt = sim.now;
    sim.advance(60_000);
    expect(sim.partition('t', 0).leader).toBe(-1); // no election until the periodic check
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 300_000, 'unclean election');
    expect(sim.now - enabledAt).toBeLessThanOrEqual(300_000);
    const elected = sim.partition('t', 0);
    expect(elected.isr).toEqual([2]);
    expect(elected.leaderEpoch).toBe(offlineEpoch + 1);
    expect(elected.leaderRecoveryState).toBe('RECOVERING');
    const change = sim.eventsOf('leader.changed').at(-1)!;
    expect(change.unclean).toBe(true);
    expect(sim.engine.electLeaders('unclean', [{ topic: 't', partition: 0 }])[0]!.errorCode).toBe('ELECTION_NOT_NEEDED');
    const newWrite = sim.produce('t', 0, ['n5']);
    expect(newWrite.baseOffset).toBe(5);
    sim.engine.startBroker(1);
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    expect(sim.partition('t', 0).leaderRecoveryState).toBe('RECOVERED');
    const truncation = sim.eventsOf('replica.truncated').find((e) => e.brokerId === 1)!;
    expect([truncation.fromOffset, truncation.toOffset]).toEqual([10, 5]);
    sim.advance(1_000);
    const all = sim.consumeAll('t', 0).map(recordText);
    expect(all).toEqual([...values(0, 4), 'n5']);
    expect(sim.replicaLog(1, 't').map((r) => r.value)).toEqual([...values(0, 4), 'n5']); // 5-9 exist nowhere
  });

  it('scenario 13: ElectLeaders(UNCLEAN) acts at once, regardless of the config', () => {
    const sim = new Simulation({ seed: 131 });
    sim.createTopic('t', 1, 2, {}, [[1, 2]]);
    sim.engine.stallFollower(2);
    sim.produce('t', 0, ['a'], 1);
    waitForIsr(sim, 't', 0, [1], 60_000);
    sim.engine.killBroker(1);
    sim.engine.stallFollower(2, false);
    sim.waitFor(() => sim.partition('t', 0).leader === -1, 20_000, 'partition offline');
    const [result] = sim.engine.electLeaders('unclean', [{ topic: 't', partition: 0 }]);
    expect(result).toMatchObject({ errorCode: 'NONE', leader: 2 });
    expect(sim.partition('t', 0)).toMatchObject({ leader: 2, isr: [2], leaderRecoveryState: 'RECOVERING' });
  });

  it('scenario 14: preferred leader and auto-rebalance', () => {
    const sim = offlineWith3Last(14);
    sim.engine.startBroker(3);
    sim.waitFor(() => sim.partition('t', 0).leader === 3, 30_000, 'leader 3');
    sim.engine.startBroker(1);
    waitForIsr(sim, 't', 0, [1, 3], 60_000);
    const joinedAt = sim.now;
    const epoch = sim.partition('t', 0).leaderEpoch;
    sim.advance(10_000);
    expect(sim.partition('t', 0).leader).toBe(3); // until the next rebalance check
    sim.waitFor(() => sim.partition('t', 0).leader === 1, 300_000, 'auto rebalance');
    expect(sim.now - joinedAt).toBeLessThanOrEqual(300_000);
    expect(sim.partition('t', 0).leaderEpoch).toBe(epoch + 1);
    expect(sim.eventsOf('leader.changed').at(-1)!.reason).toBe('auto-rebalance');
  });

  it('scenario 14: with auto.leader.rebalance.enable=false only ElectLeaders(PREFERRED) moves the leader', () => {
    const sim = offlineWith3Last(141, { 'auto.leader.rebalance.enable': 'false' });
    sim.engine.startBroker(3);
    sim.waitFor(() => sim.partition('t', 0).leader === 3, 30_000, 'leader 3');
    // 1 not yet back: the preferred leader is not available.
    expect(sim.engine.electLeaders('preferred', [{ topic: 't', partition: 0 }])[0]!.errorCode).toBe('PREFERRED_LEADER_NOT_AVAILABLE');
    sim.engine.startBroker(1);
    waitForIsr(sim, 't', 0, [1, 3], 60_000);
    sim.advance(600_000);
    expect(sim.partition('t', 0).leader).toBe(3);
    const epoch = sim.partition('t', 0).leaderEpoch;
    const [first] = sim.engine.electLeaders('preferred', [{ topic: 't', partition: 0 }]);
    expect(first).toMatchObject({ errorCode: 'NONE', leader: 1 });
    expect(sim.partition('t', 0)).toMatchObject({ leader: 1, leaderEpoch: epoch + 1 });
    expect(sim.engine.electLeaders('preferred', [{ topic: 't', partition: 0 }])[0]!.errorCode).toBe('ELECTION_NOT_NEEDED');
  });

  it('scenario 15: controlled shutdown moves leadership first', () => {
    const sim = new Simulation({ seed: 15 });
    const assignments = Array.from({ length: 10 }, (_, p) => (p % 2 === 0 ? [1, 2, 3] : [1, 3, 2]));
    sim.createTopic('t', 10, 3, {}, assignments);
    // Partition 9 alone gets traffic while 2 and 3 stall, so only its ISR shrinks to {1}.
    sim.engine.stallFollower(2);
    sim.engine.stallFollower(3);
    sim.produce('t', 9, ['only-on-1'], 1);
    waitForIsr(sim, 't', 9, [1], 60_000);
    for (let p = 0; p < 9; p++) expect(sim.partition('t', p).isr.toSorted()).toEqual([1, 2, 3]);

    sim.engine.stopBroker(1);
    sim.waitFor(() => sim.engine.brokerState(1) === 'stopped', 30_000, 'broker 1 stopped');
    // The order, read from the controller's metadata log: the batch that puts 1 in controlled
    // shutdown also moves its leaderships; only a later batch, when 1 leads nothing and is granted
    // SHUTDOWN_NOW, fences it.
    const log = sim.internals.controller.records();
    const entered = log.find((r) => r.record.type === 'BrokerRegistrationChange' && r.record.brokerId === 1 && r.record.inControlledShutdown === true)!;
    const fenced = log.find((r) => r.record.type === 'BrokerRegistrationChange' && r.record.brokerId === 1 && r.record.fenced === true)!;
    expect(entered).toBeDefined();
    expect(fenced).toBeDefined();
    const leadershipMoves = log.filter((r) => r.record.type === 'PartitionChange' && r.record.reason === 'controlled-shutdown' && r.record.state.leader !== 1);
    expect(leadershipMoves.length).toBeGreaterThanOrEqual(10); // 9 new leaders, and partition 9 leaderless
    for (const m of leadershipMoves) {
      expect(m.offset).toBeGreaterThan(entered.offset);
      expect(m.offset).toBeLessThan(fenced.offset);
      expect(m.timestampMs).toBe(entered.timestampMs); // the same batch
    }
    // At the moment 1 was fenced it led nothing any more.
    const ledAtFence = new Map<string, number>();
    for (const r of log) {
      if (r.offset >= fenced.offset) break;
      if (r.record.type === 'Partition' || r.record.type === 'PartitionChange') ledAtFence.set(`${r.record.state.topicId}:${r.record.state.partition}`, r.record.state.leader);
    }
    expect([...ledAtFence.values()].filter((l) => l === 1)).toEqual([]);
    const moves = sim.eventsOf('leader.changed').filter((e) => e.previousLeader === 1);
    const stoppedAt = sim.eventsOf('broker.stateChanged').find((e) => e.brokerId === 1 && e.state === 'stopped')!.atMs;
    for (const m of moves) expect(m.atMs).toBeLessThanOrEqual(stoppedAt);
    for (let p = 0; p < 9; p++) {
      const s = sim.partition('t', p);
      expect([2, 3]).toContain(s.leader);
      expect(s.isr).not.toContain(1);
      expect(moves.find((m) => m.partition === p)!.reason).toBe('controlled-shutdown');
    }
    expect(sim.partition('t', 9)).toMatchObject({ leader: -1, isr: [1] });
    for (let p = 0; p < 9; p++) expect(sim.produce('t', p, [`after-${p}`], 1).errorCode).toBe('NONE');
    expect(sim.produce('t', 9, ['x'], 1).errorCode).toBe('LEADER_NOT_AVAILABLE');
    sim.engine.startBroker(1);
    sim.waitFor(() => sim.partition('t', 9).leader === 1, 30_000, 'broker 1 back as leader of 9');
    expect(sim.produce('t', 9, ['y'], 1).errorCode).toBe('NONE');
  });
});
