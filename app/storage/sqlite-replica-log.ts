/**
 * One replica log in its broker's SQLite file: Kafka v2 record batches as blobs keyed by
 * (replica, base offset), its leader-epoch cache, checkpoint and segments.
 *
 * Reads go by offset range through the primary key, never by scanning; the last batches appended
 * are kept decoded for follower and consumer reads, older ones are checked on read (CRC-32C,
 * record layout; a scan of header fields, the CRC only) and their records built only when asked for. A log opened from the broker's bulk
 * read (or a clean shutdown's summary) takes its figures from it instead of asking the file.
 *
 * Apart from the broker's store (sqlite-broker-store.ts), which lists, opens, deletes and
 * summarises the logs of the file: this is the `ReplicaLogStore` port one log sees, and it reaches
 * the store only through `BrokerFile`.
 */
import type { EpochEntry } from '../core/log/epoch-cache.js';
import type { ReplicaCheckpoint, ReplicaLogStore, SegmentInfo } from '../core/log/log-store.js';
import { batchMaxTimestamp, sliceBatch, type RecordBatch } from '../core/log/records.js';
import type { BatchRow, BrokerStatements, ReplicaRow } from './broker-file-statements.js';
import { decodeRecordBatch, STORAGE_CODECS, storedBytes } from './record-batch-codec.js';
import { guard } from './sqlite-errors.js';
import type { BatchTail, TailBudget } from './batch-tail.js';
import type { SqliteFile } from './sqlite-file.js';

/**
 * What one bulk read of the whole file tells about a replica log (read when the broker lists its
 * replicas on start): opening a broker's 25,000 logs one query at a time took seconds.
 */
export interface Preloaded {
  row: ReplicaRow;
  lastOffset: number | null;
  bytes: number;
  maxTimestamp: number;
  maxAppendTimeMs: number;
  epochs: EpochEntry[];
  segments: SegmentInfo[];
}

/** What a clean shutdown keeps of one replica log (`replica_summary`): what opening it needs of its batches. */
export type Summary = Pick<Preloaded, 'lastOffset' | 'bytes' | 'maxTimestamp' | 'maxAppendTimeMs'>;

/**
 * The bulk-read answers a replica log hands to the log that opens it: each is dropped once read,
 * and the object itself once all three are (its batch figures live on in the log's own fields).
 */
type OpeningAnswers = { row: ReplicaRow | null; epochs: EpochEntry[] | null; segments: SegmentInfo[] | null };

/**
 * What a replica log uses of its broker's store (SqliteBrokerStore): the file and its prepared
 * statements, the tails' shared memory budget, and the clean-shutdown summary that the first
 * change to a batch empties.
 */
export interface BrokerFile {
  readonly file: SqliteFile;
  readonly statements: BrokerStatements;
  readonly tails: TailBudget;
  readonly summaryMayExist: boolean;
  dropSummary(): void;
}

/**
 * The batch as the tail keeps it: the appended batch itself when it is whole and carries exactly
 * the bytes stored (a client's batch, or the leader's batch a follower copies) — its records,
 * built only if someone reads them, stay so, and a cleaned batch keeps its offsets — else a batch
 * of its fields without the `source` of a slice (built field by field: a rest/spread copy is
 * generic and this runs for every batch every replica appends).
 */
function storedForm(batch: RecordBatch, data: Buffer): RecordBatch {
  const e = batch.encoded;
  if (batch.source === undefined && e !== undefined && e.buffer === data.buffer && e.byteOffset === data.byteOffset && e.length === data.length && batch.sizeBytes === data.length) return batch;
  const stored: RecordBatch = {
    baseOffset: batch.baseOffset,
    lastOffset: batch.lastOffset,
    leaderEpoch: batch.leaderEpoch,
    appendTimeMs: batch.appendTimeMs,
    records: batch.records,
    sizeBytes: data.length,
    encoded: data,
  };
  if (batch.producer) stored.producer = batch.producer;
  if (batch.offsetDeltas) stored.offsetDeltas = batch.offsetDeltas;
  if (batch.deleteHorizonMs !== undefined) stored.deleteHorizonMs = batch.deleteHorizonMs;
  if (batch.transactional) stored.transactional = true;
  if (batch.control) stored.control = true;
  return stored;
}

export class SqliteReplicaLog implements ReplicaLogStore {
  private end: number;
  private bytes: number;
  private start: number;
  /** Decoded batches kept at the end of the log (the tail most reads ask for), within the broker's budget. */
  private readonly tail: BatchTail;
  /** The bulk read's answers, used by the first reads after opening and dropped at the first write. */
  private preloaded: OpeningAnswers | null;
  /**
   * The largest record timestamp and append time in the log (-1 when it holds no batch), kept
   * through appends for the summary a clean shutdown writes; undefined once a truncation or a
   * deletion made them unknown (the summary then asks the file).
   */
  private maxTimestamp: number | undefined;
  private maxAppendTimeMs: number | undefined;

  constructor(
    private readonly store: BrokerFile,
    private readonly id: number,
    row: ReplicaRow,
    preloaded?: Preloaded,
  ) {
    const s = store.statements;
    this.tail = store.tails.tail();
    this.start = row.log_start_offset;
    this.preloaded = preloaded ? { row: preloaded.row, epochs: preloaded.epochs, segments: preloaded.segments } : null;
    if (preloaded) {
      this.end = preloaded.lastOffset !== null ? preloaded.lastOffset + 1 : this.start;
      this.bytes = preloaded.bytes;
      this.maxTimestamp = preloaded.lastOffset !== null ? preloaded.maxTimestamp : -1;
      this.maxAppendTimeMs = preloaded.lastOffset !== null ? preloaded.maxAppendTimeMs : -1;
      return;
    }
    const last = s.lastBatch.get(id) as { last_offset: number } | undefined;
    this.end = last ? last.last_offset + 1 : this.start;
    this.bytes = (s.totalSize.get(id) as { total: number | null }).total ?? 0;
    this.maxTimestamp = last ? undefined : -1;
    this.maxAppendTimeMs = last ? undefined : -1;
  }

  /** Give back the batches kept in memory (the log is being deleted). */
  dropTail(): void {
    this.tail.clear();
  }

  /** The row id of this log in the file. */
  get rowId(): number {
    return this.id;
  }

  /** What the summary of a clean shutdown keeps of this log (the timestamps read from the file if unknown). */
  summary(): Summary {
    if (this.bytes === 0) return { lastOffset: null, bytes: 0, maxTimestamp: -1, maxAppendTimeMs: -1 };
    if (this.maxTimestamp === undefined || this.maxAppendTimeMs === undefined) {
      const r = this.store.statements.timeStats.get(this.id) as { ts: number | null; at: number | null };
      this.maxTimestamp = r.ts ?? -1;
      this.maxAppendTimeMs = r.at ?? -1;
    }
    return { lastOffset: this.end - 1, bytes: this.bytes, maxTimestamp: this.maxTimestamp, maxAppendTimeMs: this.maxAppendTimeMs };
  }

  /** Once opening has read all three bulk-read answers, nothing of them is kept (80 B a log: 24 MB at 100,000 partitions). */
  private dropHandedOver(): void {
    const pre = this.preloaded;
    if (pre && pre.row === null && pre.epochs === null && pre.segments === null) this.preloaded = null;
  }

  /** The batches changed other than by an append: the timestamps are read again when needed. */
  private forgetTimes(): void {
    this.maxTimestamp = undefined;
    this.maxAppendTimeMs = undefined;
  }

  private get file(): SqliteFile {
    return this.store.file;
  }

  append(batch: RecordBatch): void {
    this.preloaded = null;
    if (batch.baseOffset < this.end) throw new Error(`append at ${batch.baseOffset} but the log ends at ${this.end}`);
    if (this.store.summaryMayExist) this.store.dropSummary();
    // Followers append the very batch objects their leader's tail hands out (the network is
    // in-process), so they store the leader's bytes as they are, as a Kafka follower does,
    // instead of encoding the batch again (the CRC-32C of the whole batch dominates encoding);
    // a Kafka client's batch is stored as the client sent it.
    const data = storedBytes(batch);
    const maxTimestamp = batchMaxTimestamp(batch);
    this.file.write('append to', () =>
      this.store.statements.insertBatch.run(this.id, batch.baseOffset, batch.lastOffset, batch.leaderEpoch, batch.appendTimeMs, maxTimestamp, data.length, data),
    );
    if (this.maxTimestamp !== undefined) this.maxTimestamp = Math.max(this.maxTimestamp, maxTimestamp);
    if (this.maxAppendTimeMs !== undefined) this.maxAppendTimeMs = Math.max(this.maxAppendTimeMs, batch.appendTimeMs);
    this.end = batch.lastOffset + 1;
    this.bytes += data.length;
    this.tail.push(storedForm(batch, data));
  }

  /**
   * A stored batch, CRC and records checked; its records are built only if someone reads them
   * (a Fetch or a follower sends `encoded`, the stored bytes, as they are).
   */
  private decode(row: BatchRow, recordsUnchecked = false): RecordBatch {
    const batch = decodeRecordBatch(row.data, { file: this.file.path, codecs: STORAGE_CODECS, lazyRecords: true, recordsUnchecked });
    // Set in place: a spread would read `records` and build them.
    batch.appendTimeMs = row.append_time;
    batch.encoded = row.data;
    return batch;
  }

  read(fromOffset: number, untilOffset: number, maxBytes: number, headerFields = false): RecordBatch[] {
    if (fromOffset >= untilOffset || fromOffset >= this.end) return [];
    const out: RecordBatch[] = [];
    let bytes = 0;
    const take = (b: RecordBatch): boolean => {
      const slice = sliceBatch(b, fromOffset, untilOffset);
      if (!slice) return false;
      if (out.length > 0 && bytes + slice.sizeBytes > maxBytes) return false;
      out.push(slice);
      bytes += slice.sizeBytes;
      return true;
    };
    const first = this.tail.first;
    if (first && first.baseOffset <= fromOffset) {
      for (let i = 0; i < this.tail.length; i++) {
        const b = this.tail.at(i);
        if (b.lastOffset < fromOffset) continue;
        if (!take(b)) break;
      }
      return out;
    }
    const s = this.store.statements;
    const floor = (s.floorBase.get(this.id, fromOffset) as { base: number | null }).base ?? fromOffset;
    guard(this.file.path, 'read', () => {
      for (const row of s.readRange.iterate(this.id, floor, untilOffset) as IterableIterator<BatchRow>) {
        // A scan of header fields (the producer state's, Kafka's too) checks the CRC, not the
        // records: a compressed log is not decompressed to rebuild it.
        const batch = this.decode(row, headerFields);
        // The batch below the offset may end before it: the cleaner removed what followed it.
        if (batch.lastOffset < fromOffset) continue;
        if (!take(batch)) break;
      }
    });
    return out;
  }

  replaceCleaned(fromOffset: number, untilOffset: number, batches: readonly RecordBatch[], segments: readonly SegmentInfo[]): void {
    this.preloaded = null;
    for (const b of batches) if (b.baseOffset < fromOffset || b.baseOffset >= untilOffset) throw new Error(`cleaned batch at ${b.baseOffset} outside [${fromOffset}, ${untilOffset})`);
    if (this.store.summaryMayExist) this.store.dropSummary();
    this.forgetTimes();
    const s = this.store.statements;
    // One transaction: the old batches, the cleaned ones and the segment list change together.
    this.file.transaction('swap cleaned segments into', () => {
      s.deleteRange.run(this.id, fromOffset, untilOffset);
      for (const b of batches) this.reinsert(b);
      s.clearSegments.run(this.id);
      for (const seg of segments) s.insertSegment.run(this.id, seg.baseOffset, seg.createdMs);
    });
    this.tail.retain((b) => b.baseOffset >= untilOffset);
    const last = s.lastBatch.get(this.id) as { last_offset: number } | undefined;
    this.end = Math.max(last ? last.last_offset + 1 : this.start, this.start);
    this.refreshSize();
  }

  loadCleanerCheckpoint(): number | null {
    const r = this.store.statements.cleanerOffset.get(this.id) as { cleaner_offset: number | null } | undefined;
    return r?.cleaner_offset ?? null;
  }

  saveCleanerCheckpoint(offset: number | null): void {
    this.file.write('save the cleaner checkpoint of', () => this.store.statements.saveCleanerOffset.run(offset, this.id));
  }

  truncateTo(offset: number): void {
    this.preloaded = null;
    if (offset >= this.end) return;
    if (this.store.summaryMayExist) this.store.dropSummary();
    this.forgetTimes();
    const s = this.store.statements;
    const straddling = s.batchAt.get(this.id, offset, offset) as (BatchRow & { last_offset: number }) | undefined;
    this.file.write('truncate', () => {
      s.deleteFrom.run(this.id, offset);
      if (straddling && straddling.base_offset < offset) {
        // The batch across the cut keeps its records below it, stored again under its base offset.
        const kept = sliceBatch(this.decode(straddling), straddling.base_offset, offset, true)!;
        s.deleteOne.run(this.id, straddling.base_offset);
        this.reinsert(kept);
      }
    });
    this.end = Math.max(offset, this.start);
    this.tail.retain((b) => b.lastOffset < offset);
    this.refreshSize();
  }

  private reinsert(batch: RecordBatch): void {
    const data = storedBytes(batch);
    const maxTimestamp = batchMaxTimestamp(batch);
    this.store.statements.insertBatch.run(this.id, batch.baseOffset, batch.lastOffset, batch.leaderEpoch, batch.appendTimeMs, maxTimestamp, data.length, data);
  }

  deleteBefore(offset: number): void {
    this.preloaded = null;
    if (this.store.summaryMayExist) this.store.dropSummary();
    this.forgetTimes();
    const s = this.store.statements;
    const straddling = s.batchAt.get(this.id, offset, offset) as (BatchRow & { last_offset: number }) | undefined;
    this.file.write('delete old records from', () => {
      s.deleteBefore.run(this.id, offset);
      if (straddling && straddling.base_offset < offset) {
        s.deleteOne.run(this.id, straddling.base_offset);
        this.reinsert(sliceBatch(this.decode(straddling), offset, straddling.last_offset + 1, true)!);
      }
      if (offset > this.start) s.setLogStart.run(offset, this.id);
    });
    if (offset > this.start) this.start = offset;
    if (this.end < this.start) this.end = this.start;
    this.tail.retain((b) => b.lastOffset >= offset);
    this.refreshSize();
  }

  private refreshSize(): void {
    this.bytes = (this.store.statements.totalSize.get(this.id) as { total: number | null }).total ?? 0;
  }

  endOffset(): number {
    return this.end;
  }

  sizeBytes(): number {
    return this.bytes;
  }

  // Opening the log reads the checkpoint, the epochs and the segments once each: each answer
  // from the bulk read is handed over and dropped (a later read asks the file), so a reopened
  // broker's idle logs keep no second copy of what the log built from them.
  loadEpochs(): EpochEntry[] {
    const pre = this.preloaded;
    if (pre?.epochs) {
      const epochs = pre.epochs;
      pre.epochs = null;
      this.dropHandedOver();
      return epochs;
    }
    return (this.store.statements.loadEpochs.all(this.id) as { epoch: number; start_offset: number }[]).map((r) => ({ epoch: r.epoch, startOffset: r.start_offset }));
  }

  // Writing the epochs or the segments leaves the batches as they were: what the bulk read knows
  // of them (end, size, timestamps) still holds, so opening a log that rewrites its epoch cache
  // (an epoch begun at the log end, dropped on load as Kafka does) asks the file nothing more.
  saveEpochs(entries: readonly EpochEntry[]): void {
    if (this.preloaded) this.preloaded.epochs = null;
    this.dropHandedOver();
    const s = this.store.statements;
    this.file.write('write the leader-epoch cache of', () => {
      s.clearEpochs.run(this.id);
      for (const e of entries) s.insertEpoch.run(this.id, e.epoch, e.startOffset);
    });
  }

  loadCheckpoint(): ReplicaCheckpoint {
    if (this.preloaded?.row) {
      const r = this.preloaded.row;
      this.preloaded.row = null;
      this.dropHandedOver();
      return { highWatermark: r.high_watermark, logStartOffset: r.log_start_offset, flushedOffset: r.flushed_offset };
    }
    const r = this.store.statements.replicaById.get(this.id) as ReplicaRow;
    return { highWatermark: r.high_watermark, logStartOffset: r.log_start_offset, flushedOffset: r.flushed_offset };
  }

  saveCheckpoint(cp: ReplicaCheckpoint): void {
    this.preloaded = null;
    this.file.write('checkpoint', () => this.store.statements.saveCheckpoint.run(cp.highWatermark, cp.logStartOffset, cp.flushedOffset, this.id));
    this.start = Math.max(this.start, cp.logStartOffset);
  }

  loadSegments(): SegmentInfo[] {
    const pre = this.preloaded;
    if (pre?.segments) {
      const segments = pre.segments;
      pre.segments = null;
      this.dropHandedOver();
      return segments;
    }
    return (this.store.statements.loadSegments.all(this.id) as { base_offset: number; created_ms: number }[]).map((r) => ({ baseOffset: r.base_offset, createdMs: r.created_ms }));
  }

  saveSegments(segments: readonly SegmentInfo[]): void {
    if (this.preloaded) this.preloaded.segments = null;
    this.dropHandedOver();
    const s = this.store.statements;
    this.file.write('write the segments of', () => {
      s.clearSegments.run(this.id);
      for (const seg of segments) s.insertSegment.run(this.id, seg.baseOffset, seg.createdMs);
    });
  }

  rangeStats(fromOffset: number, untilOffset: number): { bytes: number; maxTimestamp: number; maxAppendTimeMs: number } {
    // The whole log (an active segment that is the only one): the figures kept through appends
    // know, unless a truncation or a deletion made the timestamps unknown (then the file is asked).
    if (fromOffset <= this.start && untilOffset >= this.end) {
      if (this.bytes === 0) return { bytes: 0, maxTimestamp: -1, maxAppendTimeMs: -1 };
      if (this.maxTimestamp !== undefined && this.maxAppendTimeMs !== undefined) return { bytes: this.bytes, maxTimestamp: this.maxTimestamp, maxAppendTimeMs: this.maxAppendTimeMs };
    }
    const r = this.store.statements.rangeStats.get(this.id, fromOffset, untilOffset) as { bytes: number | null; ts: number | null; at: number | null };
    return { bytes: r.bytes ?? 0, maxTimestamp: r.ts ?? -1, maxAppendTimeMs: r.at ?? -1 };
  }
}
