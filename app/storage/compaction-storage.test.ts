/**
 * What compaction asks of a broker's SQLite file: cleaned batches (records at their own offsets,
 * empty batches, delete horizons) stored and read back byte for byte, reads that skip the
 * offsets the cleaner removed, a follower's log that skips them too, the swap of a cleaned range
 * as one transaction, and the cleaner's checkpoint kept across a reopen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PartitionLog } from '../core/log/partition-log.js';
import { batchMaxTimestamp, offsetSpan, recordCount, recordOffset, type RecordBatch } from '../core/log/records.js';
import { kv, text } from '../core/test-support/cleaner-harness.js';
import { createCleanedBatchWriter } from '../protocol/records/cleaned-batch-writer.js';
import { SqliteStorage } from './sqlite-storage.js';

const dirs: string[] = [];
const open: SqliteStorage[] = [];
function storage(dir = mkdtempSync(join(tmpdir(), 'replica-studio-compaction-'))): { s: SqliteStorage; dir: string } {
  if (!dirs.includes(dir)) dirs.push(dir);
  const s = SqliteStorage.open(dir);
  open.push(s);
  return { s, dir };
}
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const writer = createCleanedBatchWriter();
const ROLL = { segmentBytes: 1 << 20, segmentMs: Infinity };

function contents(batches: readonly RecordBatch[]): [number, string | null, string | null][] {
  const out: [number, string | null, string | null][] = [];
  for (const b of batches) b.records.forEach((r, i) => out.push([recordOffset(b, i), text(r.key), text(r.value)]));
  return out;
}

describe('compacted logs in a broker file', () => {
  it('swaps a cleaned range in (records at their own offsets, an empty batch, a delete horizon) and reads it back the same after a reopen', () => {
    const { s, dir } = storage();
    const store = s.broker(1).replica('t:0');
    const log = new PartitionLog(store, 0);
    const b0 = log.appendAsLeader([kv(1, 'a'), kv(2, 'a'), kv(1, 'b')], 0, 0, ROLL); // 0..2
    const b1 = log.appendAsLeader([kv(3, 'a'), kv(2, null)], 0, 0, ROLL); // 3..4
    const b2 = log.appendAsLeader([kv(3, 'b')], 0, 0, ROLL); // 5
    log.rollActiveSegment(0);
    log.appendAsLeader([kv(9, 'z')], 0, 0, ROLL); // 6, active segment
    const cleaned = [writer.retain(b0, [2], undefined), writer.retain(b1, [1], 5000), b2];
    log.replaceCleaned(0, 6, cleaned);
    log.setCleanerCheckpoint(6);
    const expected = [
      [2, '1', 'b'],
      [4, '2', null],
      [5, '3', 'b'],
      [6, '9', 'z'],
    ];
    expect(contents(log.read(0, 7, 1 << 20))).toEqual(expected);
    // A read from an offset the cleaner removed starts at the next record.
    expect(contents(log.read(3, 7, 1 << 20))[0]).toEqual([4, '2', null]);
    expect(contents(log.read(0, 7, 1))).toEqual([[2, '1', 'b']]);
    s.close();
    const again = storage(dir).s.broker(1).replica('t:0');
    const reopened = new PartitionLog(again, 0);
    expect(reopened.logEndOffset).toBe(7);
    expect(reopened.cleanerCheckpoint()).toBe(6);
    const back = reopened.read(0, 7, 1 << 20);
    expect(contents(back)).toEqual(expected);
    expect(back[1]!.deleteHorizonMs).toBe(5000);
    expect(Buffer.from(back[0]!.encoded!).equals(Buffer.from(cleaned[0]!.encoded!))).toBe(true);
    expect(reopened.segments().map((seg) => seg.baseOffset)).toEqual([0, 6]);
  });

  it('keeps the log end of a log whose cleaned segment lost its last batch before an empty active segment', () => {
    const { s, dir } = storage();
    const log = new PartitionLog(s.broker(1).replica('t:0'), 0);
    log.appendAsLeader([kv(1, 'a')], 0, 0, ROLL);
    log.appendAsLeader([kv(1, null)], 0, 0, ROLL);
    log.rollActiveSegment(0);
    // A cleaning may not drop the batch before an empty active segment: the log end would move.
    expect(() => log.replaceCleaned(0, 2, [])).toThrow(/would move its log end offset 2/);
    s.close();
    expect(new PartitionLog(storage(dir).s.broker(1).replica('t:0'), 0).logEndOffset).toBe(2);
  });

  it('lets a follower of a compacted leader append across the offsets the leader no longer has', () => {
    const { s, dir } = storage();
    const log = new PartitionLog(s.broker(2).replica('t:0'), 0);
    const at = (base: number, last: number, keep: number[]): RecordBatch => ({ baseOffset: base, lastOffset: last, leaderEpoch: 0, appendTimeMs: 0, records: keep.map((k) => kv(k, k)), sizeBytes: 80, offsetDeltas: keep.map((k) => k - base) });
    log.appendAsFollower([at(0, 4, [2, 4]), at(9, 12, [12])], 0, ROLL);
    expect(() => log.appendAsFollower([at(11, 13, [13])], 0, ROLL)).toThrow(/follower append at 11/);
    expect(log.logEndOffset).toBe(13);
    expect(contents(log.read(0, 13, 1 << 20))).toEqual([
      [2, '2', '2'],
      [4, '4', '4'],
      [12, '12', '12'],
    ]);
    s.close();
    const reopened = new PartitionLog(storage(dir).s.broker(2).replica('t:0'), 0);
    expect(reopened.logEndOffset).toBe(13);
    expect(contents(reopened.read(5, 13, 1 << 20))).toEqual([[12, '12', '12']]);
  });

  it("keeps a compacted leader's cleaned batches as they are on a follower: records at their own offsets, the delete horizon, read from its tail and after a reopen", () => {
    const { s, dir } = storage();
    const leader = new PartitionLog(s.broker(1).replica('t:0'), 0);
    const b0 = leader.appendAsLeader([kv(1, 'a'), kv(2, 'a'), kv(1, 'b')], 0, 0, ROLL); // 0..2
    const b1 = leader.appendAsLeader([kv(3, 'a'), kv(2, null)], 0, 0, ROLL); // 3..4
    leader.rollActiveSegment(0);
    leader.appendAsLeader([kv(9, 'z')], 0, 0, ROLL); // 5, active segment
    leader.replaceCleaned(0, 5, [writer.retain(b0, [2], undefined), writer.retain(b1, [1], 5000)]);
    const expected = [
      [2, '1', 'b'],
      [4, '2', null],
      [5, '9', 'z'],
    ];
    expect(contents(leader.read(0, 6, 1 << 20))).toEqual(expected);
    // A follower that was behind fetches the cleaned batches (read from the leader's file) and the active one.
    const follower = new PartitionLog(s.broker(2).replica('t:0'), 0);
    follower.appendAsFollower(leader.read(0, 6, 1 << 20), 0, ROLL);
    expect(follower.logEndOffset).toBe(6);
    const fromTail = follower.read(0, 6, 1 << 20);
    expect(contents(fromTail)).toEqual(expected);
    expect(fromTail[1]!.deleteHorizonMs).toBe(5000);
    expect(follower.read(3, 6, 1 << 20)[0]!.baseOffset).toBe(3); // from a removed offset: the batch that holds the next record
    s.close();
    const reopened = new PartitionLog(storage(dir).s.broker(2).replica('t:0'), 0);
    expect(contents(reopened.read(0, 6, 1 << 20))).toEqual(expected);
    expect(reopened.read(0, 6, 1 << 20).map((b) => [b.baseOffset, b.lastOffset])).toEqual([
      [0, 2],
      [3, 4],
      [5, 5],
    ]);
  });

  it("counts a cleaned batch's records and largest timestamp from its header: its kept records, not its offset span; an emptied batch none, whatever timestamp its header keeps", () => {
    const { s } = storage();
    const leader = new PartitionLog(s.broker(1).replica('t:0'), 0);
    leader.appendAsLeader([kv(1, 'a', 300), kv(2, 'a', 900), kv(1, 'b', 500)], 0, 0, ROLL); // 0..2
    leader.appendAsLeader([kv(3, 'a', 700)], 0, 0, ROLL); // 3
    leader.rollActiveSegment(0);
    leader.appendAsLeader([kv(9, 'z', 100)], 0, 0, ROLL); // 4, active segment
    // As the cleaner gets them: read from the log, with their stored bytes (so the emptied one keeps 700 in its header).
    const [b0, b1] = leader.read(0, 4, 1 << 20) as [RecordBatch, RecordBatch];
    const kept = writer.retain(b0, [2], undefined);
    const emptied = writer.retain(b1, [], undefined);
    expect([recordCount(kept), offsetSpan(kept), batchMaxTimestamp(kept)]).toEqual([1, 3, 500]);
    expect([recordCount(emptied), offsetSpan(emptied), batchMaxTimestamp(emptied)]).toEqual([0, 1, -1]);
    leader.replaceCleaned(0, 4, [kept, emptied]);
    const follower = new PartitionLog(s.broker(2).replica('t:0'), 0);
    follower.appendAsFollower(leader.read(0, 5, 1 << 20), 0, ROLL);
    for (const log of [leader, follower]) {
      const read = log.read(0, 5, 1 << 20);
      expect(read.map((b) => [recordCount(b), batchMaxTimestamp(b)])).toEqual([
        [1, 500],
        [0, -1],
        [1, 100],
      ]);
      expect(read.map((b) => b.records.length)).toEqual([1, 0, 1]); // what the header said, decoded
    }
    // The cleaned range's largest timestamp in the file is its kept records' (900 was removed).
    expect(s.broker(2).replica('t:0').rangeStats(0, 4).maxTimestamp).toBe(500);
  });

  it('swaps all or nothing: a failure inside the swap leaves the batches and segments on disk as they were', () => {
    const { s, dir } = storage();
    const store = s.broker(1).replica('t:0');
    const log = new PartitionLog(store, 0);
    for (let i = 0; i < 4; i++) log.appendAsLeader([kv(i % 2, i)], 0, 0, ROLL);
    log.rollActiveSegment(0);
    log.appendAsLeader([kv(5, 5)], 0, 0, ROLL);
    const before = contents(log.read(0, 5, 1 << 20));
    const segments = store.loadSegments();
    const bad = { ...log.read(2, 3, 1 << 20)[0]!, encoded: undefined, records: [kv(0, 2)], lastOffset: 2 };
    // A batch whose bytes cannot be written (an offset delta past its batch) fails in the middle of the swap.
    const broken = { ...bad, baseOffset: 3, lastOffset: 3, offsetDeltas: [5] };
    expect(() => store.replaceCleaned(0, 4, [bad, broken], [{ baseOffset: 0, createdMs: 0 }, { baseOffset: 4, createdMs: 0 }])).toThrow();
    s.close();
    const reopened = storage(dir).s.broker(1).replica('t:0');
    expect(contents(reopened.read(0, 5, 1 << 20))).toEqual(before);
    expect(reopened.loadSegments()).toEqual(segments);
  });
});

describe('a failed swap inside a storage batch (a host step)', () => {
  it('undoes only the swap: the step goes on and commits its other writes', () => {
    const { s, dir } = storage();
    const store = s.broker(1).replica('t:0');
    const log = new PartitionLog(store, 0);
    for (let i = 0; i < 4; i++) log.appendAsLeader([kv(i % 2, i)], 0, 0, ROLL);
    log.rollActiveSegment(0);
    const before = contents(log.read(0, 4, 1 << 20));
    const bad = { ...log.read(2, 3, 1 << 20)[0]!, encoded: undefined };
    const broken = { ...bad, baseOffset: 3, lastOffset: 3, offsetDeltas: [5] };
    s.batch(() => {
      expect(() => store.replaceCleaned(0, 4, [bad, broken], [{ baseOffset: 0, createdMs: 0 }])).toThrow();
      log.appendAsLeader([kv(7, 7)], 0, 0, ROLL);
    });
    s.close();
    const reopened = storage(dir).s.broker(1).replica('t:0');
    expect(contents(reopened.read(0, 5, 1 << 20))).toEqual([...before, [4, '7', '7']]);
  });
});
