/**
 * One SQLite file of a data directory: opened with an exclusive lock (a second process fails on
 * open, not on its first write), WAL and the chosen `synchronous`, migrated to the current schema
 * (a newer file is refused before anything writes to it). A write inside a storage batch joins
 * the file's open transaction; the batch commits or rolls back every file it touched.
 */
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { checkVersion, migrate, type FileKind } from './migrations.js';
import { guard, storageError } from './sqlite-errors.js';

export interface SqliteStorageOptions {
  /** SQLite `synchronous`: NORMAL survives a process crash, FULL also an OS crash. */
  synchronous?: 'NORMAL' | 'FULL';
  /** Limit each file's size in pages (tests use it to provoke SQLITE_FULL). */
  maxPageCount?: number;
}

/**
 * Each file's page cache. better-sqlite3 builds SQLite with 16 MiB per connection; a data
 * directory holds one file per broker, and a broker's writes go to the end of its tables, so
 * that cache held what was just written, as the OS's page cache does anyway: after 1,000,000
 * records over 12 brokers the engine kept ~200 MB of pages (RSS 437 MB → 226 MB once shrunk).
 */
export const DEFAULT_CACHE_KIB = 2048;

/** The storage a file belongs to: whether a batch is open, and where a file joins it. */
export interface FileOwner {
  readonly batching: boolean;
  joined(file: SqliteFile): void;
}

/** One SQLite file: pragmas, exclusive lock, migrations, and optional grouped transactions. */
export class SqliteFile {
  readonly db: Database;
  private inTransaction = false;

  constructor(
    readonly path: string,
    kind: FileKind,
    private readonly owner: FileOwner,
    options: SqliteStorageOptions,
  ) {
    this.db = guard(path, 'open', () => new BetterSqlite3(path, { timeout: 0 }));
    try {
      // Refuse a newer file before anything writes to it (even switching to WAL rewrites the header).
      checkVersion(this.db, kind, path);
    } catch (e) {
      this.db.close();
      throw storageError(e, path, 'open');
    }
    guard(path, 'open', () => {
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
      if (options.maxPageCount) this.db.pragma(`max_page_count = ${options.maxPageCount}`);
      this.db.pragma(`cache_size = -${DEFAULT_CACHE_KIB}`);
      // Take the exclusive lock now: a second process fails here, not on its first write.
      this.db.exec('BEGIN IMMEDIATE; COMMIT;');
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
      return fn();
    });
  }

  commit(): void {
    if (!this.inTransaction) return;
    this.inTransaction = false;
    guard(this.path, 'commit', () => this.db.exec('COMMIT'));
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
