/**
 * The storage port on SQLite (better-sqlite3): one file per broker for its replica logs
 * (Kafka v2 record batches as blobs keyed by base offset, leader-epoch caches, checkpoints,
 * segments, the clean-shutdown state) and one file for the cluster metadata log.
 *
 * Durability: WAL, synchronous NORMAL by default (a killed process loses nothing that was
 * committed; FULL on request); the WAL is copied into each file in the background once it
 * holds SQLite's default 1,000 pages, looked at ~100 ms after a commit (sqlite-file.ts), not
 * inside the commit that filled it, and for a broker file on a thread of its own
 * (wal-checkpointer.ts). Every write commits at once, or — inside
 * `batch(fn)` — in one transaction per file at the end of `fn`, which is how the hosts group a
 * scheduler step.
 * The metadata file is opened first, with an exclusive lock, so a second process on the same data
 * directory gets a clear error instead of sharing the files (sqlite-file.ts); a broker's file holds its
 * replica logs (sqlite-broker-store.ts); this file holds the metadata log and the directory.
 */
import type { Statement } from 'better-sqlite3';
import { existsSync, mkdirSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BrokerLogStore, MetadataStore, StorageProvider, StoredMetadataRecord, StoredMetadataSnapshot } from '../core/log/log-store.js';
import type { FileKind } from './migrations.js';
import { SqliteBrokerStore } from './sqlite-broker-store.js';
import { guard } from './sqlite-errors.js';
import { DEFAULT_CHECKPOINT_DELAY_MS, SqliteFile, type FileOwner, type SqliteStorageOptions } from './sqlite-file.js';
import { WalCheckpointer } from './wal-checkpointer.js';

export type { SqliteStorageOptions } from './sqlite-file.js';

class SqliteMetadataStore implements MetadataStore {
  private readonly insert: Statement;
  constructor(readonly file: SqliteFile) {
    this.insert = file.db.prepare('INSERT INTO records (offset, timestamp_ms, record) VALUES (?, ?, ?)');
  }
  append(records: readonly StoredMetadataRecord[]): void {
    this.file.write('append to the metadata log', () => {
      for (const r of records) this.insert.run(r.offset, r.timestampMs, JSON.stringify(r.record));
    });
  }
  readAll(): StoredMetadataRecord[] {
    return this.readAfter(-1);
  }
  readAfter(offset: number, limit = -1): StoredMetadataRecord[] {
    const rows = this.file.db.prepare('SELECT offset, timestamp_ms, record FROM records WHERE offset > ? ORDER BY offset LIMIT ?').all(offset, limit) as { offset: number; timestamp_ms: number; record: string }[];
    return rows.map((r) => ({ offset: r.offset, timestampMs: r.timestamp_ms, record: JSON.parse(r.record) as unknown }));
  }
  isEmpty(): boolean {
    const db = this.file.db;
    return !db.prepare('SELECT 1 FROM records LIMIT 1').get() && !db.prepare('SELECT 1 FROM snapshots LIMIT 1').get();
  }
  latestSnapshot(): StoredMetadataSnapshot | null {
    const row = this.file.db.prepare('SELECT offset, timestamp_ms, data FROM snapshots ORDER BY offset DESC LIMIT 1').get() as { offset: number; timestamp_ms: number; data: string } | undefined;
    return row ? { offset: row.offset, timestampMs: row.timestamp_ms, data: JSON.parse(row.data) as unknown } : null;
  }
  saveSnapshot(snapshot: StoredMetadataSnapshot, keepFrom: number): void {
    const db = this.file.db;
    this.file.write('save a metadata snapshot in', () => {
      db.prepare('INSERT OR REPLACE INTO snapshots (offset, timestamp_ms, data) VALUES (?, ?, ?)').run(snapshot.offset, snapshot.timestampMs, JSON.stringify(snapshot.data));
      db.prepare('DELETE FROM snapshots WHERE offset < ?').run(keepFrom);
      db.prepare('DELETE FROM records WHERE offset < ?').run(keepFrom);
    });
  }
  loadSettings(): Record<string, string> {
    return Object.fromEntries((this.file.db.prepare('SELECT key, value FROM settings').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]));
  }
  saveSetting(key: string, value: string | null): void {
    this.file.write('save a setting in', () => {
      if (value === null) this.file.db.prepare('DELETE FROM settings WHERE key = ?').run(key);
      else this.file.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
    });
  }
}

/** The storage of one cluster: a directory with `metadata.db` and `broker-<id>.db` files. */
export class SqliteStorage implements StorageProvider, FileOwner {
  batching = false;
  private readonly files: SqliteFile[] = [];
  private readonly open: SqliteFile[] = [];
  private readonly brokers = new Map<number, SqliteBrokerStore>();
  private meta: SqliteMetadataStore | null = null;
  private readonly toCheckpoint = new Set<SqliteFile>();
  private checkpointTimer: ReturnType<typeof setTimeout> | null = null;
  /** Runs the broker files' checkpoints on a thread of its own (wal-checkpointer.ts). */
  readonly checkpointer = new WalCheckpointer();

  private constructor(
    readonly dir: string,
    private readonly options: SqliteStorageOptions,
  ) {}

  /** The data directory's file system (every broker's file is in it): statfs, as Kafka's FileStore reads it. */
  logDirSpace(): { totalBytes: number; usableBytes: number } | null {
    try {
      const s = statfsSync(this.dir);
      return { totalBytes: s.blocks * s.bsize, usableBytes: s.bavail * s.bsize };
    } catch {
      return null;
    }
  }

  static open(dir: string, options: SqliteStorageOptions = {}): SqliteStorage {
    guard(dir, 'create the data directory', () => ensureDir(dir));
    const storage = new SqliteStorage(dir, options);
    storage.metadata(); // open (and lock) the metadata file first: fail early
    return storage;
  }

  /** Path of the file that holds broker `id`'s logs. */
  brokerFile(id: number): string {
    return join(this.dir, `broker-${id}.db`);
  }

  get metadataFile(): string {
    return join(this.dir, 'metadata.db');
  }

  private openFile(path: string, kind: FileKind): SqliteFile {
    const f = new SqliteFile(path, kind, this, this.options);
    this.files.push(f);
    return f;
  }

  /**
   * The store of broker `brokerId`. Its file opens on first use, inside the broker's own work, so
   * an unreadable file fails that broker (coded error naming the file), not the whole cluster.
   */
  broker(brokerId: number): BrokerLogStore {
    const open = (): SqliteBrokerStore => {
      let b = this.brokers.get(brokerId);
      if (!b) {
        b = new SqliteBrokerStore(this.openFile(this.brokerFile(brokerId), 'broker'));
        this.brokers.set(brokerId, b);
      }
      return b;
    };
    return {
      replica: (key) => open().replica(key),
      replicaKeys: () => open().replicaKeys(),
      hasReplica: (key) => open().hasReplica(key),
      deleteReplica: (key) => open().deleteReplica(key),
      totalBytes: () => open().totalBytes(),
      loadState: () => open().loadState(),
      saveState: (state) => open().saveState(state),
    };
  }

  /** The opened store of a broker (tests and tools that need its SQLite file). */
  brokerStore(brokerId: number): SqliteBrokerStore {
    this.broker(brokerId).replicaKeys();
    return this.brokers.get(brokerId)!;
  }

  metadata(): MetadataStore {
    if (!this.meta) this.meta = new SqliteMetadataStore(this.openFile(this.metadataFile, 'metadata'));
    return this.meta;
  }

  /** @internal a file opened a transaction inside the current batch. */
  joined(file: SqliteFile): void {
    this.open.push(file);
  }

  /** @internal a file committed: checkpoint it a little later, off the path of the work (sqlite-file.ts). */
  committed(file: SqliteFile): void {
    this.toCheckpoint.add(file);
    if (this.checkpointTimer) return;
    this.checkpointTimer = setTimeout(this.checkpointNow, this.options.checkpointDelayMs ?? DEFAULT_CHECKPOINT_DELAY_MS);
    // A pending checkpoint does not keep a process alive (close() checkpoints anyway).
    this.checkpointTimer.unref();
  }

  /** Checkpoint every file that committed since the last time. */
  readonly checkpointNow = (): void => {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    const files = [...this.toCheckpoint];
    this.toCheckpoint.clear();
    for (const f of files) f.checkpoint();
  };

  /**
   * Run `fn` with every write grouped into one transaction per file, committed when it returns
   * (or rolled back when it throws). Nested calls join the outer batch.
   */
  batch<T>(fn: () => T): T {
    if (this.batching) return fn();
    this.batching = true;
    try {
      const result = fn();
      this.batching = false;
      const files = this.open.splice(0);
      for (const f of files) f.commit();
      return result;
    } catch (e) {
      this.batching = false;
      for (const f of this.open.splice(0)) f.rollback();
      throw e;
    }
  }

  /** @internal a broker file's checkpoint, on the checkpointer's thread (false: run it inline). */
  checkpointInBackground(path: string): boolean {
    return this.checkpointer.request(path);
  }

  close(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = null;
    this.toCheckpoint.clear();
    // No connection of the checkpointer's may outlive the files: SQLite deletes a WAL on the last close.
    this.checkpointer.close();
    for (const f of this.files) f.close();
    this.files.length = 0;
    this.brokers.clear();
    this.meta = null;
  }
}

/**
 * mkdir -p without `{ recursive: true }`, which loops forever on some read-only file systems
 * (seen with /proc on Node 20).
 */
function ensureDir(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) ensureDir(parent);
  mkdirSync(dir);
}
