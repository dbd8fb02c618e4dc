/**
 * Throughput figures (`metrics.sampled`, `metrics.get`) and disk use (`logBytes`) through the
 * service, on the manual clock. Sizes are those of the batches as Kafka encodes them: records from
 * the service go the way a client's batch does (magic 2, one timestamp per request), so a batch
 * of n records with no key or headers and a value of b bytes is its encoded length.
 */
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineEvent, MetricsView, Result } from '../../api/contract.js';
import { MemoryStorage } from '../../core/log/memory-log-store.js';
import { createClusterService } from './cluster-service.js';
import { createVirtualClusterService, type VirtualClusterService } from '../../sim/virtual-service.js';
import { Simulation, } from '../../sim/simulation.js';
import { SqliteStorage } from '../../storage/sqlite-storage.js';
import { encodeRecordBatch } from '../../protocol/records/record-batch.js';
import { closeDataDirs, closeKeeping, dataDirService } from '../../sim/test-support/data-dir.js';

afterEach(closeDataDirs);

function ok<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

type MetricsEvent = Extract<EngineEvent, { type: 'metrics.sampled' }>;

function samples(svc: VirtualClusterService): MetricsEvent[] {
  return svc.sim.eventsOf('metrics.sampled');
}

/** Run the clock to the next sample (a task at that instant), and return it. */
function nextSample(svc: VirtualClusterService): MetricsEvent {
  const last = samples(svc).at(-1);
  if (!last) throw new Error('no sample yet');
  svc.scheduler.advanceTo(last.atMs + 1_000);
  const next = samples(svc).at(-1)!;
  expect(next.atMs).toBe(last.atMs + 1_000);
  return next;
}

/** The sample as `metrics.get` shows it (the event without its type). */
function asView(e: MetricsEvent): MetricsView {
  const { type: _type, ...view } = e;
  return view;
}

/** A batch of `n` records of `b`-byte values without key or headers, as the in-memory log stores it. */
const batchBytes = (n: number, b: number): number =>
  encodeRecordBatch({
    baseOffset: 0,
    lastOffset: n - 1,
    leaderEpoch: 0,
    appendTimeMs: 0,
    records: Array.from({ length: n }, () => ({ key: null, value: new Uint8Array(b), headers: [], timestamp: 1 })),
    sizeBytes: 0,
  }).length;

async function clusterWithTopic(configs: Record<string, string> = {}, seed = 5): Promise<VirtualClusterService> {
  const svc = createVirtualClusterService({ seed });
  ok(await svc.call('topics.create', { name: 'm', assignments: [[1, 2, 3]], configs }));
  svc.sim.advance(2_000);
  return svc;
}

describe('throughput metrics', () => {
  it('a second of produce shows as produce records/s and bytes/s on the leader, and as replication bytes on leader and followers', async () => {
    const svc = await clusterWithTopic();
    const before = nextSample(svc);
    expect(before).toMatchObject({ intervalMs: 1_000, produceRecordsPerSec: 0, produceBytesPerSec: 0, consumeRecordsPerSec: 0, replicationBytesPerSec: 0 });
    const start = before.atMs;

    // 4 produce requests of 25 records of 100 bytes, right after the sample at `start`.
    const value = 'x'.repeat(100);
    for (let i = 0; i < 4; i++) {
      const r = ok(await svc.call('records.produce', { topic: 'm', partition: 0, acks: 'all', records: Array.from({ length: 25 }, () => ({ value })) }));
      expect(r.errorCode).toBe('NONE');
    }
    const consumed = ok(await svc.call('records.consume', { topic: 'm', partition: 0, offset: 0, maxRecords: 1_000 }));
    expect(consumed.records).toHaveLength(100);
    expect(svc.scheduler.now()).toBeLessThan(start + 1_000);

    const produced = 4 * batchBytes(25, 100);
    const during = nextSample(svc);
    expect(asView(during)).toEqual({
      atMs: start + 1_000,
      intervalMs: 1_000,
      produceRecordsPerSec: 100,
      produceBytesPerSec: produced,
      consumeRecordsPerSec: 100,
      // Both followers fetched every batch from the leader.
      replicationBytesPerSec: 2 * produced,
      brokers: [
        { brokerId: 1, produceBytesPerSec: produced, replicationBytesInPerSec: 0, replicationBytesOutPerSec: 2 * produced, logBytes: produced },
        { brokerId: 2, produceBytesPerSec: 0, replicationBytesInPerSec: produced, replicationBytesOutPerSec: 0, logBytes: produced },
        { brokerId: 3, produceBytesPerSec: 0, replicationBytesInPerSec: produced, replicationBytesOutPerSec: 0, logBytes: produced },
      ],
    });
    expect(ok(await svc.call('metrics.get', {}))).toEqual(asView(during));

    // The next second had no traffic: every rate is back to 0, the disk use stays.
    const after = nextSample(svc);
    expect(after).toMatchObject({ produceRecordsPerSec: 0, produceBytesPerSec: 0, consumeRecordsPerSec: 0, replicationBytesPerSec: 0 });
    expect(after.brokers.map((b) => [b.produceBytesPerSec, b.replicationBytesInPerSec, b.replicationBytesOutPerSec, b.logBytes])).toEqual([
      [0, 0, 0, produced],
      [0, 0, 0, produced],
      [0, 0, 0, produced],
    ]);
  });

  it('counts what the leader appended whether or not it was acknowledged, and not what it refused', async () => {
    const svc = await clusterWithTopic({ 'min.insync.replicas': '3' });
    const start = nextSample(svc).atMs;
    ok(await svc.call('brokers.stallFollower', { brokerId: 3, stalled: true }));
    // Appended by the leader, then unacknowledged: the stalled follower never catches up in 500 ms.
    const timedOut = ok(await svc.call('records.produce', { topic: 'm', partition: 0, acks: 'all', timeoutMs: 500, records: [{ value: 'late' }] }));
    expect(timedOut.errorCode).toBe('REQUEST_TIMED_OUT');
    expect(svc.scheduler.now()).toBeLessThan(start + 1_000);
    const sample = nextSample(svc);
    expect(sample).toMatchObject({ produceRecordsPerSec: 1, produceBytesPerSec: batchBytes(1, 4) });

    // Once the ISR has shrunk below min.insync.replicas the leader refuses acks=all writes: nothing counts.
    svc.sim.waitFor(() => svc.sim.partition('m').isr.length === 2, 60_000, 'the stalled follower to leave the ISR');
    nextSample(svc);
    const refused = ok(await svc.call('records.produce', { topic: 'm', partition: 0, acks: 'all', records: [{ value: 'no' }] }));
    expect(refused.errorCode).toBe('NOT_ENOUGH_REPLICAS');
    expect(nextSample(svc)).toMatchObject({ produceRecordsPerSec: 0, produceBytesPerSec: 0 });
  });

  it('metrics.get is all zeros before the first sample, then the latest sample once a second', async () => {
    const sim = new Simulation({ seed: 3, start: false });
    const svc = createClusterService({ engine: sim.engine, scheduler: sim.scheduler, fastForwardMs: 60_000 });
    expect(ok(await svc.call('metrics.get', {}))).toEqual({
      atMs: 0,
      intervalMs: 0,
      produceRecordsPerSec: 0,
      produceBytesPerSec: 0,
      consumeRecordsPerSec: 0,
      replicationBytesPerSec: 0,
      brokers: [1, 2, 3].map((brokerId) => ({ brokerId, produceBytesPerSec: 0, replicationBytesInPerSec: 0, replicationBytesOutPerSec: 0, logBytes: 0 })),
    });
    sim.engine.start();
    sim.advance(999);
    expect(sim.eventsOf('metrics.sampled')).toEqual([]);
    sim.advance(1);
    sim.advance(2_000);
    // One sample per second of engine time, whether or not anything moved.
    expect(sim.eventsOf('metrics.sampled').map((e) => e.atMs)).toEqual([1_000, 2_000, 3_000]);
    expect(ok(await svc.call('metrics.get', {}))).toMatchObject({ atMs: 3_000, intervalMs: 1_000 });
  });

  it('metrics.get with historyMs returns the samples of that window, oldest first, so a reloaded console draws its chart at once', async () => {
    const svc = await clusterWithTopic();
    for (let i = 0; i < 3; i++) {
      ok(await svc.call('records.produce', { topic: 'm', partition: 0, acks: 'all', records: [{ value: `v${i}` }] }));
      nextSample(svc);
    }
    const seen = samples(svc).map(asView);
    const got = ok(await svc.call('metrics.get', { historyMs: 3_000 }));
    expect(got.history).toEqual(seen.slice(-3));
    expect(got.history!.reduce((n, x) => n + x.produceRecordsPerSec, 0)).toBe(3);
    expect(ok(await svc.call('metrics.get', {})).history).toBeUndefined();
  });

  it('topics.stats names each topic’s records, size and committed rate over the last minute, for the names asked', async () => {
    const svc = await clusterWithTopic();
    ok(await svc.call('topics.create', { name: 'quiet', partitions: 2, replicationFactor: 1 }));
    svc.sim.advance(1_000);
    nextSample(svc);
    for (let i = 0; i < 6; i++) {
      ok(await svc.call('records.produce', { topic: 'm', partition: 0, acks: 'all', records: Array.from({ length: 5 }, () => ({ value: 'x'.repeat(100) })) }));
      nextSample(svc);
    }
    const stats = ok(await svc.call('topics.stats', { names: ['m', 'quiet', 'no-such-topic'] }));
    expect(stats.map((t) => t.name)).toEqual(['m', 'quiet']);
    const m = stats[0]!;
    expect(m.records).toBe(30);
    expect(m.sizeBytes).toBe(6 * batchBytes(5, 100));
    // 30 records committed over the samples kept (a minute at most; here the 7 s since the topic was created and more).
    expect(m.recordsPerSec).toBeGreaterThan(0);
    expect(m.recordsPerSec).toBeLessThanOrEqual(30 / 6 + 1e-9);
    expect(stats[1]).toEqual({ name: 'quiet', records: 0, sizeBytes: 0, recordsPerSec: 0 });
  });

  it('the same seed and load give the same samples', () => {
    const run = (): MetricsEvent[] => {
      const sim = new Simulation({ seed: 11 });
      sim.createTopic('d', 2, 3);
      for (let i = 0; i < 30; i++) {
        sim.produce('d', i % 2, [`v${i}`, `w${i}`]);
        sim.advance(173);
      }
      return sim.eventsOf('metrics.sampled');
    };
    const a = run();
    expect(a.length).toBeGreaterThan(3);
    expect(a.some((e) => e.produceRecordsPerSec > 0)).toBe(true);
    expect(run()).toEqual(a);
  });
});

describe('disk use (logBytes)', () => {
  /** 100 KiB per record: a batch of one is 102469 bytes, so ten fill a 1 MiB segment. */
  const PAYLOAD = 'x'.repeat(100 * 1024);
  const ONE = batchBytes(1, 100 * 1024);

  it('grows with every record produced and drops when retention deletes segments, on brokers.list, cluster.describe and the samples', async () => {
    const svc = await clusterWithTopic({ 'segment.bytes': '1048576', 'retention.bytes': '1048576' });
    const logBytes = async (): Promise<number[]> => ok(await svc.call('brokers.list', {})).map((b) => b.logBytes);
    expect(await logBytes()).toEqual([0, 0, 0]);
    for (let i = 0; i < 32; i++) {
      expect(ok(await svc.call('records.produce', { topic: 'm', partition: 0, acks: 'all', records: [{ value: PAYLOAD }] })).errorCode).toBe('NONE');
      if (i === 9) expect(await logBytes()).toEqual([10 * ONE, 10 * ONE, 10 * ONE]);
    }
    expect(await logBytes()).toEqual([32 * ONE, 32 * ONE, 32 * ONE]);
    expect(ok(await svc.call('cluster.describe', {})).brokers.map((b) => b.logBytes)).toEqual([32 * ONE, 32 * ONE, 32 * ONE]);

    // The first retention check runs 30 s after the brokers start: 3.1 MiB over a 1 MiB limit,
    // so segments [0,10) and [10,20) go on every replica.
    svc.sim.advance(35_000);
    expect(await logBytes()).toEqual([12 * ONE, 12 * ONE, 12 * ONE]);
    expect(samples(svc).at(-1)!.brokers.map((b) => b.logBytes)).toEqual([12 * ONE, 12 * ONE, 12 * ONE]);
  });

  it('always equals what the disks hold: through truncation, power loss, reassignment and topic deletion', () => {
    const storage = new MemoryStorage();
    const sim = new Simulation({ seed: 21, storage });
    const check = (when: string): void => {
      for (const b of sim.engine.listBrokers()) expect(b.logBytes, `broker ${b.id} ${when}`).toBe(storage.broker(b.id).totalBytes());
    };
    sim.createTopic('a', 2, 3, { 'flush.messages': '1000000', 'flush.ms': '100000000' });
    sim.createTopic('b', 1, 3);
    for (let i = 0; i < 30; i++) sim.produce('a', i % 2, [`a-${i}`, `more-${i}`]);
    sim.produce('b', 0, ['b']);
    check('after produce');
    expect(sim.engine.listBrokers().every((b) => b.logBytes > 0)).toBe(true);

    // A power loss keeps the tail on disk until recovery truncates it: down, the broker reports the disk.
    sim.engine.powerLossBroker(3);
    check('while powered off');
    sim.engine.startBroker(3);
    sim.waitFor(() => sim.engine.brokerState(3) === 'running', 60_000, 'broker 3 back');
    check('after recovery truncated the unflushed tail');

    // The leader appends a record its stalled followers never fetch, dies, and truncates it on return.
    const leader = sim.partition('a', 0).leader;
    const followers = sim.partition('a', 0).replicas.filter((id) => id !== leader);
    for (const id of followers) sim.engine.stallFollower(id);
    expect(sim.produce('a', 0, ['diverging'], 1).errorCode).toBe('NONE');
    sim.engine.killBroker(leader);
    for (const id of followers) sim.engine.stallFollower(id, false);
    sim.waitFor(() => sim.partition('a', 0).leader >= 0 && sim.partition('a', 0).leader !== leader, 60_000, 'a new leader');
    expect(sim.produce('a', 0, ['after']).errorCode).toBe('NONE');
    check('with the old leader down');
    sim.engine.startBroker(leader);
    sim.waitFor(() => sim.partition('a', 0).isr.length === 3, 120_000, 'the old leader back in the ISR');
    check('after the old leader truncated and caught up');
    expect(new Set(sim.eventsOf('replica.truncated').map((e) => e.reason))).toEqual(new Set(['power-loss', 'diverging-epoch']));

    // Move a's partitions onto a new broker 4 and drop topic b.
    sim.engine.addBroker({ id: 4 });
    sim.waitFor(() => sim.engine.brokerState(4) === 'running', 60_000, 'broker 4 running');
    sim.engine.executeReassignment({ partitions: [0, 1].map((partition) => ({ topic: 'a', partition, replicas: [4, 2, 3] })) });
    sim.waitFor(() => sim.engine.listReassignments().length === 0, 120_000, 'the reassignment to finish');
    sim.engine.deleteTopic('b');
    sim.advance(5_000);
    check('after the reassignment and the topic deletion');
    expect(sim.engine.listBrokers().find((b) => b.id === 1)!.logBytes).toBe(0);
  });

  it('a broker that stays down on a reopened data directory reports what its disk holds', async () => {
    const first = dataDirService({ seed: 4 });
    ok(await first.s.call('topics.create', { name: 'kept', assignments: [[1, 2, 3]] }));
    first.s.sim.advance(2_000);
    for (let i = 0; i < 5; i++) ok(await first.s.call('records.produce', { topic: 'kept', partition: 0, acks: 'all', records: [{ value: `v${i}` }] }));
    ok(await first.s.call('brokers.stop', { brokerId: 3 }));
    first.s.sim.waitFor(() => first.s.engine.brokerState(3) === 'stopped', 60_000, 'broker 3 stopped');
    const stopped = ok(await first.s.call('brokers.list', {})).find((b) => b.id === 3)!;
    // SQLite stores real Kafka v2 batches: 5 batches of one record.
    expect(stopped.logBytes).toBe(first.storage.brokerStore(3).totalBytes());
    expect(stopped.logBytes).toBeGreaterThan(5 * 61);
    closeKeeping(first);

    // Reopened without waiting for every broker (3 stays stopped, as it was left).
    const storage = SqliteStorage.open(first.dir);
    try {
      const again = createVirtualClusterService({ seed: 4, storage, start: false });
      again.engine.start();
      again.sim.waitFor(() => again.engine.brokerState(1) === 'running' && again.engine.brokerState(2) === 'running', 60_000, 'brokers 1 and 2 running');
      const brokers = ok(await again.call('brokers.list', {}));
      expect(brokers.find((b) => b.id === 3)).toMatchObject({ state: 'stopped', logBytes: stopped.logBytes });
      expect(brokers.find((b) => b.id === 1)!.logBytes).toBe(stopped.logBytes);
    } finally {
      storage.close();
      rmSync(first.dir, { recursive: true, force: true });
    }
  });
});
