/**
 * The engine process's events on their way to its parent (`main/engine/engine-process.ts`): each
 * partition's `highWatermark.advanced` held for a window and sent as one event spanning the whole
 * move (`event-coalescer.ts`), everything else at once, and what leaves in one turn of the event
 * loop sent together in bounded messages (`event-batcher.ts`).
 *
 * Why in the engine process: a leader under produce load moves its high watermark at every step,
 * thousands of times a second, and each move serialized onto the process channel cost the engine
 * more CPU than the Kafka listener that served the produce requests; every parent coalesces them
 * again for its own window before a console sees them (the HTTP host, Electron's bridge).
 *
 * Invariant: the parent sees every event, in order, with HW moves joined without gaps; nothing is
 * held past one window; `flush()` sends everything held, so an answer the owner sends after it
 * never overtakes an event (or HW move) that happened before the answer.
 */
import type { EngineEvent } from '../../app/api/contract.js';
import { EventBatcher, type EventBatcherOptions } from './event-batcher.js';
import { EventCoalescer, type EventCoalescerOptions } from './event-coalescer.js';

/** How long a partition's high-watermark moves are held before they leave as one event. */
export const ENGINE_HW_WINDOW_MS = 50;

export type EventOutboxOptions = EventBatcherOptions & Pick<EventCoalescerOptions, 'windowMs' | 'setTimer' | 'clearTimer'>;

export class EventOutbox {
  private readonly batcher: EventBatcher;
  private readonly coalescer: EventCoalescer;

  constructor(options: EventOutboxOptions) {
    const { windowMs = ENGINE_HW_WINDOW_MS, setTimer, clearTimer, ...batching } = options;
    this.batcher = new EventBatcher(batching);
    this.coalescer = new EventCoalescer({
      windowMs,
      ...(setTimer ? { setTimer } : {}),
      ...(clearTimer ? { clearTimer } : {}),
      send: (event) => this.batcher.push(event),
    });
  }

  push(event: EngineEvent): void {
    this.coalescer.push(event);
  }

  /** Send everything held now: before any other message to the parent. */
  flush(): void {
    this.coalescer.flush();
    this.batcher.flush();
  }

  /** Send what is held and stop the window's timer (the process is closing). */
  close(): void {
    this.flush();
    this.coalescer.dispose();
  }
}
