import { describe, expect, it } from 'vitest';
import { ManualScheduler } from './time.js';

describe('ManualScheduler', () => {
  it('runs tasks in time order, then insertion order, with the clock at each due time', () => {
    const s = new ManualScheduler();
    const seen: string[] = [];
    s.schedule(20, () => seen.push(`b@${s.now()}`));
    s.schedule(10, () => seen.push(`a@${s.now()}`));
    s.schedule(20, () => seen.push(`c@${s.now()}`));
    const cancelled = s.schedule(15, () => seen.push('never'));
    s.cancel(cancelled);
    s.advance(25);
    expect(seen).toEqual(['a@10', 'b@20', 'c@20']);
    expect(s.now()).toBe(25);
  });

  it('runUntil stops as soon as the predicate holds and reports -1 past the limit', () => {
    const s = new ManualScheduler();
    let n = 0;
    const tick = () => {
      n++;
      s.schedule(100, tick);
    };
    s.schedule(100, tick);
    expect(s.runUntil(() => n === 3, 10_000)).toBe(300);
    expect(s.runUntil(() => n === 1_000, 1_000)).toBe(-1);
  });

  it('reports a livelock instead of hanging', () => {
    const s = new ManualScheduler();
    s.livelockLimit = 1_000;
    const loop = () => s.schedule(0, loop);
    s.schedule(0, loop);
    expect(() => s.advance(1)).toThrow(/livelock/);
  });
});

describe('ManualScheduler under many cancelled timers', () => {
  it('drops cancelled timers from its queue and still runs the live ones in order', () => {
    const s = new ManualScheduler();
    const ran: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const h = s.schedule(30_000 + i, () => ran.push(-1));
      if (i % 1000 !== 0) s.cancel(h);
      else s.schedule(i, () => ran.push(i));
    }
    expect(s.pendingCount()).toBeLessThan(10_000);
    s.advance(60_000);
    expect(ran.filter((x) => x >= 0)).toEqual(Array.from({ length: 20 }, (_, k) => k * 1000));
    expect(ran.filter((x) => x < 0)).toHaveLength(20);
  });
});
