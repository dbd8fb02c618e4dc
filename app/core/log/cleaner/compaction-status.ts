/**
 * What one replica's cleaner state looks like from outside (the console's Compaction section):
 * the cleaner's checkpoint, the clean / dirty / uncleanable sections of the log by segment, the
 * dirty ratio against min.cleanable.dirty.ratio, the last cleaning, and why the cleaner has not
 * taken the log yet — in the order the cleaner itself decides (LogCleanerManager's filters).
 */
import { type CompactionConfig, type LogToClean, logToClean, type CleanableLog } from './cleanable.js';
import type { CleanStats } from './clean-job.js';

/** The last cleaning of one log. */
export interface CleanSummary {
  startedAtMs: number;
  finishedAtMs: number;
  firstDirtyOffset: number;
  endOffset: number;
  cleanableRatio: number;
  stats: CleanStats;
}

/** Where the cleaner stands with a log, the first that applies. */
export type CleanerWait =
  /** A cleaner is working on it now. */
  | 'cleaning'
  /** The cleaner failed on it and leaves it alone until the broker restarts. */
  | 'uncleanable'
  /** log.cleaner.enable=false on this broker. */
  | 'cleaner-disabled'
  /** Nothing to clean: the log holds no bytes outside its active segment. */
  | 'empty'
  /** The dirty section is all in the active segment, which is never cleaned. */
  | 'active-segment'
  /** The dirty section is not below this replica's high watermark yet. */
  | 'high-watermark'
  /** The dirty segments are younger than min.compaction.lag.ms. */
  | 'min-compaction-lag'
  /** Dirty, but not dirtier than min.cleanable.dirty.ratio (and not past max.compaction.lag.ms). */
  | 'ratio-below-threshold'
  /** Dirty enough: the next cleaner run takes it (the dirtiest log first). */
  | 'eligible';

export interface CompactionSegment {
  baseOffset: number;
  bytes: number;
  /** clean: below the checkpoint; dirty: cleanable now; uncleanable: dirty but not cleanable yet; active: the active segment. */
  section: 'clean' | 'dirty' | 'uncleanable' | 'active';
}

export interface CompactionStatus {
  /** The cleaner's checkpoint: every offset below it has been cleaned (null: never cleaned). */
  cleanerCheckpoint: number | null;
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
  firstDirtyOffset: number;
  firstUncleanableOffset: number;
  cleanBytes: number;
  cleanableBytes: number;
  dirtyRatio: number;
  minCleanableDirtyRatio: number;
  /** Past max.compaction.lag.ms: taken whatever its ratio. */
  needCompactionNow: boolean;
  compactionDelayMs: number;
  state: CleanerWait;
  /** The state in words. */
  reason: string;
  uncleanableReason: string | null;
  /** The phase of the cleaning in progress, if any. */
  phase: 'map' | 'clean' | null;
  lastClean: CleanSummary | null;
  segments: CompactionSegment[];
}

export interface CleanerView {
  enabled: boolean;
  inProgress: 'map' | 'clean' | null;
  uncleanableReason: string | null;
  lastClean: CleanSummary | null;
}

const pct = (r: number): string => `${Math.round(r * 1000) / 10}%`;

function waitOf(ltc: LogToClean, logBytes: number, cfg: CompactionConfig, view: CleanerView): { state: CleanerWait; reason: string } {
  if (view.inProgress) return { state: 'cleaning', reason: `A cleaner is ${view.inProgress === 'map' ? 'mapping the dirty section' : 'recopying the segments'}.` };
  if (view.uncleanableReason !== null) return { state: 'uncleanable', reason: `The cleaner failed on this log and leaves it until the broker restarts: ${view.uncleanableReason}` };
  if (!view.enabled) return { state: 'cleaner-disabled', reason: 'log.cleaner.enable is false on this broker: compacted logs keep every record.' };
  if (logBytes <= 0) return { state: 'empty', reason: 'The log holds no record.' };
  if (ltc.cleanableBytes <= 0) {
    if (ltc.bound === 'min-compaction-lag') return { state: 'min-compaction-lag', reason: `The dirty segments are younger than min.compaction.lag.ms (${cfg.minCompactionLagMs} ms).` };
    if (ltc.bound === 'high-watermark') return { state: 'high-watermark', reason: 'The dirty records are not below the high watermark (or an open transaction\'s first offset) yet.' };
    return { state: 'active-segment', reason: 'Every dirty record is in the active segment, which is never cleaned (segment.ms or segment.bytes rolls it).' };
  }
  if (ltc.needCompactionNow) return { state: 'eligible', reason: `Dirty for longer than max.compaction.lag.ms: the next cleaner run takes it whatever its ratio.` };
  if (ltc.cleanableRatio <= cfg.minCleanableDirtyRatio) {
    return { state: 'ratio-below-threshold', reason: `The dirty ratio ${pct(ltc.cleanableRatio)} is not above min.cleanable.dirty.ratio ${pct(cfg.minCleanableDirtyRatio)}.` };
  }
  return { state: 'eligible', reason: `The dirty ratio ${pct(ltc.cleanableRatio)} is above min.cleanable.dirty.ratio ${pct(cfg.minCleanableDirtyRatio)}: the next cleaner run takes it (the dirtiest log first).` };
}

export function compactionStatus(log: CleanableLog, cfg: CompactionConfig, view: CleanerView, nowMs: number): CompactionStatus {
  const ltc = logToClean(log, nowMs, cfg);
  const segments = log.segmentStats();
  const { state, reason } = waitOf(ltc, segments.reduce((n, s) => n + s.bytes, 0), cfg, view);
  return {
    cleanerCheckpoint: log.cleanerCheckpoint(),
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    highWatermark: log.highWatermark,
    firstDirtyOffset: ltc.firstDirtyOffset,
    firstUncleanableOffset: ltc.firstUncleanableOffset,
    cleanBytes: ltc.cleanBytes,
    cleanableBytes: ltc.cleanableBytes,
    dirtyRatio: ltc.cleanableRatio,
    minCleanableDirtyRatio: cfg.minCleanableDirtyRatio,
    needCompactionNow: ltc.needCompactionNow,
    compactionDelayMs: ltc.compactionDelayMs,
    state,
    reason,
    uncleanableReason: view.uncleanableReason,
    phase: view.inProgress,
    lastClean: view.lastClean,
    segments: segments.map((s, i) => ({
      baseOffset: s.baseOffset,
      bytes: s.bytes,
      section: i === segments.length - 1 ? 'active' : (segments[i + 1]?.baseOffset ?? Infinity) <= ltc.firstDirtyOffset ? 'clean' : s.baseOffset < ltc.firstUncleanableOffset ? 'dirty' : 'uncleanable',
    })),
  };
}
