/**
 * The recent timeline (`events.recent`): a ring buffer of the last `capacity` engine events, so a
 * UI opened or reloaded late can show what just happened. Event types that fire too often to be
 * worth keeping (by default `highWatermark.advanced` and `metrics.sampled`) are left out; they
 * stay on the live stream.
 *
 * Invariant: the buffer holds the newest kept events in emission order; `recent` returns them
 * oldest first.
 */
import type { EngineEvent, EventName } from '../../api/events.js';

/** Event types `events.recent` does not keep unless told otherwise. */
export const UNBUFFERED_EVENTS: readonly EventName[] = ['highWatermark.advanced', 'metrics.sampled'];

export class RecentEvents {
  private readonly ring: (EngineEvent | undefined)[];
  /** Index the next event goes to. */
  private next = 0;
  private size = 0;
  private readonly skipped: ReadonlySet<EventName>;

  constructor(
    readonly capacity: number,
    exclude: readonly EventName[] = UNBUFFERED_EVENTS,
  ) {
    this.ring = new Array<EngineEvent | undefined>(capacity);
    this.skipped = new Set(exclude);
  }

  push(event: EngineEvent): void {
    if (this.skipped.has(event.type)) return;
    this.ring[this.next] = event;
    this.next = (this.next + 1) % this.capacity;
    if (this.size < this.capacity) this.size++;
  }

  /** The newest `limit` events (of `types`, when given), oldest first. */
  recent(limit: number, types?: readonly EventName[]): EngineEvent[] {
    const wanted = types ? new Set(types) : null;
    const out: EngineEvent[] = [];
    for (let i = 1; i <= this.size && out.length < limit; i++) {
      const e = this.ring[(this.next - i + this.capacity) % this.capacity]!;
      if (!wanted || wanted.has(e.type)) out.push(e);
    }
    return out.reverse();
  }
}
