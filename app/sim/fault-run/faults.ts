/**
 * The fault run's fault injector: draws faults from the seed (kill, stop, power loss, isolate,
 * stall, cut links, a slow link, the controller's host), undoes each after a drawn duration, or
 * plays a fixed schedule.
 *
 * Exclusion (the "power loss of every ISR member at once" case, Kafka's KIP-966 motivation):
 * power loss drops a replica's unflushed tail, so a power loss is applied only while another ISR
 * member that has not lost power since it (re)joined stays up and reachable, and, while a
 * power-lost replica is still in an ISR, the last such safe holder is never taken down (otherwise
 * the controller can be left with ISR = {power-lost replica}: the last-replica-standing loss).
 * With eligible leader replicas on, the eligible replicas and the last known leader count as
 * members too: a power-lost ELR member leaves the ELR when it re-registers, but the last known
 * leader is elected whatever its shutdown was (Kafka's "balanced" recovery).
 */
import type { EngineEvent } from '../../api/events.js';
import type { RunContext } from './context.js';

export type FaultAction =
  | { kind: 'kill' | 'stop' | 'power-loss' | 'start' | 'isolate' | 'heal' | 'stall' | 'unstall'; broker: number }
  | { kind: 'cut' | 'restore'; a: number; b: number | 'controller' }
  | { kind: 'slow'; broker: number; delayMs: number };

export interface TimedFault {
  atMs: number;
  action: FaultAction;
}

/**
 * Which power losses the generator allows. 'safe-holder' (default) is the exclusion described in
 * the header; 'at-power-loss' checks only at the moment of the power loss (a weaker guard that
 * still lets the last-replica-standing loss happen, kept to show why the default exists).
 */
export type PowerLossGuard = 'safe-holder' | 'at-power-loss';

export function describeFault(a: FaultAction): string {
  switch (a.kind) {
    case 'cut':
    case 'restore':
      return `${a.kind} ${a.a}-${a.b}`;
    case 'slow':
      return `slow ${a.broker} ${a.delayMs}ms`;
    default:
      return `${a.kind} ${a.broker}`;
  }
}

interface ActiveFault {
  action: FaultAction;
  undo: FaultAction;
  active: boolean;
}

/** broker.session.timeout.ms plus a heartbeat interval. */
const SESSION_MARGIN_MS = 11_000;

/** Fault kinds and their weights in the draw. */
const KINDS: [string, number][] = [
  ['kill', 3],
  ['stop', 2],
  ['power-loss', 2],
  ['isolate', 2],
  ['stall', 2],
  ['cut', 2],
  ['cut-controller', 1],
  ['controller', 1],
  ['slow', 1],
];
const TOTAL_WEIGHT = KINDS.reduce((a, [, w]) => a + w, 0);

export class FaultInjector {
  private readonly active: ActiveFault[] = [];
  /** Orders power losses and ISR joins (which came last decides whether a replica is tainted). */
  private seq = 0;
  private readonly lastPowerLoss = new Map<number, number>();
  /** When each broker last got its controller connection back (heal, restore, unslow). */
  private readonly lastReconnect = new Map<number, number>();
  private readonly lastJoin = new Map<string, number>();

  constructor(
    private readonly ctx: RunContext,
    private readonly guard: PowerLossGuard,
    /** Told of every fault and heal once it is applied (the checker's reachability watch). */
    private readonly applied: () => void = () => {},
  ) {}

  onEvent(e: EngineEvent): void {
    if (e.type !== 'isr.expanded') return;
    // A join counts only for a running incarnation. The leader's AlterPartition can reach the
    // controller after the follower lost power (its fetches were in flight, the broker is not
    // fenced before broker.session.timeout.ms, and Kafka's controller accepts it then too): such
    // a join brings no durable copy, so the replica stays tainted (seed 8027 lost records so).
    for (const b of e.added) {
      if (this.ctx.sim.engine.brokerState(b) === 'running') this.lastJoin.set(`${e.topic}-${e.partition}|${b}`, ++this.seq);
    }
  }

  /** Play a fixed schedule (times from now). */
  schedule(faults: readonly TimedFault[]): void {
    for (const f of faults) this.ctx.sim.scheduler.schedule(f.atMs, () => this.apply(f.action, 'scheduled'));
  }

  /** Draw faults until 5 s before `end`, keeping at most `maxConcurrent` active. */
  randomFaults(end: number, maxConcurrent: number): void {
    const ctx = this.ctx;
    const s = ctx.sim.scheduler;
    const tick = (): void => {
      if (ctx.now() >= end - 5_000) return;
      if (this.active.filter((f) => f.active).length < maxConcurrent) this.randomFault(end);
      s.schedule(ctx.int(1_000, 15_000), tick);
    };
    s.schedule(ctx.int(2_000, 10_000), tick);
  }

  brokerIds(): number[] {
    return [...this.ctx.sim.internals.brokers.keys()].sort((a, b) => a - b);
  }

  private busy(broker: number, kinds: FaultAction['kind'][]): boolean {
    return this.active.some((f) => f.active && kinds.includes(f.action.kind) && 'broker' in f.action && f.action.broker === broker);
  }

  private randomFault(end: number): void {
    const ctx = this.ctx;
    const brokers = ctx.sim.internals.brokers;
    const ids = this.brokerIds();
    const alive = ids.filter((b) => brokers.get(b)!.isAlive && !this.busy(b, ['kill', 'stop', 'power-loss']));
    // Try a few draws: a fault the guard refuses is replaced by another.
    for (let attempt = 0; attempt < 6; attempt++) {
      let r = ctx.nextInt(TOTAL_WEIGHT);
      const kind = KINDS.find(([, w]) => (r -= w) < 0)![0];
      const drawn = this.draw(kind, ids, alive);
      if (!drawn) continue;
      const f: ActiveFault = { ...drawn, active: true };
      this.active.push(f);
      this.apply(f.action, kind === 'controller' ? 'controller host' : '');
      // Half the faults end before the session timeout (a restart meets its old, live session).
      const duration = ctx.chance(0.5) ? ctx.int(1_000, 12_000) : ctx.int(12_000, 60_000);
      ctx.sim.scheduler.schedule(Math.min(duration, Math.max(0, end - ctx.now())), () => this.undo(f));
      return;
    }
  }

  /** A fault of `kind` and its undo, or undefined when none is allowed now. */
  private draw(kind: string, ids: number[], alive: number[]): { action: FaultAction; undo: FaultAction } | undefined {
    const ctx = this.ctx;
    switch (kind) {
      case 'kill':
      case 'stop':
      case 'power-loss': {
        const b = ctx.pick(alive.filter((x) => this.allowedDown(x, kind === 'power-loss')));
        return b === undefined ? undefined : { action: { kind, broker: b }, undo: { kind: 'start', broker: b } };
      }
      case 'controller': {
        const host = ctx.sim.engine.controllerId;
        if (host === null || !alive.includes(host) || !this.allowedDown(host, false)) return undefined;
        if (ctx.chance(0.5)) return { action: { kind: 'kill', broker: host }, undo: { kind: 'start', broker: host } };
        return this.busy(host, ['isolate']) ? undefined : { action: { kind: 'isolate', broker: host }, undo: { kind: 'heal', broker: host } };
      }
      case 'isolate': {
        const b = ctx.pick(ids.filter((x) => !this.busy(x, ['isolate']) && this.allowedDown(x, false)));
        return b === undefined ? undefined : { action: { kind: 'isolate', broker: b }, undo: { kind: 'heal', broker: b } };
      }
      case 'stall': {
        const b = ctx.pick(ids.filter((x) => !this.busy(x, ['stall'])));
        return b === undefined ? undefined : { action: { kind: 'stall', broker: b }, undo: { kind: 'unstall', broker: b } };
      }
      case 'slow': {
        const b = ctx.pick(ids.filter((x) => !this.busy(x, ['slow']) && this.allowedDown(x, false)));
        return b === undefined ? undefined : { action: { kind: 'slow', broker: b, delayMs: ctx.pick([20, 100, 400, 1500])! }, undo: { kind: 'slow', broker: b, delayMs: 0 } };
      }
      case 'cut': {
        const a = ctx.pick(ids)!;
        const b = ctx.pick(ids.filter((x) => x !== a))!;
        return this.isCut(a, b) ? undefined : { action: { kind: 'cut', a, b }, undo: { kind: 'restore', a, b } };
      }
      case 'cut-controller': {
        const a = ctx.pick(ids.filter((x) => !this.isCut(x, 'controller') && this.allowedDown(x, false)));
        return a === undefined ? undefined : { action: { kind: 'cut', a, b: 'controller' }, undo: { kind: 'restore', a, b: 'controller' } };
      }
    }
    return undefined;
  }

  private isCut(a: number, b: number | 'controller'): boolean {
    return this.active.some(
      (f) => f.active && f.action.kind === 'cut' && ((f.action.a === a && f.action.b === b) || (f.action.a === b && f.action.b === a)),
    );
  }

  private undo(f: ActiveFault): void {
    if (!f.active) return;
    const b = 'broker' in f.undo ? this.ctx.sim.internals.brokers.get(f.undo.broker) : undefined;
    if (f.undo.kind === 'start' && b?.isAlive) {
      // A controlled shutdown still in progress: restart once it has finished.
      this.ctx.sim.scheduler.schedule(1_000, () => this.undo(f));
      return;
    }
    f.active = false;
    this.apply(f.undo, '');
    const a = f.action;
    if (a.kind === 'isolate' || a.kind === 'slow') this.lastReconnect.set(a.broker, this.ctx.now());
    if (a.kind === 'cut' && a.b === 'controller') this.lastReconnect.set(a.a, this.ctx.now());
  }

  /** healBroker also clears the broker's stalls, cut links and delay: restore the faults still running. */
  private reapply(broker: number): void {
    const engine = this.ctx.sim.engine;
    for (const f of this.active) {
      if (!f.active) continue;
      const a = f.action;
      if (a.kind === 'stall' && a.broker === broker) engine.stallFollower(broker, true);
      else if (a.kind === 'slow' && a.broker === broker) engine.slowLink(broker, a.delayMs);
      else if (a.kind === 'cut' && (a.a === broker || a.b === broker)) engine.cutLink(a.a, a.b, true);
    }
  }

  /** The run is over: every fault counts as undone and every broker's links are restored. */
  healAll(): void {
    for (const f of this.active) f.active = false;
    this.ctx.log('heal all');
    for (const id of this.brokerIds()) this.ctx.sim.engine.healBroker(id);
    this.applied();
  }

  apply(a: FaultAction, note: string): void {
    const ctx = this.ctx;
    const engine = ctx.sim.engine;
    ctx.log(`${describeFault(a)}${note ? ` (${note})` : ''}`);
    const isFault = !['start', 'heal', 'unstall', 'restore'].includes(a.kind) && !(a.kind === 'slow' && a.delayMs === 0);
    if (isFault) {
      ctx.stats.faults++;
      ctx.stats.faultsByKind[a.kind] = (ctx.stats.faultsByKind[a.kind] ?? 0) + 1;
    }
    switch (a.kind) {
      case 'kill':
        engine.killBroker(a.broker);
        break;
      case 'stop':
        engine.stopBroker(a.broker);
        break;
      case 'power-loss':
        this.lastPowerLoss.set(a.broker, ++this.seq);
        engine.powerLossBroker(a.broker);
        break;
      case 'start':
        engine.startBroker(a.broker);
        break;
      case 'isolate':
        engine.isolateBroker(a.broker);
        break;
      case 'heal':
        engine.healBroker(a.broker);
        // In the same turn, so the checker never sees a link up that the heal only restored for an instant.
        this.reapply(a.broker);
        break;
      case 'stall':
        engine.stallFollower(a.broker, true);
        break;
      case 'unstall':
        engine.stallFollower(a.broker, false);
        break;
      case 'cut':
        engine.cutLink(a.a, a.b, true);
        break;
      case 'restore':
        engine.cutLink(a.a, a.b, false);
        break;
      case 'slow':
        engine.slowLink(a.broker, a.delayMs);
        break;
    }
    this.applied();
  }

  // ---------------------------------------------------------------- the power-loss exclusion

  private tainted(tpKey: string, broker: number): boolean {
    return (this.lastPowerLoss.get(broker) ?? 0) > (this.lastJoin.get(`${tpKey}|${broker}`) ?? 0);
  }

  /**
   * A member that holds the committed prefix durably and will stay in the ISR: its current
   * incarnation is registered and unfenced ('running'; a restarting process is not: its old
   * incarnation will be fenced out of the ISR), it has not lost power since it joined, and
   * (strict guard) nothing is about to cut it off from the controller.
   */
  private safeHolder(tpKey: string, broker: number): boolean {
    if (this.ctx.sim.engine.brokerState(broker) !== 'running' || this.tainted(tpKey, broker)) return false;
    if (this.guard === 'at-power-loss') return true;
    // A broker that was cut off from the controller may still be fenced when its old session
    // runs out, up to broker.session.timeout.ms after it reconnects.
    const reconnected = this.lastReconnect.get(broker);
    if (reconnected !== undefined && this.ctx.now() - reconnected < SESSION_MARGIN_MS) return false;
    return !this.busy(broker, ['isolate', 'slow']) && !this.isCut(broker, 'controller');
  }

  /**
   * May `broker` go down (or lose its controller link), or lose power? For every partition whose
   * ISR holds it and a power-lost member, another safe holder must remain.
   */
  private allowedDown(broker: number, powerLoss: boolean): boolean {
    const strict = this.guard !== 'at-power-loss';
    if (!strict && !powerLoss) return true;
    for (const tp of [...this.ctx.tps, ...this.ctx.compactedTps, ...this.ctx.transactionalTps]) {
      const state = this.ctx.sim.engine.metadata.topicsByName.get(tp.topic)?.partitions.get(tp.partition);
      // Who may be elected: the ISR, and with ELR on (KIP-966) the eligible replicas and, once
      // both are empty, the last known leader, which Kafka elects even after a power loss.
      if (!state) continue;
      const electable = [...new Set([...state.isr, ...(state.elr ?? []), ...(state.lastKnownElr ?? [])])];
      if (!electable.includes(broker)) continue;
      const others = electable.filter((m) => m !== broker);
      const atRisk = powerLoss || others.some((m) => this.tainted(tp.key, m));
      if (atRisk && !others.some((m) => this.safeHolder(tp.key, m))) return false;
    }
    return true;
  }
}
