import { describe, expect, it } from 'vitest';
import type { ProduceResultView } from '../../../../app/api/contract.js';
import { acknowledgedRecords, removedByTruncation } from './data-loss.js';

/** A one-partition produce answer for `count` records. */
function answer(over: Partial<Omit<ProduceResultView, 'batches'>>, count = 2): ProduceResultView {
  const batch = { partition: 0, baseOffset: 5, errorCode: 'NONE' as const, leaderEpoch: 0, appendedAtMs: 100, ...over };
  return { ...batch, batches: [{ ...batch, records: Array.from({ length: count }, (_, i) => i) }] };
}

describe('the data-loss check', () => {
  it('keeps a record only when the cluster acknowledged it, with the epoch and time its produce answer named', () => {
    expect(acknowledgedRecords('t', 'all', answer({}), ['a', 'b'])).toEqual([
      { topic: 't', partition: 0, offset: 5, value: 'a', acks: 'all', leaderEpoch: 0, appendedAtMs: 100 },
      { topic: 't', partition: 0, offset: 6, value: 'b', acks: 'all', leaderEpoch: 0, appendedAtMs: 100 },
    ]);
    expect(acknowledgedRecords('t', 0, answer({ baseOffset: -1, leaderEpoch: -1, appendedAtMs: -1 }, 1), ['a'])).toEqual([]);
    expect(acknowledgedRecords('t', 'all', answer({ errorCode: 'NOT_ENOUGH_REPLICAS_AFTER_APPEND' }, 1), ['a'])).toEqual([]);
  });

  it('places each record of a request spread over partitions at its own batch offset, and keeps only the batches acknowledged', () => {
    const ok = { errorCode: 'NONE' as const, leaderEpoch: 2, appendedAtMs: 100 };
    const result: ProduceResultView = {
      partition: 1,
      baseOffset: -1,
      errorCode: 'NOT_ENOUGH_REPLICAS',
      leaderEpoch: -1,
      appendedAtMs: -1,
      batches: [
        { ...ok, partition: 4, baseOffset: 10, records: [0, 2] },
        { partition: 1, baseOffset: -1, errorCode: 'NOT_ENOUGH_REPLICAS', leaderEpoch: -1, appendedAtMs: -1, records: [1] },
        { ...ok, partition: 3, baseOffset: 0, records: [3] },
      ],
    };
    expect(acknowledgedRecords('t', 'all', result, ['a', 'b', 'c', 'd']).map((a) => [a.partition, a.offset, a.value])).toEqual([
      [4, 10, 'a'],
      [4, 11, 'c'],
      [3, 0, 'd'],
    ]);
  });

  it('counts a record as removed by a divergence only if it was written in an earlier epoch and before the truncation', () => {
    const old = acknowledgedRecords('t', 1, answer({ baseOffset: 5, leaderEpoch: 0, appendedAtMs: 100 }), ['x', 'y']);
    const newer = acknowledgedRecords('t', 'all', answer({ baseOffset: 5, leaderEpoch: 1, appendedAtMs: 200 }, 1), ['z']);
    const truncation = { partition: 0, fromOffset: 7, toOffset: 5, leaderEpoch: 1, atMs: 300, reason: 'diverging-epoch' };
    expect(removedByTruncation([...old, ...newer], truncation, 't').map((a) => a.value)).toEqual(['x', 'y']);
    // Written after the truncation happened: not what it removed.
    expect(removedByTruncation(old, { ...truncation, atMs: 50 }, 't')).toEqual([]);
    // A power loss removes the unflushed tail whatever epoch wrote it.
    expect(removedByTruncation(newer, { ...truncation, reason: 'power-loss' }, 't').map((a) => a.value)).toEqual(['z']);
  });
});
