import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../app/api/contract.js';
import { EventCoalescer } from './event-coalescer.js';

const hw = (partition: number, previous: number, highWatermark: number): EngineEvent => ({
  type: 'highWatermark.advanced',
  atMs: 0,
  topic: 't',
  partition,
  brokerId: 1,
  previous,
  highWatermark,
});

function setup() {
  const sent: EngineEvent[] = [];
  let fire: (() => void) | null = null;
  const c = new EventCoalescer({ send: (e) => sent.push(e), setTimer: (fn) => (fire = fn), clearTimer: () => (fire = null) });
  return { c, sent, tick: () => fire?.() };
}

describe('the event coalescer', () => {
  it('sends one highWatermark.advanced per partition per window, spanning the whole move', () => {
    const { c, sent, tick } = setup();
    for (let i = 0; i < 1000; i++) c.push(hw(0, i, i + 1));
    c.push(hw(1, 5, 6));
    expect(sent).toEqual([]);
    tick();
    expect(sent).toEqual([hw(0, 0, 1000), hw(1, 5, 6)]);
  });

  it('passes other events at once, after the HW events held before them', () => {
    const { c, sent } = setup();
    c.push(hw(0, 0, 3));
    const deleted: EngineEvent = { type: 'topic.deleted', atMs: 1, topic: 't', topicId: 'x' };
    c.push(deleted);
    expect(sent).toEqual([hw(0, 0, 3), deleted]);
  });

  it('passes metrics samples at once without flushing the held HW events', () => {
    const { c, sent, tick } = setup();
    c.push(hw(0, 0, 3));
    const sample: EngineEvent = { type: 'metrics.sampled', atMs: 1_000, intervalMs: 1_000, produceRecordsPerSec: 3, produceBytesPerSec: 90, consumeRecordsPerSec: 0, replicationBytesPerSec: 0, brokers: [] };
    c.push(sample);
    c.push(hw(0, 3, 4));
    expect(sent).toEqual([sample]);
    tick();
    expect(sent).toEqual([sample, hw(0, 0, 4)]);
  });
});
