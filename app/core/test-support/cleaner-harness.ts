/**
 * A compacted log for cleaner tests: a PartitionLog on in-memory storage, keyed records with
 * numbers for keys and values, and a synchronous cleaning (the job stepped to its end), so tests
 * read like Kafka's LogCleanerTest.
 */
import { CleanJob, type CleanStats } from '../log/cleaner/clean-job.js';
import { type CompactionConfig, calculateCleanableBytes, type LogToClean, logToClean } from '../log/cleaner/cleanable.js';
import { type CleanedBatchWriter, PLAIN_CLEANED_BATCHES } from '../log/cleaner/cleaned-batch.js';
import { OffsetMap, OFFSET_MAP_BYTES_PER_ENTRY } from '../log/cleaner/offset-map.js';
import { lastOffsetsOfProducers } from '../log/cleaner/log-cleaner.js';
import type { ReplicaLogStore } from '../log/log-store.js';
import { MemoryStorage } from '../log/memory-log-store.js';
import { PartitionLog, type SegmentRollConfig } from '../log/partition-log.js';
import { type LogRecord, type ProducerInfo, type RecordBatch, recordOffset } from '../log/records.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const COMPACTION: CompactionConfig = {
  minCleanableDirtyRatio: 0.5,
  minCompactionLagMs: 0,
  maxCompactionLagMs: Infinity,
  deleteRetentionMs: 86_400_000,
  segmentBytes: 1024,
  maxMessageBytes: 1_048_588,
};

/** A record with key `k` (a number as text) and value `v` (null: a tombstone). */
export function kv(k: number | null, v: number | string | null, timestamp = 0): LogRecord {
  return { key: k === null ? null : encoder.encode(String(k)), value: v === null ? null : encoder.encode(String(v)), headers: [], timestamp };
}

export const text = (b: Uint8Array | null): string | null => (b === null ? null : decoder.decode(b));

export class CompactedTestLog {
  readonly storage = new MemoryStorage();
  store: ReplicaLogStore;
  log: PartitionLog;
  readonly roll: SegmentRollConfig;
  nowMs = 0;

  constructor(segmentBytes = 1024) {
    this.store = this.storage.broker(1).replica('t:0');
    this.log = new PartitionLog(this.store, 0);
    this.roll = { segmentBytes, segmentMs: Infinity };
  }

  /** Append one batch as leader (epoch 0) and move the HW to the log end. */
  append(records: LogRecord[], producer?: ProducerInfo): RecordBatch {
    let batch: RecordBatch;
    if (producer) {
      const base = this.log.logEndOffset;
      batch = { baseOffset: base, lastOffset: base + records.length - 1, leaderEpoch: 0, appendTimeMs: this.nowMs, records, sizeBytes: 61 + records.length * 20, producer };
      this.log.producerState().append({ ...producer, count: records.length }, base, base + records.length - 1);
      this.log.appendPreparedAsLeader(batch, this.nowMs, this.roll);
    } else batch = this.log.appendAsLeader(records, 0, this.nowMs, this.roll);
    this.log.maybeIncreaseHighWatermark(this.log.logEndOffset);
    return batch;
  }

  /** Append key/value records one batch each until the log has `segments` segments. */
  fillTo(segments: number, next: (offset: number) => LogRecord): void {
    while (this.log.segments().length < segments) this.append([next(this.log.logEndOffset)]);
  }

  /** Start a new active segment at the log end (Kafka's log.roll()): the next append rolls. */
  rollNow(): void {
    this.log.rollActiveSegment(this.nowMs);
  }

  /** Reopen the log from its store, as a restart does. */
  reopen(): void {
    this.log = new PartitionLog(this.store, this.nowMs);
  }

  batches(): RecordBatch[] {
    return this.log.read(this.log.logStartOffset, this.log.logEndOffset, Number.MAX_SAFE_INTEGER);
  }

  /** [offset, key, value] of every record, in offset order. */
  records(): [number, string | null, string | null][] {
    const out: [number, string | null, string | null][] = [];
    for (const b of this.batches()) b.records.forEach((r, i) => out.push([recordOffset(b, i), text(r.key), text(r.value)]));
    return out;
  }

  keys(): (string | null)[] {
    return this.records().map((r) => r[1]);
  }

  offsets(): number[] {
    return this.records().map((r) => r[0]);
  }

  /** Kafka's LogToClean(log, firstDirty, uncleanable) with explicit offsets. */
  toClean(firstDirtyOffset: number, uncleanableOffset: number): LogToClean {
    const segments = this.log.segmentStats();
    const { firstUncleanableOffset, cleanableBytes } = calculateCleanableBytes(segments, firstDirtyOffset, uncleanableOffset);
    let cleanBytes = 0;
    for (const s of segments) if (s.baseOffset < firstDirtyOffset) cleanBytes += s.bytes;
    const totalBytes = cleanBytes + cleanableBytes;
    return { firstDirtyOffset, firstUncleanableOffset, cleanBytes, cleanableBytes, totalBytes, cleanableRatio: totalBytes > 0 ? cleanableBytes / totalBytes : 0, needCompactionNow: false, compactionDelayMs: 0, forceUpdateCheckpoint: false, bound: 'active-segment' };
  }

  /** What the log cleaner would take now (its own bounds: checkpoint, HW, active segment, lags). */
  logToClean(cfg: Partial<CompactionConfig> = {}): LogToClean {
    return logToClean(this.log, this.nowMs, { ...COMPACTION, ...cfg });
  }

  /**
   * Clean once, synchronously: `slots` offset-map entries with load factor `loadFactor`
   * (Kafka's tests use 0.75). Returns the end offset (the new checkpoint) and the stats.
   */
  /** A cleaning job on this log, not run yet. */
  job(ltc: LogToClean, options: { slots?: number; loadFactor?: number; cfg?: Partial<CompactionConfig>; writer?: CleanedBatchWriter } = {}): CleanJob {
    const map = new OffsetMap((options.slots ?? 1_000_000) * OFFSET_MAP_BYTES_PER_ENTRY);
    return new CleanJob(this.log, ltc, map, options.loadFactor ?? 0.75, { ...COMPACTION, ...options.cfg }, options.writer ?? PLAIN_CLEANED_BATCHES, this.nowMs, () => lastOffsetsOfProducers(this.log));
  }

  clean(
    ltc: LogToClean = this.toClean(this.log.cleanerCheckpoint() ?? this.log.logStartOffset, this.log.segments().at(-1)!.baseOffset),
    options: { slots?: number; loadFactor?: number; cfg?: Partial<CompactionConfig>; writer?: CleanedBatchWriter; bufferBytes?: number } = {},
  ): { endOffset: number; stats: CleanStats; steps: number } {
    const job = this.job(ltc, options);
    let steps = 0;
    while (!job.done) {
      job.step(options.bufferBytes ?? 512);
      if (++steps > 100_000) throw new Error('the cleaning does not end');
    }
    this.log.setCleanerCheckpoint(job.endOffset);
    return { endOffset: job.endOffset, stats: job.stats, steps };
  }
}
