/**
 * A broker serves clients only once it has caught up with the metadata log: a KRaft broker
 * enables request processing only after its initial catch-up (BrokerServer waits for the
 * lifecycle manager's initial catch-up; the controller unfences it once it has applied the log up
 * to its registration). Clients' requests that reach a starting incarnation wait here, in arrival
 * order, and are served once the controller unfences it, so a restarted broker never answers
 * UNKNOWN_TOPIC_OR_PARTITION or NOT_LEADER_OR_FOLLOWER from an empty image.
 *
 * A request held longer than a client waits for any answer (Kafka's default request.timeout.ms)
 * is dropped unanswered when the broker opens: its client gave up on it.
 */
import type { BrokerRequest } from './messages.js';

/** Kafka's default request.timeout.ms. */
export const HELD_REQUEST_MAX_WAIT_MS = 30_000;

interface Held {
  msg: BrokerRequest;
  reply: (res: unknown) => void;
  atMs: number;
}

export class CatchUpGate {
  private held: Held[] = [];

  constructor(private readonly now: () => number) {}

  hold(msg: BrokerRequest, reply: (res: unknown) => void): void {
    this.held.push({ msg, reply, atMs: this.now() });
  }

  /** Caught up: `serve` each request that waited and is still awaited, while `alive` holds. */
  open(serve: (msg: BrokerRequest, reply: (res: unknown) => void) => void, alive: () => boolean): void {
    const held = this.held;
    this.held = [];
    const now = this.now();
    for (const h of held) {
      if (!alive()) return;
      if (now - h.atMs <= HELD_REQUEST_MAX_WAIT_MS) serve(h.msg, h.reply);
    }
  }

  /** The incarnation ended: what waited goes with it (the network fails those requests). */
  clear(): void {
    this.held = [];
  }
}
