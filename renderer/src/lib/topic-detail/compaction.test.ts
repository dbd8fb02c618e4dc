import { describe, expect, it } from 'vitest';
import type { ReplicaCompactionView, TopicCompactionView } from '../../../../app/api/compaction-contract.js';
import { bandsOf, checkpointText, interplay, lastCleanText, policyHint, ratioText, tombstoneText } from './compaction.js';

const replica = (over: Partial<ReplicaCompactionView> = {}): ReplicaCompactionView => ({
  brokerId: 1,
  leader: true,
  cleanerCheckpoint: 40,
  logStartOffset: 0,
  logEndOffset: 100,
  highWatermark: 100,
  firstDirtyOffset: 40,
  firstUncleanableOffset: 90,
  cleanBytes: 1000,
  cleanableBytes: 3000,
  dirtyRatio: 0.75,
  minCleanableDirtyRatio: 0.5,
  needCompactionNow: false,
  compactionDelayMs: 0,
  state: 'eligible',
  reason: 'x',
  uncleanableReason: null,
  phase: null,
  lastClean: null,
  segments: [
    { baseOffset: 0, bytes: 1000, section: 'clean' },
    { baseOffset: 40, bytes: 2000, section: 'dirty' },
    { baseOffset: 70, bytes: 1000, section: 'dirty' },
    { baseOffset: 90, bytes: 0, section: 'active' },
  ],
  ...over,
});

describe('the Compaction section', () => {
  it("draws a replica's log as its cleaned tail, its dirty head and the active segment, by bytes, the empty active segment still visible", () => {
    const bands = bandsOf(replica());
    expect(bands.map((b) => [b.section, b.fromOffset, b.untilOffset, b.bytes])).toEqual([
      ['clean', 0, 40, 1000],
      ['dirty', 40, 90, 3000],
      ['active', 90, 100, 0],
    ]);
    expect(bands[1]!.share).toBeGreaterThan(bands[0]!.share * 2.5);
    expect(bands[2]!.share).toBeGreaterThan(0);
    expect(bands.reduce((n, b) => n + b.share, 0)).toBeCloseTo(1, 9);
  });

  it('says how far the log is cleaned and how dirty it is against its threshold', () => {
    expect(checkpointText(replica())).toBe('Cleaned up to offset 40: below it each key has one record, its latest, at its original offset; 60 offsets above it are not cleaned yet.');
    expect(checkpointText(replica({ cleanerCheckpoint: null }))).toBe('Never cleaned: the whole log is dirty.');
    expect(ratioText(replica())).toBe('Dirty ratio 75% (2.9 KiB cleanable of 3.9 KiB) against min.cleanable.dirty.ratio 50%.');
    expect(ratioText(replica({ needCompactionNow: true, compactionDelayMs: 90_000 }))).toContain('dirty for 1.5 min past max.compaction.lag.ms');
  });

  it('counts what the last cleaning removed, and when the tombstones it kept may go', () => {
    const c = { startedAtMs: 0, finishedAtMs: 10, firstDirtyOffset: 40, endOffset: 90, cleanableRatio: 0.75, bytesRead: 4000, bytesWritten: 1500, recordsRead: 90, recordsWritten: 20, invalidRecords: 0, tombstonesRemoved: 2, tombstonesKept: 3, earliestDeleteHorizonMs: 70_000 };
    expect(lastCleanText(c)).toBe('Cleaned offsets 40–89 (the dirty section at 75% dirty), recopying the log below 90; removed 70 of 90 records and 2.4 KiB of 3.9 KiB; 2 tombstones past delete.retention.ms.');
    expect(tombstoneText(c, 10_000)).toBe('3 tombstones waiting for delete.retention.ms: the first may go at the next cleaning after 1 min. Until then a consumer reading from the start still sees the deletion.');
    expect(tombstoneText({ ...c, tombstonesKept: 0 }, 0)).toBeNull();
  });

  it('explains how segment.ms, the compaction lags and delete.retention.ms play together', () => {
    const t: TopicCompactionView = {
      topic: 't',
      cleanupPolicy: ['compact'],
      compacted: true,
      settings: { minCleanableDirtyRatio: 0.5, minCompactionLagMs: 60_000, maxCompactionLagMs: 3_600_000, deleteRetentionMs: 86_400_000, segmentMs: 604_800_000, segmentBytes: 1_073_741_824 },
      partitions: [],
    };
    const notes = interplay(t);
    expect(notes[0]).toContain('max.compaction.lag.ms (1 h) rolls it sooner');
    expect(notes[1]).toContain('within segment.ms');
    expect(notes.at(-1)).toContain('delete.retention.ms (1 d)');
    expect(interplay({ ...t, cleanupPolicy: ['delete'], compacted: false })).toEqual([
      'cleanup.policy is delete: the log cleaner leaves this topic alone; only retention.ms and retention.bytes remove its records.',
    ]);
  });

  it("tells in the create wizard what the chosen cleanup.policy does with its settings", () => {
    expect(policyHint('delete', null, null)).toContain('retention.ms');
    const compact = policyHint('compact', 3_600_000, 600_000);
    expect(compact).toContain('last record of each key at its original offset');
    expect(compact).toContain('min.compaction.lag.ms keeps every update readable for 10 min');
    expect(compact).toContain('Tombstones (a key with a null value) stay 1 h');
    expect(policyHint('compact,delete', null, null)).toContain('latest values included');
  });
});
