import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../app/api/contract.js';
import { EventOutbox } from './event-outbox.js';

const hw = (partition: number, previous: number, highWatermark: number): EngineEvent => ({
  type: 'highWatermark.advanced',
  atMs: highWatermark,
  topic: 't',
  partition,
  brokerId: 1,
  previous,
  highWatermark,
});

const isr = (partition: number): EngineEvent => ({
  type: 'isr.shrunk',
  atMs: 0,
  topic: 't',
  partition,
  leader: 1,
  isr: [1, 2],
  previousIsr: [1, 2, 3],
  removed: [3],
  partitionEpoch: 2,
  reason: 'isr-shrink',
});

/** An outbox whose turn ends and window timer run when the test says. */
function bed() {
  const messages: EngineEvent[][] = [];
  const turnEnds: (() => void)[] = [];
  let windowEnd: (() => void) | null = null;
  const outbox = new EventOutbox({
    send: (events) => messages.push(events),
    defer: (fn) => turnEnds.push(fn),
    setTimer: (fn) => (windowEnd = fn),
    clearTimer: () => (windowEnd = null),
  });
  return {
    messages,
    outbox,
    endTurn: () => turnEnds.splice(0).forEach((fn) => fn()),
    endWindow: () => windowEnd?.(),
  };
}

describe('EventOutbox (engine events on their way to the parent)', () => {
  it('sends a partition\'s high-watermark moves of one window as one event spanning them all, however many turns they took', () => {
    const { messages, outbox, endTurn, endWindow } = bed();
    for (let i = 0; i < 1_000; i++) {
      outbox.push(hw(0, i, i + 1));
      if (i % 10 === 9) outbox.push(hw(1, i, i + 1));
      endTurn();
    }
    expect(messages).toEqual([]);
    endWindow();
    endTurn();
    expect(messages).toEqual([[hw(0, 0, 1_000), hw(1, 9, 1_000)]]);
  });

  it('sends other events at once, after the moves held before them, in order', () => {
    const { messages, outbox, endTurn } = bed();
    outbox.push(hw(0, 0, 5));
    outbox.push(isr(0));
    outbox.push(hw(0, 5, 6));
    endTurn();
    expect(messages).toEqual([[hw(0, 0, 5), isr(0)]]);
  });

  it('flush sends everything held at once, so a message the owner sends next never overtakes a move', () => {
    const { messages, outbox } = bed();
    outbox.push(hw(0, 0, 3));
    outbox.push(hw(0, 3, 7));
    outbox.flush();
    expect(messages).toEqual([[hw(0, 0, 7)]]);
  });

  it('close sends what is held and leaves no timer behind', () => {
    const { messages, outbox, endWindow } = bed();
    outbox.push(hw(2, 1, 2));
    outbox.close();
    expect(messages).toEqual([[hw(2, 1, 2)]]);
    endWindow();
    expect(messages).toHaveLength(1);
  });
});
