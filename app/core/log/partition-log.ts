/**
 * One replica's log as the broker uses it: records, leader-epoch cache, high watermark, last
 * stable offset (producer-state.ts), log start offset and flushed offset over a ReplicaLogStore.
 *
 * Invariants: logStartOffset <= lastStableOffset <= highWatermark <= logEndOffset; the epoch cache never names an
 * offset at or past the log end except the newest entry (a leader's epoch start with no writes
 * yet); on recovery after a power loss everything at or above the flushed offset is gone, and the
 * log is never truncated to its high watermark (KIP-101).
 *
 * Segments (Kafka's LogSegment, modelled as ranges of batches): the list is never empty, is
 * ordered by base offset, its first segment holds the log start offset and its last is the active
 * segment that takes appends. Before an append the active segment is rolled at the log end when
 * it is non-empty and the append would take it past segment.bytes, or it has waited longer than
 * segment.ms (Kafka's `LogSegment.shouldRoll`); a roll flushes everything before the new segment.
 * Retention (Kafka's `UnifiedLog.deleteOldSegments`, delete policy) removes whole segments from the
 * front, never one that reaches past the high watermark, so logStartOffset <= highWatermark holds.
 *
 * Disk use: every log adds its store's size to a shared `StoredBytes` counter (its broker's) when
 * it opens and every change of size while it lives, and takes it back with `release()` when the
 * replica is deleted; the counter is therefore the sum of the sizes of the logs it was given.
 *
 * Checkpoints: truncation, log-start moves and flushes write the checkpoint at once; a high
 * watermark that moves only marks it due, in the broker's `CheckpointsDue` set when it was given
 * one, and the broker's periodic task (replica.high.watermark.checkpoint.interval.ms) writes the
 * logs in that set — so an idle log costs that task nothing, not even a look.
 *
 * Compaction (app/core/log/cleaner) swaps whole segments below the active one for their cleaned
 * batches (`replaceCleaned`): the log end, epochs and producer sequences stay; offsets it removed
 * have no record (readers and followers move across the gaps). `changes` counts what aborts a
 * clean in progress; truncation pulls the cleaner's checkpoint back (maybeTruncateCheckpoint).
 *
 * Timestamps: a record timestamp <= 0 counts as "none" (Kafka's is -1). The simulator's virtual
 * clock starts at 0 and its test records carry 0, which Kafka would read as 1970 and expire at
 * once; such segments fall back to the append time of their batches instead (Kafka falls back to
 * the segment file's last-modified time, which is the same moment).
 */
import { LeaderEpochCache } from './epoch-cache.js';
import type { ReplicaCheckpoint, ReplicaLogStore, SegmentInfo } from './log-store.js';
import { type AbortedTxn, ProducerStateManager, trackProducer } from './producer-state.js';
import { deleteOldSegments, type RetentionConfig } from './log-retention.js';
import { batchMaxTimestamp, estimateBatchSize, type LogRecord, type RecordBatch } from './records.js';
import { fitSegments, shouldRoll, type SegmentRollConfig } from './segment-roll.js';

export type { SegmentRollConfig } from './segment-roll.js';

export type RangeStats = ReturnType<ReplicaLogStore['rangeStats']>;
export type { RetentionConfig } from './log-retention.js';

/** A running total of record-batch bytes stored by a set of logs (one broker's disk use). */
export interface StoredBytes {
  bytes: number;
}

/** The logs of one broker whose high watermark moved since their checkpoint was written. */
export type CheckpointsDue = Set<PartitionLog>;

export class PartitionLog {
  readonly epochCache: LeaderEpochCache;
  private leo: number;
  private startOffset: number;
  private hw: number;
  private flushed: number;
  private lastFlushMs: number;
  private segmentList: SegmentInfo[];
  /** Bytes in the active segment (kept as batches are appended rather than summed per append). */
  private activeBytes = 0;
  /** Largest timestamp of the active segment's first batch (Kafka's rollingBasedTimestamp); undefined = not loaded. */
  private activeFirstTimestamp: number | undefined;
  /** The active segment became empty without a clock at hand: its createdMs is reset on the next append. */
  private activeCreatedStale = false;
  /** The checkpoint as last read or written. */
  private savedCheckpoint: ReplicaCheckpoint | null = null;
  /** Idempotent and transactional producers, once built from the log (see producerState()). */
  private producers: ProducerStateManager | null = null;
  /** The cleaner's checkpoint as last read or written (undefined: not read yet). */
  private cleanerOffset: number | null | undefined;
  /** Bumped by every change other than an append: truncation, a log start move, a full reset. */
  changes = 0;

  constructor(
    private readonly store: ReplicaLogStore,
    nowMs: number,
    powerLost = false,
    private readonly stored: StoredBytes = { bytes: 0 },
    /** The partition's name, for error messages (`topic-partition` or the replica key). */
    private readonly name = 'partition',
    /** Where a log whose checkpoint is behind it puts itself (null: its owner checkpoints every log). */
    private readonly checkpointsDue: CheckpointsDue | null = null,
  ) {
    const cp = store.loadCheckpoint();
    this.savedCheckpoint = { ...cp };
    this.epochCache = new LeaderEpochCache(store.loadEpochs());
    this.startOffset = cp.logStartOffset;
    this.flushed = cp.flushedOffset;
    if (powerLost && store.endOffset() > cp.flushedOffset) store.truncateTo(Math.max(cp.flushedOffset, cp.logStartOffset));
    const loadedSegments = store.loadSegments();
    // The log ends after its last batch, or at its last segment's base when that is later: the
    // cleaner may have emptied the segment before an empty active one (Kafka reads the base
    // offset from the segment's file name); a roll flushes, so that base survives a power loss.
    const lastBase = loadedSegments.length > 0 ? loadedSegments[loadedSegments.length - 1]!.baseOffset : -1;
    this.leo = Math.max(store.endOffset(), powerLost ? Math.min(lastBase, cp.flushedOffset) : lastBase);
    if (this.epochCache.truncateFromEnd(this.leo)) store.saveEpochs(this.epochCache.entries());
    this.flushed = Math.min(this.flushed, this.leo);
    this.hw = Math.min(Math.max(cp.highWatermark, this.startOffset), this.leo);
    // Recovery moved what the checkpoint says (a log shorter than its checkpoint): write it on the next round.
    if (this.hw !== cp.highWatermark || this.flushed !== cp.flushedOffset) this.checkpointsDue?.add(this);
    this.lastFlushMs = nowMs;
    this.segmentList = this.recoverSegments(loadedSegments, nowMs);
    this.refreshActiveSegment();
    this.stored.bytes += store.sizeBytes();
  }

  /** Change the store, keeping the shared byte count in step. */
  private resize(change: () => void): void {
    const before = this.store.sizeBytes();
    try {
      change();
    } finally {
      this.stored.bytes += this.store.sizeBytes() - before;
    }
  }

  /** The replica is being deleted: its bytes no longer count. */
  release(): void {
    this.checkpointsDue?.delete(this);
    this.stored.bytes -= this.store.sizeBytes();
  }

  /** The stored segment list, fitted to the recovered log (segment-roll.ts), saved when that changed it. */
  private recoverSegments(loaded: SegmentInfo[], nowMs: number): SegmentInfo[] {
    const { segments, changed } = fitSegments(loaded, this.startOffset, this.leo, nowMs);
    if (changed) this.store.saveSegments(segments);
    return segments;
  }

  private get activeSegment(): SegmentInfo {
    return this.segmentList[this.segmentList.length - 1]!;
  }

  /** Re-read the active segment's size after its content changed other than by an append. */
  private refreshActiveSegment(): void {
    this.activeBytes = this.store.rangeStats(this.activeSegment.baseOffset, this.leo).bytes;
    this.activeFirstTimestamp = undefined;
  }

  /** The segments, oldest first; the last is the active one. */
  segments(): SegmentInfo[] {
    return this.segmentList.map((seg) => ({ ...seg }));
  }

  /** Bytes, largest timestamp and append time of each segment, oldest first. */
  segmentStats(): (SegmentInfo & RangeStats)[] {
    return this.segmentList.map((seg, i) => ({ ...seg, ...this.store.rangeStats(seg.baseOffset, this.segmentList[i + 1]?.baseOffset ?? this.leo) }));
  }

  get logEndOffset(): number {
    return this.leo;
  }
  get logStartOffset(): number {
    return this.startOffset;
  }
  get highWatermark(): number {
    return this.hw;
  }
  get flushedOffset(): number {
    return this.flushed;
  }
  sizeBytes(): number {
    return this.store.sizeBytes();
  }

  /** Latest epoch in the cache (the `LastFetchedEpoch` a follower sends), -1 when none. */
  latestEpoch(): number {
    return this.epochCache.latestEpoch();
  }

  assignEpochStart(epoch: number, startOffset: number): void {
    if (this.epochCache.assign(epoch, startOffset)) this.store.saveEpochs(this.epochCache.entries());
  }

  /** `sizeBytes`: the records' {@link estimateBatchSize}, when the caller has it already. */
  appendAsLeader(records: LogRecord[], leaderEpoch: number, nowMs: number, roll: SegmentRollConfig, sizeBytes = estimateBatchSize(records)): RecordBatch {
    const batch: RecordBatch = {
      baseOffset: this.leo,
      lastOffset: this.leo + records.length - 1,
      leaderEpoch,
      appendTimeMs: nowMs,
      records,
      sizeBytes,
    };
    return this.appendPreparedAsLeader(batch, nowMs, roll);
  }

  /** Append a batch the leader built at the log end (a client's validated batch, with its bytes). */
  appendPreparedAsLeader(batch: RecordBatch, nowMs: number, roll: SegmentRollConfig): RecordBatch {
    if (batch.baseOffset !== this.leo) throw new Error(`leader append at ${batch.baseOffset} but the log ends at ${this.leo}`);
    this.maybeRoll(batch.sizeBytes, batchMaxTimestamp(batch), nowMs, roll);
    this.appendBatch(batch, nowMs);
    return batch;
  }

  /**
   * The idempotent producers' state of this log (Kafka's ProducerStateManager). Built from the
   * log the first time it is needed — after a restart or on a replica that just became leader it
   * is rebuilt from the batches themselves, which carry their producer fields — then kept up to
   * date by every append, truncation and log start move. The scan reads the batches' header
   * fields, as Kafka's does, never decompressing their records.
   */
  producerState(): ProducerStateManager {
    this.producers ??= ProducerStateManager.fromLog(this.name, (from, until, max) => this.store.read(from, until, max, true), this.startOffset, this.leo);
    return this.producers;
  }

  /**
   * The last stable offset (KIP-98): read_committed consumers read below it. The high watermark,
   * or the first offset of a transaction still open here (or closed by a marker the HW has not
   * passed), whichever is lower; never below the log start.
   */
  get lastStableOffset(): number {
    const first = this.producerState().firstUnstableOffset(this.hw);
    return first === null ? this.hw : Math.max(this.startOffset, Math.min(first, this.hw));
  }

  /**
   * The last stable offset without building the producer state from the log: exact once it is
   * built (any producer wrote here since the log was opened, or a read_committed reader asked),
   * else the high watermark. What a read_uncommitted fetch reports, which no client acts on.
   */
  get lastStableOffsetIfKnown(): number {
    return this.producers ? this.lastStableOffset : this.hw;
  }

  /** The aborted transactions a read_committed fetch of [from, until) must be told of. */
  abortedTransactions(from: number, until: number): AbortedTxn[] {
    return this.producerState().abortedTransactions(from, until);
  }

  /** Append what a fetch returned; like Kafka, one roll check for the whole chunk. */
  appendAsFollower(batches: readonly RecordBatch[], nowMs: number, roll: SegmentRollConfig): void {
    const fresh: RecordBatch[] = [];
    let next = this.leo;
    for (const b of batches) {
      if (b.lastOffset < next) continue; // already have it
      // A compacted leader's log skips the offsets its cleaner removed: the follower's does too.
      if (b.baseOffset < next) throw new Error(`follower append at ${b.baseOffset} but the log ends at ${next}`);
      fresh.push(b);
      next = b.lastOffset + 1;
    }
    if (fresh.length === 0) return;
    let bytes = 0;
    let maxTimestamp = -1;
    for (const b of fresh) {
      bytes += b.sizeBytes;
      maxTimestamp = Math.max(maxTimestamp, batchMaxTimestamp(b));
    }
    this.maybeRoll(bytes, maxTimestamp, nowMs, roll);
    for (const b of fresh) this.appendBatch(b, nowMs);
  }

  private appendBatch(batch: RecordBatch, nowMs: number): void {
    if (this.activeBytes === 0) {
      if (this.activeCreatedStale) {
        this.activeSegment.createdMs = nowMs;
        this.activeCreatedStale = false;
        this.store.saveSegments(this.segmentList);
      }
      this.activeFirstTimestamp = batchMaxTimestamp(batch);
    }
    this.resize(() => this.store.append(batch));
    if (batch.producer && this.producers) trackProducer(this.producers, batch);
    this.assignEpochStart(batch.leaderEpoch, batch.baseOffset);
    this.leo = batch.lastOffset + 1;
    this.activeBytes += batch.sizeBytes;
  }

  /** Roll a non-empty active segment before an append when Kafka's `LogSegment.shouldRoll` says so (segment-roll.ts). */
  private maybeRoll(incomingBytes: number, incomingMaxTimestamp: number, nowMs: number, cfg: SegmentRollConfig): void {
    if (this.activeBytes === 0) return;
    if (this.activeFirstTimestamp === undefined) {
      const first = this.store.read(Math.max(this.activeSegment.baseOffset, this.startOffset), this.leo, 1)[0];
      this.activeFirstTimestamp = first ? batchMaxTimestamp(first) : -1;
    }
    const active = { bytes: this.activeBytes, firstTimestamp: this.activeFirstTimestamp, createdMs: this.activeSegment.createdMs };
    if (shouldRoll(active, incomingBytes, incomingMaxTimestamp, nowMs, cfg)) this.roll(nowMs);
  }

  /** Kafka's UnifiedLog.roll(): a new active segment at the log end, unless the active one is empty there. */
  rollActiveSegment(nowMs: number): void {
    if (this.activeSegment.baseOffset < this.leo) this.roll(nowMs);
  }

  /** Start a new active segment at the log end; Kafka flushes the old one right away (`UnifiedLog.roll`). */
  private roll(nowMs: number): void {
    this.segmentList.push({ baseOffset: this.leo, createdMs: nowMs });
    this.store.saveSegments(this.segmentList);
    this.activeBytes = 0;
    this.activeFirstTimestamp = undefined;
    this.activeCreatedStale = false;
    if (this.flushed < this.leo) this.flush(nowMs);
  }

  read(fromOffset: number, untilOffset: number, maxBytes: number): RecordBatch[] {
    if (fromOffset >= untilOffset) return [];
    return this.store.read(fromOffset, untilOffset, maxBytes);
  }

  /** Truncate to `offset` (never below the log start); returns the number of records removed. */
  truncateTo(offset: number): number {
    const target = Math.max(offset, this.startOffset);
    if (target >= this.leo) {
      // Kafka truncates the epoch cache anyway: a broker that became leader and cached its new
      // epoch at the log end, but wrote nothing before losing leadership, holds a conflicting entry.
      if (this.epochCache.truncateFromEnd(this.leo)) this.store.saveEpochs(this.epochCache.entries());
      return 0;
    }
    const removed = this.leo - target;
    this.changes++;
    this.resize(() => this.store.truncateTo(target));
    this.leo = target;
    // Kafka's LocalLog.truncateTo: segments based above the target go; the one holding it is cut.
    const kept = this.segmentList.filter((seg, i) => i === 0 || seg.baseOffset <= target);
    if (kept.length !== this.segmentList.length) {
      this.segmentList = kept;
      this.store.saveSegments(kept);
    }
    this.refreshActiveSegment();
    if (this.activeBytes === 0) this.activeCreatedStale = true; // Kafka resets `created` of a segment truncated empty
    if (this.epochCache.truncateFromEnd(target)) this.store.saveEpochs(this.epochCache.entries());
    this.hw = Math.min(this.hw, target);
    this.flushed = Math.min(this.flushed, target);
    if (this.producers && !this.producers.truncateTo(target)) this.producers = null;
    this.truncateCleanerCheckpoint(target);
    this.saveCheckpoint();
    return removed;
  }

  /** Drop everything and restart the log at `offset` (follower reset to the leader's log start). */
  truncateFullyAndStartAt(offset: number): void {
    this.changes++;
    this.resize(() => {
      this.store.truncateTo(this.startOffset);
      this.store.deleteBefore(offset);
    });
    this.startOffset = offset;
    this.leo = offset;
    this.segmentList = [{ baseOffset: offset, createdMs: this.activeSegment.createdMs }];
    this.store.saveSegments(this.segmentList);
    this.activeBytes = 0;
    this.activeFirstTimestamp = undefined;
    this.activeCreatedStale = true;
    this.hw = offset;
    this.flushed = offset;
    this.producers = null;
    this.epochCache.truncateFromEnd(this.startOffset);
    this.epochCache.truncateFromStart(offset);
    this.store.saveEpochs(this.epochCache.entries());
    this.truncateCleanerCheckpoint(offset);
    this.saveCheckpoint();
  }

  /** Move the log start forward (retention, DeleteRecords, or a follower following its leader). */
  advanceLogStartOffset(offset: number): void {
    const target = Math.min(offset, this.hw);
    if (target <= this.startOffset) return;
    this.changes++;
    this.resize(() => this.store.deleteBefore(target));
    this.startOffset = target;
    this.producers?.removeBefore(target);
    if (this.epochCache.truncateFromStart(target)) this.store.saveEpochs(this.epochCache.entries());
    // Segments wholly below the new start go (Kafka's deleteLogStartOffsetBreachedSegments).
    const firstKept = this.segmentList.findIndex((seg, i) => (this.segmentList[i + 1]?.baseOffset ?? Infinity) > target);
    if (firstKept > 0) {
      this.segmentList = this.segmentList.slice(firstKept);
      this.store.saveSegments(this.segmentList);
    }
    this.refreshActiveSegment();
    this.saveCheckpoint();
  }

  /** Kafka's `UnifiedLog.deleteOldSegments` for the delete policy (log-retention.ts); returns the segments deleted. */
  deleteOldSegments(nowMs: number, cfg: RetentionConfig): number {
    return deleteOldSegments(this, nowMs, cfg);
  }

  /** Bytes and largest times of the records in [fromOffset, untilOffset) (whole batches based there). */
  rangeStats(fromOffset: number, untilOffset: number): RangeStats {
    return this.store.rangeStats(fromOffset, untilOffset);
  }

  /** The base offsets of the segments, oldest first, as the log holds them (not to be changed). */
  segmentBases(): readonly SegmentInfo[] {
    return this.segmentList;
  }

  // ---------------------------------------------------------------- compaction

  /** The first offset the cleaner has not cleaned (its persisted checkpoint), null when it never cleaned this log. */
  cleanerCheckpoint(): number | null {
    if (this.cleanerOffset === undefined) this.cleanerOffset = this.store.loadCleanerCheckpoint();
    return this.cleanerOffset;
  }

  setCleanerCheckpoint(offset: number | null): void {
    if (this.cleanerCheckpoint() === offset) return;
    this.store.saveCleanerCheckpoint(offset);
    this.cleanerOffset = offset;
  }

  /** Kafka's maybeTruncateCheckpoint: a log cut below the cleaner's checkpoint is dirty from the cut. */
  private truncateCleanerCheckpoint(offset: number): void {
    const cp = this.cleanerCheckpoint();
    if (cp !== null && cp > offset) this.setCleanerCheckpoint(offset);
  }

  /**
   * Swap the whole segments based in [fromOffset, untilOffset), below the active one, for their
   * cleaned batches as one segment (Kafka's `replaceSegments`); the log end must not move.
   */
  replaceCleaned(fromOffset: number, untilOffset: number, batches: readonly RecordBatch[]): void {
    const first = this.segmentList.findIndex((seg) => seg.baseOffset === fromOffset);
    const next = this.segmentList.findIndex((seg) => seg.baseOffset === untilOffset);
    if (first < 0 || next <= first) throw new Error(`cleaned range [${fromOffset}, ${untilOffset}) is not a run of whole segments of ${this.name}`);
    if (next === this.segmentList.length - 1 && untilOffset > this.activeSegment.baseOffset) throw new Error(`the active segment of ${this.name} is never cleaned`);
    const last = batches[batches.length - 1];
    if (untilOffset >= this.leo && (!last || last.lastOffset + 1 !== this.leo)) {
      throw new Error(`cleaning [${fromOffset}, ${untilOffset}) of ${this.name} would move its log end offset ${this.leo}`);
    }
    const segments = [...this.segmentList.slice(0, first), { ...this.segmentList[first]! }, ...this.segmentList.slice(next)];
    this.resize(() => this.store.replaceCleaned(fromOffset, untilOffset, batches, segments));
    this.segmentList = segments;
  }

  /** Leader rule: the high watermark only moves forward. Returns true when it moved. */
  maybeIncreaseHighWatermark(candidate: number): boolean {
    const hw = Math.min(candidate, this.leo);
    if (hw <= this.hw) return false;
    this.hw = hw;
    this.checkpointsDue?.add(this);
    return true;
  }

  /** Follower rule: HW = min(leader's HW, own LEO); it may go down after a leader change. */
  setFollowerHighWatermark(leaderHw: number): boolean {
    const hw = Math.max(this.startOffset, Math.min(leaderHw, this.leo));
    if (hw === this.hw) return false;
    this.hw = hw;
    this.checkpointsDue?.add(this);
    return true;
  }

  /** Kafka's flush policy: flush when enough messages or time accumulated since the last flush. */
  maybeFlush(nowMs: number, flushMessages: number, flushMs: number): boolean {
    const unflushed = this.leo - this.flushed;
    if (unflushed <= 0) return false;
    if (unflushed >= flushMessages || nowMs - this.lastFlushMs >= flushMs) {
      this.flush(nowMs);
      return true;
    }
    return false;
  }

  /** fsync: everything written so far survives a power loss. */
  flush(nowMs: number): void {
    this.flushed = this.leo;
    this.lastFlushMs = nowMs;
    this.saveCheckpoint();
  }

  /** Write the HW / log-start / recovery-point checkpoint (unless it is what was last written: an idle log costs no write). */
  saveCheckpoint(): void {
    this.checkpointsDue?.delete(this);
    const last = this.savedCheckpoint;
    if (last && last.highWatermark === this.hw && last.logStartOffset === this.startOffset && last.flushedOffset === this.flushed) return;
    const cp: ReplicaCheckpoint = { highWatermark: this.hw, logStartOffset: this.startOffset, flushedOffset: this.flushed };
    this.store.saveCheckpoint(cp);
    this.savedCheckpoint = cp;
  }
}
