import { describe, expect, it } from 'vitest';
import { GroupCoordinator } from '../../core/group/coordinator.js';
import { ClassicGroup } from '../../core/group/group.js';
import { PartitionLog } from '../../core/log/partition-log.js';
import { runFaultSeed, type FaultRunResult } from './run.js';

const SEEDS = 8;

/** Run `seeds` with `broken` swapped in for the engine's own `name` on `proto` (a deliberately broken engine). */
function withBroken<T extends object>(proto: T, name: string, broken: PropertyDescriptor, seeds: number[]): FaultRunResult[] {
  const own = Object.getOwnPropertyDescriptor(proto, name)!;
  Object.defineProperty(proto, name, { ...own, ...broken });
  try {
    return seeds.map((seed) => runFaultSeed(seed, { transactional: true }));
  } finally {
    Object.defineProperty(proto, name, own);
  }
}

describe('the fault run with transactional producers', () => {
  it(`after healing, read_committed sees every committed transaction's records once, no aborted one's, and each unknown one whole or not at all; the transform's committed offsets match its output exactly once and a stalled member's commits are fenced; no LSO passes an open transaction meanwhile (${SEEDS} seeds)`, () => {
    const failures: string[] = [];
    let committed = 0;
    let aborted = 0;
    let coordinatorMoves = 0;
    let lsoChecks = 0;
    let pendingOffsetChecks = 0;
    let transformed = 0;
    let fencedCommits = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = runFaultSeed(seed, {
        transactional: true,
        inspect: (sim) =>
          sim.engine.subscribe((e) => {
            if (e.type === 'transaction.stateChanged' && e.transactionalId.startsWith('xt-tx-')) {
              if (e.state === 'CompleteCommit') committed++;
              if (e.state === 'CompleteAbort') aborted++;
            }
            if (e.type === 'txnCoordinator.loaded' && e.transactionalIds.some((id) => id.startsWith('xt-tx-'))) coordinatorMoves++;
          }),
      });
      if (!r.ok) failures.push([`seed ${seed} failed`, ...r.violations, 'schedule:', ...r.schedule].join('\n  '));
      lsoChecks += r.stats.lsoChecks ?? 0;
      pendingOffsetChecks += r.stats.pendingOffsetChecks ?? 0;
      transformed += Number(/(\d+) outputs exactly once/.exec(r.schedule.join('\n'))?.[1] ?? 0);
      fencedCommits += Number(/(\d+) commits fenced/.exec(r.schedule.join('\n'))?.[1] ?? 0);
    }
    expect(failures).toEqual([]);
    // Transactions ran through the faults: committed and aborted ones, and coordinators that moved mid-run.
    expect(committed).toBeGreaterThan(SEEDS * 20);
    expect(aborted).toBeGreaterThan(SEEDS * 5);
    expect(coordinatorMoves).toBeGreaterThan(0);
    // The LSO was checked against open transactions all through, so were the transform's pending
    // group offsets (OffsetFetch with and without require_stable), and the transform committed input.
    expect(lsoChecks).toBeGreaterThan(SEEDS * 100);
    expect(pendingOffsetChecks).toBeGreaterThan(SEEDS * 20);
    expect(transformed).toBeGreaterThan(SEEDS * 20);
    // A transformer stalled past its group session now and then: the group gave its input to the
    // other, and the coordinator refused the stalled member's TxnOffsetCommit for its generation (KIP-447).
    expect(fencedCommits).toBeGreaterThan(SEEDS);
  }, 600_000);

  it('catches a leader whose LSO passes an open transaction while the run goes on (an LSO that ignores open transactions)', () => {
    const runs = withBroken(PartitionLog.prototype, 'lastStableOffset', { get: function (this: PartitionLog) { return this.highWatermark; } }, [1, 2]);
    for (const r of runs) {
      expect(r.ok).toBe(false);
      expect(r.violations.some((v) => /LSO \d+ passes the open transaction of x[tc]-tx-\d+ .* its coordinator holds Ongoing/.test(v))).toBe(true);
    }
  }, 120_000);

  it("catches a group coordinator whose OffsetFetch with require_stable answers past a transaction's pending offsets (no UNSTABLE_OFFSET_COMMIT)", () => {
    const runs = withBroken(ClassicGroup.prototype, 'hasPendingOffsetCommitsFor', { value: function (this: ClassicGroup, k: string) { return this.pendingOffsetCommits.has(k); } }, [1, 2]);
    for (const r of runs) {
      expect(r.ok).toBe(false);
      expect(r.violations.some((v) => /OffsetFetch with require_stable answers NONE \(offset -?\d+\) for xg's offset \d+ of xin-\d, pending in the open transaction of xc-tx-\d .*; UNSTABLE_OFFSET_COMMIT expected/.test(v))).toBe(true);
    }
  }, 120_000);

  it("catches a group coordinator that makes a transaction's offsets the group's before its COMMIT marker", () => {
    const own = ClassicGroup.prototype.prepareTxnOffsetCommit;
    const runs = withBroken(ClassicGroup.prototype, 'prepareTxnOffsetCommit', {
      value: function (this: ClassicGroup, producerId: number, offsets: Parameters<typeof own>[1]) {
        own.call(this, producerId, offsets);
        for (const [k, offset] of offsets) this.offsets.set(k, { offset, appendedAt: null });
      },
    }, [1, 2]);
    for (const r of runs) {
      expect(r.ok).toBe(false);
      expect(r.violations.some((v) => /OffsetFetch answers xg's offset \d+ of xin-\d, pending in the open transaction of xc-tx-\d .* before its COMMIT marker/.test(v))).toBe(true);
    }
  }, 120_000);

  it("catches a group coordinator that lets a member the group has moved on from commit in a transaction (no generation check, KIP-447): a stalled transformer's input is transformed twice", () => {
    const runs = withBroken(GroupCoordinator.prototype as unknown as { validateTxnOffsetCommit: unknown }, 'validateTxnOffsetCommit', { value: () => null }, [4, 5]);
    for (const r of runs) {
      expect(r.ok).toBe(false);
      expect(r.violations.some((v) => /xg committed xin-\d up to \d+, but the output of offset \d+ is visible 2 times to read_committed/.test(v))).toBe(true);
    }
  }, 120_000);

  it("catches a group coordinator that makes an aborted transaction's offsets the group's (the committed offset runs ahead of the committed output)", () => {
    const own = ClassicGroup.prototype.completePendingTxnOffsetCommit;
    const runs = withBroken(ClassicGroup.prototype, 'completePendingTxnOffsetCommit', { value: function (this: ClassicGroup, producerId: number) { own.call(this, producerId, true); } }, [2, 3]);
    for (const r of runs) {
      expect(r.ok).toBe(false);
      expect(r.violations.some((v) => /xg committed xin-\d up to \d+, but the output of offset \d+ is visible 0 times to read_committed/.test(v))).toBe(true);
    }
  }, 120_000);
});
