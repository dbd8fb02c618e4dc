import { describe, expect, it } from 'vitest';
import { MemoryStorage } from './memory-log-store.js';
import { PartitionLog, type SegmentRollConfig } from './partition-log.js';
import type { LogRecord, RecordBatch } from './records.js';

const encoder = new TextEncoder();

/** One record whose batch is exactly 200 bytes (61 header + 8 + 131 value). */
function record(timestamp = 0): LogRecord {
  return { key: null, value: encoder.encode('x'.repeat(131)), headers: [], timestamp };
}

const BY_SIZE: SegmentRollConfig = { segmentBytes: 500, segmentMs: Infinity };
const NO_ROLL: SegmentRollConfig = { segmentBytes: Infinity, segmentMs: Infinity };

function newLog(nowMs = 0) {
  const store = new MemoryStorage().broker(1).replica('t:0');
  return { store, log: new PartitionLog(store, nowMs) };
}

const bases = (log: PartitionLog): number[] => log.segments().map((s) => s.baseOffset);

describe('PartitionLog segments', () => {
  it('a new log has one empty segment from its log start', () => {
    const { log, store } = newLog(7);
    expect(log.segments()).toEqual([{ baseOffset: 0, createdMs: 7 }]);
    expect(store.loadSegments()).toEqual([{ baseOffset: 0, createdMs: 7 }]);
  });

  it('rolls when the next batch would take the active segment past segment.bytes', () => {
    const { log } = newLog();
    log.appendAsLeader([record()], 0, 0, BY_SIZE);
    log.appendAsLeader([record()], 0, 0, BY_SIZE); // 400 bytes: still fits
    expect(bases(log)).toEqual([0]);
    log.appendAsLeader([record()], 0, 0, BY_SIZE); // 400 + 200 > 500
    expect(bases(log)).toEqual([0, 2]);
    expect(log.segmentStats().map((s) => s.bytes)).toEqual([400, 200]);
  });

  it('never rolls an empty segment, even for a batch larger than segment.bytes', () => {
    const { log } = newLog();
    log.appendAsLeader([record(), record(), record()], 0, 0, { segmentBytes: 100, segmentMs: Infinity });
    expect(bases(log)).toEqual([0]);
    log.appendAsLeader([record()], 0, 0, { segmentBytes: 100, segmentMs: Infinity });
    expect(bases(log)).toEqual([0, 3]);
  });

  it('rolls once the active segment has waited longer than segment.ms since it was created, when records carry no timestamp', () => {
    const { log } = newLog(0);
    const cfg = { segmentBytes: Infinity, segmentMs: 1000 };
    log.appendAsLeader([record()], 0, 10, cfg);
    log.appendAsLeader([record()], 0, 1000, cfg); // waited exactly segment.ms: Kafka needs more
    expect(bases(log)).toEqual([0]);
    log.appendAsLeader([record()], 0, 1001, cfg);
    expect(log.segments()).toEqual([
      { baseOffset: 0, createdMs: 0 },
      { baseOffset: 2, createdMs: 1001 },
    ]);
  });

  it("measures segment.ms between record timestamps when the segment's first batch has one", () => {
    const { log } = newLog(0);
    const cfg = { segmentBytes: Infinity, segmentMs: 1000 };
    log.appendAsLeader([record(5000)], 0, 5000, cfg);
    // The broker clock moved on, but the records say only 500 ms passed.
    log.appendAsLeader([record(5500)], 0, 9000, cfg);
    expect(bases(log)).toEqual([0]);
    // A producer timestamp 1001 ms after the first batch rolls, whatever the broker clock says.
    log.appendAsLeader([record(6001)], 0, 9001, cfg);
    expect(bases(log)).toEqual([0, 2]);
  });

  it('a roll flushes the old segment, so a power loss keeps everything before the roll', () => {
    const storage = new MemoryStorage();
    const store = storage.broker(1).replica('t:0');
    const log = new PartitionLog(store, 0);
    log.appendAsLeader([record()], 0, 0, BY_SIZE);
    log.appendAsLeader([record()], 0, 0, BY_SIZE);
    expect(log.flushedOffset).toBe(0); // flush.messages/flush.ms never forced a flush
    log.appendAsLeader([record()], 0, 0, BY_SIZE);
    expect(log.flushedOffset).toBe(2);
    log.appendAsLeader([record()], 0, 0, BY_SIZE);

    const recovered = new PartitionLog(store, 100, true);
    expect(recovered.logEndOffset).toBe(2);
    expect(bases(recovered)).toEqual([0, 2]);
    recovered.appendAsLeader([record()], 1, 100, BY_SIZE);
    expect(recovered.segmentStats().map((s) => [s.baseOffset, s.bytes])).toEqual([
      [0, 400],
      [2, 200],
    ]);
  });

  it('a follower append rolls once for the whole fetched chunk', () => {
    const leader = newLog().log;
    for (let i = 0; i < 5; i++) leader.appendAsLeader([record()], 0, 0, NO_ROLL);
    const chunk: RecordBatch[] = leader.read(0, 5, Infinity);
    const { log: follower } = newLog();
    follower.appendAsFollower(chunk.slice(0, 1), 0, BY_SIZE);
    follower.appendAsFollower(chunk.slice(1), 0, BY_SIZE); // 200 + 800 > 500: roll, then take all four
    expect(bases(follower)).toEqual([0, 1]);
    expect(follower.logEndOffset).toBe(5);
  });

  it('truncation drops the segments based above the target and cuts the one holding it', () => {
    const { log } = newLog();
    for (let i = 0; i < 7; i++) log.appendAsLeader([record()], 0, 0, BY_SIZE);
    expect(bases(log)).toEqual([0, 2, 4, 6]);
    log.truncateTo(3);
    expect(bases(log)).toEqual([0, 2]);
    expect(log.segmentStats().map((s) => s.bytes)).toEqual([400, 200]);
    // A segment whose base is the target stays, empty, as the active segment (Kafka's LocalLog.truncateTo).
    log.truncateTo(2);
    expect(bases(log)).toEqual([0, 2]);
    log.appendAsLeader([record()], 1, 50, BY_SIZE);
    log.appendAsLeader([record()], 1, 50, BY_SIZE);
    expect(bases(log)).toEqual([0, 2]);
    log.appendAsLeader([record()], 1, 50, BY_SIZE);
    expect(bases(log)).toEqual([0, 2, 4]);
  });

  it('a segment truncated empty restarts its segment.ms clock at the next append', () => {
    const { log } = newLog(0);
    const cfg = { segmentBytes: 500, segmentMs: 1000 };
    log.appendAsLeader([record()], 0, 0, cfg);
    log.appendAsLeader([record()], 0, 0, cfg);
    log.appendAsLeader([record()], 0, 0, cfg);
    expect(bases(log)).toEqual([0, 2]);
    log.truncateTo(2);
    log.appendAsLeader([record()], 1, 5000, cfg);
    log.appendAsLeader([record()], 1, 5500, cfg);
    expect(log.segments()).toEqual([
      { baseOffset: 0, createdMs: 0 },
      { baseOffset: 2, createdMs: 5000 },
    ]);
  });

  it('truncateFullyAndStartAt and advanceLogStartOffset trim the segment list', () => {
    const { log } = newLog();
    for (let i = 0; i < 7; i++) log.appendAsLeader([record()], 0, 0, BY_SIZE);
    log.maybeIncreaseHighWatermark(7);
    log.advanceLogStartOffset(3);
    expect(bases(log)).toEqual([2, 4, 6]);
    expect(log.segmentStats()[0]!.bytes).toBe(200);
    log.advanceLogStartOffset(4);
    expect(bases(log)).toEqual([4, 6]);
    log.truncateFullyAndStartAt(20);
    expect(bases(log)).toEqual([20]);
    log.appendAsLeader([record()], 2, 0, BY_SIZE);
    expect(log.segmentStats()).toMatchObject([{ baseOffset: 20, bytes: 200 }]);
  });

  it('recovery reloads the stored segment list, and gives a log stored without one a single segment', () => {
    const { log, store } = newLog(0);
    for (let i = 0; i < 5; i++) log.appendAsLeader([record()], 0, i * 10, BY_SIZE);
    const before = log.segments();
    expect(bases(log)).toEqual([0, 2, 4]);
    expect(new PartitionLog(store, 999).segments()).toEqual(before);

    store.saveSegments([]);
    expect(new PartitionLog(store, 999).segments()).toEqual([{ baseOffset: 0, createdMs: 999 }]);
    expect(store.loadSegments()).toEqual([{ baseOffset: 0, createdMs: 999 }]);
  });
});

describe('PartitionLog retention (deleteOldSegments)', () => {
  /** Seven 200-byte batches in segments [0,2) [2,4) [4,6) [6,7), appended at t = 0, 100, ..., 600. */
  function filled() {
    const { log, store } = newLog(0);
    for (let i = 0; i < 7; i++) log.appendAsLeader([record()], 0, i * 100, BY_SIZE);
    return { log, store };
  }

  it('retention.bytes deletes whole segments from the front while the rest still reaches the limit', () => {
    const { log } = filled();
    log.maybeIncreaseHighWatermark(7);
    // 1400 bytes, limit 700. Kafka deletes while (size - limit) - segment >= 0: 700 - 400 >= 0 for
    // [0,2), then 300 - 400 < 0 for [2,4), so the log keeps 1000 bytes rather than dropping below 700.
    expect(log.deleteOldSegments(1000, { retentionMs: -1, retentionBytes: 700 })).toBe(1);
    expect(log.logStartOffset).toBe(2);
    expect(bases(log)).toEqual([2, 4, 6]);
    expect(log.sizeBytes()).toBe(1000);
    expect(log.read(0, 7, Infinity)[0]!.baseOffset).toBe(2);
  });

  it('retention.ms deletes segments whose newest record is older than the limit', () => {
    const { log } = filled();
    log.maybeIncreaseHighWatermark(7);
    // Segment [0,2) last written at 100, [2,4) at 300, [4,6) at 500, [6,7) at 600 (records carry no timestamp).
    expect(log.deleteOldSegments(1000, { retentionMs: 600, retentionBytes: -1 })).toBe(2);
    expect(bases(log)).toEqual([4, 6]);
    expect(log.logStartOffset).toBe(4);
    // Exactly retention.ms old is not older than it.
    expect(log.deleteOldSegments(1100, { retentionMs: 600, retentionBytes: -1 })).toBe(0);
    expect(log.deleteOldSegments(1101, { retentionMs: 600, retentionBytes: -1 })).toBe(1);
  });

  it('an empty log, and a log whose expired segments all went, check retention without asking the store for segment figures', () => {
    const { log, store } = newLog(0);
    let asked = 0;
    const rangeStats = store.rangeStats.bind(store);
    store.rangeStats = (from, to) => {
      asked++;
      return rangeStats(from, to);
    };
    expect(log.deleteOldSegments(1_000_000, { retentionMs: 1, retentionBytes: -1 })).toBe(0);
    expect(asked).toBe(0);
    // With data, each segment's figures are asked for; once all expired, the new active segment is empty.
    for (let i = 0; i < 3; i++) log.appendAsLeader([record()], 0, i * 100, BY_SIZE);
    log.maybeIncreaseHighWatermark(3);
    expect(log.deleteOldSegments(10_000, { retentionMs: 1, retentionBytes: -1 })).toBe(2);
    expect(asked).toBeGreaterThan(0);
    asked = 0;
    expect(log.deleteOldSegments(20_000, { retentionMs: 1, retentionBytes: -1 })).toBe(0);
    expect(log.logStartOffset).toBe(3);
    expect(asked).toBe(0);
  });

  it('never deletes past the high watermark', () => {
    const { log } = filled();
    log.maybeIncreaseHighWatermark(3);
    expect(log.deleteOldSegments(10_000, { retentionMs: 0, retentionBytes: -1 })).toBe(1);
    expect(log.logStartOffset).toBe(2);
    expect(bases(log)).toEqual([2, 4, 6]);
    log.maybeIncreaseHighWatermark(6);
    expect(log.deleteOldSegments(10_000, { retentionMs: 0, retentionBytes: 0 })).toBe(2);
    expect(log.logStartOffset).toBe(6);
    expect(bases(log)).toEqual([6]);
  });

  it('deletes the active segment too once it has expired and is fully replicated, rolling a new one first', () => {
    const { log } = filled();
    log.maybeIncreaseHighWatermark(7);
    expect(log.deleteOldSegments(10_000, { retentionMs: 1000, retentionBytes: -1 })).toBe(4);
    expect(log.logStartOffset).toBe(7);
    expect(log.logEndOffset).toBe(7);
    expect(log.segments()).toEqual([{ baseOffset: 7, createdMs: 10_000 }]);
    expect(log.sizeBytes()).toBe(0);
    // An empty active segment is never "deleted" again.
    expect(log.deleteOldSegments(20_000, { retentionMs: 1000, retentionBytes: 0 })).toBe(0);
    log.appendAsLeader([record()], 0, 20_000, BY_SIZE);
    expect(log.read(7, 8, Infinity)[0]!.baseOffset).toBe(7);
  });

  it('uses record timestamps when records carry them', () => {
    const { log } = newLog(0);
    log.appendAsLeader([record(50_000)], 0, 0, BY_SIZE);
    log.appendAsLeader([record(50_000)], 0, 0, BY_SIZE);
    log.appendAsLeader([record(90_000)], 0, 0, BY_SIZE);
    log.maybeIncreaseHighWatermark(3);
    // Appended at t = 0, but the records say 50 s: not yet older than 60 s at t = 100 s.
    expect(log.deleteOldSegments(100_000, { retentionMs: 60_000, retentionBytes: -1 })).toBe(0);
    expect(log.deleteOldSegments(110_001, { retentionMs: 60_000, retentionBytes: -1 })).toBe(1);
    expect(log.logStartOffset).toBe(2);
  });
});

describe('PartitionLog checkpoints due (the periodic high-watermark checkpoint)', () => {
  it('a log puts itself in its broker set when its high watermark moves, and leaves it once written or released', () => {
    const storage = new MemoryStorage().broker(1);
    const due = new Set<PartitionLog>();
    const moving = new PartitionLog(storage.replica('t:0'), 0, false, undefined, 't-0', due);
    const idle = new PartitionLog(storage.replica('t:1'), 0, false, undefined, 't-1', due);
    for (const log of [moving, idle]) log.appendAsLeader([record(), record()], 0, 0, NO_ROLL);
    expect(due.size).toBe(0);
    moving.maybeIncreaseHighWatermark(1);
    // An idle log is not in the set: the periodic task never looks at it.
    expect([...due]).toEqual([moving]);
    // Its store still holds the old high watermark until the task writes it.
    expect(storage.replica('t:0').loadCheckpoint().highWatermark).toBe(0);
    for (const log of due) log.saveCheckpoint();
    expect(due.size).toBe(0);
    expect(storage.replica('t:0').loadCheckpoint().highWatermark).toBe(1);
    // A follower's high watermark, too; a replica deleted before the task runs leaves the set.
    idle.setFollowerHighWatermark(2);
    expect([...due]).toEqual([idle]);
    idle.release();
    expect(due.size).toBe(0);
  });

  it('a log opened shorter than its checkpoint (a lost tail) is due at once, so the checkpoint is corrected', () => {
    const store = new MemoryStorage().broker(1).replica('t:0');
    const first = new PartitionLog(store, 0);
    first.appendAsLeader([record(), record(), record()], 0, 0, NO_ROLL);
    first.maybeIncreaseHighWatermark(3);
    first.flush(0);
    store.truncateTo(1); // the tail is gone behind the log's back
    const due = new Set<PartitionLog>();
    const reopened = new PartitionLog(store, 0, false, undefined, 't-0', due);
    expect(reopened.highWatermark).toBe(1);
    expect([...due]).toEqual([reopened]);
  });
});
