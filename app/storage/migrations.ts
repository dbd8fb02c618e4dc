/**
 * Versioned schema migrations of the two kinds of SQLite file. Each migration runs once, in a
 * transaction, and records the new `schema_version` in `meta`; a file whose version is newer
 * than this build knows is refused with an error naming the file (nothing is touched).
 */
import type { Database } from 'better-sqlite3';
import { KafkaError } from '../api/errors.js';

export type FileKind = 'broker' | 'metadata';

export interface Migration {
  version: number;
  description: string;
  up(db: Database): void;
}

export const BROKER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'replica logs: record batches, leader-epoch cache, checkpoints, broker state',
    up(db) {
      db.exec(`
        CREATE TABLE replicas (
          id INTEGER PRIMARY KEY,
          key TEXT NOT NULL UNIQUE,
          high_watermark INTEGER NOT NULL DEFAULT 0,
          log_start_offset INTEGER NOT NULL DEFAULT 0,
          flushed_offset INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE batches (
          replica INTEGER NOT NULL,
          base_offset INTEGER NOT NULL,
          last_offset INTEGER NOT NULL,
          leader_epoch INTEGER NOT NULL,
          append_time INTEGER NOT NULL,
          max_timestamp INTEGER NOT NULL,
          size INTEGER NOT NULL,
          data BLOB NOT NULL,
          PRIMARY KEY (replica, base_offset)
        );
        CREATE TABLE epochs (
          replica INTEGER NOT NULL,
          epoch INTEGER NOT NULL,
          start_offset INTEGER NOT NULL,
          PRIMARY KEY (replica, epoch)
        ) WITHOUT ROWID;
        CREATE TABLE broker_state (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          clean_shutdown INTEGER NOT NULL,
          last_broker_epoch INTEGER NOT NULL,
          power_lost INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 2,
    description: 'segments: ranges of batches rolled by segment.bytes / segment.ms',
    up(db) {
      db.exec(`
        CREATE TABLE segments (
          replica INTEGER NOT NULL,
          base_offset INTEGER NOT NULL,
          created_ms INTEGER NOT NULL,
          PRIMARY KEY (replica, base_offset)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 3,
    description: 'replica summaries written at a clean shutdown, so the next start reads them instead of every batch',
    up(db) {
      db.exec(`
        CREATE TABLE replica_summary (
          replica INTEGER PRIMARY KEY,
          last_offset INTEGER,
          bytes INTEGER NOT NULL,
          max_timestamp INTEGER NOT NULL,
          max_append_time INTEGER NOT NULL
        );
      `);
    },
  },
  {
    version: 4,
    description: "the log cleaner's checkpoint per replica log (Kafka's cleaner-offset-checkpoint): the first offset not cleaned yet",
    up(db) {
      db.exec('ALTER TABLE replicas ADD COLUMN cleaner_offset INTEGER');
    },
  },
];

export const METADATA_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'metadata log and cluster settings',
    up(db) {
      db.exec(`
        CREATE TABLE records (
          offset INTEGER PRIMARY KEY,
          timestamp_ms INTEGER NOT NULL,
          record TEXT NOT NULL
        );
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      `);
    },
  },
  {
    version: 2,
    description: 'metadata snapshots: the image at an offset, so an open reads only the records after it',
    up(db) {
      db.exec(`
        CREATE TABLE snapshots (
          offset INTEGER PRIMARY KEY,
          timestamp_ms INTEGER NOT NULL,
          data TEXT NOT NULL
        );
      `);
    },
  },
];

export function migrationsFor(kind: FileKind): readonly Migration[] {
  return kind === 'broker' ? BROKER_MIGRATIONS : METADATA_MIGRATIONS;
}

export function latestVersion(kind: FileKind): number {
  const list = migrationsFor(kind);
  return list[list.length - 1]!.version;
}

/** Bring `db` (a file of `kind` at `file`) to `target` (default: the latest version). */
export function migrate(db: Database, kind: FileKind, file: string, target = latestVersion(kind)): number {
  db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const row = db.prepare("SELECT value FROM meta WHERE key = 'kind'").get() as { value: string } | undefined;
  if (row && row.value !== kind) {
    throw new KafkaError('KAFKA_STORAGE_ERROR', `${file} is a ${row.value} file, not a ${kind} file.`, { file });
  }
  const current = Number((db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined)?.value ?? 0);
  const latest = latestVersion(kind);
  if (current > latest) {
    throw new KafkaError(
      'KAFKA_STORAGE_ERROR',
      `${file} was written by a newer version of Replica Studio (schema ${current}; this version understands up to ${latest}). Upgrade Replica Studio to open it; the file was not changed.`,
      { file, schemaVersion: current, supported: latest },
    );
  }
  for (const m of migrationsFor(kind)) {
    if (m.version <= current || m.version > target) continue;
    db.transaction(() => {
      m.up(db);
      db.prepare("INSERT INTO meta (key, value) VALUES ('kind', ?) ON CONFLICT(key) DO NOTHING").run(kind);
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(String(m.version));
    })();
  }
  return Math.max(current, Math.min(target, latest));
}

/** Throw if `db` holds a different kind of file or a schema newer than this build; reads only. */
export function checkVersion(db: Database, kind: FileKind, file: string): void {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!hasMeta) return;
  const rows = db.prepare("SELECT key, value FROM meta WHERE key IN ('kind', 'schema_version')").all() as { key: string; value: string }[];
  const fileKind = rows.find((r) => r.key === 'kind')?.value;
  if (fileKind && fileKind !== kind) throw new KafkaError('KAFKA_STORAGE_ERROR', `${file} is a ${fileKind} file, not a ${kind} file.`, { file });
  const current = Number(rows.find((r) => r.key === 'schema_version')?.value ?? 0);
  const latest = latestVersion(kind);
  if (current > latest) {
    throw new KafkaError(
      'KAFKA_STORAGE_ERROR',
      `${file} was written by a newer version of Replica Studio (schema ${current}; this version understands up to ${latest}). Upgrade Replica Studio to open it; the file was not changed.`,
      { file, schemaVersion: current, supported: latest },
    );
  }
}
