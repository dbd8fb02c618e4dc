import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../../core/time.js';
import { HOLD_MS, RealtimeClock } from './realtime-clock.js';

/** A fake real clock with timers: `elapse(ms)` moves real time and fires due timers in order. */
function fakeRealTime() {
  let now = 1_000;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    realNow: () => now,
    setTimer: (fn: () => void, delayMs: number) => {
      const id = nextId++;
      timers.set(id, { at: now + delayMs, fn });
      return id;
    },
    clearTimer: (handle: unknown) => {
      timers.delete(handle as number);
    },
    armed: () => [...timers.values()].map((t) => t.at - now),
    elapse(ms: number) {
      const target = now + ms;
      for (;;) {
        const next = [...timers.entries()].sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
        if (!next || next[1].at > target) break;
        timers.delete(next[0]);
        now = Math.max(now, next[1].at);
        next[1].fn();
      }
      now = target;
    },
  };
}

function setup(scale = 1) {
  const scheduler = new ManualScheduler(0);
  const real = fakeRealTime();
  const errors: unknown[] = [];
  const clock = new RealtimeClock({ scheduler, scale, ...real, onError: (e) => errors.push(e) });
  return { scheduler, real, clock, errors };
}

describe('the real-time clock', () => {
  it('runs each step inside wrapStep (how hosts group the writes of a step into one transaction)', () => {
    const scheduler = new ManualScheduler(0);
    const real = fakeRealTime();
    const log: string[] = [];
    let inStep = false;
    const clock = new RealtimeClock({
      scheduler,
      ...real,
      wrapStep: (step) => {
        inStep = true;
        log.push('begin');
        step();
        log.push('commit');
        inStep = false;
      },
    });
    scheduler.schedule(100, () => log.push(`task in step: ${inStep}`));
    scheduler.schedule(100, () => log.push(`task in step: ${inStep}`));
    clock.start();
    real.elapse(100);
    expect(log).toEqual(['begin', 'task in step: true', 'task in step: true', 'commit']);
  });

  it('runs a task when real time reaches its due time at 1x', () => {
    const { scheduler, real, clock } = setup();
    const ran: number[] = [];
    scheduler.schedule(500, () => ran.push(scheduler.now()));
    clock.start();
    expect(real.armed()).toEqual([500]);
    real.elapse(499);
    expect(ran).toEqual([]);
    real.elapse(1);
    expect(ran).toEqual([500]);
    expect(real.armed()).toEqual([]);
  });

  it('runs virtual time faster by the scale: 10 s of virtual time in 1 s at 10x', () => {
    const { scheduler, real, clock } = setup(10);
    const ran: number[] = [];
    const tick = (): void => {
      ran.push(scheduler.now());
      if (scheduler.now() < 10_000) scheduler.schedule(1_000, tick);
    };
    scheduler.schedule(1_000, tick);
    clock.start();
    real.elapse(1_000);
    expect(ran).toEqual([1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000, 10_000]);
    expect(clock.now()).toBe(10_000);
  });

  it('keeps virtual time continuous when the scale changes (rebase)', () => {
    const { real, clock } = setup(1);
    clock.start();
    real.elapse(1_000);
    expect(clock.now()).toBe(1_000);
    clock.setScale(60);
    expect(clock.now()).toBe(1_000);
    real.elapse(1_000);
    expect(clock.now()).toBe(61_000);
    clock.setScale(2);
    real.elapse(500);
    expect(clock.now()).toBe(62_000);
  });

  it('re-arms its single timer when the scale changes', () => {
    const { scheduler, real, clock } = setup(1);
    scheduler.schedule(60_000, () => {});
    clock.start();
    expect(real.armed()).toEqual([60_000]);
    clock.setScale(60);
    expect(real.armed()).toEqual([1_000]);
  });

  it('re-arms for work scheduled from outside a tick when woken', () => {
    const { scheduler, real, clock } = setup(1);
    scheduler.schedule(10_000, () => {});
    clock.start();
    const ran: number[] = [];
    scheduler.schedule(100, () => ran.push(scheduler.now()));
    clock.wake();
    expect(real.armed()).toEqual([100]);
    real.elapse(100);
    expect(ran).toEqual([100]);
    expect(real.armed()).toEqual([9_900]);
  });

  it('brings the scheduler up to the virtual time on sync', () => {
    const { scheduler, real, clock } = setup(5);
    clock.start();
    real.elapse(200);
    expect(scheduler.now()).toBe(0);
    clock.sync();
    expect(scheduler.now()).toBe(1_000);
  });

  it('freezes the clock and leaves no timer armed when stopped', () => {
    const { scheduler, real, clock } = setup(1);
    const ran: number[] = [];
    scheduler.schedule(1_000, () => ran.push(scheduler.now()));
    clock.start();
    real.elapse(300);
    clock.stop();
    expect(real.armed()).toEqual([]);
    expect(scheduler.now()).toBe(300);
    real.elapse(5_000);
    expect(ran).toEqual([]);
    expect(clock.now()).toBe(300);
    clock.start();
    real.elapse(700);
    expect(ran).toEqual([1_000]);
  });

  it('refuses a scale outside 1 to 60', () => {
    const { clock } = setup();
    expect(() => clock.setScale(0.5)).toThrow(RangeError);
    expect(() => clock.setScale(61)).toThrow(RangeError);
    expect(() => clock.setScale(Number.NaN)).toThrow(RangeError);
    expect(clock.scale).toBe(1);
  });

  it('reports a failing task and keeps driving the clock', () => {
    const { scheduler, real, clock, errors } = setup();
    const ran: number[] = [];
    scheduler.schedule(10, () => {
      throw new Error('boom');
    });
    scheduler.schedule(20, () => ran.push(scheduler.now()));
    clock.start();
    real.elapse(30);
    expect(errors).toHaveLength(1);
    expect(ran).toEqual([20]);
  });
});

describe('the real-time clock and fractional real clocks', () => {
  it('keeps engine time in whole milliseconds', () => {
    const scheduler = new ManualScheduler(0);
    let real = 1_000.25;
    const seen: number[] = [];
    const clock = new RealtimeClock({ scheduler, scale: 3, realNow: () => real, setTimer: () => 0, clearTimer: () => {} });
    scheduler.schedule(1, () => seen.push(scheduler.now()));
    clock.start();
    real += 0.7;
    clock.sync();
    expect(Number.isInteger(clock.now())).toBe(true);
    expect(Number.isInteger(scheduler.now())).toBe(true);
    expect(seen).toEqual([1]);
  });
});

describe('the real-time clock under a long step', () => {
  it('pauses a step at its real-time budget and finishes it on the next turn, in order', () => {
    const scheduler = new ManualScheduler(0);
    let real = 0;
    const timers: (() => void)[] = [];
    const clock = new RealtimeClock({ scheduler, realNow: () => real, setTimer: (fn) => timers.push(fn), clearTimer: () => {} });
    const ran: number[] = [];
    for (let i = 0; i < 10; i++) {
      scheduler.schedule(1, () => {
        ran.push(i);
        real += 5; // each task costs 5 ms of real time
      });
    }
    clock.start();
    real = 1;
    clock.sync();
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.length).toBeLessThan(10); // paused: requests can be answered in between
    for (let n = 0; n < 20 && ran.length < 10; n++) timers.shift()?.();
    expect(ran).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('holds due work while the output is backed up, for at most HOLD_MS at a time, and runs it once the output is out', () => {
    const scheduler = new ManualScheduler(0);
    const real = fakeRealTime();
    let backlogged = true;
    const clock = new RealtimeClock({ scheduler, ...real, holdWhile: () => backlogged });
    const ran: number[] = [];
    scheduler.schedule(10, () => ran.push(scheduler.now()));
    scheduler.schedule(20, () => ran.push(scheduler.now()));
    clock.start();
    real.elapse(15); // the first task fell due at 10: held since then
    clock.sync();
    expect(ran).toEqual([]); // a call in the meantime reads the state as it was (the clock paused)
    real.elapse(HOLD_MS - 20);
    expect(ran).toEqual([]);
    real.elapse(20); // held HOLD_MS: one step runs all that is due, then the next hold starts
    expect(ran).toEqual([10, 20]);
    scheduler.schedule(5, () => ran.push(scheduler.now()));
    clock.wake();
    real.elapse(10);
    expect(ran).toHaveLength(2);
    backlogged = false; // written out: the next turn runs what waited
    real.elapse(2);
    expect(ran).toHaveLength(3);
    expect(ran[2]).toBeGreaterThanOrEqual(ran[1]! + 5);
  });

  it('does not hold, nor spin, when nothing is due', () => {
    const scheduler = new ManualScheduler(0);
    const real = fakeRealTime();
    const clock = new RealtimeClock({ scheduler, ...real, holdWhile: () => true });
    clock.start();
    clock.sync();
    expect(real.armed()).toEqual([]);
  });
});
