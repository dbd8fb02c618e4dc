/**
 * The explorer's delivery port: while the cluster is being set up, messages are delivered on the
 * scheduler as usual; once exploration starts, each message becomes a choice.
 *
 * Rules of the model:
 * - Messages on one link (from → to) arrive in the order they were sent, as over one TCP
 *   connection; messages on different links may arrive in any order. So the enabled delivery
 *   choices are the oldest pending message of each link.
 * - Broker heartbeats and registrations and their answers, and everything to or from the broker
 *   hosting the controller (which holds no replica), are delivered at once: they are the
 *   controller's liveness channel, which the explorer varies by crashing brokers rather than by
 *   delaying heartbeats (that would multiply states without new replication behaviour).
 * - A message to a process that died is handled by the network itself (dropped, or failed back
 *   to its sender), exactly as in the engine.
 */
import type { Delivery, DeliveryPort } from '../../core/network.js';
import type { Scheduler } from '../../core/time.js';

export interface PendingDelivery {
  seq: number;
  link: string;
  label: string;
  delivery: Delivery;
  run: () => void;
}

/** Controller-channel requests that travel at once (see the header). */
const EAGER_REQUESTS = new Set(['heartbeat', 'register']);

export class ChoicePort implements DeliveryPort {
  exploring = false;
  private seq = 0;
  private pending: PendingDelivery[] = [];
  /** The delivery being run now: an answer it sends at once travels the same way. */
  private running: PendingDelivery | { eager: true } | null = null;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly controllerHost: number,
  ) {}

  post(delayMs: number, delivery: Delivery, run: () => void): void {
    if (!this.exploring) {
      this.scheduler.schedule(delayMs, run);
      return;
    }
    if (this.isEager(delivery)) {
      this.scheduler.schedule(0, () => this.runEager(run));
      return;
    }
    const link = `${String(delivery.from)}→${String(delivery.to)}`;
    this.pending.push({ seq: this.seq++, link, label: `deliver ${link} ${describe(delivery)}`, delivery, run });
  }

  private isEager(d: Delivery): boolean {
    if (d.from === this.controllerHost || d.to === this.controllerHost) return true;
    if (d.kind === 'request' && EAGER_REQUESTS.has(typeOf(d.payload))) return true;
    return d.kind !== 'request' && d.kind !== 'message' && this.running !== null && 'eager' in this.running;
  }

  private runEager(run: () => void): void {
    const before = this.running;
    this.running = { eager: true };
    try {
      run();
    } finally {
      this.running = before;
    }
  }

  /** The oldest pending message of each link, in the order they were sent. */
  enabled(): PendingDelivery[] {
    const seen = new Set<string>();
    const out: PendingDelivery[] = [];
    for (const p of this.pending) {
      if (seen.has(p.link)) continue;
      seen.add(p.link);
      out.push(p);
    }
    return out;
  }

  /** Every pending message, oldest first (for the state fingerprint). */
  all(): readonly PendingDelivery[] {
    return this.pending;
  }

  deliver(p: PendingDelivery): void {
    this.pending = this.pending.filter((x) => x !== p);
    this.running = p;
    try {
      p.run();
    } finally {
      this.running = null;
    }
  }
}

function typeOf(payload: unknown): string {
  return typeof payload === 'object' && payload !== null && 'type' in payload ? String((payload as { type: unknown }).type) : '';
}

function describe(d: Delivery): string {
  if (d.kind === 'failure') return `failure (${String(d.payload)})`;
  const type = typeOf(d.payload);
  if (d.kind === 'reply') return 'answer';
  // Coordinator requests share one type: name the API (a WriteTxnMarkers, an EndTxn).
  const api = typeof d.payload === 'object' && d.payload !== null && 'api' in d.payload ? String((d.payload as { api: unknown }).api) : '';
  return api ? api : type || d.kind;
}
