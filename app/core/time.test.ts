import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ManualScheduler, type TimerHandle } from './time.js';

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

describe('ManualScheduler order with zero-delay tasks', () => {
  it('runs a task scheduled with no delay after the tasks already due at that instant', () => {
    const s = new ManualScheduler();
    const seen: string[] = [];
    s.schedule(10, () => {
      seen.push('a');
      s.schedule(0, () => seen.push('c (scheduled by a)'));
    });
    s.schedule(10, () => seen.push('b'));
    s.schedule(0, () => seen.push('first'));
    const dropped = s.schedule(0, () => seen.push('never'));
    s.cancel(dropped);
    s.advance(10);
    expect(seen).toEqual(['first', 'a', 'b', 'c (scheduled by a)']);
    expect(s.pendingCount()).toBe(0);
  });

  // The Scheduler contract under any mix of delays (zero or not), cancellations and tasks that
  // schedule tasks: every live task due by the target runs, once, in (due time, scheduling order),
  // with the clock at its due time; no cancelled task runs.
  it('runs every live due task once, in (time, scheduling order), under any mix of delays, cancels and nested scheduling', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('schedule' as const), delay: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 6 })), children: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 })), { maxLength: 3 }) }),
      fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 8 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const s = new ManualScheduler();
        interface Entry { seq: number; at: number; handle: TimerHandle; cancelled: boolean; ranAt: number | null }
        const tasks: Entry[] = [];
        const ran: Entry[] = [];
        const add = (delay: number, children: number[]): void => {
          const e: Entry = { seq: tasks.length, at: s.now() + delay, handle: { id: -1 }, cancelled: false, ranAt: null };
          tasks.push(e);
          e.handle = s.schedule(delay, () => {
            e.ranAt = s.now();
            ran.push(e);
            for (const d of children) add(d, []);
          });
        };
        for (const o of ops) {
          if (o.kind === 'schedule') add(o.delay, o.children);
          else if (o.kind === 'cancel' && tasks.length > 0) {
            const e = tasks[o.pick % tasks.length]!;
            if (e.ranAt === null) e.cancelled = true;
            s.cancel(e.handle);
          } else if (o.kind === 'advance') s.advance(o.ms);
        }
        s.flush();
        const order = ran.map((e) => [e.at, e.seq]);
        const sorted = [...order].sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!);
        expect(order).toEqual(sorted);
        for (const e of tasks) {
          if (e.cancelled) expect(e.ranAt).toBeNull();
          else if (e.at <= s.now()) expect(e.ranAt).toBe(e.at);
          else expect(e.ranAt).toBeNull();
        }
        expect(new Set(ran).size).toBe(ran.length);
      }),
      { numRuns: 300 },
    );
  });
});
