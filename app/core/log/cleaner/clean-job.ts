/**
 * One cleaning of one log (Kafka's Cleaner.doClean), done a buffer at a time so that the broker
 * answers between two steps: each `step` reads at most one I/O buffer of the log (the first
 * batch even when it is larger, as Kafka grows its buffer for it).
 *
 * 1. Map: from the first dirty offset up to the first uncleanable one, every keyed record's
 *    offset goes into the offset map, segment by segment, until the map is full (its slots times
 *    the load factor): the cleaning then covers the log only up to the last offset it mapped.
 * 2. Clean: the segments from the start of the log up to that offset, grouped so that a group's
 *    segments together stay within segment.bytes (and 2^31 offsets), are recopied group by group
 *    keeping a record when
 *      - it lies past the map's last offset (not looked at), or
 *      - it is its key's last record (its offset is at least the map's), and it has a value, or
 *        it is a tombstone whose batch has no delete horizon yet or one still in the future.
 *    Keyless records go (a compacted log cannot have them). A batch keeps every record that
 *    stays, at its own offset, with its base and last offset and producer fields; a batch left
 *    with no record is kept empty when it holds the last sequence of a producer the log still
 *    knows, or ends right before the first uncleanable offset (so the log end survives), and
 *    dropped otherwise. The first cleaning that keeps a tombstone sets the batch's delete horizon
 *    to now + delete.retention.ms (KIP-534); a later cleaning past it removes the tombstone.
 *    Each group is swapped into the log at once (`replaceCleaned`, one storage transaction).
 *
 * A change to the log other than an append (truncation, a log start move) aborts the job: the
 * groups already swapped stay (each is a complete, correct cleaning), the checkpoint does not
 * move, and a later cleaning starts again from it (Kafka aborts on truncation the same way).
 */
import type { AbortedTxn } from '../producer-state.js';
import type { RecordBatch } from '../records.js';
import { recordOffset } from '../records.js';
import { type CleanableLog, type CompactionConfig, type LogToClean, type SegmentStats, segmentsBetween } from './cleanable.js';
import { type CleanedBatchWriter, type RecordVisitor, scanRecords } from './cleaned-batch.js';
import type { OffsetMap } from './offset-map.js';

const INT_MAX = 2 ** 31 - 1;

/** A log as a cleaning job uses it (a PartitionLog). */
export interface JobLog extends CleanableLog {
  readonly changes: number;
  /** The aborted transactions overlapping [from, until) (a log no transaction wrote to has none). */
  abortedTransactions?(from: number, until: number): readonly AbortedTxn[];
  replaceCleaned(fromOffset: number, untilOffset: number, batches: readonly RecordBatch[]): void;
}

/** Thrown by a step when the log changed under the job. */
export class CleanAbortedError extends Error {}

/** Kafka's CleanerStats, plus what the console shows of tombstones. */
export interface CleanStats {
  mapBytesRead: number;
  mapRecordsRead: number;
  bytesRead: number;
  bytesWritten: number;
  recordsRead: number;
  recordsWritten: number;
  /** Records without a key (a compacted log cannot keep them). */
  invalidRecords: number;
  /** Tombstones removed because their delete horizon had passed. */
  tombstonesRemoved: number;
  /** Tombstones kept, waiting for their batch's delete horizon. */
  tombstonesKept: number;
  /** The earliest delete horizon among the kept tombstones (-1 when none). */
  earliestDeleteHorizonMs: number;
  /** The offset map's share of its slots in use at the end (Kafka's buffer utilization). */
  bufferUtilization: number;
  /** Groups of segments swapped in. */
  groupsSwapped: number;
}

export function emptyStats(): CleanStats {
  return {
    mapBytesRead: 0,
    mapRecordsRead: 0,
    bytesRead: 0,
    bytesWritten: 0,
    recordsRead: 0,
    recordsWritten: 0,
    invalidRecords: 0,
    tombstonesRemoved: 0,
    tombstonesKept: 0,
    earliestDeleteHorizonMs: -1,
    bufferUtilization: 0,
    groupsSwapped: 0,
  };
}

/** A run of segments cleaned into one: [fromOffset, untilOffset). */
export interface SegmentGroup {
  fromOffset: number;
  untilOffset: number;
  bytes: number;
}

/**
 * Kafka's groupSegmentsBySize: consecutive segments whose sizes add up to at most `maxBytes`,
 * spanning at most 2^31 offsets (an empty segment joins whatever its span). `all` is the whole
 * segment list (to find where each group ends); `segments` the ones to group.
 */
export function groupSegmentsBySize(all: readonly SegmentStats[], segments: readonly SegmentStats[], maxBytes: number, firstUncleanableOffset: number): SegmentGroup[] {
  const groups: SegmentGroup[] = [];
  const endOf = (s: SegmentStats): number => all[all.indexOf(s) + 1]?.baseOffset ?? firstUncleanableOffset;
  let i = 0;
  while (i < segments.length) {
    const first = segments[i]!;
    let last = first;
    let bytes = first.bytes;
    i++;
    while (i < segments.length) {
      const s = segments[i]!;
      const lastOffsetOfIt = (i + 1 < segments.length ? segments[i + 1]!.baseOffset : firstUncleanableOffset) - 1;
      if (bytes + s.bytes > maxBytes) break;
      if (s.bytes !== 0 && lastOffsetOfIt - last.baseOffset > INT_MAX) break;
      last = s;
      bytes += s.bytes;
      i++;
    }
    groups.push({ fromOffset: first.baseOffset, untilOffset: endOf(last), bytes });
  }
  return groups;
}

export class CleanJob {
  readonly stats = emptyStats();
  phase: 'map' | 'clean' | 'done' = 'map';
  /** The first offset this cleaning does not cover (the new checkpoint), once mapped. */
  endOffset = -1;
  private readonly changesAtStart: number;
  private readonly maxMapSize: number;
  // map phase
  private readonly dirty: { from: number; until: number }[];
  private dirtyIndex = 0;
  private mapPos: number;
  // clean phase
  private groups: SegmentGroup[] = [];
  private groupIndex = 0;
  private cleanPos = 0;
  private output: RecordBatch[] = [];
  private activeProducers: ReadonlyMap<number, number> = new Map();
  private readonly scan: (batch: RecordBatch, visit: RecordVisitor) => void;
  private readonly aborted: readonly AbortedTxn[];

  constructor(
    readonly log: JobLog,
    readonly toClean: LogToClean,
    private readonly map: OffsetMap,
    loadFactor: number,
    private readonly cfg: CompactionConfig,
    private readonly writer: CleanedBatchWriter,
    /** When the cleaning began: tombstones and delete horizons are judged against it. */
    readonly nowMs: number,
    /** Each idempotent producer the log knows, with the last offset of its last batch. */
    private readonly lastOffsetsOfProducers: () => ReadonlyMap<number, number>,
  ) {
    this.changesAtStart = log.changes;
    this.scan = writer.scan ? (b, v) => writer.scan!(b, v) : scanRecords;
    this.maxMapSize = Math.floor(map.slots * loadFactor);
    if (this.maxMapSize < 1) throw new Error('offset map is too small to fit in even a single message, so log cleaning will never make progress. You can increase log.cleaner.dedupe.buffer.size or decrease log.cleaner.threads');
    map.clear();
    const segments = log.segmentStats();
    const dirty = segmentsBetween(segments, toClean.firstDirtyOffset, toClean.firstUncleanableOffset);
    this.dirty = dirty.map((s, i) => ({ from: s.baseOffset, until: dirty[i + 1]?.baseOffset ?? toClean.firstUncleanableOffset }));
    this.mapPos = toClean.firstDirtyOffset;
    this.aborted = log.abortedTransactions?.(log.logStartOffset, toClean.firstUncleanableOffset) ?? [];
  }

  /**
   * Kafka's cleaner discards the records of aborted transactions and never lets them into the
   * offset map (a later aborted value must not hide a committed one). Markers are kept: Kafka
   * removes one only once its transaction's records are gone and delete.retention.ms has passed.
   */
  private isAborted(batch: RecordBatch): boolean {
    if (!batch.transactional || batch.control || !batch.producer || this.aborted.length === 0) return false;
    const pid = batch.producer.producerId;
    return this.aborted.some((t) => t.producerId === pid && t.firstOffset <= batch.baseOffset && batch.lastOffset <= t.lastOffset);
  }

  get done(): boolean {
    return this.phase === 'done';
  }

  /** Do one buffer's worth of work; returns the bytes read and written. */
  step(bufferBytes: number): number {
    if (this.log.changes !== this.changesAtStart) throw new CleanAbortedError(`the log changed while it was being cleaned`);
    if (this.phase === 'map') return this.mapStep(bufferBytes);
    if (this.phase === 'clean') return this.cleanStep(bufferBytes);
    return 0;
  }

  // ---------------------------------------------------------------- map

  private mapStep(bufferBytes: number): number {
    const seg = this.dirty[this.dirtyIndex];
    if (!seg) return this.startCleaning();
    const start = this.toClean.firstDirtyOffset;
    const from = Math.max(this.mapPos, seg.from);
    const batches = from < seg.until ? this.log.read(from, seg.until, bufferBytes) : [];
    let bytes = 0;
    let full = false;
    for (const batch of batches) {
      const skip = batch.control || this.isAborted(batch);
      if (!skip) this.scan(batch, (i, key) => {
        const offset = recordOffset(batch, i);
        if (key !== null && offset >= start) {
          // Kafka stops at a full map whatever the key (it cannot tell a new key from a known one cheaply).
          if (this.map.size >= this.maxMapSize) {
            full = true;
            return false;
          }
          this.map.put(key, offset);
        }
        this.stats.mapRecordsRead++;
        return true;
      });
      if (full) {
        this.stats.mapBytesRead += bytes;
        return bytes + this.startCleaning();
      }
      if (batch.lastOffset >= start) this.map.updateLatestOffset(batch.lastOffset);
      bytes += batch.sizeBytes;
      this.mapPos = batch.lastOffset + 1;
    }
    this.stats.mapBytesRead += bytes;
    if (batches.length === 0 || this.mapPos >= seg.until) {
      // Offsets the cleaner removed before may leave the segment's end without a batch.
      this.map.updateLatestOffset(seg.until - 1);
      this.dirtyIndex++;
      this.mapPos = this.dirty[this.dirtyIndex]?.from ?? this.mapPos;
    }
    return bytes;
  }

  private startCleaning(): number {
    this.endOffset = this.map.latestOffset + 1;
    const all = this.log.segmentStats();
    const toGroup = segmentsBetween(all, this.log.logStartOffset, this.endOffset).filter((s) => all.indexOf(s) < all.length - 1);
    this.groups = groupSegmentsBySize(all, toGroup, this.cfg.segmentBytes, this.toClean.firstUncleanableOffset);
    this.phase = 'clean';
    this.startGroup();
    return 0;
  }

  // ---------------------------------------------------------------- clean

  private startGroup(): void {
    const g = this.groups[this.groupIndex];
    if (!g) {
      this.stats.bufferUtilization = this.map.utilization;
      this.phase = 'done';
      return;
    }
    this.cleanPos = g.fromOffset;
    this.output = [];
    this.activeProducers = this.lastOffsetsOfProducers();
  }

  private cleanStep(bufferBytes: number): number {
    const g = this.groups[this.groupIndex]!;
    const batches = this.cleanPos < g.untilOffset ? this.log.read(this.cleanPos, g.untilOffset, bufferBytes) : [];
    let bytes = 0;
    for (const batch of batches) {
      const kept = this.filter(batch);
      bytes += batch.sizeBytes;
      if (kept) {
        this.output.push(kept);
        bytes += kept.sizeBytes;
        this.stats.bytesWritten += kept.sizeBytes;
      }
      this.cleanPos = batch.lastOffset + 1;
    }
    if (batches.length === 0 || this.cleanPos >= g.untilOffset) {
      this.log.replaceCleaned(g.fromOffset, g.untilOffset, this.output);
      this.stats.groupsSwapped++;
      this.groupIndex++;
      this.startGroup();
    }
    return bytes;
  }

  /** Kafka's cleanInto filter for one batch: the batch to write, or null to drop it. */
  private filter(batch: RecordBatch): RecordBatch | null {
    if (batch.control) {
      this.stats.bytesRead += batch.sizeBytes;
      return batch;
    }
    const aborted = this.isAborted(batch);
    const map = this.map;
    const now = this.nowMs;
    const horizon = batch.deleteHorizonMs;
    const keep: number[] = [];
    let tombstones = 0;
    let count = 0;
    this.stats.bytesRead += batch.sizeBytes;
    this.scan(batch, (i, key, tombstone) => {
      count++;
      const offset = recordOffset(batch, i);
      let retain: boolean;
      if (aborted) retain = false;
      else if (offset > map.latestOffset) retain = true;
      else if (key === null) {
        this.stats.invalidRecords++;
        retain = false;
      } else {
        const latest = offset >= map.get(key);
        const retainedValue = !tombstone || horizon === undefined || now < horizon;
        retain = latest && retainedValue;
        if (latest && !retainedValue) this.stats.tombstonesRemoved++;
      }
      if (!retain) return;
      keep.push(i);
      if (tombstone) tombstones++;
    });
    this.stats.recordsRead += count;
    const producer = batch.producer;
    const lastOfProducer = producer !== undefined && this.activeProducers.get(producer.producerId) === batch.lastOffset;
    const lastOfRound = batch.lastOffset + 1 === this.toClean.firstUncleanableOffset;
    if (keep.length === 0) return lastOfProducer || lastOfRound ? this.writer.retain(batch, [], undefined) : null;
    this.stats.recordsWritten += keep.length;
    const needHorizon = tombstones > 0 && horizon === undefined;
    const newHorizon = needHorizon ? now + this.cfg.deleteRetentionMs : horizon;
    if (tombstones > 0) {
      this.stats.tombstonesKept += tombstones;
      if (newHorizon !== undefined && (this.stats.earliestDeleteHorizonMs < 0 || newHorizon < this.stats.earliestDeleteHorizonMs)) this.stats.earliestDeleteHorizonMs = newHorizon;
    }
    if (keep.length === count && !needHorizon) return batch;
    return this.writer.retain(batch, keep, newHorizon);
  }
}
