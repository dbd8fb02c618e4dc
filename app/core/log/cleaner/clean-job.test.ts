/**
 * What Kafka's LogCleanerTest asserts about one cleaning, in our words, on a real PartitionLog.
 * Each test names the Kafka test it follows. Kafka's tests build their cleaner with a load factor
 * of 0.75, so a map of 4 slots holds 3 keys; so does the harness.
 */
import { describe, expect, it } from 'vitest';
import { CompactedTestLog, kv } from '../../test-support/cleaner-harness.js';
import { markerBatch } from '../control-records.js';
import { CleanAbortedError, groupSegmentsBySize } from './clean-job.js';

describe('one cleaning (Kafka LogCleanerTest)', () => {
  it('keeps the last record of each key at its original offset, recopying the segments below the active one (testCleanSegments)', () => {
    const t = new CompactedTestLog(400);
    for (let i = 0; i < 30; i++) t.append([kv(i % 5, i)]);
    const leo = t.log.logEndOffset;
    const activeBase = t.log.segments().at(-1)!.baseOffset;
    const before = t.records();
    const cleanedBytes = t.log.segmentStats().slice(0, -1).reduce((n, seg) => n + seg.bytes, 0);
    const { endOffset, stats } = t.clean();
    expect(endOffset).toBe(activeBase);
    // Below the active segment, one record per key: the last one before activeBase.
    const kept = t.records().filter(([o]) => o < activeBase);
    const lastBelow = new Map<string, number>();
    for (const [o, k] of before) if (o < activeBase) lastBelow.set(k!, o);
    expect(kept.map(([o]) => o)).toEqual([...lastBelow.values()].sort((a, b) => a - b));
    // The active segment is untouched and the log end offset does not move.
    expect(t.records().filter(([o]) => o >= activeBase)).toEqual(before.filter(([o]) => o >= activeBase));
    expect(t.log.logEndOffset).toBe(leo);
    expect(stats.bytesRead).toBe(cleanedBytes);
  });

  it('reports what it read and wrote; a map of 3 keys covers the dirty log up to its end (testLogCleanerStats)', () => {
    const t = new CompactedTestLog();
    for (const [k, v] of [[0, 0], [1, 1], [0, 0], [1, 1], [0, 0]] as const) t.append([kv(k, v)]);
    t.rollNow();
    const bytes = t.log.sizeBytes();
    const { endOffset, stats } = t.clean(t.toClean(2, t.log.segments().at(-1)!.baseOffset), { slots: 4 });
    expect(endOffset).toBe(5);
    expect(stats.recordsRead).toBe(5);
    expect(stats.bytesRead).toBe(bytes);
    expect(stats.recordsWritten).toBe(2);
    expect(stats.bytesWritten).toBe(t.log.sizeBytes());
    expect(stats.invalidRecords).toBe(0);
    expect(t.offsets()).toEqual([3, 4]);
  });

  it('makes progress one key at a time when the map holds one key (testPartialSegmentClean)', () => {
    const t = new CompactedTestLog();
    for (const k of [0, 1, 0, 1, 0]) t.append([kv(k, k)]);
    t.rollNow();
    const active = (): number => t.log.segments().at(-1)!.baseOffset;
    expect(t.clean(t.toClean(2, active()), { slots: 2 }).endOffset).toBe(3);
    expect(t.keys()).toEqual(['1', '0', '1', '0']);
    expect(t.offsets()).toEqual([1, 2, 3, 4]);
    t.clean(t.toClean(3, active()), { slots: 2 });
    expect(t.keys()).toEqual(['0', '1', '0']);
    expect(t.offsets()).toEqual([2, 3, 4]);
    t.clean(t.toClean(4, active()), { slots: 2 });
    expect(t.keys()).toEqual(['1', '0']);
    expect(t.offsets()).toEqual([3, 4]);
  });

  it('removes deleted keys once their tombstones are past the delete horizon, not before (testCleaningWithDeletes, testCleanTombstone)', () => {
    const t = new CompactedTestLog(400);
    for (let k = 0; k < 6; k++) t.append([kv(k, k)]);
    for (let k = 0; k < 6; k += 2) t.append([kv(k, null)]);
    for (let k = 6; k < 20; k++) t.append([kv(k, k)]);
    t.clean(undefined, { cfg: { deleteRetentionMs: 1000 } });
    // The first cleaning reaches the tombstones: the values they delete go, the tombstones stay.
    const first = t.records();
    for (let k = 0; k < 6; k += 2) expect(first.filter(([, key]) => key === String(k))).toEqual([[expect.any(Number), String(k), null]]);
    const withHorizon = t.batches().filter((b) => b.records.some((r) => r.value === null));
    expect(withHorizon.every((b) => b.deleteHorizonMs === 1000)).toBe(true);
    // A cleaning before the horizon keeps them; one after removes them and nothing of the key is left.
    t.nowMs = 999;
    t.clean(t.toClean(0, t.log.segments().at(-1)!.baseOffset), { cfg: { deleteRetentionMs: 1000 } });
    expect(t.records().filter(([, , v]) => v === null)).toHaveLength(3);
    t.nowMs = 1000;
    const { stats } = t.clean(t.toClean(0, t.log.segments().at(-1)!.baseOffset), { cfg: { deleteRetentionMs: 1000 } });
    expect(stats.tombstonesRemoved).toBe(3);
    const keys = new Set(t.keys());
    for (let k = 0; k < 6; k++) expect(keys.has(String(k))).toBe(k % 2 === 1);
  });

  it('keeps a tombstone whatever its timestamp until delete.retention.ms after the cleaning that reached it (testCleanTombstone, KIP-534)', () => {
    const t = new CompactedTestLog();
    t.append([kv(0, 0, 10_000_000)]);
    t.rollNow();
    t.clean();
    t.append([kv(0, null, 1)]); // a tombstone with a timestamp long past delete.retention.ms
    t.rollNow();
    t.clean(t.toClean(1, t.log.segments().at(-1)!.baseOffset));
    expect(t.batches()[0]!.lastOffset).toBe(1);
    t.append([kv(1, 1)]);
    t.rollNow();
    t.clean(t.toClean(2, t.log.segments().at(-1)!.baseOffset));
    expect(t.records()[0]).toEqual([1, '0', null]);
  });

  it('removes keyless records and counts them as invalid (testCleaningWithUnkeyedMessages)', () => {
    const t = new CompactedTestLog(400);
    t.fillTo(2, (o) => kv(null, o));
    const keyless = t.records().length;
    t.fillTo(3, (o) => kv(o, o));
    const { stats } = t.clean();
    expect(t.records().filter(([, k]) => k === null)).toEqual([]);
    expect(stats.invalidRecords).toBe(keyless);
  });

  it('keeps the last batch of the cleaning round even when it is left empty, so the log end survives a restart (testCleanSegmentsRetainingLastEmptyBatch)', () => {
    const t = new CompactedTestLog(400);
    for (let i = 0; i < 12; i++) t.append([kv(i, i)]);
    for (let i = 0; i < 12; i++) t.append([kv(i, null)]);
    t.rollNow();
    const leo = t.log.logEndOffset;
    t.clean(undefined, { cfg: { deleteRetentionMs: 0 } });
    t.clean(t.toClean(0, leo), { cfg: { deleteRetentionMs: 0 } });
    expect(t.records()).toEqual([]);
    const batches = t.batches();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.lastOffset).toBe(leo - 1);
    expect(batches[0]!.records).toEqual([]);
    t.reopen();
    expect(t.log.logEndOffset).toBe(leo);
  });

  it("keeps each idempotent producer's last batch, empty if need be, so duplicates are still recognised after a restart (testLogCleanerRetainsProducerLastSequence, testDuplicateCheckAfterCleaning)", () => {
    const t = new CompactedTestLog();
    t.append([kv(0, 0)]); // offset 0
    t.append([kv(0, 1)], { producerId: 1, producerEpoch: 0, baseSequence: 0 }); // 1
    t.append([kv(0, 2)], { producerId: 2, producerEpoch: 0, baseSequence: 0 }); // 2
    t.append([kv(0, 3)], { producerId: 3, producerEpoch: 0, baseSequence: 0 }); // 3
    t.append([kv(1, 1)], { producerId: 2, producerEpoch: 0, baseSequence: 1 }); // 4
    t.rollNow();
    t.clean();
    expect(t.batches().map((b) => b.lastOffset)).toEqual([1, 3, 4]);
    expect(t.batches().map((b) => [b.producer?.producerId, b.producer?.baseSequence])).toEqual([[1, 0], [3, 0], [2, 1]]);
    expect(t.keys()).toEqual(['0', '1']);
    expect(t.offsets()).toEqual([3, 4]);
    t.reopen();
    expect(t.log.producerState().check({ producerId: 1, producerEpoch: 0, baseSequence: 0, count: 1 }, t.log.logEndOffset)).toEqual({ kind: 'duplicate', firstOffset: 1, lastOffset: 1 });
    expect(t.log.producerState().check({ producerId: 2, producerEpoch: 0, baseSequence: 2, count: 1 }, t.log.logEndOffset)).toEqual({ kind: 'append' });
    expect(t.log.producerState().check({ producerId: 2, producerEpoch: 0, baseSequence: 3, count: 1 }, t.log.logEndOffset).kind).toBe('error');
  });

  it('keeps the last sequence of a batch that lost some records: its last offset stays (testDuplicateCheckAfterCleaning)', () => {
    const t = new CompactedTestLog(2048);
    t.append([kv(1, 'a'), kv(2, 'a'), kv(3, 'a')], { producerId: 1, producerEpoch: 0, baseSequence: 0 });
    t.append([kv(3, 'b'), kv(1, 'b'), kv(4, 'b')], { producerId: 2, producerEpoch: 0, baseSequence: 0 });
    t.append([kv(1, 'c'), kv(4, 'c')], { producerId: 3, producerEpoch: 0, baseSequence: 0 });
    t.rollNow();
    t.clean();
    expect(t.batches().map((b) => b.lastOffset)).toEqual([2, 5, 7]);
    expect(t.keys()).toEqual(['2', '3', '1', '4']);
    expect(t.offsets()).toEqual([1, 3, 6, 7]);
    t.reopen();
    const state = t.log.producerState();
    expect(state.check({ producerId: 1, producerEpoch: 0, baseSequence: 0, count: 3 }, 8)).toEqual({ kind: 'duplicate', firstOffset: 0, lastOffset: 2 });
    expect(state.check({ producerId: 3, producerEpoch: 0, baseSequence: 0, count: 2 }, 8)).toEqual({ kind: 'duplicate', firstOffset: 6, lastOffset: 7 });
    expect(state.check({ producerId: 2, producerEpoch: 0, baseSequence: 0, count: 3 }, 8)).toEqual({ kind: 'duplicate', firstOffset: 3, lastOffset: 5 });
  });

  it('cleans segments before the uncleanable section and leaves that section as it was (testCleaningWithUncleanableSection)', () => {
    const t = new CompactedTestLog(400);
    t.fillTo(3, (o) => kv(o % 4, o));
    const firstUncleanable = t.log.logEndOffset + 1;
    t.fillTo(6, (o) => kv(o % 4, o));
    const segs = t.log.segments().map((s) => s.baseOffset);
    const before = t.records();
    t.clean(t.toClean(0, firstUncleanable));
    const after = t.records();
    const uncleanableBase = segs[2]!;
    expect(after.filter(([o]) => o >= uncleanableBase)).toEqual(before.filter(([o]) => o >= uncleanableBase));
    expect(after.filter(([o]) => o < uncleanableBase).length).toBeLessThan(before.filter(([o]) => o < uncleanableBase).length);
  });

  it('counts clean, cleanable and total bytes by whole segments (testLogToCleanWithUncleanableSection)', () => {
    const t = new CompactedTestLog(100);
    for (let i = 0; i < 6; i++) t.append([kv(1, 'x'.repeat(25))]);
    const segs = t.log.segmentStats();
    expect(segs).toHaveLength(6);
    const ltc = t.toClean(segs[2]!.baseOffset, segs[4]!.baseOffset);
    expect(ltc.cleanBytes).toBe(segs[0]!.bytes + segs[1]!.bytes);
    expect(ltc.cleanableBytes).toBe(segs[2]!.bytes + segs[3]!.bytes);
    expect(ltc.totalBytes).toBe(ltc.cleanBytes + ltc.cleanableBytes);
    expect(ltc.cleanableRatio).toBeCloseTo(ltc.cleanableBytes / ltc.totalBytes, 6);
  });

  it('groups consecutive segments up to segment.bytes and never splits the order (testSegmentGrouping)', () => {
    const t = new CompactedTestLog(300);
    while (t.log.segments().length < 10) t.append([kv(1, 'hello')]);
    const all = t.log.segmentStats();
    const leo = t.log.logEndOffset;
    expect(groupSegmentsBySize(all, all, Number.MAX_SAFE_INTEGER, leo)).toHaveLength(1);
    expect(groupSegmentsBySize(all, all, 1, leo)).toHaveLength(10);
    const three = all[0]!.bytes + all[1]!.bytes + all[2]!.bytes + 1;
    const groups = groupSegmentsBySize(all, all, three, leo);
    for (const g of groups.slice(0, -1)) expect(all.filter((s) => s.baseOffset >= g.fromOffset && s.baseOffset < g.untilOffset)).toHaveLength(3);
    expect(groups.map((g) => g.fromOffset)).toEqual([...groups.map((g) => g.fromOffset)].sort((a, b) => a - b));
    expect(groups.every((g, i) => i === 0 || g.fromOffset === groups[i - 1]!.untilOffset)).toBe(true);
  });

  it('merges the cleaned segments of a group into one', () => {
    const t = new CompactedTestLog(200);
    for (let i = 0; i < 20; i++) t.append([kv(i % 2, i)]);
    const before = t.log.segments().length;
    t.clean();
    expect(t.log.segments().length).toBeLessThan(before);
    expect(t.log.segments()[0]!.baseOffset).toBe(0);
  });

  it('moves its end past offsets no segment holds, a follower of a compacted leader among them (testCleaningBeyondMissingOffsets)', () => {
    const t = new CompactedTestLog(1 << 20);
    const batch = (base: number, k: number) => ({ baseOffset: base, lastOffset: base, leaderEpoch: 0, appendTimeMs: 0, records: [kv(k, k)], sizeBytes: 70 });
    t.log.appendAsFollower([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((o) => batch(o, o)), 0, t.roll);
    t.log.appendAsFollower([batch(15, 15), batch(16, 16)], 0, t.roll);
    t.rollNow(); // the new active segment starts at the log end, 17
    t.log.appendAsFollower([batch(30, 30)], 0, t.roll);
    t.log.setFollowerHighWatermark(31);
    const active = t.log.segments().at(-1)!.baseOffset;
    expect(active).toBe(17);
    expect(t.clean(t.toClean(0, active)).endOffset).toBe(active);
    expect(t.offsets()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 30]);
  });

  it('aborts when the log is truncated under it, keeping the groups it swapped and no new checkpoint (testCleanSegmentsWithAbort)', () => {
    const t = new CompactedTestLog(200);
    for (let i = 0; i < 30; i++) t.append([kv(i % 3, i)]);
    const job = t.job(t.toClean(0, t.log.segments().at(-1)!.baseOffset));
    while (job.phase === 'map') job.step(512);
    job.step(512); // the clean phase has begun
    t.log.truncateTo(25);
    expect(() => job.step(512)).toThrow(CleanAbortedError);
    expect(t.log.cleanerCheckpoint()).toBeNull();
    expect(t.log.logEndOffset).toBe(25);
    expect(t.offsets().every((o) => o < 25)).toBe(true);
  });
});

describe('transactions in a compacted log (Kafka LogCleanerTest)', () => {
  const PID = 7;
  /** Append a transactional batch of producer 7 at the log end; returns its offset. */
  function txn(t: CompactedTestLog, seq: number, records: ReturnType<typeof kv>[]): number {
    const base = t.log.logEndOffset;
    t.log.appendPreparedAsLeader({ baseOffset: base, lastOffset: base + records.length - 1, leaderEpoch: 0, appendTimeMs: t.nowMs, records, sizeBytes: 61 + records.length * 20, producer: { producerId: PID, producerEpoch: 0, baseSequence: seq }, transactional: true }, t.nowMs, t.roll);
    t.log.maybeIncreaseHighWatermark(t.log.logEndOffset);
    return base;
  }
  function marker(t: CompactedTestLog, type: 'COMMIT' | 'ABORT'): number {
    const base = t.log.logEndOffset;
    t.log.appendPreparedAsLeader(markerBatch(base, 0, t.nowMs, { producerId: PID, producerEpoch: 0 }, { type, coordinatorEpoch: 0 }), t.nowMs, t.roll);
    t.log.maybeIncreaseHighWatermark(t.log.logEndOffset);
    return base;
  }

  it('drops aborted records without letting them hide a committed value, and keeps every marker (testAbortedTransactionRemoval, testCommitMarkerRetention)', () => {
    const t = new CompactedTestLog();
    t.log.producerState();
    t.append([kv(1, 'v1')]);
    txn(t, 0, [kv(1, 'aborted')]);
    marker(t, 'ABORT');
    txn(t, 1, [kv(2, 'c2')]);
    marker(t, 'COMMIT');
    txn(t, 2, [kv(3, 'c3')]);
    marker(t, 'COMMIT');
    t.rollNow();
    t.append([kv(9, 'active')]);
    t.clean();
    const kept = t.batches().filter((b) => b.baseOffset < 7);
    expect(kept.filter((b) => b.control).map((b) => b.baseOffset)).toEqual([2, 4, 6]);
    expect(t.records().filter(([o]) => o < 7 && ![2, 4, 6].includes(o))).toEqual([
      [0, '1', 'v1'],
      [3, '2', 'c2'],
      [5, '3', 'c3'],
    ]);
  });

  it('does not clean at or past the first offset of an open transaction (the last stable offset)', () => {
    const t = new CompactedTestLog(200);
    t.log.producerState();
    t.fillTo(2, (o) => kv(o % 2, o));
    const open = txn(t, 0, [kv(0, 'open')]);
    t.fillTo(5, (o) => kv(o % 2, o));
    expect(t.log.lastStableOffset).toBe(open);
    const ltc = t.logToClean();
    const segmentOfOpen = t.log.segmentStats().filter((s) => s.baseOffset <= open).at(-1)!.baseOffset;
    expect(ltc.firstUncleanableOffset).toBe(segmentOfOpen);
  });
});
