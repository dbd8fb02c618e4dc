/**
 * Drives a ManualScheduler from real time, with an adjustable time scale (1×–60×).
 *
 * Invariant: while running, virtual time = base + (realNow − realBase) × scale, never behind the
 * scheduler's clock. Changing the scale rebases (base := the virtual time now, realBase := real
 * now), so virtual time is continuous across scale changes. At most one real timer is armed, for
 * the next due task; whoever schedules work outside a tick (a service call) calls `wake()` so the
 * timer is re-armed for the new earliest task.
 *
 * Real clock and timer functions are injected, so tests run it without sleeping.
 */
import type { ManualScheduler } from '../../core/time.js';

/** The parts of a ManualScheduler the clock needs. */
export type DrivenScheduler = Pick<ManualScheduler, 'now' | 'advanceTo' | 'nextDueTime'>;

export interface RealtimeClockOptions {
  scheduler: DrivenScheduler;
  /** Virtual ms per real ms, 1–60 (default 1). */
  scale?: number;
  /** Monotonic real clock in ms (default `performance.now`). */
  realNow?: () => number;
  /** Arm a real timer (default `setTimeout`). */
  setTimer?: (fn: () => void, delayMs: number) => unknown;
  /** Disarm a real timer (default `clearTimeout`). */
  clearTimer?: (handle: unknown) => void;
  /** A task threw while the clock ran it; the clock keeps going (default: rethrown asynchronously). */
  onError?: (error: unknown) => void;
  /**
   * Wraps each step (every task due by now). The hosts pass `storage.batch` so that every write
   * of a step commits in one transaction per file, before any reply leaves the process.
   */
  wrapStep?: (step: () => void) => void;
  /**
   * The host's output is backed up (the engine process: engine events not yet written to its
   * parent). While it says so, a step does not start — for at most HOLD_MS at a time — so the
   * event loop, which writes that output, is free to: a controlled shutdown of a big cluster sends
   * tens of thousands of events and then its answer, which would otherwise reach the parent only
   * after the brokers' work that follows, a little of the output written per step.
   */
  holdWhile?: () => boolean;
}

/** Real time one step may run before it yields to the event loop (requests are answered in between). */
const STEP_BUDGET_MS = 8;

/** Longest real time `holdWhile` keeps a step from starting; then one step runs, and it may hold again. */
export const HOLD_MS = 250;

/** The smallest time scale: real time. */
export const MIN_SCALE = 1;
/** The largest time scale: one real second is a virtual minute. */
export const MAX_SCALE = 60;
/** setTimeout's largest delay (2^31 − 1 ms); longer waits re-arm. */
const MAX_TIMER_MS = 2_147_483_647;

export class RealtimeClock {
  private readonly wrapStep: (step: () => void) => void;
  private readonly scheduler: DrivenScheduler;
  private readonly realNow: () => number;
  private readonly setTimer: (fn: () => void, delayMs: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  private readonly onError: (error: unknown) => void;
  private currentScale: number;
  private base = 0;
  private realBase = 0;
  private timer: unknown = null;
  private timerDue = Infinity;
  private active = false;
  private advancing = false;
  private readonly holdWhile: (() => boolean) | undefined;
  /** Real time the current hold began (-1: not holding). */
  private heldSince = -1;

  constructor(options: RealtimeClockOptions) {
    this.scheduler = options.scheduler;
    this.wrapStep = options.wrapStep ?? ((step) => step());
    this.holdWhile = options.holdWhile;
    this.currentScale = checkScale(options.scale ?? 1);
    this.realNow = options.realNow ?? (() => performance.now());
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
    this.onError =
      options.onError ??
      ((e) => {
        queueMicrotask(() => {
          throw e;
        });
      });
  }

  /** Whether the clock is advancing the clock. */
  get running(): boolean {
    return this.active;
  }

  /** Virtual ms per real ms. */
  get scale(): number {
    return this.currentScale;
  }

  /** Start following real time from the scheduler's current time. */
  start(): void {
    if (this.active) return;
    this.active = true;
    this.base = this.scheduler.now();
    this.realBase = this.realNow();
    this.arm();
  }

  /** Stop: the virtual clock freezes where it is; no timer stays armed. */
  stop(): void {
    if (!this.active) return;
    this.sync();
    this.active = false;
    this.disarm();
  }

  /** The virtual time real time has reached (the scheduler's time when stopped). */
  now(): number {
    if (!this.active) return this.scheduler.now();
    // Whole milliseconds: engine times end up in record timestamps (int64 on the wire).
    const virtual = Math.floor(this.base + (this.realNow() - this.realBase) * this.currentScale);
    return Math.max(this.scheduler.now(), virtual);
  }

  /** Change the scale (1–60); virtual time stays continuous. */
  setScale(scale: number): void {
    const next = checkScale(scale);
    if (this.active) {
      this.sync();
      this.base = this.now();
      this.realBase = this.realNow();
    }
    this.currentScale = next;
    if (this.active) this.rearm();
  }

  /**
   * Bring the scheduler up to the virtual time now, running every task due by then. Call it
   * before reading or changing engine state so `now()` is current. A no-op inside a tick.
   */
  sync(): void {
    if (!this.active || this.advancing) return;
    if (this.holdWhile && this.hasDueWork() && this.holding()) {
      this.continueSoon(1);
      return;
    }
    this.advancing = true;
    try {
      const target = this.now();
      // Bound each step in real time so requests (a cluster.describe) get answered between
      // steps of a busy cluster; what is left runs on the next turn of the event loop.
      const deadline = this.realNow() + STEP_BUDGET_MS;
      let done = true;
      this.wrapStep(() => {
        done = this.scheduler.advanceTo(target, () => this.realNow() > deadline);
      });
      if (!done) this.continueSoon();
    } catch (e) {
      this.onError(e);
    } finally {
      this.advancing = false;
    }
  }

  private hasDueWork(): boolean {
    const due = this.scheduler.nextDueTime();
    return due !== undefined && due <= this.now();
  }

  /**
   * Whether to hold this step back (see `holdWhile`): yes while the output is backed up, unless it
   * has been held HOLD_MS already — then this step runs and the next hold starts afresh.
   */
  private holding(): boolean {
    if (!this.holdWhile?.()) {
      this.heldSince = -1;
      return false;
    }
    const now = this.realNow();
    if (this.heldSince < 0) this.heldSince = now;
    if (now - this.heldSince < HOLD_MS) return true;
    this.heldSince = now;
    return false;
  }

  /**
   * A step paused at its budget: carry on from a fresh turn of the event loop. A held step looks
   * again after 1 ms, not at once (the turns in between write the output).
   */
  private continueSoon(delayMs = 0): void {
    if (this.timer !== null && this.timerDue <= this.scheduler.now()) return;
    this.disarm();
    this.timerDue = this.scheduler.now();
    this.timer = this.setTimer(() => this.tick(), delayMs);
  }

  /** New work may have been scheduled from outside a tick: re-arm for the earliest task. */
  wake(): void {
    if (!this.active || this.advancing) return;
    const due = this.scheduler.nextDueTime();
    if (due !== undefined && due < this.timerDue) this.rearm();
  }

  private tick(): void {
    this.timer = null;
    this.timerDue = Infinity;
    if (!this.active) return;
    this.sync();
    this.arm();
  }

  private rearm(): void {
    this.disarm();
    this.arm();
  }

  private arm(): void {
    if (!this.active || this.timer !== null) return;
    const due = this.scheduler.nextDueTime();
    if (due === undefined) return;
    const realDelay = Math.max(0, Math.ceil((due - this.now()) / this.currentScale));
    this.timerDue = due;
    this.timer = this.setTimer(() => this.tick(), Math.min(realDelay, MAX_TIMER_MS));
  }

  private disarm(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    this.timerDue = Infinity;
  }
}

function checkScale(scale: number): number {
  if (!Number.isFinite(scale) || scale < MIN_SCALE || scale > MAX_SCALE) {
    throw new RangeError(`time scale must be between ${MIN_SCALE} and ${MAX_SCALE}, got ${scale}`);
  }
  return scale;
}

/** Create a clock for `options.scheduler` (not started). */
export function createRealtimeClock(options: RealtimeClockOptions): RealtimeClock {
  return new RealtimeClock(options);
}
