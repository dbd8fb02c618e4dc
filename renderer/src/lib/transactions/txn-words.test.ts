import { describe, expect, it } from 'vitest';
import type { PartitionTransactionsView, TransactionAbortView } from '../../../../app/api/contract.js';
import { abortWords, lsoExplainer } from './txn-words.js';

const NOW = 1_700_000_000_000;
const MIN = 60_000;

function partition(over: Partial<PartitionTransactionsView>): PartitionTransactionsView {
  return { topic: 'payments', partition: 0, leader: 1, errorCode: 'NONE', offsets: { logStartOffset: 100, lastStableOffset: 1204, highWatermark: 1530, logEndOffset: 1530 }, producers: [], lsoHeldBy: null, ...over };
}

const known = {
  producerId: 17,
  producerEpoch: 3,
  lastSequence: 9,
  lastTimestamp: NOW - 3 * MIN,
  coordinatorEpoch: 2,
  currentTxnStartOffset: 1204,
  transactionalId: 'payments-tx',
  transaction: { state: 'Ongoing', timeoutMs: 15 * MIN, startTimeMs: NOW - 4 * MIN, includesPartition: true },
};

describe('the LSO explainer', () => {
  it('names the open transaction that holds the LSO, its age against its timeout, and what each isolation level reads', () => {
    expect(lsoExplainer(partition({ producers: [known], lsoHeldBy: 17 }), NOW)).toBe(
      "The LSO is held at 1,204 by producer 17's open transaction (payments-tx, Ongoing, started 4 min ago, timeout 15 min). A read_committed consumer reads the offsets below it and waits there; a read_uncommitted one reads on to the high watermark 1,530 (326 offsets further).",
    );
  });

  it('says a transaction past its timeout is about to be aborted, and one no coordinator knows hangs', () => {
    const late = { ...known, transaction: { ...known.transaction, startTimeMs: NOW - 20 * MIN } };
    expect(lsoExplainer(partition({ producers: [late], lsoHeldBy: 17 }), NOW)).toContain('started 20 min ago, timeout 15 min — past its timeout, so its coordinator is about to abort it');
    const ghost = { ...known, producerId: 42, transactionalId: null, transaction: null, lastTimestamp: NOW - 30 * MIN };
    expect(lsoExplainer(partition({ producers: [ghost, { ...known, currentTxnStartOffset: 1300 }], lsoHeldBy: 42 }), NOW)).toBe(
      "The LSO is held at 1,204 by producer 42's open transaction, which no transaction coordinator knows: it will not end by itself (a hanging transaction; its last write was 30 min ago). A read_committed consumer reads the offsets below it and waits there; a read_uncommitted one reads on to the high watermark 1,530 (326 offsets further). 1 other open transaction on this partition starts later and would hold it next.",
    );
  });

  it('with no open transaction: both isolation levels read to the high watermark; offsets past it are not replicated yet', () => {
    expect(lsoExplainer(partition({ offsets: { logStartOffset: 0, lastStableOffset: 8, highWatermark: 8, logEndOffset: 9 } }), NOW)).toBe(
      'No open transaction holds payments-0: read_committed and read_uncommitted consumers both read up to the high watermark 8. The leader holds 1 more offset up to its log end 9, not yet replicated to the ISR: nobody reads them yet.',
    );
  });
});

describe('the abort in words', () => {
  const preview: TransactionAbortView = {
    dryRun: true,
    topic: 'payments',
    partition: 1,
    leader: 2,
    producerId: 42,
    producerEpoch: 0,
    coordinatorEpoch: 0,
    startOffset: 3,
    before: { logStartOffset: 0, lastStableOffset: 3, highWatermark: 7, logEndOffset: 7 },
    lastStableOffsetAfter: 8,
    abortedRecords: 2,
    releasedRecords: 2,
    countsExact: true,
    stillOpen: [],
    after: null,
  };

  it('says where the marker goes, how the LSO moves and what becomes aborted and readable', () => {
    expect(abortWords(preview)).toBe(
      'Writes an ABORT marker for producer 42 (epoch 0, coordinator epoch 0) at offset 7 of payments-1, through its leader (broker 2). The LSO moves from 3 to 8: 2 records of the transaction (from offset 3) become aborted: read_committed consumers skip them. 2 records of other producers become readable to them.',
    );
  });

  it('says the LSO stays where an earlier open transaction holds it', () => {
    const held = { ...preview, before: { ...preview.before, lastStableOffset: 2 }, lastStableOffsetAfter: 2, releasedRecords: 0, abortedRecords: 1, stillOpen: [{ producerId: 17, startOffset: 2 }] };
    expect(abortWords(held)).toContain("The LSO stays at 2: producer 17's open transaction, from offset 2, still holds it. 1 record of the transaction (from offset 3) becomes aborted: read_committed consumers skip it.");
  });
});
