/**
 * Scenarios 16–18 (docs/semantics.md#the-scenario-suite): leader-epoch-based truncation (KIP-101/279).
 * Scenario 18's cache lookup table is also tested on the cache itself (app/core/log/epoch-cache.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Simulation } from '../simulation.js';
import { cleanUpStorages, replica, STORAGES, waitForIsr } from './support.js';

describe.each(STORAGES)('follower truncation and leader epochs, $name', ({ make }) => {
  afterEach(cleanUpStorages);
  it('scenario 16: no HW truncation on restart (KIP-101 case 1)', () => {
    const sim = new Simulation({ seed: 16, storage: make() });
    sim.createTopic('t', 1, 2, {}, [[1, 2]]); // A = 1 (leader), B = 2
    expect(sim.produce('t', 0, ['m0']).errorCode).toBe('NONE');
    expect(sim.produce('t', 0, ['m1']).errorCode).toBe('NONE');
    const a = replica(sim, 1, 't');
    const b = replica(sim, 2, 't');
    expect(a.log.highWatermark).toBe(2);
    expect([b.log.logEndOffset, b.log.highWatermark]).toEqual([2, 1]); // B's HW lags one round trip
    b.log.saveCheckpoint(); // B's checkpointed HW = 1
    const killedAt = sim.now;
    sim.engine.killBroker(2);
    sim.engine.startBroker(2); // a fast restart: refused as a duplicate until the old session expires
    sim.advance(10);
    // Still registering (no metadata yet): its log, read from disk, is not truncated to its HW of 1.
    expect(sim.partition('t', 0).replicaStates.find((r) => r.brokerId === 2)!.logEndOffset).toBe(2);
    waitForIsr(sim, 't', 0, [1], 20_000);
    const fencedAt = sim.eventsOf('isr.shrunk').find((e) => e.removed.includes(2))!.atMs;
    expect(fencedAt - killedAt).toBeGreaterThan(7_000);
    waitForIsr(sim, 't', 0, [1, 2], 30_000);
    // Registered again (retrying with Kafka's backoff meanwhile) only after the old session ended.
    const registrations = sim.internals.controller.records().filter((r) => r.record.type === 'RegisterBroker' && r.record.brokerId === 2);
    expect(registrations).toHaveLength(2);
    expect(registrations[1]!.timestampMs).toBeGreaterThanOrEqual(fencedAt);
    expect(replica(sim, 2, 't').log.logEndOffset).toBe(2);
    sim.advance(1_000);
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 20_000, 'B leading');
    expect(sim.replicaLog(2, 't').map((r) => r.value)).toEqual(['m0', 'm1']);
    expect(sim.consumeAll('t', 0).map((r) => r.offset)).toEqual([0, 1]);
  });

  it('scenario 17: divergent logs are reconciled (KIP-101 case 2)', () => {
    const sim = new Simulation({ seed: 17, storage: make() });
    sim.createTopic('t', 1, 2, {}, [[1, 2]]); // A = 1 (leader, epoch 0), B = 2
    expect(sim.produce('t', 0, ['m0']).errorCode).toBe('NONE');
    sim.advance(1_000);
    sim.engine.stallFollower(2);
    expect(sim.produce('t', 0, ['m1'], 1).errorCode).toBe('NONE');
    expect(sim.replicaLog(1, 't').map((r) => r.value)).toEqual(['m0', 'm1']);
    expect(sim.replicaLog(2, 't').map((r) => r.value)).toEqual(['m0']);
    expect(replica(sim, 1, 't').log.highWatermark).toBe(1);
    sim.engine.killBroker(1);
    sim.engine.stallFollower(2, false);
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 20_000, 'B elected');
    expect(sim.partition('t', 0).leaderEpoch).toBe(1);
    const m2 = sim.produce('t', 0, ['m2']); // ISR {B}, min ISR 1
    expect(m2).toMatchObject({ errorCode: 'NONE', baseOffset: 1 });
    sim.engine.startBroker(1);
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    const truncated = sim.eventsOf('replica.truncated').find((e) => e.brokerId === 1)!;
    expect(truncated).toMatchObject({ fromOffset: 2, toOffset: 1, reason: 'diverging-epoch' });
    sim.advance(1_000);
    const logA = sim.replicaLog(1, 't');
    const logB = sim.replicaLog(2, 't');
    expect(logA.map((r) => r.value)).toEqual(['m0', 'm2']);
    expect(logA).toEqual(logB); // identical offsets, values and epochs
    expect(replica(sim, 1, 't').log.epochCache.entries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 1 },
    ]);
    expect(replica(sim, 2, 't').log.epochCache.entries()).toEqual(replica(sim, 1, 't').log.epochCache.entries());
  });

  it('scenario 18: a new leader caches its epoch at its LEO before any write', () => {
    const sim = new Simulation({ seed: 18, storage: make() });
    sim.createTopic('t', 1, 2, {}, [[1, 2]]);
    for (let i = 0; i < 5; i++) sim.produce('t', 0, [`v${i}`]);
    sim.advance(1_000);
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 20_000, 'new leader');
    sim.advance(10);
    const epoch = sim.partition('t', 0).leaderEpoch;
    expect(replica(sim, 2, 't').log.epochCache.latest()).toEqual({ epoch, startOffset: 5 });
  });
});
