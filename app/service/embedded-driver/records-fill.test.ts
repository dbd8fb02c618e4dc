/**
 * `records.fill` (records-fill.ts) on real SQLite files: a cluster filled in one call and a cluster
 * given the same records by `records.produce` calls (the batches a twin used to write one call at
 * a time) end with the same offsets, high watermarks, log starts and bytes on every replica, and
 * keep them across an orderly restart; a consumer reads the synthetic records back.
 */
import { afterEach, describe, expect, it } from 'vitest';
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
});
