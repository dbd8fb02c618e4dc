/**
 * The batches kept in memory at the end of the replica logs share one budget per broker: however
 * many logs a broker holds, their tails together stay within it, the batches appended longest ago
 * going first, and a read of an evicted range comes from the file with the same records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordBatch } from '../core/log/records.js';
import { textRecord } from '../sim/simulation.js';
import { TailBudget, tailCost, type BatchTail } from './batch-tail.js';
import { SqliteStorage } from './sqlite-storage.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const batch = (base: number, n: number, bytes = 100 * n): RecordBatch => ({
  baseOffset: base,
  lastOffset: base + n - 1,
  leaderEpoch: 0,
  appendTimeMs: 0,
  records: Array.from({ length: n }, (_, i) => textRecord(`v${base + i}`)),
  sizeBytes: bytes,
});

const contents = (t: BatchTail): number[] => Array.from({ length: t.length }, (_, i) => t.at(i).baseOffset);

describe('TailBudget', () => {
  it('evicts the oldest batches of the log appended to longest ago', () => {
    const one = tailCost(batch(0, 1));
    const budget = new TailBudget({ perLogBatches: 32, perLogBytes: 1 << 20, budget: 3 * one });
    const a = budget.tail();
    const b = budget.tail();
    a.push(batch(0, 1));
    b.push(batch(0, 1));
    a.push(batch(1, 1));
    b.push(batch(1, 1)); // over the budget: a was appended to before b
    expect(contents(a)).toEqual([1]);
    expect(contents(b)).toEqual([0, 1]);
    a.push(batch(2, 1)); // now b was appended to longest ago
    expect(contents(a)).toEqual([1, 2]);
    expect(contents(b)).toEqual([1]);
    expect(budget.cost).toBe(3 * one);
  });

  it('a retention delete that leaves the newest batches keeps the log in the eviction order', () => {
    const budget = new TailBudget({ perLogBatches: 32, perLogBytes: 1 << 20, budget: 1 << 30 });
    const t = budget.tail();
    for (let i = 0; i < 4; i++) t.push(batch(i, 1, 10));
    t.retain((b) => b.baseOffset >= 2);
    expect(contents(t)).toEqual([2, 3]);
    expect(budget.tailsHolding).toBe(1);
    expect(budget.batches).toBe(2);
  });

  it('keeps the per-log limits of count and bytes', () => {
    const budget = new TailBudget({ perLogBatches: 3, perLogBytes: 1_000, budget: 1 << 30 });
    const t = budget.tail();
    for (let i = 0; i < 5; i++) t.push(batch(i, 1, 10));
    expect(contents(t)).toEqual([2, 3, 4]);
    t.push(batch(5, 1, 990)); // 3 × 10 + 990 > 1,000: the oldest go until 10 + 990 fits
    expect(contents(t)).toEqual([4, 5]);
    t.push(batch(6, 1, 5_000)); // alone over the bytes: kept, as the last batch always is
    expect(contents(t)).toEqual([6]);
    expect(budget.batches).toBe(1);
    expect(budget.cost).toBe(tailCost(batch(6, 1, 5_000)));
  });

  it('under random appends, truncations, retention deletes and deleted logs: within the budget, each tail the newest batches of its log', () => {
    type Op =
      | { kind: 'push'; log: number; n: number }
      | { kind: 'truncate'; log: number; keep: number }
      | { kind: 'deleteBefore'; log: number; keep: number }
      | { kind: 'clear'; log: number };
    const op: fc.Arbitrary<Op> = fc.oneof(
      { weight: 8, arbitrary: fc.record({ kind: fc.constant('push' as const), log: fc.nat(7), n: fc.integer({ min: 1, max: 20 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), log: fc.nat(7), keep: fc.nat(5) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteBefore' as const), log: fc.nat(7), keep: fc.nat(5) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const), log: fc.nat(7) }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3_000 }), fc.integer({ min: 1_000, max: 60_000 }), (ops, limit) => {
        const budget = new TailBudget({ perLogBatches: 6, perLogBytes: 1_500, budget: limit });
        const tails = Array.from({ length: 8 }, () => budget.tail());
        // What each log holds, oldest first (the truth the tails are a suffix of).
        const logs: number[][] = tails.map(() => []);
        const ends = tails.map(() => 0);
        for (const o of ops) {
          const t = tails[o.log]!;
          if (o.kind === 'push') {
            t.push(batch(ends[o.log]!, o.n, 10 * o.n));
            logs[o.log]!.push(ends[o.log]!);
            ends[o.log]! += o.n;
          } else if (o.kind === 'truncate') {
            const log = logs[o.log]!;
            const cut = log[Math.max(0, log.length - o.keep)] ?? ends[o.log]!;
            t.retain((b) => b.baseOffset < cut);
            logs[o.log] = log.filter((base) => base < cut);
            ends[o.log] = cut;
          } else if (o.kind === 'deleteBefore') {
            // Retention: the oldest batches go, the newest `keep` stay.
            const log = logs[o.log]!;
            const start = log[Math.max(0, log.length - o.keep)] ?? ends[o.log]!;
            t.retain((b) => b.baseOffset >= start);
            logs[o.log] = log.filter((base) => base >= start);
          } else {
            t.clear();
            logs[o.log] = [];
          }
          let cost = 0;
          let count = 0;
          tails.forEach((tail, i) => {
            const kept = contents(tail);
            expect(kept).toEqual(logs[i]!.slice(logs[i]!.length - kept.length));
            for (let k = 0; k < tail.length; k++) cost += tailCost(tail.at(k));
            count += tail.length;
          });
          expect(budget.cost).toBe(cost);
          expect(budget.batches).toBe(count);
          expect(cost).toBeLessThanOrEqual(limit);
          expect(budget.tailsHolding).toBe(tails.filter((t) => t.length > 0).length);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('a broker with many replica logs', () => {
  it('keeps its tails within the budget, and a read past them comes from the file with the same records', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replica-tail-'));
    dirs.push(dir);
    const storage = SqliteStorage.open(dir);
    try {
      const broker = storage.broker(1);
      const logs = Array.from({ length: 300 }, (_, p) => broker.replica(`t-${p}`));
      // 300 logs × 20 batches of 10 records: well over the budget if each log kept its own tail.
      for (let round = 0; round < 20; round++) for (const log of logs) log.append(batch(round * 10, 10, 0));
      const tails = (storage as unknown as { brokers: Map<number, { tails: TailBudget }> }).brokers.get(1)!.tails;
      expect(tails.cost).toBeLessThanOrEqual(tails.limits.budget);
      expect(tails.batches).toBeGreaterThan(0);
      expect(tails.batches).toBeLessThan(300 * 20);
      for (const p of [0, 150, 299]) {
        const read = logs[p]!.read(0, 200, 1 << 30);
        expect(read.flatMap((b) => b.records.map((r) => new TextDecoder().decode(r.value!)))).toEqual(Array.from({ length: 200 }, (_, i) => `v${i}`));
      }
      // The newest batch of the log appended last is still in memory and reads the same.
      const last = logs[299]!.read(190, 200, 1 << 30);
      expect(last.map((b) => b.baseOffset)).toEqual([190]);
      // A deleted log gives its batches back to the budget.
      const before = tails.batches;
      broker.deleteReplica('t-299');
      expect(tails.batches).toBeLessThan(before);
    } finally {
      storage.close();
    }
  });
});
