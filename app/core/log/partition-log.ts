/**
 * One replica's log as the broker uses it: records, leader-epoch cache, high watermark, log
 * start offset and flushed offset over a ReplicaLogStore.
 *
 * Invariants: logStartOffset <= highWatermark <= logEndOffset; the epoch cache never names an
 * offset at or past the log end except the newest entry (a leader's epoch start with no writes
 * yet); on recovery after a power loss everything at or above the flushed offset is gone, and the
 * log is never truncated to its high watermark (KIP-101).
 */
import { LeaderEpochCache } from './epoch-cache.js';
import type { ReplicaCheckpoint, ReplicaLogStore } from './log-store.js';
import { estimateBatchSize, type LogRecord, type RecordBatch } from './records.js';

export class PartitionLog {
  readonly epochCache: LeaderEpochCache;
  private leo: number;
  private startOffset: number;
  private hw: number;
  private flushed: number;
  private lastFlushMs: number;

  constructor(
    private readonly store: ReplicaLogStore,
    nowMs: number,
    powerLost = false,
  ) {
    const cp = store.loadCheckpoint();
    this.epochCache = new LeaderEpochCache(store.loadEpochs());
    this.startOffset = cp.logStartOffset;
    this.flushed = cp.flushedOffset;
    if (powerLost && store.endOffset() > cp.flushedOffset) store.truncateTo(Math.max(cp.flushedOffset, cp.logStartOffset));
    this.leo = store.endOffset();
    if (this.epochCache.truncateFromEnd(this.leo)) store.saveEpochs(this.epochCache.entries());
    this.flushed = Math.min(this.flushed, this.leo);
    this.hw = Math.min(Math.max(cp.highWatermark, this.startOffset), this.leo);
    this.lastFlushMs = nowMs;
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

  appendAsLeader(records: LogRecord[], leaderEpoch: number, nowMs: number): RecordBatch {
    const batch: RecordBatch = {
      baseOffset: this.leo,
      lastOffset: this.leo + records.length - 1,
      leaderEpoch,
      appendTimeMs: nowMs,
      records,
      sizeBytes: estimateBatchSize(records),
    };
    this.appendBatch(batch);
    return batch;
  }

  appendAsFollower(batches: readonly RecordBatch[]): void {
    for (const b of batches) {
      if (b.lastOffset < this.leo) continue; // already have it
      if (b.baseOffset !== this.leo) throw new Error(`follower append at ${b.baseOffset} but the log ends at ${this.leo}`);
      this.appendBatch(b);
    }
  }

  private appendBatch(batch: RecordBatch): void {
    this.store.append(batch);
    this.assignEpochStart(batch.leaderEpoch, batch.baseOffset);
    this.leo = batch.lastOffset + 1;
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
    this.store.truncateTo(target);
    this.leo = target;
    if (this.epochCache.truncateFromEnd(target)) this.store.saveEpochs(this.epochCache.entries());
    this.hw = Math.min(this.hw, target);
    this.flushed = Math.min(this.flushed, target);
    this.saveCheckpoint();
    return removed;
  }

  /** Drop everything and restart the log at `offset` (follower reset to the leader's log start). */
  truncateFullyAndStartAt(offset: number): void {
    this.store.truncateTo(this.startOffset);
    this.store.deleteBefore(offset);
    this.startOffset = offset;
    this.leo = offset;
    this.hw = offset;
    this.flushed = offset;
    this.epochCache.truncateFromEnd(this.startOffset);
    this.epochCache.truncateFromStart(offset);
    this.store.saveEpochs(this.epochCache.entries());
    this.saveCheckpoint();
  }

  /** Move the log start forward (retention or DeleteRecords). */
  advanceLogStartOffset(offset: number): void {
    const target = Math.min(offset, this.hw);
    if (target <= this.startOffset) return;
    this.store.deleteBefore(target);
    this.startOffset = target;
    if (this.epochCache.truncateFromStart(target)) this.store.saveEpochs(this.epochCache.entries());
    this.saveCheckpoint();
  }

  /** Leader rule: the high watermark only moves forward. Returns true when it moved. */
  maybeIncreaseHighWatermark(candidate: number): boolean {
    const hw = Math.min(candidate, this.leo);
    if (hw <= this.hw) return false;
    this.hw = hw;
    return true;
  }

  /** Follower rule: HW = min(leader's HW, own LEO); it may go down after a leader change. */
  setFollowerHighWatermark(leaderHw: number): boolean {
    const hw = Math.max(this.startOffset, Math.min(leaderHw, this.leo));
    if (hw === this.hw) return false;
    this.hw = hw;
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

  /** Write the HW / log-start / recovery-point checkpoint. */
  saveCheckpoint(): void {
    const cp: ReplicaCheckpoint = { highWatermark: this.hw, logStartOffset: this.startOffset, flushedOffset: this.flushed };
    this.store.saveCheckpoint(cp);
  }
}
