/**
 * Throttles the engine's event stream for the UI: `highWatermark.advanced` is coalesced per
 * partition per window (default 100 ms), so a cluster ingesting at full speed sends at most one
 * such event per partition per window. The coalesced event keeps the first `previous` and the
 * last `highWatermark`, so the UI still sees the whole move. Every other event passes at once,
 * after the HW events held so far (they happened before it), so order across partitions' other
 * events is kept (a held HW never arrives after its topic's `topic.deleted`). `metrics.sampled`
 * also passes at once but leaves the held HW events held: a sample says nothing about a
 * partition, and at a fast clock (60 samples per real second) flushing on each would undo the
 * window.
 *
 * Invariant: an HW event is never held longer than one window; `flush()` sends what is held.
 */
import type { EngineEvent } from '../../app/api/contract.js';

type HighWatermarkEvent = Extract<EngineEvent, { type: 'highWatermark.advanced' }>;

export interface EventCoalescerOptions {
  send: (event: EngineEvent) => void;
  windowMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

export class EventCoalescer {
  private readonly held = new Map<string, HighWatermarkEvent>();
  private timer: unknown = null;
  private readonly windowMs: number;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(private readonly options: EventCoalescerOptions) {
    this.windowMs = options.windowMs ?? 100;
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
  }

  push(event: EngineEvent): void {
    if (event.type !== 'highWatermark.advanced') {
      if (this.held.size > 0 && event.type !== 'metrics.sampled') this.flush();
      this.options.send(event);
      return;
    }
    const key = `${event.topic}\u0000${event.partition}`;
    const prior = this.held.get(key);
    this.held.set(key, prior ? { ...event, previous: Math.min(prior.previous, event.previous) } : event);
    if (this.timer === null) this.timer = this.setTimer(() => this.flush(), this.windowMs);
  }

  /** Send every held event now. */
  flush(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    const events = [...this.held.values()];
    this.held.clear();
    for (const e of events) this.options.send(e);
  }

  /** Drop held events and disarm the timer. */
  dispose(): void {
    if (this.timer !== null) this.clearTimer(this.timer);
    this.timer = null;
    this.held.clear();
  }
}
