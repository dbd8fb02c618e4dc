import { describe, expect, it } from 'vitest';
import { TransactionCoordinator } from '../../core/txn/coordinator.js';
import { checkVisible, exploreTxn, replayTxn, settleAndCheck } from './txn-explore.js';

describe('exhaustive exploration of one transaction across two partitions with a coordinator failover', () => {
  it('commit: on every path of 4 moves from the markers sent (their deliveries and answers, the markers\' replication, time, the coordinator or its successor killed or restarted), no aborted record is visible and every state settles with the transaction visible on both partitions exactly once', () => {
    const r = exploreTxn({ result: 'COMMIT', start: 'markers', faults: 1, depth: 4 });
    expect(r.violations).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.depthReached).toBe(4);
    expect(r.states).toBeGreaterThan(650);
    // Many of those states settle through the successor loading PrepareCommit and writing the markers again.
    expect(r.failovers).toBeGreaterThan(200);
  }, 300_000);

  it('from the EndTxn request (PrepareCommit or PrepareAbort replicated or not when the coordinator dies), commit and abort each end whole on every path of 4 moves', () => {
    for (const result of ['COMMIT', 'ABORT'] as const) {
      const r = exploreTxn({ result, start: 'end-txn', faults: 2, depth: 4 });
      expect(r.violations, result).toEqual([]);
      expect(r.complete).toBe(true);
      expect(r.states).toBeGreaterThan(250);
      expect(r.failovers).toBeGreaterThan(0);
    }
  }, 300_000);

  it('a marker its leader has written but not yet replicated keeps the LSO where it was: the transaction counts as complete there once the marker is below the HW', () => {
    const { world, messages } = replayTxn({ result: 'COMMIT', start: 'markers', faults: 1 }, ['deliver 1→2 writeTxnMarkers']);
    expect(messages).toEqual([]);
    const log = world.leaderReplica(0)!.log;
    expect([log.lastStableOffset, log.highWatermark, log.logEndOffset]).toEqual([0, 1, 2]);
    expect(checkVisible(world)).toEqual([]);
  });

  it('the coordinator dies after one marker: read_committed sees one partition and not yet the other, and the successor completes the other', () => {
    const { world, messages } = replayTxn({ result: 'COMMIT', start: 'markers', faults: 1 }, ['deliver 1→2 writeTxnMarkers', 'deliver 2→3 answer', 'deliver 3→2 fetch', 'kill 1']);
    expect(messages).toEqual([]);
    const log = (p: number) => world.leaderReplica(p)!.log;
    expect([log(0).lastStableOffset, log(0).highWatermark]).toEqual([2, 2]);
    expect([log(1).lastStableOffset, log(1).highWatermark]).toEqual([0, 1]);
    expect(settleAndCheck(world)).toEqual({ messages: [], failedOver: true });
    expect(checkVisible(world)).toEqual([]);
    expect([log(1).lastStableOffset, log(1).highWatermark]).toEqual([2, 2]);
  });

  it('finds a coordinator that does not write the markers again when it loads a prepared transaction', () => {
    const own = TransactionCoordinator.prototype.completeLoaded;
    TransactionCoordinator.prototype.completeLoaded = () => {};
    try {
      const r = exploreTxn({ result: 'COMMIT', start: 'markers', faults: 1, depth: 3 });
      expect(r.violations.length).toBeGreaterThan(0);
      const oneMarker = r.violations.find((v) => v.trace.join(' | ') === 'deliver 1→2 writeTxnMarkers | kill 1');
      expect(oneMarker?.messages.join('\n')).toMatch(/never settled: coordinator PrepareCommit, t-0 LSO 2 HW 2, t-1 LSO 0 HW 1; visible \[v0\] \[\]/);
    } finally {
      TransactionCoordinator.prototype.completeLoaded = own;
    }
  }, 120_000);
});
