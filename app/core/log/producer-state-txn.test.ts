import { describe, expect, it } from 'vitest';
import { markerBatch } from './control-records.js';
import { MemoryStorage } from './memory-log-store.js';
import { PartitionLog, type SegmentRollConfig } from './partition-log.js';
import { type ProducerBatch, ProducerStateManager } from './producer-state.js';
import type { LogRecord, RecordBatch } from './records.js';

const NO_ROLL: SegmentRollConfig = { segmentBytes: Infinity, segmentMs: Infinity };
const utf8 = new TextEncoder();
const rec = (v: string): LogRecord => ({ key: null, value: utf8.encode(v), headers: [], timestamp: 0 });

const txn = (producerId: number, baseSequence: number, count = 1, producerEpoch = 0): ProducerBatch => ({ producerId, producerEpoch, baseSequence, count, transactional: true });

/** A log with a leader's append path for data batches and markers, as the partition uses it. */
function newLog() {
  const log = new PartitionLog(new MemoryStorage().broker(1).replica('t:0'), 0, false, { bytes: 0 }, 'orders-0');
  const data = (producerId: number, epoch: number, seq: number, values: string[], transactional = true): RecordBatch => {
    const base = log.logEndOffset;
    const batch: RecordBatch = {
      baseOffset: base,
      lastOffset: base + values.length - 1,
      leaderEpoch: 0,
      appendTimeMs: 0,
      records: values.map(rec),
      sizeBytes: 100,
      producer: { producerId, producerEpoch: epoch, baseSequence: seq },
      ...(transactional ? { transactional: true } : {}),
    };
    return log.appendPreparedAsLeader(batch, 0, NO_ROLL);
  };
  const marker = (producerId: number, epoch: number, type: 'COMMIT' | 'ABORT', coordinatorEpoch = 0): RecordBatch =>
    log.appendPreparedAsLeader(markerBatch(log.logEndOffset, 0, 0, { producerId, producerEpoch: epoch }, { type, coordinatorEpoch }), 0, NO_ROLL);
  const plain = (values: string[]): RecordBatch => log.appendAsLeader(values.map(rec), 0, 0, NO_ROLL);
  return { log, data, marker, plain };
}

describe('transactions in a partition log: the last stable offset (KIP-98)', () => {
  it('holds the LSO at the first offset of an open transaction, below the HW and the log end', () => {
    const { log, data, plain } = newLog();
    plain(['a', 'b']); // 0-1, no producer
    data(7, 0, 0, ['t1', 't2']); // 2-3, opens producer 7's transaction at 2
    plain(['c']); // 4
    log.maybeIncreaseHighWatermark(4);
    expect({ lso: log.lastStableOffset, hw: log.highWatermark, leo: log.logEndOffset }).toEqual({ lso: 2, hw: 4, leo: 5 });
    expect(log.producerState().openTransactions()).toEqual([{ producerId: 7, firstOffset: 2 }]);
  });

  it('keeps the LSO at a committed transaction until the HW passes its marker, then lets it reach the HW', () => {
    const { log, data, marker } = newLog();
    data(7, 0, 0, ['t1', 't2']); // 0-1
    marker(7, 0, 'COMMIT'); // 2
    log.maybeIncreaseHighWatermark(2);
    expect(log.lastStableOffset).toBe(0); // the marker is not replicated yet: still unstable
    log.maybeIncreaseHighWatermark(3);
    expect(log.lastStableOffset).toBe(3);
    expect(log.abortedTransactions(0, 3)).toEqual([]);
  });

  it('the earliest of two interleaved transactions holds the LSO; an ABORT joins the aborted index', () => {
    const { log, data, marker } = newLog();
    data(7, 0, 0, ['a7']); // 0: producer 7 opens
    data(8, 0, 0, ['a8']); // 1: producer 8 opens
    data(7, 0, 1, ['b7']); // 2
    marker(7, 0, 'ABORT'); // 3
    log.maybeIncreaseHighWatermark(4);
    expect(log.lastStableOffset).toBe(1); // producer 8's transaction is still open
    expect(log.abortedTransactions(0, 4)).toEqual([{ producerId: 7, firstOffset: 0, lastOffset: 3, lastStableOffset: 1 }]);
    marker(8, 0, 'COMMIT'); // 4
    log.maybeIncreaseHighWatermark(5);
    expect(log.lastStableOffset).toBe(5);
    // A fetch from 4 on starts after the abort's marker: nothing to tell it.
    expect(log.abortedTransactions(4, 5)).toEqual([]);
    expect(log.abortedTransactions(3, 5)).toHaveLength(1);
  });

  it('rebuilds the same state from the log (a new leader, a restart) and after a truncation that removes a marker', () => {
    const { log, data, marker } = newLog();
    data(7, 0, 0, ['a']); // 0
    marker(7, 0, 'ABORT'); // 1
    data(7, 1, 0, ['b']); // 2: the next transaction, after an epoch bump
    marker(7, 1, 'COMMIT'); // 3
    log.maybeIncreaseHighWatermark(4);
    const rebuilt = ProducerStateManager.fromLog('orders-0', (f, u, m) => log.read(f, u, m), 0, 4);
    expect(rebuilt.abortedTransactions(0, 4)).toEqual(log.abortedTransactions(0, 4));
    expect(rebuilt.describe()).toEqual(log.producerState().describe());
    // A follower truncating at 3 loses the COMMIT: producer 7's second transaction is open again.
    log.truncateTo(3);
    expect(log.producerState().openTransactions()).toEqual([{ producerId: 7, firstOffset: 2 }]);
    expect(log.lastStableOffset).toBe(2);
  });

  it('forgets aborted transactions whose marker fell below the log start', () => {
    const { log, data, marker, plain } = newLog();
    data(7, 0, 0, ['a']); // 0
    marker(7, 0, 'ABORT'); // 1
    plain(['x', 'y']); // 2-3
    log.maybeIncreaseHighWatermark(4);
    log.advanceLogStartOffset(2);
    expect(log.abortedTransactions(0, 4)).toEqual([]);
    expect(log.lastStableOffset).toBe(4);
  });
});

describe('ProducerStateManager: transactional writes and markers', () => {
  it('refuses a plain batch from a producer with an open transaction (INVALID_TXN_STATE)', () => {
    const s = new ProducerStateManager('orders-0');
    s.append(txn(7, 0), 0, 0);
    expect(s.check({ producerId: 7, producerEpoch: 0, baseSequence: 1, count: 1 }, 1)).toMatchObject({ kind: 'error', error: 'INVALID_TXN_STATE' });
    expect(s.check(txn(7, 1), 1)).toEqual({ kind: 'append' });
  });

  it('a marker of an older producer epoch is INVALID_PRODUCER_EPOCH; of an older coordinator epoch, TRANSACTION_COORDINATOR_FENCED', () => {
    const s = new ProducerStateManager('orders-0');
    s.append(txn(7, 0, 1, 2), 0, 0);
    expect(s.checkMarker(7, 1, 0, 1)).toMatchObject({ kind: 'error', error: 'INVALID_PRODUCER_EPOCH' });
    s.appendMarker(7, 2, { type: 'COMMIT', coordinatorEpoch: 4 }, 1);
    expect(s.checkMarker(7, 2, 3, 2)).toMatchObject({ kind: 'error', error: 'TRANSACTION_COORDINATOR_FENCED' });
    expect(s.checkMarker(7, 2, 4, 2)).toEqual({ kind: 'append' });
    expect(s.checkMarker(7, 3, 5, 2)).toEqual({ kind: 'append' });
    expect(s.describe()).toEqual([{ producerId: 7, epoch: 2, lastSequence: 0, lastOffset: 0, lastTimestamp: -1, coordinatorEpoch: 4, currentTxnStartOffset: -1 }]);
  });

  it('an epoch-bumping ABORT (a fenced zombie) fences the old epoch and lets the new one start at sequence 0', () => {
    const s = new ProducerStateManager('orders-0');
    s.append(txn(7, 0, 3, 0), 0, 2);
    s.appendMarker(7, 1, { type: 'ABORT', coordinatorEpoch: 0 }, 3);
    expect(s.check(txn(7, 3, 1, 0), 4)).toMatchObject({ kind: 'error', error: 'INVALID_PRODUCER_EPOCH' });
    expect(s.check(txn(7, 0, 1, 2), 4)).toEqual({ kind: 'append' });
    expect(s.check(txn(7, 5, 1, 2), 4)).toMatchObject({ kind: 'error', error: 'OUT_OF_ORDER_SEQUENCE_NUMBER' });
  });

  it('KIP-890: a verified first write is accepted until a marker for its producer voids the verification', () => {
    const s = new ProducerStateManager('orders-0');
    const guard = s.startVerification(7, 0);
    expect(s.check(txn(7, 0), 0, guard)).toEqual({ kind: 'append' });
    expect(s.check(txn(7, 0), 0, {})).toMatchObject({ kind: 'error', error: 'INVALID_TXN_STATE' });
    // The coordinator aborted the transaction meanwhile (a timeout): the marker arrives first.
    s.appendMarker(7, 0, { type: 'ABORT', coordinatorEpoch: 0 }, 0);
    expect(s.check(txn(7, 0), 1, guard)).toMatchObject({ kind: 'error', error: 'INVALID_TXN_STATE' });
    expect(s.openTransactions()).toEqual([]);
    // Once a transaction is open here, later writes of it need no verification.
    const again = s.startVerification(7, 0);
    s.append(txn(7, 0), 1, 1);
    expect(s.hasOpenTransaction(7)).toBe(true);
    expect(s.check(txn(7, 1), 2, again)).toEqual({ kind: 'append' });
  });
});
