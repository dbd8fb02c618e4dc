/**
 * Service tests on a real data directory: a simulated cluster on SQLite files in a temp dir,
 * closed and deleted by `closeDataDirs` (call it in afterEach), and `ok` to unwrap an envelope.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStorage } from '../../storage/sqlite-storage.js';
import { createVirtualClusterService, type VirtualClusterService } from '../virtual-service.js';

export interface DataDirService {
  s: VirtualClusterService;
  dir: string;
  storage: SqliteStorage;
}

const open: { storage: SqliteStorage; dir: string }[] = [];

/** A cluster service over a (new, unless `dir` is given) data directory. */
export function dataDirService(options: { dir?: string; brokers?: number | { id: number; rack?: string | null }[]; seed?: number } = {}): DataDirService {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'replica-studio-service-'));
  const storage = SqliteStorage.open(dir);
  open.push({ storage, dir });
  return { s: createVirtualClusterService({ seed: options.seed ?? 1, brokers: options.brokers ?? 3, storage }), dir, storage };
}

/** Close a data directory's storage early, keeping its files (to reopen it). */
export function closeKeeping(d: DataDirService): void {
  d.storage.close();
  const i = open.findIndex((o) => o.storage === d.storage);
  if (i >= 0) open.splice(i, 1);
}

/** Close every storage opened here and delete its directory. */
export function closeDataDirs(): void {
  for (const { storage, dir } of open.splice(0)) {
    storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The value of a successful envelope; a failed one throws with its code and message. */
export async function ok<T>(p: Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}
