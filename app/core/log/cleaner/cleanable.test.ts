/**
 * Which part of a log the cleaner may clean and which log it takes — what Kafka's
 * LogCleanerManagerTest asserts, in our words (each test names the one it follows).
 */
import { describe, expect, it } from 'vitest';
import { CompactedTestLog, kv } from '../../test-support/cleaner-harness.js';
import { cleanableOffsets } from './cleanable.js';
import { COMPACTION } from '../../test-support/cleaner-harness.js';

/** A log of `segments` segments of two records each, written `gapMs` apart. */
function logOf(segments: number, gapMs = 0): CompactedTestLog {
  const t = new CompactedTestLog(150);
  while (t.log.segments().length < segments) {
    t.append([kv(t.log.logEndOffset % 3, t.log.logEndOffset, t.nowMs)]);
    t.nowMs += gapMs;
  }
  return t;
}

describe('cleanable offsets (Kafka LogCleanerManagerTest)', () => {
  it('stops at the active segment when nothing else bounds it (testCleanableOffsetsActiveSegment)', () => {
    const t = logOf(4);
    const o = cleanableOffsets(t.log, t.log.segmentStats(), t.nowMs, COMPACTION);
    expect(o).toMatchObject({ firstDirtyOffset: 0, firstUncleanableDirtyOffset: t.log.segments().at(-1)!.baseOffset, forceUpdateCheckpoint: false, bound: 'active-segment' });
  });

  it('stops at the high watermark when it is below the active segment', () => {
    const t = logOf(4);
    const hwLog = Object.create(t.log, { highWatermark: { value: 3 } }) as typeof t.log;
    expect(cleanableOffsets(hwLog, t.log.segmentStats(), t.nowMs, COMPACTION)).toMatchObject({ firstUncleanableDirtyOffset: 3, bound: 'high-watermark' });
  });

  it('stops at the first dirty segment newer than min.compaction.lag.ms (testCleanableOffsetsForTime, testCleanableOffsetsForShortTime)', () => {
    const t = logOf(6, 1_000);
    const segs = t.log.segmentStats();
    // Segment i's newest record was written at about 2 s × i: with a lag of 5.5 s, the segments from ~3 on are too young.
    const o = cleanableOffsets(t.log, segs, t.nowMs, { ...COMPACTION, minCompactionLagMs: 5_500 });
    expect(o.bound).toBe('min-compaction-lag');
    const young = segs.find((s) => (s.maxTimestamp > 0 ? s.maxTimestamp : s.maxAppendTimeMs) > t.nowMs - 5_500)!;
    expect(o.firstUncleanableDirtyOffset).toBe(young.baseOffset);
    // A lag shorter than the newest segment's age bounds nothing.
    expect(cleanableOffsets(t.log, segs, t.nowMs + 60_000, { ...COMPACTION, minCompactionLagMs: 1 }).bound).toBe('active-segment');
  });

  it('resets a checkpoint past the log end or below the log start to the log start, and says it must be rewritten (testDirtyOffsetResetIfLargerThanEndOffset, …SmallerThanStartOffset)', () => {
    const t = logOf(3);
    t.log.setCleanerCheckpoint(t.log.logEndOffset + 10);
    expect(cleanableOffsets(t.log, t.log.segmentStats(), 0, COMPACTION)).toMatchObject({ firstDirtyOffset: 0, forceUpdateCheckpoint: true });
    t.log.setCleanerCheckpoint(2);
    t.log.advanceLogStartOffset(3);
    expect(cleanableOffsets(t.log, t.log.segmentStats(), 0, COMPACTION)).toMatchObject({ firstDirtyOffset: 3, forceUpdateCheckpoint: true });
  });

  it('never lets the uncleanable offset fall below the first dirty one (testDirtyOffsetLargerThanActiveSegmentBaseOffset)', () => {
    const t = logOf(3);
    t.log.setCleanerCheckpoint(t.log.logEndOffset);
    const o = cleanableOffsets(t.log, t.log.segmentStats(), 0, COMPACTION);
    expect(o.firstUncleanableDirtyOffset).toBe(o.firstDirtyOffset);
    expect(t.logToClean().cleanableBytes).toBe(0);
  });

  it('pulls the checkpoint back when the log is truncated below it (testMaybeTruncateCheckpointShouldTruncateData)', () => {
    const t = logOf(4);
    t.clean();
    const checkpoint = t.log.cleanerCheckpoint()!;
    t.log.truncateTo(checkpoint - 2);
    expect(t.log.cleanerCheckpoint()).toBe(checkpoint - 2);
    t.reopen();
    expect(t.log.cleanerCheckpoint()).toBe(checkpoint - 2);
  });

  it('a log past max.compaction.lag.ms needs compaction now whatever its ratio (KIP-354)', () => {
    const t = logOf(4, 1_000);
    t.clean();
    t.append([kv(1, 'x', t.nowMs)]);
    t.nowMs += 5_000;
    t.rollNow();
    t.append([kv(2, 'y', t.nowMs)]);
    const lazy = t.logToClean({ minCleanableDirtyRatio: 0.99 });
    expect(lazy.needCompactionNow).toBe(false);
    const due = t.logToClean({ minCleanableDirtyRatio: 0.99, maxCompactionLagMs: 3_000 });
    expect(due.needCompactionNow).toBe(true);
    expect(due.compactionDelayMs).toBeGreaterThan(0);
    expect(due.cleanableBytes).toBeGreaterThan(0);
  });
});
