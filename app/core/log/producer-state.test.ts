import { describe, expect, it } from 'vitest';
import { NUM_BATCHES_TO_RETAIN, type ProducerBatch, ProducerStateManager } from './producer-state.js';

const batch = (baseSequence: number, count = 1, producerEpoch = 0, producerId = 1000): ProducerBatch => ({ producerId, producerEpoch, baseSequence, count });

/** A leader's append path: check, then append at the log end if told to. */
function produce(state: ProducerStateManager, log: { end: number }, b: ProducerBatch) {
  const verdict = state.check(b, log.end);
  if (verdict.kind === 'append') {
    state.append(b, log.end, log.end + b.count - 1);
    log.end += b.count;
  }
  return verdict;
}

describe('ProducerStateManager (idempotent producer, per partition)', () => {
  it('accepts batches in sequence and answers a retried batch with its original offsets, without appending', () => {
    const state = new ProducerStateManager('orders-0');
    const log = { end: 0 };
    expect(produce(state, log, batch(0, 3))).toEqual({ kind: 'append' });
    expect(produce(state, log, batch(3, 2))).toEqual({ kind: 'append' });
    expect(produce(state, log, batch(3, 2))).toEqual({ kind: 'duplicate', firstOffset: 3, lastOffset: 4 });
    expect(produce(state, log, batch(0, 3))).toEqual({ kind: 'duplicate', firstOffset: 0, lastOffset: 2 });
    expect(log.end).toBe(5);
  });

  it('recognises duplicates among the last five batches only: an older retry is out of order', () => {
    const state = new ProducerStateManager('orders-0');
    const log = { end: 0 };
    for (let seq = 0; seq < 6; seq++) produce(state, log, batch(seq));
    expect(NUM_BATCHES_TO_RETAIN).toBe(5);
    expect(produce(state, log, batch(1))).toMatchObject({ kind: 'duplicate', firstOffset: 1 });
    expect(produce(state, log, batch(0))).toMatchObject({ kind: 'error', error: 'OUT_OF_ORDER_SEQUENCE_NUMBER' });
  });

  it('refuses a gap in the sequence with OUT_OF_ORDER_SEQUENCE_NUMBER (a lost in-flight batch)', () => {
    const state = new ProducerStateManager('orders-0');
    const log = { end: 0 };
    produce(state, log, batch(0, 2));
    const verdict = produce(state, log, batch(3));
    expect(verdict).toMatchObject({ kind: 'error', error: 'OUT_OF_ORDER_SEQUENCE_NUMBER' });
    expect(verdict.kind === 'error' && verdict.message).toMatch(/3 \(incoming seq. number\), 1 \(current end sequence number\)/);
    expect(log.end).toBe(2);
  });

  it('fences an older epoch with INVALID_PRODUCER_EPOCH and requires a new epoch to start at sequence 0', () => {
    const state = new ProducerStateManager('orders-0');
    const log = { end: 0 };
    produce(state, log, batch(0, 1, 1));
    expect(produce(state, log, batch(1, 1, 0))).toMatchObject({ kind: 'error', error: 'INVALID_PRODUCER_EPOCH' });
    expect(produce(state, log, batch(5, 1, 2))).toMatchObject({ kind: 'error', error: 'OUT_OF_ORDER_SEQUENCE_NUMBER' });
    expect(produce(state, log, batch(0, 1, 2))).toEqual({ kind: 'append' });
    expect(state.describe()).toMatchObject([{ producerId: 1000, epoch: 2, lastSequence: 0, lastOffset: 1 }]);
  });

  it('accepts any sequence from a producer it does not know (new, or its batches gone), and non-idempotent batches always', () => {
    const state = new ProducerStateManager('orders-0');
    const log = { end: 0 };
    expect(produce(state, log, batch(42))).toEqual({ kind: 'append' });
    expect(produce(state, log, { producerId: -1, producerEpoch: -1, baseSequence: -1, count: 3 })).toEqual({ kind: 'append' });
    state.removeBefore(10);
    expect(produce(state, log, batch(7))).toEqual({ kind: 'append' });
  });

  it('wraps the sequence after 2^31 - 1 to 0', () => {
    const state = new ProducerStateManager('orders-0');
    const log = { end: 0 };
    produce(state, log, batch(0x7ffffffe, 2));
    expect(produce(state, log, batch(0))).toEqual({ kind: 'append' });
  });

  it('after truncation a follower-turned-leader accepts the retry of a batch it lost, and still fences what it kept', () => {
    const state = new ProducerStateManager('orders-0');
    const log = { end: 0 };
    produce(state, log, batch(0, 2));
    produce(state, log, batch(2, 2));
    state.truncateTo(2); // the batch at offsets 2-3 was not replicated and is gone
    log.end = 2;
    expect(produce(state, log, batch(2, 2))).toEqual({ kind: 'append' });
    expect(produce(state, log, batch(0, 2))).toMatchObject({ kind: 'duplicate', firstOffset: 0 });
  });
});
