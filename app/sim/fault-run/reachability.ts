/**
 * Which brokers can heartbeat to the active controller, decided from the changes themselves, not
 * from samples: a broker can heartbeat while its process runs and its link to the controller is up
 * (not isolated, the broker–controller link not cut). Both change only through a fault the
 * injector applies (it reports each at once) or through the broker's own process (a controlled
 * shutdown ending, a storage failure), which the engine announces with `broker.stateChanged` in
 * the same turn. The fault run calls `observe` on each, so every change is seen at the instant it
 * happens: a heal shorter than any scan interval is counted.
 *
 * Why this bound is sound: the network delivers a heartbeat only while the link is up and the
 * process that sent it still runs (app/core/network.ts), so the last heartbeat a controller received
 * from a broker is never later than the moment the broker last lost its link or process. Counting from that moment never counts a broker as silent
 * longer than the controller saw it silent.
 *
 * Invariant: `unableSince(b)` is set exactly while `b` cannot heartbeat, to the instant it last
 * lost the ability; `verify` compares that with the network and processes as they are now.
 */
import type { RunContext } from './context.js';

export interface ReachabilityChange {
  atMs: number;
  brokerId: number;
  canHeartbeat: boolean;
  /** Why, as a person reads it: "isolated", "process killed", "link to the controller cut"; once able again, the process state. */
  cause: string;
}

export class Reachability {
  /** Broker -> when it last became unable to heartbeat (absent while it can). */
  private readonly lostAt = new Map<number, number>();
  /** Every change, in order (the verbose replay prints those of the brokers a violation names). */
  readonly changes: ReachabilityChange[] = [];

  constructor(
    private readonly ctx: RunContext,
    /** Told when a broker loses the ability (the checker arms its fencing deadline). */
    private readonly onLost: (brokerId: number) => void,
  ) {}

  /** Whether broker `id` can heartbeat now, read from the network and its process. */
  private canHeartbeat(id: number): boolean {
    const { brokers, network } = this.ctx.sim.internals;
    const b = brokers.get(id);
    return !!b && b.isAlive && network.linkUp(id, 'controller');
  }

  private why(id: number): string {
    const { brokers, network } = this.ctx.sim.internals;
    const b = brokers.get(id);
    if (!b?.isAlive) return `process ${b?.process ?? 'removed'}`;
    if (network.isIsolated(id)) return 'isolated';
    return 'link to the controller cut';
  }

  /** Look at every broker now and record each change. */
  observe(): void {
    const now = this.ctx.now();
    for (const id of this.ctx.sim.internals.brokers.keys()) {
      const can = this.canHeartbeat(id);
      const lost = this.lostAt.has(id);
      if (can && lost) {
        this.lostAt.delete(id);
        this.changes.push({ atMs: now, brokerId: id, canHeartbeat: true, cause: `process ${this.ctx.sim.internals.brokers.get(id)!.process}, link to the controller up` });
      } else if (!can && !lost) {
        this.lostAt.set(id, now);
        this.changes.push({ atMs: now, brokerId: id, canHeartbeat: false, cause: this.why(id) });
        this.onLost(id);
      }
    }
  }

  /** When broker `id` last lost the ability to heartbeat, or undefined while it can. */
  unableSince(id: number): number | undefined {
    return this.lostAt.get(id);
  }

  /** Brokers currently unable to heartbeat. */
  unable(): number[] {
    return [...this.lostAt.keys()];
  }

  /**
   * Brokers whose observed state differs from the network and processes as they are now: a change
   * no event announced (a new way to cut a link or stop a process that does not report itself).
   */
  verify(): number[] {
    return [...this.ctx.sim.internals.brokers.keys()].filter((id) => this.canHeartbeat(id) === this.lostAt.has(id));
  }
}
