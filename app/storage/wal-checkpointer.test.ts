import BetterSqlite3, { type Database } from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordBatch } from '../core/log/records.js';
import { estimateBatchSize } from '../core/log/records.js';
import { SqliteStorage } from './sqlite-storage.js';
import { WalCheckpointer } from './wal-checkpointer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'rs-ckpt-'));
  dirs.push(d);
  return d;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A file as the storage opens a broker's: WAL, no exclusive lock, SQLite's own checkpoint off. */
function walFile(path: string): Database {
  const db = new BetterSqlite3(path, { timeout: 0 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (i INTEGER PRIMARY KEY, v BLOB)');
  return db;
}
function fill(db: Database, from: number, n: number): void {
  const insert = db.prepare('INSERT INTO t (i, v) VALUES (?, ?)');
  db.transaction(() => {
    for (let i = from; i < from + n; i++) insert.run(i, Buffer.alloc(1000, i % 251));
  })();
}

describe('the WAL checkpointer thread', () => {
  it('copies a WAL into its file on its own thread while the writer goes on committing, unblocked', () => {
    const path = join(tempDir(), 'broker-1.db');
    const db = walFile(path);
    const ckpt = new WalCheckpointer();
    try {
      fill(db, 0, 6_000); // ~6 MB in the WAL, none of it in the file
      const before = statSync(path).size;
      expect(before).toBeLessThan(100_000);
      expect(ckpt.request(path)).toBe(true);
      // The writer (no busy timeout: any lock the checkpoint held would throw SQLITE_BUSY here)
      // commits while the checkpoint runs.
      for (let k = 0; k < 20; k++) fill(db, 6_000 + k * 50, 50);
      expect(ckpt.drain(20_000)).toBe(true);
      expect(ckpt.requested).toBe(1);
      expect(statSync(path).size).toBeGreaterThan(5_000_000);
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 7_000 });
    } finally {
      ckpt.close();
      db.close();
    }
    // The worker kept no connection: the writer's close was the last one, so SQLite removed the WAL.
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('asks once per file while a checkpoint of it is in flight', () => {
    const path = join(tempDir(), 'broker-1.db');
    const db = walFile(path);
    const ckpt = new WalCheckpointer();
    try {
      fill(db, 0, 20_000);
      // Nothing lets the worker's answer in between: the in-flight mark is shared memory.
      for (let k = 0; k < 5; k++) expect(ckpt.request(path)).toBe(true);
      expect(ckpt.requested).toBe(1);
      expect(ckpt.drain(20_000)).toBe(true);
      expect(ckpt.request(path)).toBe(true);
      expect(ckpt.requested).toBe(2);
      expect(ckpt.drain(20_000)).toBe(true);
    } finally {
      ckpt.close();
      db.close();
    }
  });

  it('starts its thread on the first request and stops it when idle; the next request starts it again', async () => {
    const path = join(tempDir(), 'broker-1.db');
    const db = walFile(path);
    const ckpt = new WalCheckpointer({ idleMs: 50 });
    try {
      expect(ckpt.running).toBe(false);
      fill(db, 0, 100);
      ckpt.request(path);
      expect(ckpt.running).toBe(true);
      ckpt.drain(20_000);
      const until = Date.now() + 10_000;
      while (ckpt.running && Date.now() < until) await sleep(20);
      expect(ckpt.running).toBe(false);
      fill(db, 100, 5_000);
      expect(ckpt.request(path)).toBe(true);
      expect(ckpt.running).toBe(true);
      expect(ckpt.drain(20_000)).toBe(true);
      expect(statSync(path).size).toBeGreaterThan(4_000_000);
    } finally {
      ckpt.close();
      db.close();
    }
  });

  it('when its thread cannot run, says so, and the caller checkpoints itself', async () => {
    const path = join(tempDir(), 'broker-1.db');
    const db = walFile(path);
    const ckpt = new WalCheckpointer({ sqlitePath: join(tempDir(), 'no-such-module.js') });
    try {
      fill(db, 0, 100);
      ckpt.request(path);
      const until = Date.now() + 10_000;
      while (ckpt.request(path) && Date.now() < until) await sleep(20);
      expect(ckpt.request(path)).toBe(false);
      expect(ckpt.drain(1_000)).toBe(true); // nothing left waiting on the dead thread
    } finally {
      ckpt.close();
      db.close();
    }
  });

  it("runs a broker file's checkpoints for the storage, off the engine's connection; the metadata file keeps the directory's lock", () => {
    const dir = tempDir();
    const storage = SqliteStorage.open(dir, { checkpointDelayMs: 2 ** 31 - 1 });
    try {
      const log = storage.broker(1).replica('t:0');
      const value = new Uint8Array(1000).fill(7);
      const records = Array.from({ length: 100 }, () => ({ key: null, value, headers: [], timestamp: 1 }));
      storage.batch(() => {
        for (let b = 0; b < 60; b++) log.append({ baseOffset: b * 100, lastOffset: b * 100 + 99, leaderEpoch: 0, appendTimeMs: 1, records, sizeBytes: estimateBatchSize(records) } satisfies RecordBatch);
      });
      const file = storage.brokerFile(1);
      const engineSide = storage.brokerStore(1).file.db;
      const pragmas: string[] = [];
      const pragma = engineSide.pragma.bind(engineSide);
      engineSide.pragma = ((source: string, options?: BetterSqlite3.PragmaOptions) => {
        pragmas.push(source);
        return pragma(source, options);
      }) as typeof engineSide.pragma;
      const before = statSync(file).size;
      storage.checkpointNow();
      expect(storage.checkpointer.drain(20_000)).toBe(true);
      expect(storage.checkpointer.requested).toBe(1);
      expect(pragmas).toEqual([]);
      expect(statSync(file).size).toBeGreaterThan(before + 5_000_000);
      // A second storage on the directory still fails on the metadata file's lock.
      expect(() => SqliteStorage.open(dir)).toThrow(/locked/);
    } finally {
      storage.close();
    }
  });
});

describe('a process killed while its checkpointer copies a broker file', () => {
  it('loses nothing that was committed', () => {
    const dir = tempDir();
    const script = `
      import { SqliteStorage } from ${JSON.stringify(join(import.meta.dirname, 'sqlite-storage.ts'))};
      const s = SqliteStorage.open(${JSON.stringify(dir)}, { checkpointDelayMs: 2 ** 31 - 1 });
      const log = s.broker(1).replica('t:0');
      const value = new Uint8Array(1000).fill(3);
      const records = Array.from({ length: 100 }, () => ({ key: null, value, headers: [], timestamp: 1 }));
      const append = (b) => log.append({ baseOffset: b * 100, lastOffset: b * 100 + 99, leaderEpoch: 0, appendTimeMs: 1, records, sizeBytes: 100 * 1070 });
      s.batch(() => { for (let b = 0; b < 80; b++) append(b); });
      s.checkpointNow(); // the worker starts copying ~8 MB
      const { statSync } = await import('node:fs');
      const file = s.brokerFile(1);
      const until = Date.now() + 10_000;
      while (statSync(file).size < 1_000_000 && Date.now() < until); // until it is copying
      s.batch(() => { for (let b = 80; b < 100; b++) append(b); }); // committed meanwhile
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    expect(statSync(join(dir, 'broker-1.db')).size).toBeGreaterThan(1_000_000); // it had begun
    const reopened = SqliteStorage.open(dir);
    try {
      const log = reopened.broker(1).replica('t:0');
      expect(log.endOffset()).toBe(10_000);
      const last = log.read(9_900, 10_000, 1_000_000);
      expect(last).toHaveLength(1);
      expect(last[0]!.records).toHaveLength(100);
      expect([...last[0]!.records[99]!.value!]).toEqual(new Array(1000).fill(3));
    } finally {
      reopened.close();
    }
  });
});
