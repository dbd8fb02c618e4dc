import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watch } from 'vue';
import type { EngineEvent } from '../../../app/api/contract.js';
import { FEED_FLUSH_MS, useEventStreamStore } from './event-stream.js';

const stateChange = (brokerId: number, atMs: number): EngineEvent =>
  ({ type: 'broker.stateChanged', atMs, brokerId, state: 'stopped', previous: 'running', reason: 'test' }) as unknown as EngineEvent;

describe('the event stream store’s feed', () => {
  beforeEach(() => {
    setActivePinia(createPinia());
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('takes a burst of events in once: listeners hear each at once, the feed changes once and keeps the newest 300 in order', async () => {
    const stream = useEventStreamStore();
    const heard: EngineEvent[] = [];
    stream.on((e) => heard.push(e));
    let feedChanges = 0;
    watch(() => stream.recent, () => feedChanges++, { flush: 'sync' });

    const burst = Array.from({ length: 5_000 }, (_, i) => stateChange(1 + (i % 3), i));
    for (const e of burst) stream.dispatch(e);
    expect(heard).toHaveLength(5_000);
    expect(stream.recent).toHaveLength(0);

    vi.advanceTimersByTime(FEED_FLUSH_MS);
    expect(feedChanges).toBe(1);
    expect(stream.recent).toEqual(burst.slice(-300));

    // The next event joins the feed on the next flush, pushing the oldest out.
    stream.dispatch(stateChange(2, 5_000));
    vi.advanceTimersByTime(FEED_FLUSH_MS);
    expect(feedChanges).toBe(2);
    expect(stream.recent.map((e) => e.atMs)).toEqual([...burst.slice(-299).map((e) => e.atMs), 5_000]);
  });

  it('keeps the newest 300 of each kind: a flood of ISR changes does not push out the broker that stopped', () => {
    const stream = useEventStreamStore();
    const isr = (i: number): EngineEvent => ({ type: 'isr.shrunk', atMs: 10 + i, topic: 't', partition: i, isr: [1, 3], previousIsr: [1, 2, 3] }) as unknown as EngineEvent;
    stream.dispatch(stateChange(2, 1));
    for (let i = 0; i < 5_000; i++) stream.dispatch(isr(i));
    vi.advanceTimersByTime(FEED_FLUSH_MS);
    for (let i = 5_000; i < 5_400; i++) stream.dispatch(isr(i));
    vi.advanceTimersByTime(FEED_FLUSH_MS);
    expect(stream.recent[0]).toEqual(stateChange(2, 1));
    expect(stream.recent.slice(1).map((e) => e.atMs)).toEqual(Array.from({ length: 300 }, (_, i) => 10 + 5_100 + i));
  });

  it('leaves high-watermark and metrics events out of the feed but tells listeners of them', () => {
    const stream = useEventStreamStore();
    const heard: string[] = [];
    stream.on((e) => heard.push(e.type));
    stream.dispatch({ type: 'highWatermark.advanced', atMs: 1 } as unknown as EngineEvent);
    stream.dispatch({ type: 'metrics.sampled', atMs: 2 } as unknown as EngineEvent);
    stream.dispatch(stateChange(1, 3));
    stream.flushFeed();
    expect(heard).toEqual(['highWatermark.advanced', 'metrics.sampled', 'broker.stateChanged']);
    expect(stream.recent.map((e) => e.type)).toEqual(['broker.stateChanged']);
  });
});
