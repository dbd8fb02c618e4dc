/**
 * A broker's SQLite file: its replica logs (Kafka v2 record batches as blobs keyed by
 * (replica, base offset)), leader-epoch caches, checkpoints, segments and clean-shutdown state.
 *
 * Reads go by offset range through the primary key, never by scanning; the last batches appended
 * to each replica are kept decoded for follower and consumer reads, older ones are checked on
 * read (CRC-32C, record layout) and their records built only when asked for; the statements are
 * prepared once per file. A clean shutdown writes a summary of every log (`replica_summary`) that
 * the next start reads instead of every batch; the first batch change after it empties it.
 *
 * One file past 500 lines on purpose: the replica log and the broker's store share the prepared
 * statements, the bulk read that opens every log at once and the summary that replaces it, and
 * each change to how a log is opened touches both sides.
 */
import type { Statement } from 'better-sqlite3';
import type { EpochEntry } from '../core/log/epoch-cache.js';
import type { BrokerDiskState, BrokerLogStore, ReplicaCheckpoint, ReplicaLogStore, SegmentInfo } from '../core/log/log-store.js';
import { sliceBatch, type RecordBatch } from '../core/log/records.js';
import { decodeRecordBatch, STORAGE_CODECS, storedBytes } from './record-batch-codec.js';
import { guard } from './sqlite-errors.js';
import { TailBudget, type BatchTail } from './batch-tail.js';
import type { SqliteFile } from './sqlite-file.js';

interface ReplicaRow {
  id: number;
  high_watermark: number;
  log_start_offset: number;
  flushed_offset: number;
}

/**
 * What one bulk read of the whole file tells about a replica log (read when the broker lists its
 * replicas on start): opening a broker's 25,000 logs one query at a time took seconds.
 */
interface Preloaded {
  row: ReplicaRow;
  lastOffset: number | null;
  bytes: number;
  maxTimestamp: number;
  maxAppendTimeMs: number;
  epochs: EpochEntry[];
  segments: SegmentInfo[];
}

/** What a clean shutdown keeps of one replica log (`replica_summary`): what opening it needs of its batches. */
type Summary = Pick<Preloaded, 'lastOffset' | 'bytes' | 'maxTimestamp' | 'maxAppendTimeMs'>;

/**
 * The bulk-read answers a replica log hands to the log that opens it: each is dropped once read,
 * and the object itself once all three are (its batch figures live on in the log's own fields).
 */
type OpeningAnswers = { row: ReplicaRow | null; epochs: EpochEntry[] | null; segments: SegmentInfo[] | null };

/** Per-log figures of the batches: from reading them all, or from a clean shutdown's summary. */
interface StatsRow {
  replica: number;
  last: number;
  bytes: number;
  ts: number;
  at: number;
}

interface BatchRow {
  base_offset: number;
  append_time: number;
  data: Buffer;
}

/** The largest record timestamp, -1 when there is none (the `max_timestamp` column). */
function maxTimestampOf(records: readonly { timestamp: number }[]): number {
  let max = -1;
  for (let i = 0; i < records.length; i++) {
    const t = records[i]!.timestamp;
    if (t > max) max = t;
  }
  return max;
}


class SqliteReplicaLog implements ReplicaLogStore {
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
    private readonly store: SqliteBrokerStore,
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
    const records = batch.records;
    const maxTimestamp = maxTimestampOf(records);
    this.file.write('append to', () =>
      this.store.statements.insertBatch.run(this.id, batch.baseOffset, batch.lastOffset, batch.leaderEpoch, batch.appendTimeMs, maxTimestamp, data.length, data),
    );
    if (this.maxTimestamp !== undefined) this.maxTimestamp = Math.max(this.maxTimestamp, maxTimestamp);
    if (this.maxAppendTimeMs !== undefined) this.maxAppendTimeMs = Math.max(this.maxAppendTimeMs, batch.appendTimeMs);
    // The batch as stored, without the `source` of a slice (built field by field: a rest/spread
    // copy is generic and this runs for every batch every replica appends).
    const stored: RecordBatch = {
      baseOffset: batch.baseOffset,
      lastOffset: batch.lastOffset,
      leaderEpoch: batch.leaderEpoch,
      appendTimeMs: batch.appendTimeMs,
      records,
      sizeBytes: data.length,
      encoded: data,
    };
    if (batch.producer) stored.producer = batch.producer;
    this.end = batch.lastOffset + 1;
    this.bytes += data.length;
    this.tail.push(stored);
  }

  /**
   * A stored batch, CRC and records checked; its records are built only if someone reads them
   * (a Fetch or a follower sends `encoded`, the stored bytes, as they are).
   */
  private decode(row: BatchRow): RecordBatch {
    const batch = decodeRecordBatch(row.data, { file: this.file.path, codecs: STORAGE_CODECS, lazyRecords: true });
    // Set in place: a spread would read `records` and build them.
    batch.appendTimeMs = row.append_time;
    batch.encoded = row.data;
    return batch;
  }

  read(fromOffset: number, untilOffset: number, maxBytes: number): RecordBatch[] {
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
        const batch = this.decode(row);
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
    const maxTimestamp = maxTimestampOf(batch.records);
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

type Stmts = Record<
  | 'insertBatch'
  | 'lastBatch'
  | 'totalSize'
  | 'floorBase'
  | 'readRange'
  | 'batchAt'
  | 'deleteFrom'
  | 'deleteBefore'
  | 'deleteOne'
  | 'deleteRange'
  | 'cleanerOffset'
  | 'saveCleanerOffset'
  | 'setLogStart'
  | 'loadEpochs'
  | 'clearEpochs'
  | 'insertEpoch'
  | 'replicaById'
  | 'saveCheckpoint'
  | 'loadSegments'
  | 'clearSegments'
  | 'insertSegment'
  | 'rangeStats'
  | 'replicaByKey'
  | 'insertReplica'
  | 'allReplicaKeys'
  | 'deleteReplicaBatches'
  | 'deleteReplicaEpochs'
  | 'deleteReplicaSegments'
  | 'deleteReplicaRow'
  | 'timeStats'
  | 'replicaCount'
  | 'allSummaries'
  | 'clearSummaries'
  | 'insertSummary',
  Statement
>;

export class SqliteBrokerStore implements BrokerLogStore {
  readonly statements: Stmts;
  private readonly replicas = new Map<string, SqliteReplicaLog>();
  /** Replica logs listed but not opened yet, with what one bulk read knows about each. */
  private preloaded = new Map<string, Preloaded>();
  /**
   * Whether `replica_summary` may hold rows: true until this process has emptied it, again once a
   * clean shutdown wrote it. The first change to any batch after that empties it (one DELETE), so
   * a summary on disk always describes the batches on disk.
   */
  summaryMayExist = true;
  /** The memory budget the replica logs' tails share. */
  readonly tails: TailBudget;

  constructor(readonly file: SqliteFile) {
    this.tails = new TailBudget();
    const db = file.db;
    const p = (sql: string): Statement => db.prepare(sql);
    this.statements = {
      insertBatch: p('INSERT INTO batches (replica, base_offset, last_offset, leader_epoch, append_time, max_timestamp, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      lastBatch: p('SELECT last_offset FROM batches WHERE replica = ? ORDER BY base_offset DESC LIMIT 1'),
      totalSize: p('SELECT sum(size) AS total FROM batches WHERE replica = ?'),
      floorBase: p('SELECT max(base_offset) AS base FROM batches WHERE replica = ? AND base_offset <= ?'),
      readRange: p('SELECT base_offset, append_time, data FROM batches WHERE replica = ? AND base_offset >= ? AND base_offset < ? ORDER BY base_offset'),
      batchAt: p('SELECT base_offset, last_offset, append_time, data FROM batches WHERE replica = ? AND base_offset <= ? AND last_offset >= ?'),
      deleteFrom: p('DELETE FROM batches WHERE replica = ? AND base_offset >= ?'),
      deleteBefore: p('DELETE FROM batches WHERE replica = ? AND last_offset < ?'),
      deleteOne: p('DELETE FROM batches WHERE replica = ? AND base_offset = ?'),
      deleteRange: p('DELETE FROM batches WHERE replica = ? AND base_offset >= ? AND base_offset < ?'),
      cleanerOffset: p('SELECT cleaner_offset FROM replicas WHERE id = ?'),
      saveCleanerOffset: p('UPDATE replicas SET cleaner_offset = ? WHERE id = ?'),
      setLogStart: p('UPDATE replicas SET log_start_offset = ? WHERE id = ?'),
      loadEpochs: p('SELECT epoch, start_offset FROM epochs WHERE replica = ? ORDER BY epoch'),
      clearEpochs: p('DELETE FROM epochs WHERE replica = ?'),
      insertEpoch: p('INSERT INTO epochs (replica, epoch, start_offset) VALUES (?, ?, ?)'),
      replicaById: p('SELECT id, high_watermark, log_start_offset, flushed_offset FROM replicas WHERE id = ?'),
      saveCheckpoint: p('UPDATE replicas SET high_watermark = ?, log_start_offset = ?, flushed_offset = ? WHERE id = ?'),
      loadSegments: p('SELECT base_offset, created_ms FROM segments WHERE replica = ? ORDER BY base_offset'),
      clearSegments: p('DELETE FROM segments WHERE replica = ?'),
      insertSegment: p('INSERT INTO segments (replica, base_offset, created_ms) VALUES (?, ?, ?)'),
      rangeStats: p('SELECT sum(size) AS bytes, max(max_timestamp) AS ts, max(append_time) AS at FROM batches WHERE replica = ? AND base_offset >= ? AND base_offset < ?'),
      // Prepared once: opening 20,000 replica logs spent most of its time preparing these.
      replicaByKey: p('SELECT id, high_watermark, log_start_offset, flushed_offset FROM replicas WHERE key = ?'),
      insertReplica: p('INSERT INTO replicas (key) VALUES (?)'),
      allReplicaKeys: p('SELECT key FROM replicas ORDER BY key'),
      deleteReplicaBatches: p('DELETE FROM batches WHERE replica = ?'),
      deleteReplicaEpochs: p('DELETE FROM epochs WHERE replica = ?'),
      deleteReplicaSegments: p('DELETE FROM segments WHERE replica = ?'),
      deleteReplicaRow: p('DELETE FROM replicas WHERE id = ?'),
      timeStats: p('SELECT max(max_timestamp) AS ts, max(append_time) AS at FROM batches WHERE replica = ?'),
      replicaCount: p('SELECT count(*) AS n FROM replicas'),
      allSummaries: p('SELECT replica, last_offset, bytes, max_timestamp, max_append_time FROM replica_summary'),
      clearSummaries: p('DELETE FROM replica_summary'),
      insertSummary: p('INSERT INTO replica_summary (replica, last_offset, bytes, max_timestamp, max_append_time) VALUES (?, ?, ?, ?, ?)'),
    };
  }

  replica(key: string): ReplicaLogStore {
    let r = this.replicas.get(key);
    if (r) return r;
    const pre = this.preloaded.get(key);
    if (pre) {
      this.preloaded.delete(key);
      r = new SqliteReplicaLog(this, pre.row.id, pre.row, pre);
      this.replicas.set(key, r);
      return r;
    }
    const s = this.statements;
    let row = s.replicaByKey.get(key) as ReplicaRow | undefined;
    if (!row) {
      const id = this.file.write('create a replica log in', () => s.insertReplica.run(key)).lastInsertRowid;
      row = { id: Number(id), high_watermark: 0, log_start_offset: 0, flushed_offset: 0 };
    }
    r = new SqliteReplicaLog(this, row.id, row);
    this.replicas.set(key, r);
    return r;
  }

  /**
   * Keys of every replica log in the file. The logs not opened yet are read in bulk at the same
   * time (five queries for the whole file instead of six per log): a broker lists its replicas
   * just before it opens them all.
   */
  replicaKeys(): string[] {
    const db = this.file.db;
    return guard(this.file.path, 'read', () => {
      const rows = db.prepare('SELECT id, key, high_watermark, log_start_offset, flushed_offset FROM replicas ORDER BY key').all() as (ReplicaRow & { key: string })[];
      const byId = new Map<number, Preloaded>();
      this.preloaded = new Map();
      for (const r of rows) {
        if (this.replicas.has(r.key)) continue;
        const pre: Preloaded = { row: { id: r.id, high_watermark: r.high_watermark, log_start_offset: r.log_start_offset, flushed_offset: r.flushed_offset }, lastOffset: null, bytes: 0, maxTimestamp: -1, maxAppendTimeMs: -1, epochs: [], segments: [] };
        byId.set(r.id, pre);
        this.preloaded.set(r.key, pre);
      }
      if (byId.size > 0) {
        const stats = this.summariesFor(byId) ?? (db.prepare('SELECT replica, max(last_offset) AS last, sum(size) AS bytes, max(max_timestamp) AS ts, max(append_time) AS at FROM batches GROUP BY replica').all() as StatsRow[]);
        for (const st of stats) {
          const pre = byId.get(st.replica);
          if (!pre) continue;
          pre.lastOffset = st.last;
          pre.bytes = st.bytes;
          pre.maxTimestamp = st.ts;
          pre.maxAppendTimeMs = st.at;
        }
        for (const e of db.prepare('SELECT replica, epoch, start_offset FROM epochs ORDER BY replica, epoch').all() as { replica: number; epoch: number; start_offset: number }[]) {
          byId.get(e.replica)?.epochs.push({ epoch: e.epoch, startOffset: e.start_offset });
        }
        for (const g of db.prepare('SELECT replica, base_offset, created_ms FROM segments ORDER BY replica, base_offset').all() as { replica: number; base_offset: number; created_ms: number }[]) {
          byId.get(g.replica)?.segments.push({ baseOffset: g.base_offset, createdMs: g.created_ms });
        }
      }
      return rows.map((r) => r.key);
    });
  }

  /**
   * The per-log figures the last clean shutdown wrote, when the broker stopped cleanly and they
   * cover every log listed (Kafka skips log recovery after a clean shutdown likewise); undefined
   * otherwise, and the caller reads every batch instead.
   */
  private summariesFor(byId: ReadonlyMap<number, Preloaded>): StatsRow[] | undefined {
    if (!this.loadState().cleanShutdown) return undefined;
    const rows = this.statements.allSummaries.all() as { replica: number; last_offset: number | null; bytes: number; max_timestamp: number; max_append_time: number }[];
    const covered = new Set(rows.map((r) => r.replica));
    for (const id of byId.keys()) if (!covered.has(id)) return undefined;
    return rows.filter((r) => r.last_offset !== null).map((r) => ({ replica: r.replica, last: r.last_offset!, bytes: r.bytes, ts: r.max_timestamp, at: r.max_append_time }));
  }

  /** Empty `replica_summary`: a batch is about to change. */
  dropSummary(): void {
    this.file.write('forget the replica summaries of', () => this.statements.clearSummaries.run());
    this.summaryMayExist = false;
  }

  /**
   * At a clean shutdown: what opening each log will need of its batches (last offset, bytes,
   * largest timestamps), one row per log. Written only when this process knows every log of the
   * file (it lists them all when the broker starts); otherwise left empty, and the next start reads
   * every batch.
   */
  private writeSummary(): void {
    const s = this.statements;
    s.clearSummaries.run();
    this.summaryMayExist = false;
    const total = (s.replicaCount.get() as { n: number }).n;
    if (this.replicas.size + this.preloaded.size !== total) return;
    for (const log of this.replicas.values()) {
      const m = log.summary();
      s.insertSummary.run(log.rowId, m.lastOffset, m.bytes, m.maxTimestamp, m.maxAppendTimeMs);
    }
    for (const pre of this.preloaded.values()) s.insertSummary.run(pre.row.id, pre.lastOffset, pre.bytes, pre.maxTimestamp, pre.maxAppendTimeMs);
    this.summaryMayExist = true;
  }

  hasReplica(key: string): boolean {
    return this.replicas.has(key) || this.statements.replicaByKey.get(key) !== undefined;
  }

  deleteReplica(key: string): void {
    const s = this.statements;
    const row = s.replicaByKey.get(key) as ReplicaRow | undefined;
    this.replicas.get(key)?.dropTail();
    this.replicas.delete(key);
    this.preloaded.delete(key);
    if (!row) return;
    if (this.summaryMayExist) this.dropSummary();
    this.file.write('delete a replica log from', () => {
      for (const st of [s.deleteReplicaBatches, s.deleteReplicaEpochs, s.deleteReplicaSegments, s.deleteReplicaRow]) st.run(row.id);
    });
  }

  totalBytes(): number {
    return guard(this.file.path, 'read', () => (this.file.db.prepare('SELECT sum(size) AS total FROM batches').get() as { total: number | null }).total ?? 0);
  }

  loadState(): BrokerDiskState {
    const row = this.file.db.prepare('SELECT clean_shutdown, last_broker_epoch, power_lost FROM broker_state WHERE id = 1').get() as
      | { clean_shutdown: number; last_broker_epoch: number; power_lost: number }
      | undefined;
    if (!row) return { cleanShutdown: false, lastBrokerEpoch: -1, powerLost: false };
    return { cleanShutdown: row.clean_shutdown === 1, lastBrokerEpoch: row.last_broker_epoch, powerLost: row.power_lost === 1 };
  }

  saveState(state: BrokerDiskState): void {
    // The summary first: a clean-shutdown mark is never on disk without the summary it vouches for.
    if (state.cleanShutdown) this.file.write('summarise the replica logs of', () => this.writeSummary());
    this.file.write('save the broker state in', () =>
      this.file.db
        .prepare(
          'INSERT INTO broker_state (id, clean_shutdown, last_broker_epoch, power_lost) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET clean_shutdown = excluded.clean_shutdown, last_broker_epoch = excluded.last_broker_epoch, power_lost = excluded.power_lost',
        )
        .run(state.cleanShutdown ? 1 : 0, state.lastBrokerEpoch, state.powerLost ? 1 : 0),
    );
  }
}
