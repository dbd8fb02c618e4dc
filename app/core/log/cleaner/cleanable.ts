/**
 * Which part of a compacted log the cleaner may clean, and how dirty it is (the per-log half of
 * Kafka's LogCleanerManager: `cleanableOffsets`, `calculateCleanableBytes`, `maxCompactionDelay`,
 * and LogToClean's ratio). A log is split in three: the clean section (below the cleaner's
 * checkpoint), the cleanable dirty section, and the uncleanable rest, which starts at the
 * earliest of
 *   - the high watermark (Kafka's last stable offset; without transactions they are the same),
 *   - the active segment's base offset (the active segment is never cleaned),
 *   - the first dirty segment whose largest timestamp is within min.compaction.lag.ms of now,
 * moved down to the base of the segment holding it (segments are cleaned whole). The dirty
 * ratio is cleanable bytes over clean plus cleanable bytes; the cleaner takes a log whose ratio
 * is above min.cleanable.dirty.ratio, or one with cleanable bytes whose earliest dirty segment
 * waited longer than max.compaction.lag.ms (KIP-354) — its first batch's timestamp says since
 * when.
 *
 * Timestamps <= 0 count as none, as everywhere in the log (partition-log.ts): a segment without
 * one is dated by its append time, where Kafka dates it by its file's modification time.
 */
import type { SegmentInfo } from '../log-store.js';
import type { LogRecord, RecordBatch } from '../records.js';

/** A segment with its size and times (PartitionLog.segmentStats). */
export interface SegmentStats extends SegmentInfo {
  bytes: number;
  maxTimestamp: number;
  maxAppendTimeMs: number;
}

/** What the cleaner reads of a log (a PartitionLog). */
export interface CleanableLog {
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly highWatermark: number;
  /** The first offset of an open transaction, else the HW (KIP-98): the cleaner stops before it, as Kafka's. */
  readonly lastStableOffset?: number;
  /** Segments oldest first; the last is the active one. */
  segmentStats(): SegmentStats[];
  read(fromOffset: number, untilOffset: number, maxBytes: number): RecordBatch[];
  cleanerCheckpoint(): number | null;
}

/** A topic's compaction settings, resolved (TopicRuntimeConfig has them all). */
export interface CompactionConfig {
  minCleanableDirtyRatio: number;
  minCompactionLagMs: number;
  maxCompactionLagMs: number;
  deleteRetentionMs: number;
  segmentBytes: number;
  maxMessageBytes: number;
}

/** What bounds the dirty section from above. */
export type UncleanableBound = 'high-watermark' | 'active-segment' | 'min-compaction-lag';

export interface CleanableOffsets {
  /** Where cleaning starts: the checkpoint, or the log start when there is none (or it is invalid). */
  firstDirtyOffset: number;
  /** Where cleaning must stop (exclusive), before moving down to a segment boundary. */
  firstUncleanableDirtyOffset: number;
  /** The checkpoint was below the log start or past the log end: write firstDirtyOffset over it. */
  forceUpdateCheckpoint: boolean;
  /** Which bound set firstUncleanableDirtyOffset. */
  bound: UncleanableBound;
}

/** Kafka's LogSegment.largestTimestamp, with this engine's "no timestamp" fallback. */
export function largestTimestamp(s: SegmentStats): number {
  return s.maxTimestamp > 0 ? s.maxTimestamp : s.maxAppendTimeMs;
}

/** The index of the segment holding `offset` (the last based at or below it; 0 when none is). */
function floorIndex(segments: readonly SegmentStats[], offset: number): number {
  let i = 0;
  while (i + 1 < segments.length && segments[i + 1]!.baseOffset <= offset) i++;
  return i;
}

/** Kafka's nonActiveLogSegmentsFrom: from the segment holding `offset` up to the active one, excluded. */
export function nonActiveSegmentsFrom(segments: readonly SegmentStats[], offset: number): SegmentStats[] {
  return segments.slice(floorIndex(segments, offset), segments.length - 1);
}

/** Kafka's logSegments(from, to): the segments based in [floor(from), to). */
export function segmentsBetween(segments: readonly SegmentStats[], from: number, to: number): SegmentStats[] {
  if (from >= to) return [];
  const first = segments[0] && segments[0].baseOffset <= from ? floorIndex(segments, from) : 0;
  return segments.slice(first).filter((s) => s.baseOffset < to);
}

export function cleanableOffsets(log: CleanableLog, segments: readonly SegmentStats[], nowMs: number, cfg: CompactionConfig): CleanableOffsets {
  const logStart = log.logStartOffset;
  const checkpoint = log.cleanerCheckpoint() ?? logStart;
  const invalid = checkpoint < logStart || checkpoint > log.logEndOffset;
  const firstDirtyOffset = invalid ? logStart : checkpoint;
  const active = segments[segments.length - 1]!;
  let bound: UncleanableBound = 'high-watermark';
  // Kafka never cleans at or past the last stable offset: an open transaction may still abort.
  let uncleanable = Math.min(log.highWatermark, log.lastStableOffset ?? Infinity);
  if (active.baseOffset < uncleanable) {
    uncleanable = active.baseOffset;
    bound = 'active-segment';
  }
  if (cfg.minCompactionLagMs > 0) {
    const young = nonActiveSegmentsFrom(segments, firstDirtyOffset).find((s) => largestTimestamp(s) > nowMs - cfg.minCompactionLagMs);
    if (young && young.baseOffset < uncleanable) {
      uncleanable = young.baseOffset;
      bound = 'min-compaction-lag';
    }
  }
  return { firstDirtyOffset, firstUncleanableDirtyOffset: Math.max(firstDirtyOffset, uncleanable), forceUpdateCheckpoint: invalid, bound };
}

/** Kafka's calculateCleanableBytes: the segment-aligned first uncleanable offset and the bytes before it. */
export function calculateCleanableBytes(segments: readonly SegmentStats[], firstDirtyOffset: number, uncleanableOffset: number): { firstUncleanableOffset: number; cleanableBytes: number } {
  const firstUncleanableSegment = nonActiveSegmentsFrom(segments, uncleanableOffset)[0] ?? segments[segments.length - 1]!;
  const firstUncleanableOffset = firstUncleanableSegment.baseOffset;
  let cleanableBytes = 0;
  for (const s of segmentsBetween(segments, Math.min(firstDirtyOffset, firstUncleanableOffset), firstUncleanableOffset)) cleanableBytes += s.bytes;
  return { firstUncleanableOffset, cleanableBytes };
}

/** The largest record timestamp of the records, -1 when none has one. */
function maxTimestampOf(records: readonly LogRecord[]): number {
  let max = -1;
  for (const r of records) if (r.timestamp > max) max = r.timestamp;
  return max;
}

/**
 * Kafka's maxCompactionDelay: how long past max.compaction.lag.ms the earliest dirty segment
 * (dated by its first batch) has waited; 0 when none has.
 */
export function maxCompactionDelay(log: CleanableLog, segments: readonly SegmentStats[], firstDirtyOffset: number, nowMs: number, maxCompactionLagMs: number): number {
  const cleanUntil = nowMs - Math.max(maxCompactionLagMs, 0);
  if (cleanUntil <= 0) return 0; // no segment can be that old (the default lag is Long.MAX_VALUE)
  const dirty = nonActiveSegmentsFrom(segments, firstDirtyOffset);
  let earliest = Infinity;
  for (let i = 0; i < dirty.length; i++) {
    const s = dirty[i]!;
    const next = segments[segments.indexOf(s) + 1]!;
    const first = log.read(s.baseOffset, next.baseOffset, 1)[0];
    if (!first) continue;
    const t = maxTimestampOf(first.records);
    const ts = t > 0 ? t : first.appendTimeMs;
    if (ts > 0 && ts < earliest) earliest = ts;
  }
  return earliest < cleanUntil ? cleanUntil - earliest : 0;
}

/** Kafka's LogToClean: where a cleaning would start and stop, and how dirty the log is. */
export interface LogToClean {
  firstDirtyOffset: number;
  /** Segment-aligned: the base of the first segment not cleaned. */
  firstUncleanableOffset: number;
  cleanBytes: number;
  cleanableBytes: number;
  totalBytes: number;
  cleanableRatio: number;
  /** Past max.compaction.lag.ms: cleaned whatever its ratio (when it has cleanable bytes). */
  needCompactionNow: boolean;
  compactionDelayMs: number;
  forceUpdateCheckpoint: boolean;
  bound: UncleanableBound;
}

export function logToClean(log: CleanableLog, nowMs: number, cfg: CompactionConfig): LogToClean {
  const segments = log.segmentStats();
  const offsets = cleanableOffsets(log, segments, nowMs, cfg);
  const delay = maxCompactionDelay(log, segments, offsets.firstDirtyOffset, nowMs, cfg.maxCompactionLagMs);
  let cleanBytes = 0;
  for (const s of segments) if (s.baseOffset < offsets.firstDirtyOffset) cleanBytes += s.bytes;
  const { firstUncleanableOffset, cleanableBytes } = calculateCleanableBytes(segments, offsets.firstDirtyOffset, offsets.firstUncleanableDirtyOffset);
  const totalBytes = cleanBytes + cleanableBytes;
  return {
    firstDirtyOffset: offsets.firstDirtyOffset,
    firstUncleanableOffset,
    cleanBytes,
    cleanableBytes,
    totalBytes,
    cleanableRatio: totalBytes > 0 ? cleanableBytes / totalBytes : 0,
    needCompactionNow: delay > 0,
    compactionDelayMs: delay,
    forceUpdateCheckpoint: offsets.forceUpdateCheckpoint,
    bound: offsets.bound,
  };
}

/** Whether the cleaner would take this log now (LogCleanerManager.grabFilthiestCompactedLog's filter). */
export function isCleanable(ltc: LogToClean, minCleanableDirtyRatio: number): boolean {
  if (ltc.totalBytes <= 0) return false;
  return (ltc.needCompactionNow && ltc.cleanableBytes > 0) || ltc.cleanableRatio > minCleanableDirtyRatio;
}
