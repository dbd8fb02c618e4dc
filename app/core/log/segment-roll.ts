/**
 * When a log's active segment rolls (Kafka's `LogSegment.shouldRoll`) and how a stored segment
 * list is fitted to a recovered log: decisions over segment bases, sizes and timestamps.
 *
 * Apart from the log (partition-log.ts), which owns the segment list and does the roll: these
 * rules read only what they are given, so the rules of rolling read in one place.
 */
import type { SegmentInfo } from './log-store.js';
import type { LogRecord } from './records.js';

/** What rolling needs from the topic config (a TopicRuntimeConfig will do). */
export interface SegmentRollConfig {
  segmentBytes: number;
  segmentMs: number;
  /** A compacted log rolls by max.compaction.lag.ms too, when it is shorter (Kafka's LogConfig.maxSegmentMs). */
  cleanupPolicyCompact?: boolean;
  maxCompactionLagMs?: number;
}

/** Largest record timestamp of the records, or -1 when none has one. */
export function maxTimestampOf(records: readonly LogRecord[]): number {
  let max = -1;
  for (const r of records) if (r.timestamp > max) max = r.timestamp;
  return max;
}

/** The non-empty active segment as a roll decision sees it. */
export interface ActiveSegmentView {
  bytes: number;
  /** Largest timestamp of its first batch (-1: none). */
  firstTimestamp: number;
  createdMs: number;
}

/**
 * Kafka's `LogSegment.shouldRoll` (without segment.jitter.ms and the index limits): a non-empty
 * active segment rolls when `bytes + incoming > segment.bytes`, or when the time it waited
 * exceeds segment.ms. The wait is measured between the incoming records' largest timestamp and
 * its first batch's largest timestamp when that batch has one, else from its creation on the
 * broker clock.
 */
export function shouldRoll(active: ActiveSegmentView, incomingBytes: number, incomingMaxTimestamp: number, nowMs: number, cfg: SegmentRollConfig): boolean {
  const first = active.firstTimestamp;
  const waited = first > 0 ? incomingMaxTimestamp - first : nowMs - active.createdMs;
  const lag = cfg.maxCompactionLagMs ?? 0;
  const maxSegmentMs = cfg.cleanupPolicyCompact && lag > 0 ? Math.min(lag, cfg.segmentMs) : cfg.segmentMs;
  return active.bytes + incomingBytes > cfg.segmentBytes || waited > maxSegmentMs;
}

/**
 * The stored segment list, fitted to the recovered log [startOffset, leo]: segments past the log
 * end went with a lost tail, segments wholly below the log start are gone, and a log stored
 * without a list (or with none reaching its start) gets one segment from its log start.
 * createdMs survives a restart here, where Kafka stamps every loaded segment with the load time.
 * `changed`: the list differs from what was stored.
 */
export function fitSegments(loaded: readonly SegmentInfo[], startOffset: number, leo: number, nowMs: number): { segments: SegmentInfo[]; changed: boolean } {
  const kept = loaded.filter((seg, i) => seg.baseOffset <= leo && (loaded[i + 1]?.baseOffset ?? Infinity) > startOffset);
  if (kept.length === 0 || kept[0]!.baseOffset > startOffset) kept.unshift({ baseOffset: startOffset, createdMs: nowMs });
  const same = kept.length === loaded.length && kept.every((seg, i) => seg.baseOffset === loaded[i]!.baseOffset && seg.createdMs === loaded[i]!.createdMs);
  return { segments: kept, changed: !same };
}
