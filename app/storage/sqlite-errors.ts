/**
 * SQLite failures as coded, user-facing errors that name the file. A storage failure is
 * KAFKA_STORAGE_ERROR (Kafka's code for a failed log directory); the SQLite code travels in
 * `details` so the console can say "disk full" rather than "something went wrong".
 */
import { KafkaError } from '../api/errors.js';

const EXPLANATIONS: Record<string, string> = {
  SQLITE_FULL: 'the disk (or the file size limit) is full',
  SQLITE_BUSY: 'it is locked by another process (is another Replica Studio using this data directory?)',
  SQLITE_LOCKED: 'it is locked by another connection',
  SQLITE_READONLY: 'it is read-only',
  SQLITE_READONLY_DIRECTORY: 'its directory is read-only',
  SQLITE_CANTOPEN: 'it cannot be opened (missing or read-only directory?)',
  SQLITE_CORRUPT: 'the file is corrupt',
  SQLITE_NOTADB: 'it is not a SQLite database',
  SQLITE_IOERR: 'an I/O error occurred',
  SQLITE_PERM: 'permission denied',
};

export function sqliteCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Wrap any error from better-sqlite3 into a KafkaError naming `file` and what we were doing. */
export function storageError(e: unknown, file: string, action: string): KafkaError {
  if (e instanceof KafkaError) return e;
  const code = sqliteCode(e) ?? 'UNKNOWN';
  const base = Object.keys(EXPLANATIONS).find((k) => code === k || code.startsWith(`${k}_`));
  const why = (base && EXPLANATIONS[code]) ?? (base && EXPLANATIONS[base]) ?? (e instanceof Error ? e.message : String(e));
  return new KafkaError('KAFKA_STORAGE_ERROR', `Cannot ${action} ${file}: ${why} (${code}).`, { file, sqliteCode: code });
}

/** Run `fn`, turning SQLite failures into storage errors for `file`. */
export function guard<T>(file: string, action: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw storageError(e, file, action);
  }
}
