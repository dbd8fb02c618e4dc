/**
 * The in-process network between brokers, the controller and clients: the fault-injection
 * surface. Requests and replies are delivered through the scheduler after the link delay.
 *
 * Semantics (what a TCP peer would see):
 * - a request over a cut link (isolation, cut pair) is silently lost: the sender times out;
 * - a request to a process that is down, or that died or restarted since the request was sent,
 *   fails fast with `disconnected` (the OS refuses or resets the connection) — except after a
 *   power loss, where nothing answers and the sender times out;
 * - a reply is delivered only to the same incarnation of the sender that sent the request.
 * Every message on its way goes through a `DeliveryPort`: by default it runs on the scheduler
 * after the link delay; a model checker (app/sim/explore) takes each one as a choice instead, to
 * try every order of deliveries.
 */
import type { Scheduler, TimerHandle } from './time.js';

export type NodeId = number | 'controller' | 'client';
export type FailureReason = 'timeout' | 'disconnected';

export type RequestHandler = (from: NodeId, message: unknown, reply: (response: unknown) => void) => void;

/** One message on its way, as a model checker sees it. */
export interface Delivery {
  from: NodeId;
  to: NodeId;
  /** A request, its reply, a failure notice back to a request's sender, or a one-way message. */
  kind: 'request' | 'reply' | 'failure' | 'message';
  payload: unknown;
}

/** Where the network hands each message to be delivered after `delayMs` (`run` delivers it). */
export interface DeliveryPort {
  post(delayMs: number, delivery: Delivery, run: () => void): void;
}

interface InFlight {
  id: number;
  from: NodeId;
  to: NodeId;
  fromIncarnation: number;
  toIncarnation: number;
  onReply: (response: unknown) => void;
  onFailure: (reason: FailureReason) => void;
  timer: TimerHandle | null;
  done: boolean;
}

interface NodeState {
  up: boolean;
  incarnation: number;
  handler: RequestHandler | null;
  isolated: boolean;
  delayMs: number;
}

const key = (n: NodeId): string => String(n);
const pairKey = (a: NodeId, b: NodeId): string => {
  const [x, y] = [key(a), key(b)].sort();
  return `${x}|${y}`;
};

export class Network {
  private readonly nodes = new Map<string, NodeState>();
  private readonly cutPairs = new Set<string>();
  private readonly inFlight = new Map<number, InFlight>();
  private nextId = 1;
  /** Base one-way latency of every message, in ms. */
  baseDelayMs = 0;

  private readonly port: DeliveryPort;

  constructor(
    private readonly scheduler: Scheduler,
    port?: DeliveryPort,
  ) {
    this.port = port ?? { post: (delayMs, _delivery, run) => void scheduler.schedule(delayMs, run) };
  }

  private node(n: NodeId): NodeState {
    let s = this.nodes.get(key(n));
    if (!s) {
      s = { up: false, incarnation: 0, handler: null, isolated: false, delayMs: 0 };
      this.nodes.set(key(n), s);
    }
    return s;
  }

  /** A process starts listening as `node` (a new incarnation). */
  bind(n: NodeId, handler: RequestHandler): void {
    const s = this.node(n);
    s.incarnation++;
    s.up = true;
    s.handler = handler;
  }

  /**
   * The process behind `node` stops. With `resetConnections` (a crash or an orderly stop, where
   * the OS closes sockets) requests waiting on it fail with `disconnected`; without it (power
   * loss) they time out.
   */
  unbind(n: NodeId, resetConnections = true): void {
    const s = this.node(n);
    s.up = false;
    s.handler = null;
    s.incarnation++;
    for (const f of [...this.inFlight.values()]) {
      if (key(f.to) === key(n) && resetConnections && this.linkUp(f.from, f.to)) this.fail(f, 'disconnected', this.delay(f.from, f.to));
      else if (key(f.from) === key(n)) this.finish(f);
    }
  }

  isUp(n: NodeId): boolean {
    return this.node(n).up;
  }

  isolate(n: NodeId): void {
    this.node(n).isolated = true;
  }

  heal(n: NodeId): void {
    this.node(n).isolated = false;
    for (const p of [...this.cutPairs]) if (p.split('|').includes(key(n))) this.cutPairs.delete(p);
  }

  isIsolated(n: NodeId): boolean {
    return this.node(n).isolated;
  }

  cut(a: NodeId, b: NodeId): void {
    this.cutPairs.add(pairKey(a, b));
  }

  restore(a: NodeId, b: NodeId): void {
    this.cutPairs.delete(pairKey(a, b));
  }

  /** Extra one-way latency for every message to or from `node` (a slow link). */
  setNodeDelay(n: NodeId, ms: number): void {
    this.node(n).delayMs = Math.max(0, ms);
  }

  linkUp(a: NodeId, b: NodeId): boolean {
    if (key(a) === key(b)) return true;
    if (this.node(a).isolated || this.node(b).isolated) return false;
    // Every message asks; skip building the pair key while nothing is cut (the usual case).
    return this.cutPairs.size === 0 || !this.cutPairs.has(pairKey(a, b));
  }

  private delay(a: NodeId, b: NodeId): number {
    return this.baseDelayMs + this.node(a).delayMs + this.node(b).delayMs;
  }

  /**
   * Send a request; exactly one of `onReply` / `onFailure` is called (unless the sender itself
   * goes down first, then neither).
   */
  request(
    from: NodeId,
    to: NodeId,
    message: unknown,
    timeoutMs: number,
    onReply: (response: unknown) => void,
    onFailure: (reason: FailureReason) => void,
  ): void {
    const f: InFlight = {
      id: this.nextId++,
      from,
      to,
      fromIncarnation: this.node(from).incarnation,
      toIncarnation: this.node(to).incarnation,
      onReply,
      onFailure,
      timer: null,
      done: false,
    };
    this.inFlight.set(f.id, f);
    f.timer = this.scheduler.schedule(timeoutMs, () => this.fail(f, 'timeout', -1));
    if (!this.linkUp(from, to)) return; // lost on the wire
    const target = this.node(to);
    if (!target.up) {
      this.fail(f, 'disconnected', this.delay(from, to));
      return;
    }
    this.port.post(this.delay(from, to), { from, to, kind: 'request', payload: message }, () => this.deliver(f, message));
  }

  /** Fire-and-forget message (acks=0 produce, metadata push). */
  send(from: NodeId, to: NodeId, message: unknown): void {
    if (!this.linkUp(from, to)) return;
    const toIncarnation = this.node(to).incarnation;
    this.port.post(this.delay(from, to), { from, to, kind: 'message', payload: message }, () => {
      const s = this.node(to);
      if (!s.up || s.incarnation !== toIncarnation || !this.linkUp(from, to) || !s.handler) return;
      s.handler(from, message, () => {});
    });
  }

  private deliver(f: InFlight, message: unknown): void {
    if (f.done) return;
    const s = this.node(f.to);
    if (!this.linkUp(f.from, f.to)) return; // cut while in flight: the sender times out
    if (!s.up || s.incarnation !== f.toIncarnation || !s.handler) {
      this.fail(f, 'disconnected', this.delay(f.from, f.to));
      return;
    }
    let replied = false;
    s.handler(f.from, message, (response) => {
      if (replied) return;
      replied = true;
      if (f.done) return;
      if (!this.isCurrent(f.to, f.toIncarnation) || !this.linkUp(f.from, f.to)) return;
      this.port.post(this.delay(f.to, f.from), { from: f.to, to: f.from, kind: 'reply', payload: response }, () => {
        if (f.done || !this.isCurrent(f.from, f.fromIncarnation) || !this.linkUp(f.from, f.to)) return;
        this.finish(f);
        f.onReply(response);
      });
    });
  }

  private isCurrent(n: NodeId, incarnation: number): boolean {
    const s = this.node(n);
    return s.up && s.incarnation === incarnation;
  }

  /** Fail a request after `delayMs` (always asynchronously), or at once when `delayMs` < 0. */
  private fail(f: InFlight, reason: FailureReason, delayMs: number): void {
    if (f.done) return;
    const run = (): void => {
      if (f.done) return;
      this.finish(f);
      if (this.isCurrent(f.from, f.fromIncarnation)) f.onFailure(reason);
    };
    if (delayMs < 0) run();
    else this.port.post(delayMs, { from: f.to, to: f.from, kind: 'failure', payload: reason }, run);
  }

  private finish(f: InFlight): void {
    f.done = true;
    this.scheduler.cancel(f.timer);
    this.inFlight.delete(f.id);
  }
}
