/**
 * One SQLite file of a data directory: WAL and the chosen `synchronous`; the metadata file with
 * SQLite's exclusive lock, which is the data directory's (a second process fails on opening it,
 * not on its first write; it is opened first), broker files without it, so that the checkpointer's
 * thread can open them too (wal-checkpointer.ts); migrated to the current schema
 * (a newer file is refused before anything writes to it). A write inside a storage batch joins
 * the file's open transaction; the batch commits or rolls back every file it touched.
 */
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { statSync } from 'node:fs';
import { checkVersion, migrate, type FileKind } from './migrations.js';
import { guard, storageError } from './sqlite-errors.js';

export interface SqliteStorageOptions {
  /** SQLite `synchronous`: NORMAL survives a process crash, FULL also an OS crash. */
  synchronous?: 'NORMAL' | 'FULL';
  /** Limit each file's size in pages (tests use it to provoke SQLITE_FULL). */
  maxPageCount?: number;
  /** How long after a commit the file's WAL is copied into it (see `WAL_SAFETY_PAGES`); default 100 ms. */
  checkpointDelayMs?: number;
}

/**
 * WAL checkpoints run in the background, not in the commit that fills the WAL. SQLite's default
 * copies the WAL into the file inside the commit that takes it past 1,000 pages (4 MiB), with
 * two fsyncs, so whichever engine step wrote the 4th MiB paid for all of it (a controlled shutdown
 * at scale writes megabytes of metadata records in one step). Each file is instead looked at about
 * `checkpointDelayMs` after a commit, in a task of its own, and checkpointed (PASSIVE) if its WAL
 * holds CHECKPOINT_AT_BYTES. Nothing waits for it: what is committed is in the WAL, which a reopen
 * replays. The delay is short so that under a steady load the WAL stays about as small as SQLite's
 * default keeps it: a WAL left to grow makes every commit and read dearer
 * (`npm run bench -- produce` runs the checkpoints inside its windows; docs/performance.md).
 * A broker file's checkpoint runs on a worker thread (wal-checkpointer.ts), the metadata file's
 * on the engine's. SQLite's own checkpoint stays as a bound, at this many pages (64 MiB), should a
 * burst outrun the timer. It is also what restarts a broker file's WAL under a steady produce
 * load: the worker's PASSIVE checkpoints copy all but the frames committed while they ran, and
 * SQLite starts the WAL over only once it is all copied, so then the engine's thread copies those
 * last frames (`npm run bench -- produce` grew the WAL to this bound and no further).
 */
export const WAL_SAFETY_PAGES = 16_384;
/**
 * What the WAL holds before the background checkpoint copies it: SQLite's own default (1,000
 * pages of 4 KiB with their frame headers), so a quiet cluster's few writes are not checkpointed
 * — two fsyncs per file — every 100 ms, which an idle cluster of many files would pay for nothing.
 */
export const CHECKPOINT_AT_BYTES = 1_000 * (4_096 + 24);

/**
 * Whether the file at `path` is due a checkpoint: its WAL holds CHECKPOINT_AT_BYTES. The WAL is
 * truncated when it starts over after a checkpoint (journal_size_limit = 0), so its size is what
 * it holds. Also the produce benchmark's raw limit, so both follow one rule.
 */
function walIsFull(path: string): boolean {
  return statSync(`${path}-wal`).size >= CHECKPOINT_AT_BYTES;
}

/**
 * Checkpoint (PASSIVE) the file at `path` once its WAL is full: on another thread when
 * `inBackground` takes it (wal-checkpointer.ts), else on this connection.
 */
export function checkpointIfFull(db: Database, path: string, inBackground?: (path: string) => boolean): void {
  if (walIsFull(path) && !inBackground?.(path)) db.pragma('wal_checkpoint(PASSIVE)');
}
export const DEFAULT_CHECKPOINT_DELAY_MS = 100;

/**
 * Each file's page cache. better-sqlite3 builds SQLite with 16 MiB per connection; a data
 * directory holds one file per broker, and a broker's writes go to the end of its tables, so
 * that cache held what was just written, as the OS's page cache does anyway, and a dozen files
 * of it is hundreds of megabytes of RSS for nothing.
 */
export const DEFAULT_CACHE_KIB = 2048;

/** The storage a file belongs to: whether a batch is open, and where a file joins it. */
export interface FileOwner {
  readonly batching: boolean;
  joined(file: SqliteFile): void;
  /** The file committed a transaction: its WAL is due a checkpoint. */
  committed(file: SqliteFile): void;
  /** Checkpoint the file at `path` on another thread; false when the file should do it itself. */
  checkpointInBackground(path: string): boolean;
}

/** One SQLite file: pragmas, the lock (metadata file), migrations, and optional grouped transactions. */
export class SqliteFile {
  readonly db: Database;
  /** Opened without the exclusive lock, so the checkpointer's connection can open it too. */
  private readonly shared: boolean;
  private inTransaction = false;

  constructor(
    readonly path: string,
    kind: FileKind,
    private readonly owner: FileOwner,
    options: SqliteStorageOptions,
  ) {
    this.shared = kind === 'broker';
    this.db = guard(path, 'open', () => new BetterSqlite3(path, { timeout: 0 }));
    try {
      // Refuse a newer file before anything writes to it (even switching to WAL rewrites the header).
      checkVersion(this.db, kind, path);
    } catch (e) {
      this.db.close();
      throw storageError(e, path, 'open');
    }
    guard(path, 'open', () => {
      // The metadata file holds the data directory's lock (SQLite's exclusive locking mode). A
      // broker file stays open to a second connection: the checkpointer's, on its own thread.
      if (!this.shared) this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
      if (options.maxPageCount) this.db.pragma(`max_page_count = ${options.maxPageCount}`);
      this.db.pragma(`cache_size = -${DEFAULT_CACHE_KIB}`);
      this.db.pragma(`wal_autocheckpoint = ${WAL_SAFETY_PAGES}`);
      this.db.pragma('journal_size_limit = 0');
      // Take the exclusive lock now: a second process fails here, not on its first write.
      if (!this.shared) this.db.exec('BEGIN IMMEDIATE; COMMIT;');
    });
    try {
      migrate(this.db, kind, path);
    } catch (e) {
      this.db.close();
      throw storageError(e, path, 'migrate');
    }
  }

  /** Run a write: inside a storage batch it joins the file's open transaction. */
  write<T>(action: string, fn: () => T): T {
    return guard(this.path, action, () => {
      if (this.owner.batching && !this.inTransaction) {
        this.db.exec('BEGIN');
        this.inTransaction = true;
        this.owner.joined(this);
      }
      const result = fn();
      if (!this.inTransaction) this.owner.committed(this);
      return result;
    });
  }

  /**
   * Run several writes all or nothing: alone, as one transaction; inside a storage batch, as a
   * savepoint of the file's open transaction (a failure undoes these writes and lets the batch
   * go on, as the log cleaner does when it marks a partition uncleanable).
   */
  transaction<T>(action: string, fn: () => T): T {
    // Inside an open transaction better-sqlite3 runs `fn` in a savepoint: a failure undoes it alone.
    return this.write(action, () => this.db.transaction(fn)());
  }

  commit(): void {
    if (!this.inTransaction) return;
    this.inTransaction = false;
    guard(this.path, 'commit', () => this.db.exec('COMMIT'));
    this.owner.committed(this);
  }

  /**
   * Copy what the WAL holds into the file once it holds CHECKPOINT_AT_BYTES (PASSIVE: it never
   * waits for the writer). A failure leaves the WAL as it is — still durable — for the next one.
   */
  checkpoint(): void {
    if (!this.db.open || this.inTransaction) return;
    try {
      // A broker file's goes to the checkpointer's thread (wal-checkpointer.ts) when it can run.
      checkpointIfFull(this.db, this.path, this.shared ? (p) => this.owner.checkpointInBackground(p) : undefined);
    } catch {
      // e.g. the disk is full: the WAL keeps the data; the next commit asks again.
    }
  }

  rollback(): void {
    if (!this.inTransaction) return;
    this.inTransaction = false;
    try {
      this.db.exec('ROLLBACK');
    } catch {
      // The transaction may already be gone (SQLite rolls back on some errors by itself).
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
