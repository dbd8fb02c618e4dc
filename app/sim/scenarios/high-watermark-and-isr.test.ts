/**
 * Scenarios 1–5 (docs/semantics.md#the-scenario-suite): the high watermark, fetch boundaries and ISR membership.
 */
import { describe, expect, it } from 'vitest';
import type { FetchResponse } from '../../core/broker/messages.js';
import { recordText, Simulation } from '../simulation.js';
import { clusterHealth, replica, values, waitForIsr } from './support.js';

describe('high watermark and ISR', () => {
  it('scenario 1: HW = min LEO over the ISR', () => {
    const sim = new Simulation({ seed: 1 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.advance(100);
    sim.engine.stallFollower(3);
    const stalledAt = sim.now;
    for (const v of values(0, 9)) expect(sim.produce('t', 0, [v], 1).errorCode).toBe('NONE');
    sim.advance(50);
    const leader = replica(sim, 1, 't');
    expect(leader.log.logEndOffset).toBe(10);
    expect(replica(sim, 2, 't').log.logEndOffset).toBe(10);
    expect(leader.log.highWatermark).toBe(0); // held back by 3's LEO (0)
    const empty = sim.consume('t', 0, 0);
    expect(empty.errorCode).toBe('NONE');
    expect(empty.records).toHaveLength(0);

    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    const shrink = sim.eventsOf('isr.shrunk').find((e) => e.removed.includes(3))!;
    const lag = shrink.atMs - stalledAt;
    expect(lag).toBeGreaterThan(30_000);
    expect(lag).toBeLessThanOrEqual(45_000);
    sim.advance(100);
    expect(leader.log.highWatermark).toBe(10);
    expect(sim.consumeAll('t', 0).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('scenario 2: fetch boundaries', () => {
    const sim = new Simulation({ seed: 2 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    for (const v of values(0, 4)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.advance(1000);
    sim.engine.stallFollower(2);
    sim.engine.stallFollower(3);
    for (const v of values(5, 7)) expect(sim.produce('t', 0, [v], 1).errorCode).toBe('NONE');
    const leader = replica(sim, 1, 't');
    expect([leader.log.highWatermark, leader.log.logEndOffset]).toEqual([5, 8]);
    for (const offset of [5, 6, 8]) {
      const r = sim.consume('t', 0, offset);
      expect(r.errorCode, `fetch at ${offset}`).toBe('NONE');
      expect(r.records).toHaveLength(0);
    }
    expect(sim.consume('t', 0, 9).errorCode).toBe('OFFSET_OUT_OF_RANGE');
    expect(sim.consume('t', 0, 4).records.map(recordText)).toEqual(['m4']);
    // A follower reads up to the LEO.
    const response = sim.await<FetchResponse>((done) =>
      sim.internals.network.request(
        2,
        1,
        {
          type: 'fetch',
          replicaId: 2,
          brokerEpoch: -1,
          maxWaitMs: 0,
          partitions: [{ topicId: leader.topicId, partition: 0, fetchOffset: 5, lastFetchedEpoch: leader.log.latestEpoch(), currentLeaderEpoch: leader.leaderEpoch }],
        },
        5_000,
        (res) => done(res as FetchResponse),
        () => done({ partitions: [] }),
      ),
    );
    const offsets = response.partitions[0]!.batches.flatMap((b) => b.records.map((_, i) => b.baseOffset + i));
    expect(offsets).toEqual([5, 6, 7]);
    // Below the log start (records deleted, as by DeleteRecords) is out of range too.
    leader.log.advanceLogStartOffset(3);
    expect(sim.consume('t', 0, 2).errorCode).toBe('OFFSET_OUT_OF_RANGE');
    expect(sim.consume('t', 0, 3).records.map(recordText)).toEqual(['m3', 'm4']);
  });

  it('a follower fetch naming an older leader epoch is fenced and a newer one unknown (KIP-320); neither reads or counts as progress', () => {
    const sim = new Simulation({ seed: 21 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    for (const v of values(0, 2)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.engine.stopBroker(1);
    sim.waitFor(() => sim.internals.brokers.get(2)!.partitionFor('t', 0)?.isLeader === true, 30_000, 'broker 2 leading');
    for (const v of values(3, 4)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    const leader = replica(sim, 2, 't');
    const epoch = leader.leaderEpoch;
    expect(epoch).toBeGreaterThan(0);
    const fetch = (currentLeaderEpoch: number) =>
      sim.await<FetchResponse>((done) =>
        sim.internals.network.request(
          3,
          2,
          {
            type: 'fetch',
            replicaId: 3,
            brokerEpoch: -1,
            maxWaitMs: 0,
            partitions: [{ topicId: leader.topicId, partition: 0, fetchOffset: 1, lastFetchedEpoch: 0, currentLeaderEpoch }],
          },
          5_000,
          (res) => done(res as FetchResponse),
          () => done({ partitions: [] }),
        ),
      ).partitions[0]!;
    const leoSeenBefore = leader.followerLogEndOffset(3);
    const older = fetch(epoch - 1);
    expect([older.error, older.batches]).toEqual(['FENCED_LEADER_EPOCH', []]);
    const newer = fetch(epoch + 1);
    expect([newer.error, newer.batches]).toEqual(['UNKNOWN_LEADER_EPOCH', []]);
    expect(leader.followerLogEndOffset(3)).toBe(leoSeenBefore); // a refused fetch is not progress
    const current = fetch(epoch);
    expect(current.error).toBe('NONE');
    expect(current.batches.flatMap((b) => b.records.map((_, i) => b.baseOffset + i))).toEqual([1, 2, 3, 4]);
  });

  it('scenario 3: idle partition keeps a stalled follower in the ISR', () => {
    const sim = new Simulation({ seed: 3 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.advance(1000);
    sim.engine.stallFollower(3);
    for (let t = 0; t < 120; t += 5) {
      sim.advance(5_000);
      expect(sim.partition('t', 0).isr.toSorted()).toEqual([1, 2, 3]);
    }
    expect(sim.engine.brokerState(3)).toBe('running'); // still heartbeating
    const producedAt = sim.now;
    expect(sim.produce('t', 0, ['late'], 1).errorCode).toBe('NONE');
    waitForIsr(sim, 't', 0, [1, 2], 30_000);
    const shrinkAt = sim.eventsOf('isr.shrunk').find((e) => e.removed.includes(3))!.atMs;
    expect(shrinkAt - producedAt).toBeLessThanOrEqual(15_000);
  });

  it('scenario 4: broker failure is detected through the session, not the lag', async () => {
    const sim = new Simulation({ seed: 4 });
    sim.createTopic('t', 6, 3);
    sim.advance(3_000);
    expect((await clusterHealth(sim)).fencedBrokers).toBe(0);
    const leadersBefore = [0, 1, 2, 3, 4, 5].map((p) => sim.partition('t', p).leader);
    const killedAt = sim.now;
    sim.engine.killBroker(3);
    sim.waitFor(() => sim.eventsOf('isr.shrunk').some((e) => e.removed.includes(3)), 20_000, 'broker 3 fenced');
    const shrinks = sim.eventsOf('isr.shrunk').filter((e) => e.removed.includes(3));
    expect(shrinks).toHaveLength(6); // removed from every ISR at once
    expect(new Set(shrinks.map((e) => e.atMs)).size).toBe(1);
    const fencedAfter = shrinks[0]!.atMs - killedAt;
    expect(fencedAfter).toBeGreaterThan(9_000 - 2_000); // last heartbeat at most one interval before the kill
    expect(fencedAfter).toBeLessThanOrEqual(9_000);
    // The console's figures: FencedBrokerCount 1, every partition still led, all under-replicated.
    const health = await clusterHealth(sim);
    expect(health.fencedBrokers).toBe(1);
    expect(health.offlinePartitions).toBe(0);
    expect(health.underReplicatedPartitions).toBe(6);
    expect(health.underMinIsrPartitions).toBe(0);
    for (let p = 0; p < 6; p++) {
      const now = sim.partition('t', p);
      expect(now.isr).not.toContain(3);
      if (leadersBefore[p] !== 3) expect(now.leader).toBe(leadersBefore[p]);
      else expect(now.leader).not.toBe(3);
    }
  });

  it('scenario 5: ISR rejoin needs HW plus current epoch, not LEO', () => {
    // One batch per follower fetch, so the rejoining follower's LEO climbs one record at a time.
    const sim = new Simulation({ seed: 5, staticConfigs: { 'replica.fetch.max.bytes': '1' } });
    sim.createTopic('t', 1, 3, {}, [[2, 1, 3]]);
    sim.engine.stallFollower(3);
    for (const v of values(0, 99)) sim.produce('t', 0, [v], 1);
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    // A new leader epoch that starts at offset 100: move leadership 2 -> 1 -> 2.
    expect(sim.engine.electLeaders('preferred', [{ topic: 't', partition: 0 }])[0]!.errorCode).toBe('ELECTION_NOT_NEEDED');
    sim.engine.stopBroker(2);
    sim.waitFor(() => sim.engine.brokerState(2) === 'stopped', 30_000, 'broker 2 stopped');
    sim.engine.startBroker(2);
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    expect(sim.engine.electLeaders('preferred', [{ topic: 't', partition: 0 }])[0]!.errorCode).toBe('NONE');
    sim.waitFor(() => replica(sim, 2, 't').isLeader, 10_000, 'broker 2 leading');
    const leader = replica(sim, 2, 't');
    expect(leader.leaderEpochStartOffset).toBe(100);
    for (const v of values(100, 149)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    sim.engine.stallFollower(1);
    for (const v of values(150, 159)) sim.produce('t', 0, [v], 1);
    expect([leader.log.highWatermark, leader.log.logEndOffset]).toEqual([150, 160]);
    const epochBefore = sim.partition('t', 0);

    let leoAtExpand = -1;
    sim.engine.subscribe((e) => {
      if (e.type === 'isr.expanded' && e.added.includes(3)) leoAtExpand = leader.followerLogEndOffset(3);
    });
    sim.engine.stallFollower(3, false);
    sim.waitFor(() => leoAtExpand >= 0, 25_000, 'broker 3 rejoining');
    expect(leoAtExpand).toBeGreaterThanOrEqual(150);
    expect(leoAtExpand).toBeLessThan(160);
    const expands = sim.eventsOf('isr.expanded').filter((e) => e.added.includes(3));
    expect(expands).toHaveLength(1);
    const after = sim.partition('t', 0);
    expect(after.partitionEpoch).toBe(epochBefore.partitionEpoch + 1);
    expect(after.leaderEpoch).toBe(epochBefore.leaderEpoch);
  });
});
