/**
 * Batches the engine's events for the channel to the engine process's parent: the events of one
 * turn of the event loop (one engine step) leave together, in order, at most `maxPerMessage` per
 * message. KRaft's controller writes one record batch per decision; a controlled shutdown at
 * 100,000 partitions is one such batch and some 33,000 events (ISR shrinks, leader changes). Sent
 * one message each, they kept the answer to the next call queued behind them for seconds.
 *
 * Invariant: events leave in the order they were pushed, and before anything the owner sends
 * after calling `flush()` (an answer never overtakes an event that happened before it).
 */
import type { EngineEvent } from '../../app/api/contract.js';

/** The most events one message carries (a bound on the message, not on the batch). */
export const EVENTS_PER_MESSAGE = 2_000;

export interface EventBatcherOptions {
  send: (events: EngineEvent[]) => void;
  maxPerMessage?: number;
  /** Run `fn` once the current turn is over (default `queueMicrotask`). */
  defer?: (fn: () => void) => void;
}

export class EventBatcher {
  private pending: EngineEvent[] = [];
  private readonly maxPerMessage: number;
  private readonly defer: (fn: () => void) => void;

  constructor(private readonly options: EventBatcherOptions) {
    this.maxPerMessage = Math.max(1, options.maxPerMessage ?? EVENTS_PER_MESSAGE);
    this.defer = options.defer ?? queueMicrotask;
  }

  push(event: EngineEvent): void {
    if (this.pending.push(event) === 1) this.defer(() => this.flush());
  }

  /** Send every pending event now (a deferred flush then finds nothing to send). */
  flush(): void {
    const events = this.pending;
    if (events.length === 0) return;
    this.pending = [];
    for (let i = 0; i < events.length; i += this.maxPerMessage) this.options.send(events.slice(i, i + this.maxPerMessage));
  }
}
