/**
 * `records.fill` (records-fill.ts) on real SQLite files: a cluster filled in one call and a cluster
 * given the same records by `records.produce` calls (the batches a twin used to write one call at
 * a time) end with the same offsets, high watermarks, log starts and bytes on every replica, and
 * keep them across an orderly restart; a consumer reads the synthetic records back. Empty, fully
 * in-sync partitions are written on every replica at once (the engine's fillSynthetic): as the
 * call returns every replica's file holds the same bytes (valid CRC, producer id -1), the same
 * epochs and HW = LEO, nothing is sent to the followers again, and a follower that takes over
 * serves the same records. A partition that holds records or has a replica out of sync goes
 * through the leaders' Produce path instead.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { batchHeader, hasValidCrc } from '../../protocol/records/record-batch.js';
import { closeDataDirs, closeKeeping, dataDirService, ok, type DataDirService } from '../../sim/test-support/data-dir.js';
import { fillBatchRecords } from './records-fill.js';

afterEach(closeDataDirs);

const ASSIGNMENTS = [
  [1, 2, 3],
  [2, 3, 4],
  [3, 4, 1],
  [4, 1, 2],
];
/** Several batches (2,500 records of 10 B: 1,000 + 1,000 + 500), values at the cap, an empty value, batches cut by bytes (500 of 2,000 B a batch). */
const WANTED = [
  { partition: 0, records: 2_500, valueBytes: 10 },
  { partition: 1, records: 3, valueBytes: 4_096 },
  { partition: 2, records: 1, valueBytes: 0 },
  { partition: 3, records: 700, valueBytes: 2_000 },
];
/** Log starts moved by DeleteRecords afterwards, inside a batch (p0) and at a batch's start (p3). */
const DELETE = [
  { topic: 'fill', partition: 0, offset: 1_200 },
  { topic: 'fill', partition: 3, offset: 500 },
];

async function cluster(): Promise<DataDirService> {
  const d = dataDirService({ seed: 35, brokers: 4 });
  await ok(d.s.call('topics.create', { name: 'fill', assignments: ASSIGNMENTS }));
  d.s.sim.advance(2_000);
  return d;
}

/** Every replica's offsets and bytes, and each broker's disk use. */
async function state(d: DataDirService) {
  const topic = await ok(d.s.call('topics.describe', { name: 'fill' }));
  return {
    partitions: topic.partitions.map((p) => ({
      partition: p.partition,
      highWatermark: p.highWatermark,
      logStartOffset: p.logStartOffset,
      sizeBytes: p.sizeBytes,
      isr: [...p.isr].sort((a, b) => a - b),
      replicas: [...p.replicaStates]
        .sort((a, b) => a.brokerId - b.brokerId)
        .map((r) => ({ brokerId: r.brokerId, logEndOffset: r.logEndOffset, highWatermark: r.highWatermark, logStartOffset: r.logStartOffset, bytes: d.s.engine.replicaSizeBytes(r.brokerId, 'fill', p.partition) })),
    })),
    brokers: (await ok(d.s.call('brokers.list', {}))).map((b) => ({ id: b.id, logBytes: b.logBytes })),
  };
}

/**
 * What broker `brokerId`'s SQLite file holds of its replica of fill-`partition`: its checkpoint,
 * epochs and every batch's bytes, each batch checked as a Kafka client would (CRC-32C, producer fields).
 */
function onDisk(d: DataDirService, brokerId: number, partition: number) {
  const db = d.storage.brokerStore(brokerId).file.db;
  const key = `${d.s.engine.metadata.topicsByName.get('fill')!.topicId}:${partition}`;
  const row = db.prepare('SELECT id, high_watermark AS hw, log_start_offset AS logStart FROM replicas WHERE key = ?').get(key) as { id: number; hw: number; logStart: number };
  const batches = (db.prepare('SELECT base_offset AS base, leader_epoch AS epoch, data FROM batches WHERE replica = ? ORDER BY base_offset').all(row.id) as { base: number; epoch: number; data: Buffer }[]).map((b) => {
    const h = batchHeader(b.data);
    return { base: b.base, epoch: b.epoch, count: h.count, crcValid: hasValidCrc(b.data, h), producer: [h.producerId, h.producerEpoch, h.baseSequence], bytes: b.data.toString('hex') };
  });
  const epochs = db.prepare('SELECT epoch, start_offset AS start FROM epochs WHERE replica = ? ORDER BY epoch').all(row.id);
  return { highWatermark: row.hw, logStartOffset: row.logStart, epochs, batches };
}

async function consumeAll(d: DataDirService, partition: number) {
  const records = [];
  for (let offset = 0; ; ) {
    const read = await ok(d.s.call('records.consume', { topic: 'fill', partition, offset, maxRecords: 1_000 }));
    records.push(...read.records);
    if (read.nextOffset >= read.highWatermark) return records;
    offset = read.nextOffset;
  }
}

async function reopen(d: DataDirService): Promise<DataDirService> {
  d.s.engine.shutdown();
  d.s.sim.waitFor(() => d.s.engine.isShutDown(), 60_000, 'an orderly shutdown');
  d.s.engine.snapshotMetadata();
  closeKeeping(d);
  const again = dataDirService({ dir: d.dir, seed: 36, brokers: 4 });
  again.s.sim.waitFor(() => [1, 2, 3, 4].every((b) => again.s.engine.brokerState(b) === 'running'), 60_000, 'every broker running again');
  again.s.sim.advance(5_000);
  return again;
}

describe('records.fill', () => {
  it('gives every replica the offsets, high watermark, log start and bytes that records.produce calls of the same batches give, across a restart', async () => {
    const filled = await cluster();
    const produced = await cluster();

    const answer = await ok(filled.s.call('records.fill', { partitions: WANTED.map((w) => ({ topic: 'fill', ...w })) }));
    expect(answer).toEqual(WANTED.map((w) => ({ topic: 'fill', partition: w.partition, errorCode: 'NONE', records: w.records, nextOffset: w.records })));
    // Written on every replica at once, not replicated by fetches: as the call returns, each replica's
    // file holds the same batches and epochs with HW = LEO (the checkpoint written with them).
    for (const w of WANTED) {
      const replicas = ASSIGNMENTS[w.partition]!.map((b) => onDisk(filled, b, w.partition));
      const batches = Math.ceil(w.records / fillBatchRecords(w.valueBytes));
      expect(replicas[0]).toMatchObject({ highWatermark: w.records, logStartOffset: 0, epochs: [{ epoch: 0, start: 0 }] });
      expect(replicas[0]!.batches.map((b) => [b.epoch, b.crcValid, b.producer])).toEqual(Array.from({ length: batches }, () => [0, true, [-1, -1, -1]]));
      expect(replicas[0]!.batches.reduce((n, b) => n + b.count, 0)).toBe(w.records);
      for (const r of replicas.slice(1)) expect(r).toEqual(replicas[0]);
    }
    // The followers' fetches carry on from the new log ends: nobody falls out of the ISR.
    const shrunk: unknown[] = [];
    filled.s.engine.subscribe((e) => {
      if (e.type === 'isr.shrunk') shrunk.push(e);
    });
    filled.s.sim.advance(65_000);
    expect(shrunk).toEqual([]);
    for (const w of WANTED) {
      const value = 'x'.repeat(w.valueBytes);
      for (let sent = 0; sent < w.records; ) {
        const n = Math.min(fillBatchRecords(w.valueBytes), w.records - sent);
        await ok(produced.s.call('records.produce', { topic: 'fill', partition: w.partition, acks: 'all', records: Array.from({ length: n }, () => ({ value })) }));
        sent += n;
      }
    }
    for (const d of [filled, produced]) {
      expect((await ok(d.s.call('records.delete', { partitions: DELETE }))).map((r) => r.errorCode)).toEqual(['NONE', 'NONE']);
      d.s.sim.advance(5_000);
    }

    const before = await state(filled);
    expect(before).toEqual(await state(produced));
    // Boundaries that differ: log start inside the log, every follower caught up, bytes on disk.
    expect(before.partitions.map((p) => [p.logStartOffset, p.highWatermark])).toEqual([
      [1_200, 2_500],
      [0, 3],
      [0, 1],
      [500, 700],
    ]);
    for (const p of before.partitions) for (const r of p.replicas) expect(r).toMatchObject({ logEndOffset: p.highWatermark, highWatermark: p.highWatermark, logStartOffset: p.logStartOffset });
    // p1: three records of 4,096 B in one batch, stored on each of its three replicas.
    expect(before.partitions[1]!.replicas.every((r) => r.bytes! > 3 * 4_096 && r.bytes === before.partitions[1]!.sizeBytes)).toBe(true);

    const read = await ok(filled.s.call('records.consume', { topic: 'fill', partition: 3, offset: 500, maxRecords: 10 }));
    expect(read.records.map((r) => [r.offset, r.key, r.value?.length])).toEqual(Array.from({ length: 10 }, (_, i) => [500 + i, null, 2_000]));

    const reopened = await reopen(filled);
    expect(await state(reopened)).toEqual(before);
  }, 120_000);

  it('answers per partition: an unknown one is UNKNOWN_TOPIC_OR_PARTITION while the others are filled, and a partition named twice is refused', async () => {
    const d = await cluster();
    const answer = await ok(
      d.s.call('records.fill', {
        partitions: [
          { topic: 'fill', partition: 1, records: 5, valueBytes: 100 },
          { topic: 'fill', partition: 9, records: 5, valueBytes: 100 },
          { topic: 'missing', partition: 0, records: 5, valueBytes: 100 },
        ],
      }),
    );
    expect(answer.map((r) => [r.partition, r.errorCode, r.records, r.nextOffset])).toEqual([
      [1, 'NONE', 5, 5],
      [9, 'UNKNOWN_TOPIC_OR_PARTITION', 0, -1],
      [0, 'UNKNOWN_TOPIC_OR_PARTITION', 0, -1],
    ]);
    const twice = await d.s.call('records.fill', {
      partitions: [
        { topic: 'fill', partition: 0, records: 1, valueBytes: 1 },
        { topic: 'fill', partition: 0, records: 1, valueBytes: 1 },
      ],
    });
    expect(twice.ok ? 'ok' : twice.error.code).toBe('INVALID_INPUT');
  });

  it('a follower that takes over a filled partition serves the same records, and the old leader rejoins without truncating', async () => {
    const d = await cluster();
    const truncated: unknown[] = [];
    d.s.engine.subscribe((e) => {
      if (e.type === 'replica.truncated') truncated.push(e);
    });
    await ok(d.s.call('records.fill', { partitions: [{ topic: 'fill', partition: 0, records: 2_500, valueBytes: 10 }] }));
    const served = await consumeAll(d, 0);
    expect(served.map((r) => r.offset)).toEqual(Array.from({ length: 2_500 }, (_, i) => i));

    await ok(d.s.call('brokers.stop', { brokerId: 1 }));
    d.s.sim.waitFor(() => d.s.engine.brokerState(1) === 'stopped', 60_000, 'broker 1 stopped');
    expect(d.s.engine.describePartition('fill', 0)!.leader).toBe(2);
    expect(await consumeAll(d, 0)).toEqual(served);
    const next = await ok(d.s.call('records.produce', { topic: 'fill', partition: 0, acks: 'all', records: [{ value: 'after' }] }));
    expect(next.baseOffset).toBe(2_500);

    await ok(d.s.call('brokers.start', { brokerId: 1 }));
    d.s.sim.waitFor(() => d.s.engine.describePartition('fill', 0)!.isr.length === 3, 60_000, 'broker 1 back in the ISR');
    d.s.sim.advance(5_000);
    const replicas = [1, 2, 3].map((b) => onDisk(d, b, 0));
    expect(replicas[0]!.epochs).toEqual([
      { epoch: 0, start: 0 },
      { epoch: 1, start: 2_500 },
    ]);
    for (const r of replicas.slice(1)) expect(r).toEqual(replicas[0]);
    expect(truncated).toEqual([]);
  }, 120_000);

  it('leaves a partition that holds records to the Produce path: the records follow the ones there, as records.produce calls would write them', async () => {
    const filled = await cluster();
    const produced = await cluster();
    for (const d of [filled, produced]) await ok(d.s.call('records.produce', { topic: 'fill', partition: 1, acks: 'all', records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] }));
    const refused = filled.s.engine.fillSynthetic([{ topic: 'fill', partition: 1, records: 5, valueBytes: 100, batchRecords: 1_000 }]);
    expect(refused).toEqual([{ direct: false, reason: 'fill-1 is not empty on broker 2' }]);

    const answer = await ok(filled.s.call('records.fill', { partitions: [{ topic: 'fill', partition: 1, records: 5, valueBytes: 100 }] }));
    expect(answer).toEqual([{ topic: 'fill', partition: 1, errorCode: 'NONE', records: 5, nextOffset: 8 }]);
    await ok(produced.s.call('records.produce', { topic: 'fill', partition: 1, acks: 'all', records: Array.from({ length: 5 }, () => ({ value: 'x'.repeat(100) })) }));
    for (const d of [filled, produced]) d.s.sim.advance(5_000);
    expect(await state(filled)).toEqual(await state(produced));
    expect((await consumeAll(filled, 1)).map((r) => [r.offset, r.value?.length])).toEqual([[0, 1], [1, 1], [2, 1], ...Array.from({ length: 5 }, (_, i) => [3 + i, 100])]);
  }, 120_000);

  it('leaves a partition with a replica out of sync to the Produce path: the ISR gets the records, the lagging follower fetches them once back', async () => {
    const d = await cluster();
    await ok(d.s.call('brokers.stop', { brokerId: 3 }));
    d.s.sim.waitFor(() => d.s.engine.brokerState(3) === 'stopped', 60_000, 'broker 3 stopped');
    expect(d.s.engine.fillSynthetic([{ topic: 'fill', partition: 0, records: 10, valueBytes: 10, batchRecords: 1_000 }])).toEqual([
      { direct: false, reason: 'the ISR of fill-0 [1,2] is not all of its replicas [1,2,3]' },
    ]);

    const answer = await ok(d.s.call('records.fill', { partitions: [{ topic: 'fill', partition: 0, records: 10, valueBytes: 10 }] }));
    expect(answer).toEqual([{ topic: 'fill', partition: 0, errorCode: 'NONE', records: 10, nextOffset: 10 }]);
    expect([1, 2, 3].map((b) => onDisk(d, b, 0).batches.length)).toEqual([1, 1, 0]);

    await ok(d.s.call('brokers.start', { brokerId: 3 }));
    d.s.sim.waitFor(() => d.s.engine.describePartition('fill', 0)!.isr.length === 3, 60_000, 'broker 3 back in the ISR of fill-0');
    d.s.sim.advance(5_000);
    const replicas = [1, 2, 3].map((b) => onDisk(d, b, 0));
    expect(replicas[0]).toMatchObject({ highWatermark: 10, epochs: [{ epoch: 0, start: 0 }] });
    for (const r of replicas.slice(1)) expect(r).toEqual(replicas[0]);
  }, 120_000);

  it('writes a partition created just before the call directly once its brokers have applied the new metadata', async () => {
    const d = dataDirService({ seed: 35, brokers: 4 });
    d.s.sim.advance(2_000);
    await ok(d.s.call('topics.create', { name: 'fill', assignments: [[2, 3, 4]] }));
    const fill = { topic: 'fill', partition: 0, records: 20, valueBytes: 10 };
    expect(d.s.engine.fillSynthetic([{ ...fill, batchRecords: 1_000 }])).toEqual([{ direct: false, reason: 'broker 2 does not serve fill-0 at leader epoch 0 yet', later: true }]);

    expect(await ok(d.s.call('records.fill', { partitions: [fill] }))).toEqual([{ topic: 'fill', partition: 0, errorCode: 'NONE', records: 20, nextOffset: 20 }]);
    const replicas = [2, 3, 4].map((b) => onDisk(d, b, 0));
    expect(replicas[0]).toMatchObject({ highWatermark: 20, epochs: [{ epoch: 0, start: 0 }] });
    for (const r of replicas.slice(1)) expect(r).toEqual(replicas[0]);
  });

  it('costs no replication afterwards: the followers already hold what was filled, so their leaders send them no record bytes again', async () => {
    const d = dataDirService({ seed: 35, brokers: 3 });
    await ok(d.s.call('topics.create', { name: 'fill', assignments: Array.from({ length: 10 }, () => [1, 2, 3]) }));
    d.s.sim.advance(2_000);
    const sentByLeaders = () => [...d.s.sim.internals.brokers.values()].reduce((n, b) => n + b.traffic.replicationBytesOut, 0);
    const answer = await ok(d.s.call('records.fill', { partitions: Array.from({ length: 10 }, (_, partition) => ({ topic: 'fill', partition, records: 50, valueBytes: 100 })) }));
    expect(answer.every((r) => r.errorCode === 'NONE' && r.nextOffset === 50)).toBe(true);
    const afterFill = sentByLeaders();
    d.s.sim.advance(10_000);
    expect(sentByLeaders() - afterFill).toBe(0);
    for (let partition = 0; partition < 10; partition++) {
      const replicas = [1, 2, 3].map((b) => onDisk(d, b, partition));
      expect(replicas[0]!.highWatermark).toBe(50);
      for (const r of replicas.slice(1)) expect(r).toEqual(replicas[0]);
    }
  });
});
