/**
 * Runs the engine calls of the Kafka listeners in steps: every call submitted during one turn of
 * the event loop (the requests the sockets delivered in it) runs in the one step at the end of
 * that turn, in the order submitted. A step is one storage batch, so the leader and each follower
 * commit one transaction for a burst of requests instead of one per request, as a Kafka broker's
 * log appends what its request handlers took in together and flushes once. Five producers whose
 * acks leave together send again together, so the burst holds.
 *
 * Invariants: a call runs in exactly one step, never before the turn it was submitted in ends
 * (one `setImmediate`, no timer); a call that throws fails only itself; a step that fails (its
 * commit) fails every call of it (failing one already answered changes nothing) and the batcher
 * carries on.
 */
import type { EngineClock } from './engine-clock.js';

export interface EngineCall {
  /** Starts the engine request (its answer arrives through its own callback). */
  start(): void;
  /** The call failed: our bug or a failed step; its request answers UNKNOWN_SERVER_ERROR. */
  fail(error: unknown): void;
}

export class EngineCallBatcher {
  private readonly pending: EngineCall[] = [];
  private armed = false;

  constructor(
    private readonly clock: EngineClock,
    /** Runs `fn` once this turn of the event loop is over (default `setImmediate`). */
    private readonly defer: (fn: () => void) => void = (fn) => void setImmediate(fn),
  ) {}

  submit(call: EngineCall): void {
    this.pending.push(call);
    if (this.armed) return;
    this.armed = true;
    this.defer(() => this.run());
  }

  private run(): void {
    this.armed = false;
    const calls = this.pending.splice(0);
    const { clock } = this;
    try {
      clock.step(() => {
        // Real time first, so the requests see the engine as it is now.
        clock.sync();
        for (const call of calls) {
          try {
            call.start();
          } catch (e) {
            call.fail(e);
          }
        }
        // The requests were sent on the engine's network at this very instant: run what they
        // scheduled for now at once rather than a timer's turn later (a produce with acks=all
        // often completes right here).
        clock.sync();
      });
    } catch (e) {
      for (const call of calls) call.fail(e);
    }
    clock.wake();
  }
}
