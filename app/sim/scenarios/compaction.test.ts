/**
 * Log compaction in a running cluster (Kafka's LogCleaner, KIP-58, KIP-354, KIP-534): every
 * replica's broker compacts its own log, a consumer reading from the start gets each key's
 * latest value at its original offset, the log end never moves, followers and new replicas
 * copy a compacted leader's log across its gaps, and the cleaner's choices (dirty ratio,
 * compaction lags, active segment, high watermark) show in `describeCompaction`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogRecord } from '../../core/log/records.js';
import type { CleanedBatchWriter } from '../../core/log/cleaner/cleaned-batch.js';
import { createCleanedBatchWriter } from '../../protocol/records/cleaned-batch-writer.js';
import { recordText, Simulation } from '../simulation.js';
import { cleanUpStorages, replica, STORAGES, waitForIsr } from './support.js';

const encoder = new TextEncoder();
const CLEANER = { 'log.cleaner.backoff.ms': '1000' };
/** Segments roll every 10 s of broker time; the cleaner takes a log at 1% dirty. */
const COMPACTED = { 'cleanup.policy': 'compact', 'segment.ms': '10000', 'min.cleanable.dirty.ratio': '0.01' };

const kv = (k: string, v: string | null): LogRecord => ({ key: encoder.encode(k), value: v === null ? null : encoder.encode(v), headers: [], timestamp: 0 });

/** Produce keyed records (acks=all); returns the offset of each. */
function put(sim: Simulation, topic: string, entries: [string, string | null][], partition = 0): number[] {
  const r = sim.await<{ errorCode: string; baseOffset: number }>((done) => sim.engine.produce({ topic, partition, acks: 'all', timeoutMs: 30_000, records: entries.map(([k, v]) => kv(k, v)) }, done));
  expect(r.errorCode).toBe('NONE');
  return entries.map((_, i) => r.baseOffset + i);
}

/** Each key's last write, as a table reader that started at offset 0 must end up with. */
class Expected {
  readonly last = new Map<string, { offset: number; value: string | null }>();
  write(sim: Simulation, topic: string, entries: [string, string | null][]): void {
    put(sim, topic, entries).forEach((offset, i) => this.last.set(entries[i]![0], { offset, value: entries[i]![1] }));
  }
}

/** Read from offset 0 into a latest-value map, checking offsets only grow; [offset, key, value] of every record. */
function readAll(sim: Simulation, topic: string): [number, string, string | null][] {
  return sim.consumeAll(topic, 0, 0).map((r) => [r.offset, new TextDecoder().decode(r.key!), recordText(r)]);
}

function cleanedOn(sim: Simulation, topic: string): Set<number> {
  return new Set(sim.eventsOf('log.cleaned').filter((e) => e.topic === topic).map((e) => e.brokerId));
}

/** Writes `rounds` updates of keys k0..k{keys-1}, 11 s apart so each round rolls a segment. */
function churn(sim: Simulation, topic: string, expected: Expected, keys: number, rounds: number, from = 0): void {
  for (let round = from; round < from + rounds; round++) {
    expected.write(sim, topic, Array.from({ length: keys }, (_, k) => [`k${k}`, `v${round}`] as [string, string]));
    sim.advance(11_000);
  }
}

describe('log compaction in a cluster', () => {
  afterEach(cleanUpStorages);

  it.each(STORAGES)('every replica compacts its own log ($name): a reader from offset 0 gets each key once, its latest value at its original offset, and the log end does not move', ({ make }) => {
    const sim = new Simulation({ seed: 301, staticConfigs: CLEANER, storage: make() });
    sim.createTopic('table', 1, 3, COMPACTED, [[1, 2, 3]]);
    const expected = new Expected();
    churn(sim, 'table', expected, 5, 6);
    const leoBefore = sim.partition('table').replicaStates.map((r) => r.logEndOffset);
    sim.waitFor(() => cleanedOn(sim, 'table').size === 3, 120_000, 'every replica cleaned');
    expect(sim.partition('table').replicaStates.map((r) => r.logEndOffset)).toEqual(leoBefore);
    const records = readAll(sim, 'table');
    // Below the active segment each key appears once: at its latest offset there.
    const activeBase = replica(sim, 1, 'table').log.segments().at(-1)!.baseOffset;
    const cleaned = records.filter(([o]) => o < activeBase);
    expect(new Set(cleaned.map(([, k]) => k)).size).toBe(cleaned.length);
    const latest = new Map<string, [number, string | null]>();
    for (const [o, k, v] of records) latest.set(k, [o, v]);
    for (const [k, { offset, value }] of expected.last) expect(latest.get(k)).toEqual([offset, value]);
    for (let i = 1; i < records.length; i++) expect(records[i]![0]).toBeGreaterThan(records[i - 1]![0]);
    for (const id of [1, 2, 3]) {
      const status = sim.engine.describeCompaction('table', 0)!.find((s) => s.brokerId === id)!;
      expect(status.cleanerCheckpoint).toBeGreaterThan(0);
      expect(status.lastClean?.stats.recordsRead).toBeGreaterThan(status.lastClean?.stats.recordsWritten ?? 0);
    }
  });

  it('a follower that was down copies its leader across the gaps, then compacts its own log; a new replica copies the compacted log', () => {
    const sim = new Simulation({ seed: 302, brokers: 4, staticConfigs: CLEANER });
    sim.createTopic('table', 1, 3, COMPACTED, [[1, 2, 3]]);
    const expected = new Expected();
    churn(sim, 'table', expected, 4, 3);
    sim.engine.stopBroker(3);
    sim.waitFor(() => sim.engine.listBrokers().find((b) => b.id === 3)!.state === 'stopped', 60_000, 'broker 3 stopped');
    churn(sim, 'table', expected, 4, 4, 3);
    const stoppedAt = sim.partition('table').replicaStates.find((r) => r.brokerId === 3)!.logEndOffset;
    const leader = replica(sim, 1, 'table');
    sim.waitFor(() => (leader.log.cleanerCheckpoint() ?? 0) > stoppedAt + 4, 60_000, 'the leader to clean past what broker 3 has');
    const cleanedAt = sim.events.length;
    sim.engine.startBroker(3);
    waitForIsr(sim, 'table', 0, [1, 2, 3]);
    const follower = replica(sim, 3, 'table');
    expect(follower.log.logEndOffset).toBe(leader.log.logEndOffset);
    // What it fetched skips the offsets the leader's cleaner removed, exactly as the leader's log does.
    const fetched = sim.replicaLog(3, 'table').filter((r) => r.offset >= stoppedAt && r.offset < leader.log.cleanerCheckpoint()!);
    expect(fetched.length).toBeLessThan(leader.log.cleanerCheckpoint()! - stoppedAt);
    expect(fetched).toEqual(sim.replicaLog(1, 'table').filter((r) => r.offset >= stoppedAt && r.offset < leader.log.cleanerCheckpoint()!));
    // Then its own cleaner compacts what it had before it stopped.
    sim.waitFor(() => sim.events.slice(cleanedAt).some((e) => e.type === 'log.cleaned' && e.brokerId === 3 && e.topic === 'table'), 60_000, 'broker 3 to clean its own log');
    expect(new Set(sim.replicaLog(3, 'table').filter((r) => r.offset < stoppedAt).map((r) => r.offset)).size).toBeLessThan(stoppedAt);
    // The reassignment's new replica fetches the compacted log from offset 0.
    sim.engine.alterPartitionReassignments([{ topic: 'table', partition: 0, replicas: [1, 2, 4] }]);
    sim.waitFor(() => sim.partition('table').replicas.join() === '1,2,4', 120_000, 'the reassignment to complete');
    const fresh = replica(sim, 4, 'table');
    expect(fresh.log.logEndOffset).toBe(leader.log.logEndOffset);
    const checkpoint = leader.log.cleanerCheckpoint()!;
    const below = (id: number) => sim.replicaLog(id, 'table').filter((r) => r.offset < checkpoint);
    expect(below(4)).toEqual(below(1));
    expect(readAll(sim, 'table').filter(([o, k]) => expected.last.get(k)?.offset === o)).toHaveLength(expected.last.size);
  });

  it('keeps tombstones for delete.retention.ms after the cleaning that reached them, then removes them and the key is gone', () => {
    const sim = new Simulation({ seed: 303, staticConfigs: CLEANER });
    sim.createTopic('table', 1, 3, { ...COMPACTED, 'delete.retention.ms': '60000' }, [[1, 2, 3]]);
    const expected = new Expected();
    churn(sim, 'table', expected, 3, 2);
    expected.write(sim, 'table', [['k1', null]]);
    sim.advance(11_000);
    churn(sim, 'table', expected, 1, 2, 10); // k0 only: rolls segments past the tombstone
    sim.waitFor(() => sim.engine.describeCompaction('table', 0)!.every((r) => (r.cleanerCheckpoint ?? 0) > expected.last.get('k1')!.offset), 60_000, 'the tombstone to be cleaned over');
    const tombstone = (): [number, string, string | null] | undefined => readAll(sim, 'table').find(([, k]) => k === 'k1');
    // The values it deletes are gone; the tombstone itself stays for a reader that has not seen it.
    expect(tombstone()).toEqual([expected.last.get('k1')!.offset, 'k1', null]);
    const leader = sim.engine.describeCompaction('table', 0)!.find((r) => r.leader)!;
    expect(leader.lastClean!.stats.tombstonesKept).toBe(1);
    // The horizon is the time of the leader's first cleaning that kept the tombstone, plus delete.retention.ms.
    const reaching = sim.eventsOf('log.cleaned').find((e) => e.brokerId === leader.brokerId && e.tombstonesKept > 0)!;
    expect(leader.lastClean!.stats.earliestDeleteHorizonMs - 60_000).toBeLessThanOrEqual(reaching.atMs);
    expect(leader.lastClean!.stats.earliestDeleteHorizonMs - 60_000).toBeGreaterThan(reaching.atMs - 1_000);
    // More writes keep the log dirty; cleanings before the horizon keep the tombstone.
    churn(sim, 'table', expected, 1, 2, 20);
    expect(sim.now).toBeLessThan(leader.lastClean!.stats.earliestDeleteHorizonMs);
    expect(tombstone()).toBeDefined();
    churn(sim, 'table', expected, 1, 8, 30);
    sim.waitFor(() => tombstone() === undefined, 120_000, 'the tombstone to go');
    expect(sim.now).toBeGreaterThanOrEqual(leader.lastClean!.stats.earliestDeleteHorizonMs);
    expect(readAll(sim, 'table').map(([, k]) => k)).not.toContain('k1');
  });

  it('takes a log only above min.cleanable.dirty.ratio, or once dirty for max.compaction.lag.ms (KIP-354), and says why it waits', () => {
    const sim = new Simulation({ seed: 304, staticConfigs: CLEANER });
    sim.createTopic('lazy', 1, 1, COMPACTED, [[1]]);
    const expected = new Expected();
    churn(sim, 'lazy', expected, 3, 3);
    // A log never cleaned is 100% dirty: the first cleaning comes whatever the ratio.
    sim.waitFor(() => cleanedOn(sim, 'lazy').size === 1, 60_000, 'a first cleaning');
    sim.engine.alterConfigs('topic', 'lazy', { 'min.cleanable.dirty.ratio': '0.99' });
    const cleanings = sim.eventsOf('log.cleaned').length;
    churn(sim, 'lazy', expected, 3, 3, 3);
    sim.advance(30_000);
    const status = sim.engine.describeCompaction('lazy', 0)![0]!;
    expect(sim.eventsOf('log.cleaned')).toHaveLength(cleanings);
    expect(status.state).toBe('ratio-below-threshold');
    expect(status.dirtyRatio).toBeGreaterThan(0.3);
    expect(status.dirtyRatio).toBeLessThanOrEqual(0.99);
    expect(status.reason).toMatch(/not above min\.cleanable\.dirty\.ratio 99%/);
    sim.engine.alterConfigs('topic', 'lazy', { 'max.compaction.lag.ms': '20000' });
    sim.waitFor(() => sim.eventsOf('log.cleaned').length > cleanings, 60_000, 'a cleaning past max.compaction.lag.ms');
  });

  it('never cleans the active segment, nor dirty segments younger than min.compaction.lag.ms', () => {
    const sim = new Simulation({ seed: 305, staticConfigs: CLEANER });
    sim.createTopic('young', 1, 1, { ...COMPACTED, 'segment.ms': '3600000' }, [[1]]);
    const expected = new Expected();
    for (let i = 0; i < 5; i++) expected.write(sim, 'young', [['k', `v${i}`]]);
    sim.advance(30_000);
    let status = sim.engine.describeCompaction('young', 0)![0]!;
    expect(status.state).toBe('active-segment');
    expect(readAll(sim, 'young')).toHaveLength(5);
    sim.engine.alterConfigs('topic', 'young', { 'segment.ms': '10000', 'min.compaction.lag.ms': '120000' });
    churn(sim, 'young', expected, 1, 3);
    status = sim.engine.describeCompaction('young', 0)![0]!;
    expect(status.state).toBe('min-compaction-lag');
    expect(cleanedOn(sim, 'young').size).toBe(0);
    sim.waitFor(() => cleanedOn(sim, 'young').size === 1, 300_000, 'a cleaning once the lag passed');
    const first = sim.eventsOf('log.cleaned')[0]!;
    expect(first.atMs).toBeGreaterThanOrEqual(120_000);
  });

  it('refuses a keyless record on a compacted topic with INVALID_RECORD, as Kafka does', () => {
    const sim = new Simulation({ seed: 306 });
    sim.createTopic('table', 1, 1, COMPACTED, [[1]]);
    const r = sim.await<{ errorCode: string; recordErrors?: { batchIndex: number; message: string }[] }>((done) =>
      sim.engine.produce({ topic: 'table', partition: 0, acks: 1, timeoutMs: 5_000, records: [kv('a', '1'), { key: null, value: encoder.encode('x'), headers: [], timestamp: 0 }] }, done),
    );
    expect(r.errorCode).toBe('INVALID_RECORD');
    expect(r.recordErrors).toEqual([{ batchIndex: 1, message: 'Compacted topic cannot accept message without key in topic partition table-0' }]);
    expect(sim.partition('table').replicaStates[0]!.logEndOffset).toBe(0);
  });

  it('marks a partition uncleanable when cleaning it fails, with the reason, and goes on with the others and with the traffic', () => {
    const real = createCleanedBatchWriter();
    const failing: CleanedBatchWriter = {
      retain(original, keep, horizon) {
        if (original.records.some((r) => new TextDecoder().decode(r.key!).startsWith('bad'))) throw new Error('the disk said no');
        return real.retain(original, keep, horizon);
      },
    };
    const sim = new Simulation({ seed: 307, staticConfigs: CLEANER, cleanedBatches: failing });
    sim.createTopic('bad', 1, 1, COMPACTED, [[1]]);
    sim.createTopic('good', 1, 1, COMPACTED, [[1]]);
    // The first batch of each keeps one record of two: the cleaner has to write it anew.
    put(sim, 'bad', [['bad', 'v0'], ['bad2', 'v0']]);
    put(sim, 'good', [['good', 'v0'], ['good2', 'v0']]);
    for (let round = 1; round < 4; round++) {
      sim.advance(11_000);
      put(sim, 'bad', [['bad', `v${round}`]]);
      put(sim, 'good', [['good', `v${round}`]]);
    }
    sim.advance(11_000);
    put(sim, 'bad', [['bad3', 'v']]);
    put(sim, 'good', [['good3', 'v']]);
    sim.waitFor(() => cleanedOn(sim, 'good').size === 1 && sim.eventsOf('log.uncleanable').length === 1, 60_000, 'one cleaned, one uncleanable');
    expect(sim.eventsOf('log.uncleanable')[0]).toMatchObject({ topic: 'bad', partition: 0, brokerId: 1, reason: 'the disk said no' });
    const status = sim.engine.describeCompaction('bad', 0)![0]!;
    expect(status.state).toBe('uncleanable');
    expect(status.uncleanableReason).toBe('the disk said no');
    expect(put(sim, 'bad', [['bad', 'after']])).toHaveLength(1);
    expect(readAll(sim, 'bad').at(-1)).toEqual([expect.any(Number), 'bad', 'after']);
  });

  it('does nothing with log.cleaner.enable=false: compacted logs keep every record', () => {
    const sim = new Simulation({ seed: 308, staticConfigs: { ...CLEANER, 'log.cleaner.enable': 'false' } });
    sim.createTopic('table', 1, 1, COMPACTED, [[1]]);
    churn(sim, 'table', new Expected(), 3, 4);
    sim.advance(60_000);
    expect(cleanedOn(sim, 'table').size).toBe(0);
    expect(readAll(sim, 'table')).toHaveLength(12);
    expect(sim.engine.describeCompaction('table', 0)![0]!.state).toBe('cleaner-disabled');
  });

  it('throttles every cleaner to log.cleaner.io.max.bytes.per.second of reads and writes', () => {
    const fast = new Simulation({ seed: 309, staticConfigs: CLEANER });
    const slow = new Simulation({ seed: 309, staticConfigs: { ...CLEANER, 'log.cleaner.io.max.bytes.per.second': '500', 'log.cleaner.io.buffer.size': '1024' } });
    const took: number[] = [];
    for (const sim of [fast, slow]) {
      // No log is dirtier than 100%: nothing is cleaned until the threshold comes down, then all at once.
      sim.createTopic('table', 1, 1, { ...COMPACTED, 'min.cleanable.dirty.ratio': '1' }, [[1]]);
      churn(sim, 'table', new Expected(), 20, 6);
      sim.advance(5_000);
      expect(cleanedOn(sim, 'table').size).toBe(0);
      sim.engine.alterConfigs('topic', 'table', { 'min.cleanable.dirty.ratio': '0.01' });
      sim.waitFor(() => cleanedOn(sim, 'table').size === 1, 600_000, 'a cleaning');
      const last = sim.engine.describeCompaction('table', 0)![0]!.lastClean!;
      took.push(last.finishedAtMs - last.startedAtMs);
      // The offset map's reads count too: at 500 B/s the cleaning lasts about all its bytes / 500 s.
      const io = last.stats.mapBytesRead + last.stats.bytesRead + last.stats.bytesWritten;
      if (sim === slow) expect(took[1]!).toBeGreaterThanOrEqual((io / 500) * 1000 - 2_000);
    }
    expect(took[0]).toBe(0);
    expect(took[1]!).toBeGreaterThan(2_000);
  });

  it('leaves retention of compact,delete topics to the cleaner, as Kafka does: without a cleaner they keep everything', () => {
    for (const enable of ['true', 'false']) {
      const sim = new Simulation({ seed: 310, staticConfigs: { ...CLEANER, 'log.cleaner.enable': enable, 'log.retention.check.interval.ms': '1000' } });
      sim.createTopic('both', 1, 1, { ...COMPACTED, 'cleanup.policy': 'compact,delete', 'retention.ms': '40000' }, [[1]]);
      churn(sim, 'both', new Expected(), 2, 4);
      const leo = sim.partition('both').replicaStates[0]!.logEndOffset;
      sim.advance(60_000); // every record is older than retention.ms now
      expect(sim.partition('both').logStartOffset, `log.cleaner.enable=${enable}`).toBe(enable === 'true' ? leo : 0);
    }
  });

  it('a replica away for longer than delete.retention.ms misses the tombstones its leader removed meanwhile, and keeps what they deleted (as a consumer that lags would: Kafka bounds the lag by delete.retention.ms)', () => {
    const sim = new Simulation({ seed: 311, staticConfigs: CLEANER });
    sim.createTopic('table', 1, 3, { ...COMPACTED, 'delete.retention.ms': '20000' }, [[1, 2, 3]]);
    const expected = new Expected();
    expected.write(sim, 'table', [['gone', 'deleted-value']]);
    churn(sim, 'table', expected, 2, 2);
    sim.engine.stopBroker(3);
    sim.waitFor(() => sim.engine.listBrokers().find((b) => b.id === 3)!.state === 'stopped', 60_000, 'broker 3 stopped');
    expected.write(sim, 'table', [['gone', null]]);
    churn(sim, 'table', expected, 2, 8, 2);
    sim.waitFor(() => !sim.replicaLog(1, 'table').some((r) => r.offset === expected.last.get('gone')!.offset), 120_000, 'the leader to remove the tombstone');
    sim.engine.startBroker(3);
    waitForIsr(sim, 'table', 0, [1, 2, 3]);
    sim.advance(30_000);
    const values = (id: number) => sim.replicaLog(id, 'table').filter((r) => r.offset < expected.last.get('gone')!.offset && r.value === 'deleted-value');
    expect(values(1)).toEqual([]);
    expect(values(3)).toHaveLength(1);
  });

  it('takes the dirtiest log first (grabFilthiestCompactedLog), then the next without backing off', () => {
    const sim = new Simulation({ seed: 312, staticConfigs: { 'log.cleaner.backoff.ms': '60000' } });
    sim.createTopic('calm', 1, 1, { ...COMPACTED, 'min.cleanable.dirty.ratio': '1' }, [[1]]);
    sim.createTopic('busy', 1, 1, { ...COMPACTED, 'min.cleanable.dirty.ratio': '1' }, [[1]]);
    // Both cleaned once, then 'busy' gets many more updates than 'calm' before the threshold comes down.
    for (const topic of ['calm', 'busy']) sim.engine.alterConfigs('topic', topic, { 'min.cleanable.dirty.ratio': '0.01' });
    churn(sim, 'calm', new Expected(), 4, 2);
    churn(sim, 'busy', new Expected(), 4, 2);
    sim.waitFor(() => sim.eventsOf('log.cleaned').length === 2, 200_000, 'a first cleaning of each');
    for (const topic of ['calm', 'busy']) sim.engine.alterConfigs('topic', topic, { 'min.cleanable.dirty.ratio': '1' });
    churn(sim, 'calm', new Expected(), 4, 2, 10);
    churn(sim, 'busy', new Expected(), 20, 3, 10);
    const ratio = (topic: string) => sim.engine.describeCompaction(topic, 0)![0]!.dirtyRatio;
    expect(ratio('busy')).toBeGreaterThan(ratio('calm'));
    for (const topic of ['calm', 'busy']) sim.engine.alterConfigs('topic', topic, { 'min.cleanable.dirty.ratio': '0.01' });
    sim.waitFor(() => sim.eventsOf('log.cleaned').length === 4, 200_000, 'a second cleaning of each');
    const [first, second] = sim.eventsOf('log.cleaned').slice(2);
    expect([first!.topic, second!.topic]).toEqual(['busy', 'calm']);
    // A cleaner that found work looks for more at once, without log.cleaner.backoff.ms.
    expect(second!.atMs - first!.atMs).toBeLessThan(60_000);
  });
});
