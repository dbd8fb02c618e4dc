/**
 * A clean shutdown writes a summary of each replica log (last offset, bytes, largest timestamps),
 * and the next start of that broker reads it instead of every batch of the file — Kafka skips log
 * recovery after a clean shutdown the same way. Whatever happened before (appends, truncations,
 * retention deletes, deleted logs, crashes, clean and unclean stops), a reopened log must be the
 * log the batches on disk make.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BrokerLogStore, ReplicaLogStore } from '../core/log/log-store.js';
import { textRecord } from '../sim/simulation.js';
import { SqliteStorage } from './sqlite-storage.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'replica-summary-'));
  dirs.push(d);
  return d;
}

const batch = (base: number, n: number, at: number) => ({
  baseOffset: base,
  lastOffset: base + n - 1,
  leaderEpoch: 0,
  appendTimeMs: at,
  records: Array.from({ length: n }, (_, i) => ({ ...textRecord(`v${base + i}`), timestamp: at + 7 * i })),
  sizeBytes: 0,
});

/** What opening needs of a log's batches. */
const view = (log: ReplicaLogStore) => ({ end: log.endOffset(), size: log.sizeBytes(), whole: log.rangeStats(0, log.endOffset()) });

/** SQL prepared on any SQLite connection while `fn` runs. */
function preparedDuring(fn: () => void): string[] {
  const sqls: string[] = [];
  const prepare = BetterSqlite3.prototype.prepare;
  const spy = vi.spyOn(BetterSqlite3.prototype, 'prepare').mockImplementation(function (this: BetterSqlite3.Database, sql: string) {
    sqls.push(sql);
    return prepare.call(this, sql);
  } as typeof prepare);
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return sqls;
}
const readsEveryBatch = (sqls: string[]): boolean => sqls.some((s) => /FROM batches GROUP BY replica/.test(s));

/** Open `dir` as a broker does on start: list the logs (one bulk read), open each, mark the start. */
function startBroker(dir: string): { storage: SqliteStorage; broker: BrokerLogStore; logs: Map<string, ReplicaLogStore>; sqls: string[] } {
  let storage!: SqliteStorage;
  let broker!: BrokerLogStore;
  const logs = new Map<string, ReplicaLogStore>();
  const sqls = preparedDuring(() => {
    storage = SqliteStorage.open(dir);
    broker = storage.broker(1);
    const state = broker.loadState();
    for (const key of broker.replicaKeys()) logs.set(key, broker.replica(key));
    broker.saveState({ ...state, cleanShutdown: false });
  });
  return { storage, broker, logs, sqls };
}

/** Each log of `dir` opened one at a time, without the bulk read or any summary: the truth. */
function direct(dir: string, keys: string[]): Record<string, ReturnType<typeof view>> {
  const storage = SqliteStorage.open(dir);
  try {
    return Object.fromEntries(keys.map((k) => [k, view(storage.broker(1).replica(k))]));
  } finally {
    storage.close();
  }
}

describe('replica summaries of a clean shutdown', () => {
  it('a broker that stopped cleanly starts without reading its batches; one that did not reads them all', () => {
    const dir = tempDir();
    let run = startBroker(dir);
    const a = run.broker.replica('a:0');
    a.append(batch(0, 3, 100));
    a.append(batch(3, 2, 200));
    run.broker.replica('b:0');
    run.broker.saveState({ cleanShutdown: true, powerLost: false, lastBrokerEpoch: 5 });
    run.storage.close();
    const truth = direct(dir, ['a:0', 'b:0']);

    run = startBroker(dir);
    expect(readsEveryBatch(run.sqls)).toBe(false);
    expect(Object.fromEntries([...run.logs].map(([k, log]) => [k, view(log)]))).toEqual(truth);
    expect(truth['a:0']).toMatchObject({ end: 5, whole: { maxTimestamp: 207, maxAppendTimeMs: 200 } });
    // Running, then gone without a clean shutdown (the process died): the next start reads every batch.
    run.logs.get('a:0')!.append(batch(5, 1, 300));
    run.storage.close();
    run = startBroker(dir);
    expect(readsEveryBatch(run.sqls)).toBe(true);
    const reopened = view(run.logs.get('a:0')!);
    run.storage.close();
    expect(reopened).toEqual(direct(dir, ['a:0'])['a:0']);
    expect(reopened).toMatchObject({ end: 6, whole: { maxTimestamp: 300, maxAppendTimeMs: 300 } });
  });

  it('truncating inside a batch keeps the records below the cut (found by the property below)', () => {
    const dir = tempDir();
    const run = startBroker(dir);
    const log = run.broker.replica('t:0');
    log.append(batch(0, 2, 0));
    log.append(batch(2, 2, 0));
    log.truncateTo(1);
    expect(log.endOffset()).toBe(1);
    expect(log.read(0, 10, 1 << 20).map((b) => [b.baseOffset, b.lastOffset, b.records.length])).toEqual([[0, 0, 1]]);
    run.storage.close();
    expect(direct(dir, ['t:0'])['t:0']).toMatchObject({ end: 1 });
  });

  it('under random histories a reopened broker holds exactly the logs its batches make', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), log: fc.integer({ min: 0, max: 2 }), n: fc.integer({ min: 1, max: 4 }), at: fc.integer({ min: 0, max: 10_000 }) }),
      fc.record({ kind: fc.constant('truncate' as const), log: fc.integer({ min: 0, max: 2 }), back: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant('deleteBefore' as const), log: fc.integer({ min: 0, max: 2 }), ahead: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant('deleteLog' as const), log: fc.integer({ min: 0, max: 2 }) }),
      fc.record({ kind: fc.constant('stop' as const), clean: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 30 }), (ops) => {
        const dir = tempDir();
        let run = startBroker(dir);
        const logOf = (i: number): ReplicaLogStore => {
          const key = `t${i}:0`;
          let log = run.logs.get(key);
          if (!log) run.logs.set(key, (log = run.broker.replica(key)));
          return log;
        };
        const check = (): void => {
          const keys = [...run.logs.keys()].sort();
          const seen = Object.fromEntries(keys.map((k) => [k, view(run.logs.get(k)!)]));
          run.storage.close();
          expect(seen).toEqual(direct(dir, keys));
        };
        for (const o of ops) {
          if (o.kind === 'append') {
            const log = logOf(o.log);
            log.append(batch(log.endOffset(), o.n, o.at));
          } else if (o.kind === 'truncate') {
            const log = logOf(o.log);
            log.truncateTo(Math.max(0, log.endOffset() - o.back));
          } else if (o.kind === 'deleteBefore') {
            const log = logOf(o.log);
            log.deleteBefore(Math.min(log.endOffset(), o.ahead));
          } else if (o.kind === 'deleteLog') {
            run.broker.deleteReplica(`t${o.log}:0`);
            run.logs.delete(`t${o.log}:0`);
          } else {
            if (o.clean) run.broker.saveState({ cleanShutdown: true, powerLost: false, lastBrokerEpoch: 1 });
            run.storage.close();
            run = startBroker(dir);
            // After a clean stop the start read the summary, not the batches; either way what it
            // opened must be what the batches on disk make.
            if (run.logs.size > 0) expect(readsEveryBatch(run.sqls)).toBe(!o.clean);
            check();
            run = startBroker(dir);
          }
        }
        check();
      }),
      { numRuns: 60 },
    );
  });
});
