/**
 * The Compaction section's words and shapes, from `topics.compaction` (pure, so it runs in Node):
 * a replica's log drawn as its tail (cleaned: each key once, with gaps), its head (dirty, cleanable
 * now), what is not cleanable yet and the active segment; the dirty ratio against its threshold;
 * the last cleaning in numbers; the tombstones waiting for delete.retention.ms; and how the
 * topic's compaction settings play together.
 */
import type { CompactionSegmentView, LastCleanView, ReplicaCompactionView, TopicCompactionView } from '../../../../app/api/compaction-contract.js';
import { bytes, duration } from '../format.js';

export type Section = CompactionSegmentView['section'];

/** One run of segments of the same section, as a share of the log's bytes. */
export interface Band {
  section: Section;
  fromOffset: number;
  untilOffset: number;
  bytes: number;
  /** Share of the log's bytes, 0–1 (a section with no bytes still gets a sliver to be seen). */
  share: number;
}

export const SECTION_LABEL: Record<Section, string> = {
  clean: 'Tail: cleaned (each key once, gaps where records went)',
  dirty: 'Head: dirty, cleanable now',
  uncleanable: 'Dirty, not cleanable yet',
  active: 'Active segment (never cleaned)',
};

const MIN_SHARE = 0.02;

/** The replica's log as bands: consecutive segments of one section merged, oldest first. */
export function bandsOf(r: ReplicaCompactionView): Band[] {
  const bands: Band[] = [];
  r.segments.forEach((s, i) => {
    const until = r.segments[i + 1]?.baseOffset ?? r.logEndOffset;
    const last = bands[bands.length - 1];
    if (last && last.section === s.section) {
      last.untilOffset = until;
      last.bytes += s.bytes;
    } else bands.push({ section: s.section, fromOffset: s.baseOffset, untilOffset: until, bytes: s.bytes, share: 0 });
  });
  const total = bands.reduce((n, b) => n + b.bytes, 0);
  const raw = bands.map((b) => (total > 0 ? Math.max(b.bytes / total, MIN_SHARE) : 1 / bands.length));
  const sum = raw.reduce((n, x) => n + x, 0);
  bands.forEach((b, i) => (b.share = raw[i]! / sum));
  return bands;
}

const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`;

/** "Cleaned up to offset N", or that it never was. */
export function checkpointText(r: ReplicaCompactionView): string {
  if (r.cleanerCheckpoint === null) return 'Never cleaned: the whole log is dirty.';
  const above = r.logEndOffset - r.cleanerCheckpoint;
  return `Cleaned up to offset ${r.cleanerCheckpoint}: below it each key has one record, its latest, at its original offset; ${above} offset${above === 1 ? '' : 's'} above it ${above === 1 ? 'is' : 'are'} not cleaned yet.`;
}

/** The dirty ratio against min.cleanable.dirty.ratio, in words. */
export function ratioText(r: ReplicaCompactionView): string {
  const base = `Dirty ratio ${pct(r.dirtyRatio)} (${bytes(r.cleanableBytes)} cleanable of ${bytes(r.cleanBytes + r.cleanableBytes)}) against min.cleanable.dirty.ratio ${pct(r.minCleanableDirtyRatio)}`;
  if (r.needCompactionNow) return `${base}; dirty for ${duration(r.compactionDelayMs)} past max.compaction.lag.ms, so it is cleaned whatever its ratio.`;
  return `${base}.`;
}

/** What the last cleaning did, in numbers. */
export function lastCleanText(c: LastCleanView): string {
  const removed = c.recordsRead - c.recordsWritten;
  const parts = [
    `Cleaned offsets ${c.firstDirtyOffset}–${c.endOffset - 1} (the dirty section at ${pct(c.cleanableRatio)} dirty), recopying the log below ${c.endOffset}`,
    `removed ${removed} of ${c.recordsRead} records and ${bytes(Math.max(0, c.bytesRead - c.bytesWritten))} of ${bytes(c.bytesRead)}`,
  ];
  if (c.invalidRecords > 0) parts.push(`${c.invalidRecords} of them keyless`);
  if (c.tombstonesRemoved > 0) parts.push(`${c.tombstonesRemoved} tombstones past delete.retention.ms`);
  return `${parts.join('; ')}.`;
}

/** Tombstones the last cleaning kept, and when the first may go. */
export function tombstoneText(c: LastCleanView, nowMs: number): string | null {
  if (c.tombstonesKept === 0) return null;
  const when = c.earliestDeleteHorizonMs - nowMs;
  return `${c.tombstonesKept} tombstone${c.tombstonesKept === 1 ? '' : 's'} waiting for delete.retention.ms: the first may go at the next cleaning ${when > 0 ? `after ${duration(when)}` : 'from now on'}. Until then a consumer reading from the start still sees the deletion.`;
}

/** How the topic's compaction settings play together (notes for the section and the configs). */
export function interplay(t: TopicCompactionView): string[] {
  const s = t.settings;
  const notes: string[] = [];
  if (!t.compacted) {
    notes.push(`cleanup.policy is ${t.cleanupPolicy.join(',') || '(empty)'}: the log cleaner leaves this topic alone; only retention.ms and retention.bytes remove its records.`);
    return notes;
  }
  notes.push(
    `Records are only cleaned once their segment stops being the active one: segment.ms (${duration(s.segmentMs)}) or segment.bytes (${bytes(s.segmentBytes)}) rolls it${
      s.maxCompactionLagMs !== null && s.maxCompactionLagMs < s.segmentMs ? `, and here max.compaction.lag.ms (${duration(s.maxCompactionLagMs)}) rolls it sooner` : ''
    }.`,
  );
  if (s.minCompactionLagMs > 0) {
    notes.push(
      s.minCompactionLagMs <= s.segmentMs
        ? `min.compaction.lag.ms (${duration(s.minCompactionLagMs)}) is within segment.ms: a record already waits for its segment to roll, so the lag adds little.`
        : `min.compaction.lag.ms (${duration(s.minCompactionLagMs)}) keeps every update readable for at least that long after its segment rolled.`,
    );
  }
  notes.push(
    s.maxCompactionLagMs === null
      ? `No max.compaction.lag.ms: the cleaner takes the log only when it is more than ${pct(s.minCleanableDirtyRatio)} dirty (min.cleanable.dirty.ratio).`
      : `The cleaner takes the log when it is more than ${pct(s.minCleanableDirtyRatio)} dirty, or once its oldest dirty record waited max.compaction.lag.ms (${duration(s.maxCompactionLagMs)}).`,
  );
  notes.push(
    `Tombstones stay for delete.retention.ms (${duration(s.deleteRetentionMs)}) after the cleaning that reached them: a consumer (or a replica) that lags by more may never see a deletion and keep the value it deleted.`,
  );
  return notes;
}

/** The cleanup.policy values the create wizard offers. */
export type CleanupPolicy = 'delete' | 'compact' | 'compact,delete';

/** What the chosen cleanup.policy and compaction settings do together (the create wizard's hint). */
export function policyHint(policy: CleanupPolicy, deleteRetentionMs: number | null, minCompactionLagMs: number | null): string {
  if (policy === 'delete') return 'Segments older than retention.ms (or past retention.bytes) are deleted whole, whether or not anyone read them.';
  const lag = minCompactionLagMs ?? 0;
  const tombstones = deleteRetentionMs ?? 86_400_000;
  return (
    'The log cleaner keeps the last record of each key at its original offset (every record needs a key). It only cleans segments that are no longer active, so segment.ms (7 d by default) bounds how soon an update becomes cleanable' +
    (lag > 0 ? `, and min.compaction.lag.ms keeps every update readable for ${duration(lag)} after that` : '') +
    `. Tombstones (a key with a null value) stay ${duration(tombstones)} after the cleaning that reached them: a consumer reading from the start must finish within that to see every deletion.` +
    (policy === 'compact,delete' ? ' With delete too, segments past retention.ms also go, latest values included.' : '')
  );
}
