/**
 * Scenarios 23 and 24 (docs/semantics.md#the-scenario-suite): the reassignment lifecycle (KIP-455) and the
 * replication throttle that `kafka-reassign-partitions.sh --throttle` sets (KIP-73).
 */
import { describe, expect, it } from 'vitest';
import { kafkaErrorOf } from '../../core/test-support/kafka-error.js';
import type { LogRecord } from '../../core/log/records.js';
import { recordText, Simulation } from '../simulation.js';
import { clusterHealth, errorCode, replica, values, waitForIsr } from './support.js';

type Sim = Simulation;

const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);

function topicConfigs(sim: Sim, topic: string): Record<string, string> {
  return { ...(sim.engine.metadata.topicsByName.get(topic)?.configs ?? {}) };
}

function brokerConfigs(sim: Sim, id: number): Record<string, string> {
  return { ...(sim.engine.metadata.brokerConfigs.get(String(id)) ?? {}) };
}

describe('partition reassignment', () => {
  it('scenario 23: reassignment lifecycle', async () => {
    await lifecycle();
    cancelMidway();
    cancelKeepsValidLeader();
    invalidTargets();
  });
});

/** Setup [1,2,3] leader 1, target [4,5,6]: start, completion, --verify, cancel with nothing running. */
async function lifecycle(): Promise<void> {
  const sim = new Simulation({ seed: 23, brokers: 6 });
  sim.createTopic('foo', 1, 3, {}, [[1, 2, 3]]);
  for (const v of values(0, 9)) expect(sim.produce('foo', 0, [v]).errorCode).toBe('NONE');
  const before = sim.partition('foo');
  expect(before.leader).toBe(1);
  expect((await clusterHealth(sim)).underReplicatedPartitions).toBe(0);

  // Immediately: target first, removing after it; no leader move, no epoch bump.
  const started = sim.engine.executeReassignment({ partitions: [{ topic: 'foo', partition: 0, replicas: [4, 5, 6] }] });
  expect(started).toEqual([{ topic: 'foo', partition: 0, errorCode: 'NONE' }]);
  let p = sim.partition('foo');
  expect(p.replicas).toEqual([4, 5, 6, 1, 2, 3]);
  expect(p.addingReplicas).toEqual([4, 5, 6]);
  expect(p.removingReplicas).toEqual([1, 2, 3]);
  expect(p.leader).toBe(1);
  expect(p.leaderEpoch).toBe(before.leaderEpoch);
  expect(sorted(p.isr)).toEqual([1, 2, 3]);
  // RF 6 counted naively would call this under-replicated; Kafka leaves the adding replicas out
  // (the console's UnderReplicatedPartitions, read from the product).
  expect((await clusterHealth(sim)).underReplicatedPartitions).toBe(0);
  expect(sim.engine.listReassignments()).toMatchObject([{ topic: 'foo', partition: 0, replicas: [4, 5, 6, 1, 2, 3], addingReplicas: [4, 5, 6], removingReplicas: [1, 2, 3] }]);
  expect(sim.engine.verifyReassignment([{ topic: 'foo', partition: 0, replicas: [4, 5, 6] }])[0]).toMatchObject({
    status: 'in-progress',
    message: 'Reassignment of partition foo-0 is still in progress.',
  });

  // After 4, 5 and 6 join the ISR the reassignment completes in the same partition change.
  sim.waitFor(() => sim.partition('foo').removingReplicas.length === 0, 30_000, 'the reassignment to complete');
  p = sim.partition('foo');
  expect(p.replicas).toEqual([4, 5, 6]);
  expect(sorted(p.isr)).toEqual([4, 5, 6]);
  expect(p.leader).toBe(4);
  expect(p.leaderEpoch).toBe(before.leaderEpoch + 1);
  expect(p.addingReplicas).toEqual([]);
  expect(p.removingReplicas).toEqual([]);
  expect(sim.engine.listReassignments()).toEqual([]);
  expect(sim.eventsOf('reassignment.changed').map((e) => e.status)).toEqual(['started', 'completed']);
  // 4, 5 and 6 joined one AlterPartition at a time; the last join completed the move.
  expect(sorted(sim.eventsOf('isr.expanded').flatMap((e) => e.added))).toEqual([4, 5, 6]);

  expect(sim.engine.verifyReassignment([{ topic: 'foo', partition: 0, replicas: [4, 5, 6] }])).toEqual([
    { topic: 'foo', partition: 0, status: 'completed', message: 'Reassignment of partition foo-0 is completed.', replicas: [4, 5, 6] },
  ]);
  expect(sim.engine.verifyReassignment([{ topic: 'foo', partition: 0, replicas: [1, 2, 3] }])[0]!.message).toBe(
    'There is no active reassignment of partition foo-0, but replica set is 4,5,6 rather than 1,2,3.',
  );

  // The data moved with it, and the removed brokers dropped their replicas.
  sim.advance(1_000);
  expect(sim.consumeAll('foo', 0).map(recordText)).toEqual(values(0, 9));
  expect(sim.produce('foo', 0, ['after']).errorCode).toBe('NONE');
  for (const id of [1, 2, 3]) expect(sim.internals.brokers.get(id)!.partitionFor('foo', 0)).toBeUndefined();

  // Nothing is running now: cancelling is refused per partition.
  expect(sim.engine.cancelReassignment([{ topic: 'foo', partition: 0 }])).toEqual([
    { topic: 'foo', partition: 0, errorCode: 'NO_REASSIGNMENT_IN_PROGRESS', message: 'No reassignment is in progress for foo-0.' },
  ]);
}

/** Variant: cancel midway gives back [1,2,3] and an ISR without 4, 5 and 6. */
function cancelMidway(): void {
  const sim = new Simulation({ seed: 231, brokers: 6 });
  sim.createTopic('foo', 1, 3, {}, [[1, 2, 3]]);
  for (const v of values(0, 4)) expect(sim.produce('foo', 0, [v]).errorCode).toBe('NONE');
  const epoch = sim.partition('foo').leaderEpoch;
  // Keep the move from finishing: 5 and 6 never fetch, 4 catches up and joins the ISR.
  sim.engine.stallFollower(5);
  sim.engine.stallFollower(6);
  sim.engine.executeReassignment({ partitions: [{ topic: 'foo', partition: 0, replicas: [4, 5, 6] }] });
  waitForIsr(sim, 'foo', 0, [1, 2, 3, 4], 10_000);
  // Replicas being added and not in the ISR do not hold back the HW (the ISR is {1,2,3,4}):
  // acks=all is answered as soon as the ISR has the record, not after replica.lag.time.max.ms.
  const sentAt = sim.now;
  expect(sim.produce('foo', 0, ['during']).errorCode).toBe('NONE');
  expect(sim.now - sentAt).toBeLessThan(1_000);
  expect(replica(sim, 1, 'foo').log.highWatermark).toBe(6);
  expect(sim.partition('foo').replicas).toEqual([4, 5, 6, 1, 2, 3]);

  const cancelled = sim.engine.cancelReassignment();
  expect(cancelled).toEqual([{ topic: 'foo', partition: 0, errorCode: 'NONE' }]);
  const p = sim.partition('foo');
  expect(p.replicas).toEqual([1, 2, 3]);
  expect(sorted(p.isr)).toEqual([1, 2, 3]);
  expect(p.addingReplicas).toEqual([]);
  expect(p.removingReplicas).toEqual([]);
  expect(p.leader).toBe(1);
  expect(p.leaderEpoch).toBe(epoch + 1); // dropping replicas fences them
  expect(sim.eventsOf('reassignment.changed').map((e) => e.status)).toEqual(['started', 'cancelled']);
  expect(sim.engine.listReassignments()).toEqual([]);
  expect(sim.engine.verifyReassignment([{ topic: 'foo', partition: 0, replicas: [4, 5, 6] }])[0]).toMatchObject({
    status: 'mismatch',
    message: 'There is no active reassignment of partition foo-0, but replica set is 1,2,3 rather than 4,5,6.',
  });
  sim.engine.stallFollower(5, false);
  sim.engine.stallFollower(6, false);
  sim.advance(1_000);
  for (const id of [4, 5, 6]) expect(sim.internals.brokers.get(id)!.partitionFor('foo', 0)).toBeUndefined();
  expect(sim.produce('foo', 0, ['after']).errorCode).toBe('NONE');
  expect(sim.consumeAll('foo', 0).map(recordText)).toEqual([...values(0, 4), 'during', 'after']);
  expect(sim.engine.cancelReassignment([{ topic: 'foo', partition: 0 }])[0]!.errorCode).toBe('NO_REASSIGNMENT_IN_PROGRESS');
  expect(sim.engine.cancelReassignment()).toEqual([]);
}

/** Variant: [3,1,2] → [4,5,6] lists the removing replicas in id order; cancel keeps leader 3. */
function cancelKeepsValidLeader(): void {
  const sim = new Simulation({ seed: 232, brokers: 6 });
  sim.createTopic('foo', 1, 3, {}, [[3, 1, 2]]);
  expect(sim.partition('foo').leader).toBe(3);
  for (const id of [4, 5, 6]) sim.engine.stallFollower(id);
  sim.engine.executeReassignment({ partitions: [{ topic: 'foo', partition: 0, replicas: [4, 5, 6] }] });
  expect(sim.partition('foo').replicas).toEqual([4, 5, 6, 1, 2, 3]);
  expect(sim.partition('foo').removingReplicas).toEqual([1, 2, 3]);
  sim.advance(2_000);
  expect(sim.engine.cancelReassignment([{ topic: 'foo', partition: 0 }])[0]!.errorCode).toBe('NONE');
  const p = sim.partition('foo');
  expect(p.replicas).toEqual([1, 2, 3]); // not [3,1,2]: the preferred leader is now 1
  expect(p.leader).toBe(3); // still valid, so kept
  expect(sorted(p.isr)).toEqual([1, 2, 3]);
}

/** Variants: an unknown broker and [4,4,5] are INVALID_REPLICA_ASSIGNMENT. */
function invalidTargets(): void {
  const sim = new Simulation({ seed: 233, brokers: 6 });
  sim.createTopic('foo', 2, 3, {}, [
    [1, 2, 3],
    [2, 3, 1],
  ]);
  const target = (replicas: number[], partition = 0) => ({ topic: 'foo', partition, replicas });

  // The tool refuses before it changes anything ...
  const unknown = kafkaErrorOf(() => sim.engine.executeReassignment({ partitions: [target([4, 5, 99])], throttleBytesPerSec: 1_048_576 }));
  expect([unknown.code, unknown.message]).toEqual(['INVALID_REPLICA_ASSIGNMENT', 'Unknown broker id 99']);
  const dup = kafkaErrorOf(() => sim.engine.executeReassignment({ partitions: [target([4, 4, 5])] }));
  expect([dup.code, dup.message]).toEqual(['INVALID_REPLICA_ASSIGNMENT', 'Partition replica lists may not contain duplicate entries: foo-0 contains multiple entries for 4']);
  expect(kafkaErrorOf(() => sim.engine.executeReassignment({ partitions: [] })).message).toBe('Partition reassignment list cannot be empty');
  expect(kafkaErrorOf(() => sim.engine.executeReassignment({ partitions: [target([])] })).message).toBe('Partition replica list cannot be empty');
  expect(kafkaErrorOf(() => sim.engine.executeReassignment({ partitions: [target([4, 5, 6]), target([5, 6, 4])] })).message).toBe(
    'Partition reassignment contains duplicate topic partitions: foo-0',
  );
  expect(errorCode(() => sim.engine.executeReassignment({ partitions: [target([4, 5, 6], 7)] }))).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  expect(errorCode(() => sim.engine.executeReassignment({ partitions: [{ topic: 'nope', partition: 0, replicas: [1] }] }))).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  expect(sim.engine.listReassignments()).toEqual([]);
  expect(topicConfigs(sim, 'foo')).toEqual({});
  expect(brokerConfigs(sim, 4)).toEqual({});

  // ... and the API itself answers INVALID_REPLICA_ASSIGNMENT (39) per partition.
  const api = sim.internals.controller.alterReassignments([
    { topic: 'foo', partition: 0, replicas: [4, 5, 99] },
    { topic: 'foo', partition: 1, replicas: [4, 4, 5] },
  ]);
  expect(api.map((r) => r.errorCode)).toEqual(['INVALID_REPLICA_ASSIGNMENT', 'INVALID_REPLICA_ASSIGNMENT']);
  expect(sim.partition('foo', 0).replicas).toEqual([1, 2, 3]);
  expect(sim.partition('foo', 1).replicas).toEqual([2, 3, 1]);
}

describe('replication throttle', () => {
  it('scenario 24: replication throttle affects only out-of-sync movers', () => {
    const MiB = 1_048_576;
    const THROTTLE = MiB;
    const sim = new Simulation({ seed: 24, brokers: 6, networkDelayMs: 1 });
    // One shared 100 KiB value for every record: the logs hold references, so memory stays small.
    const payload = new Uint8Array(100 * 1024);
    const batch = (n: number): LogRecord[] => Array.from({ length: n }, () => ({ key: null, value: payload, headers: [], timestamp: 0 }));

    sim.createTopic('moving', 1, 3, {}, [[1, 2, 3]]);
    // In-sync partitions on the same brokers: led by or followed from 1 and 4.
    sim.createTopic('busy', 3, 3, {}, [
      [1, 4, 2],
      [4, 1, 3],
      [2, 4, 1],
    ]);
    for (let i = 0; i < 30; i++) {
      expect(sim.await<{ errorCode: string }>((done) => sim.engine.produce({ topic: 'moving', partition: 0, acks: 'all', records: batch(10) }, done)).errorCode).toBe('NONE');
    }
    const movingLeo = replica(sim, 1, 'moving').log.logEndOffset;
    const movingBytes = replica(sim, 1, 'moving').log.sizeBytes();
    expect(movingBytes).toBeGreaterThan(29 * MiB);

    // 5 records of 100 KiB every 100 ms: ~5 MiB/s of acks=all writes to the busy partitions.
    const latencies: number[] = [];
    const failures: string[] = [];
    let producing = true;
    let n = 0;
    const tick = (): void => {
      if (!producing) return;
      const sentAt = sim.now;
      sim.engine.produce({ topic: 'busy', partition: n++ % 3, acks: 'all', records: batch(5) }, (r) => {
        latencies.push(sim.now - sentAt);
        if (r.errorCode !== 'NONE') failures.push(r.errorCode);
      });
      sim.scheduler.schedule(100, tick);
    };
    tick();
    sim.advance(3_000);
    const busyIsr = [0, 1, 2].map((p) => sorted(sim.partition('busy', p).isr));

    const target = [{ topic: 'moving', partition: 0, replicas: [1, 2, 4] }];
    expect(sim.engine.executeReassignment({ partitions: target, throttleBytesPerSec: THROTTLE })).toEqual([{ topic: 'moving', partition: 0, errorCode: 'NONE' }]);
    const startedAt = sim.now;
    // Leader throttle on every pre-move replica, follower throttle on the destination only.
    expect(topicConfigs(sim, 'moving')).toEqual({
      'leader.replication.throttled.replicas': '0:1,0:2,0:3',
      'follower.replication.throttled.replicas': '0:4',
    });
    for (const id of [1, 2, 3, 4]) {
      expect(brokerConfigs(sim, id)).toEqual({ 'leader.replication.throttled.rate': String(THROTTLE), 'follower.replication.throttled.rate': String(THROTTLE) });
    }
    for (const id of [5, 6]) expect(brokerConfigs(sim, id)).toEqual({});
    expect(topicConfigs(sim, 'busy')).toEqual({});

    // Sample the new replica's size every second until the move completes.
    const movedBytes = (): number => sim.internals.brokers.get(4)!.partitionFor('moving', 0)?.log.sizeBytes() ?? 0;
    const samples: { at: number; bytes: number }[] = [{ at: sim.now, bytes: movedBytes() }];
    let maxHwLag = 0;
    while (sim.engine.listReassignments().length > 0) {
      if (sim.now - startedAt > 120_000) throw new Error('the throttled move did not complete within 120 s');
      sim.advance(1_000);
      samples.push({ at: sim.now, bytes: movedBytes() });
      for (const p of [0, 1, 2]) {
        const leader = sim.partition('busy', p).leader;
        const log = replica(sim, leader, 'busy', p).log;
        maxHwLag = Math.max(maxHwLag, log.logEndOffset - log.highWatermark);
      }
      if (sim.engine.listReassignments().length > 0 && samples.length === 6) {
        expect(sim.engine.verifyReassignment(target)[0]!.status).toBe('in-progress');
        expect(brokerConfigs(sim, 4)['follower.replication.throttled.rate']).toBe(String(THROTTLE)); // still in force
      }
    }
    const tookMs = sim.now - startedAt;
    producing = false;
    sim.advance(1_000);

    // The mover's catch-up rate over every 11 s window: at most the throttle, plus one fetch
    // (replica.fetch.max.bytes = 1 MiB) of overshoot, because the quota is checked before a
    // read, as Kafka does. That allowance is the 10 % margin over 11 s.
    const rates: number[] = [];
    for (let i = 0; i + 11 < samples.length; i++) rates.push(((samples[i + 11]!.bytes - samples[i]!.bytes) * 1000) / (samples[i + 11]!.at - samples[i]!.at));
    expect(rates.length).toBeGreaterThan(0);
    expect(Math.max(...rates)).toBeLessThanOrEqual(THROTTLE * 1.1);
    // The whole move took about its size over the throttle (an unthrottled one is near-instant).
    expect(tookMs).toBeGreaterThan(((movingBytes - 11 * MiB) / THROTTLE) * 1000);
    expect(movedBytes()).toBe(movingBytes);
    expect(replica(sim, 4, 'moving').log.logEndOffset).toBe(movingLeo);

    // The in-sync partitions kept replicating at full speed all along.
    expect(failures).toEqual([]);
    expect(latencies.length).toBeGreaterThan(250);
    expect(Math.max(...latencies)).toBeLessThan(500);
    expect(maxHwLag).toBeLessThanOrEqual(5);
    expect(sim.eventsOf('isr.shrunk').filter((e) => e.topic === 'busy')).toEqual([]);
    for (const p of [0, 1, 2]) {
      const view = sim.partition('busy', p);
      expect(sorted(view.isr)).toEqual(busyIsr[p]);
      for (const rs of view.replicaStates) expect([rs.logEndOffset, rs.highWatermark]).toEqual([view.highWatermark, view.highWatermark]);
    }

    // The move finished; --verify says so and removes both rates and both lists.
    const p = sim.partition('moving');
    expect([p.replicas, sorted(p.isr), p.leader]).toEqual([[1, 2, 4], [1, 2, 4], 1]);
    expect(sim.engine.verifyReassignment(target)).toEqual([
      { topic: 'moving', partition: 0, status: 'completed', message: 'Reassignment of partition moving-0 is completed.', replicas: [1, 2, 4] },
    ]);
    expect(topicConfigs(sim, 'moving')).toEqual({});
    for (const id of [1, 2, 3, 4, 5, 6]) expect(brokerConfigs(sim, id)).toEqual({});
  });

  // Kafka throttles only replicas outside the ISR, on both sides: the leader never throttles a
  // fetch from an ISR member (ReplicaManager.shouldLeaderThrottle) and a follower at the leader's
  // HW fetches unthrottled (ReplicationQuotaManager, shouldFollowerThrottle). Here every replica is
  // on both throttled lists and the rates are far below the write rate.
  it('scenario 24: in-sync replicas on the throttled lists still replicate at full speed under load', () => {
    const KiB = 1024;
    const RATE = 100 * KiB;
    const sim = new Simulation({ seed: 241, brokers: 3, networkDelayMs: 1 });
    sim.createTopic('hot', 1, 3, { 'leader.replication.throttled.replicas': '*', 'follower.replication.throttled.replicas': '*' }, [[1, 2, 3]]);
    for (const id of [1, 2, 3]) sim.engine.alterConfigs('broker', String(id), { 'leader.replication.throttled.rate': String(RATE), 'follower.replication.throttled.rate': String(RATE) });
    const payload = new Uint8Array(100 * KiB);
    const latencies: number[] = [];
    const failures: string[] = [];
    let producing = true;
    // 5 records of 100 KiB every 100 ms: ~5 MiB/s of acks=all writes, 50 times the throttle.
    const tick = (): void => {
      if (!producing) return;
      const sentAt = sim.now;
      const records = Array.from({ length: 5 }, () => ({ key: null, value: payload, headers: [], timestamp: 0 }));
      sim.engine.produce({ topic: 'hot', partition: 0, acks: 'all', records }, (r) => {
        latencies.push(sim.now - sentAt);
        if (r.errorCode !== 'NONE') failures.push(r.errorCode);
      });
      sim.scheduler.schedule(100, tick);
    };
    tick();
    sim.advance(60_000);
    producing = false;
    sim.advance(1_000);
    expect(failures).toEqual([]);
    expect(latencies.length).toBeGreaterThan(590);
    expect(Math.max(...latencies)).toBeLessThan(100);
    expect(sim.eventsOf('isr.shrunk')).toEqual([]);
    const view = sim.partition('hot');
    expect(sorted(view.isr)).toEqual([1, 2, 3]);
    const written = latencies.length * 5;
    for (const rs of view.replicaStates) expect([rs.logEndOffset, rs.highWatermark]).toEqual([written, written]);
  });
});
