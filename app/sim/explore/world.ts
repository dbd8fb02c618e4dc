/**
 * One explored cluster: the real engine on the virtual clock, its messages delivered by choice
 * (choice-port.ts), and the moves the explorer may make from any state.
 *
 * The scope: brokers 1..n hold the one partition (replicas [1..n], RF n), broker 0 hosts the
 * controller and no replica and is never crashed (the controller quorum is not what is explored).
 * Timeouts are scaled down, keeping Kafka's order (heartbeat < session < lag), so they are reachable
 * in a few steps: heartbeat 0.5 s, session 2 s, replica.lag.time.max.ms 3 s (shrink check every
 * 1.5 s), fetch long-poll 1 s, produce timeout 3 s.
 *
 * Moves: deliver the oldest message of one link; let 1 s of engine time pass (every timer due in
 * it runs: heartbeats, session expiry, ISR shrink checks, fetch long-polls and backoffs, request
 * timeouts); kill, power off or restart a replica broker (within a fault budget); produce the next
 * record with acks=all (up to the record budget). Every move is named by a label, and a list of
 * labels replays a path exactly: the engine, its random and its clock are deterministic.
 *
 * With `elr` (KIP-966), `eligible.leader.replicas.version` is 1 and the exploration starts at the
 * edge where ELR matters: a record `s0` acknowledged by the full ISR, then (3 brokers) broker 3
 * killed and fenced out, so the ISR is exactly min ISR and any further loss shrinks it below; the
 * setup's kill is not counted in the fault budget.
 *
 * With `security`, security-scope.ts adds its moves (ACL and SCRAM changes, a metadata snapshot,
 * a controller failover) and its invariant.
 */
import { MemoryStorage } from '../../core/log/memory-log-store.js';
import { Simulation, textRecord } from '../simulation.js';
import { ChoicePort } from './choice-port.js';
import { SECURITY_CONFIGS, SecurityScope } from './security-scope.js';

export interface ExploreScope {
  /** Replica brokers (RF); 2 or 3. */
  brokers: number;
  /** Records the client may produce (acks=all). */
  records: number;
  /** Kills, power losses and restarts together. */
  faults: number;
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
  /** Eligible leader replicas on, from the min-ISR edge described above. */
  elr?: boolean;
  /** ACL bindings and SCRAM credentials around snapshots and a controller failover (security-scope.ts). */
  security?: boolean;
}

export const TICK_MS = 1_000;
const PRODUCE_TIMEOUT_MS = 3_000;

const SCALED_CONFIGS: Record<string, string> = {
  'broker.heartbeat.interval.ms': '500',
  'broker.session.timeout.ms': '2000',
  'replica.lag.time.max.ms': '3000',
  'replica.fetch.wait.max.ms': '1000',
  'replica.fetch.backoff.ms': '1000',
  'replica.socket.timeout.ms': '4000',
  'replica.high.watermark.checkpoint.interval.ms': '1000',
};

export interface Ack {
  value: string;
  offset: number;
}

export class World {
  readonly sim: Simulation;
  readonly port: ChoicePort;
  readonly ids: number[];
  produced = 0;
  faultsUsed = 0;
  readonly acked: Ack[] = [];
  /** Produce answers other than NONE (what the client saw). */
  readonly refused: string[] = [];
  /** The security scope's moves and committed history (null without `security`). */
  readonly security: SecurityScope | null = null;

  constructor(readonly scope: ExploreScope) {
    this.ids = Array.from({ length: scope.brokers }, (_, i) => i + 1);
    let port: ChoicePort | null = null;
    this.sim = new Simulation({
      seed: 7,
      brokers: [{ id: 0 }, ...this.ids.map((id) => ({ id }))],
      storage: new MemoryStorage(),
      staticConfigs: scope.security ? { ...SCALED_CONFIGS, ...SECURITY_CONFIGS } : SCALED_CONFIGS,
      deliveries: (scheduler) => (port = new ChoicePort(scheduler, 0)),
    });
    this.port = port!;
    if (scope.elr) this.sim.engine.updateFeatures([{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 1 }]);
    this.sim.createTopic('t', 1, scope.brokers, {
      'min.insync.replicas': String(scope.minInsyncReplicas),
      'unclean.leader.election.enable': String(scope.uncleanLeaderElectionEnable),
    }, [this.ids]);
    // Settle: every replica in the ISR, the followers' fetches parked on the leader.
    this.sim.waitFor(() => this.sim.partition('t', 0).isr.length === scope.brokers, 30_000, 'a full ISR');
    if (scope.elr) this.elrEdge();
    this.sim.advance(2 * TICK_MS);
    this.sim.scheduler.flush();
    if (scope.security) {
      this.security = new SecurityScope(this.sim);
      this.security.settle();
    }
    this.port.exploring = true;
  }

  /** The ELR scope's start: s0 acknowledged by every replica, then the ISR brought down to min ISR. */
  private elrEdge(): void {
    const r = this.sim.produce('t', 0, ['s0']);
    if (r.errorCode !== 'NONE') throw new Error(`the ELR setup's write failed: ${r.errorCode}`);
    this.acked.push({ value: 's0', offset: r.baseOffset });
    const extra = this.scope.brokers - this.scope.minInsyncReplicas;
    for (const id of this.ids.slice(this.ids.length - extra)) this.sim.engine.killBroker(id);
    const want = this.scope.minInsyncReplicas;
    this.sim.waitFor(() => this.sim.partition('t', 0).isr.length === want, 30_000, 'the ISR at min ISR');
  }

  /** Every move enabled in this state, by label, in a fixed order. */
  moves(): string[] {
    const out = this.port.enabled().map((p) => p.label);
    out.push('time +1s');
    const leader = this.sim.engine.metadata.topicsByName.get('t')?.partitions.get(0)?.leader ?? -1;
    if (this.produced < this.scope.records && leader >= 0) out.push(`produce r${this.produced}`);
    if (this.faultsUsed < this.scope.faults) {
      for (const id of this.ids) {
        const b = this.sim.internals.brokers.get(id)!;
        if (b.isAlive) out.push(`kill ${id}`, `power-loss ${id}`);
        else if (b.process !== 'power-lost') out.push(`power-loss ${id}`, `restart ${id}`);
        else out.push(`restart ${id}`);
      }
    }
    if (this.security) out.push(...this.security.moves());
    return out;
  }

  /** Make one move; throws on a label that is not enabled (a trace that no longer replays). */
  apply(label: string): void {
    const engine = this.sim.engine;
    if (label.startsWith('deliver ')) {
      const p = this.port.enabled().find((x) => x.label === label);
      if (!p) throw new Error(`not enabled: ${label}`);
      this.port.deliver(p);
    } else if (label === 'time +1s') {
      this.sim.scheduler.advance(TICK_MS);
    } else if (label.startsWith('produce ')) {
      const value = label.slice('produce '.length);
      this.produced++;
      engine.produce({ topic: 't', partition: 0, acks: 'all', timeoutMs: PRODUCE_TIMEOUT_MS, records: [textRecord(value)] }, (r) => {
        if (r.errorCode === 'NONE') this.acked.push({ value, offset: r.baseOffset });
        else this.refused.push(`${value}: ${r.errorCode}`);
      });
    } else if (this.security?.apply(label)) {
      // a security move (security-scope.ts)
    } else {
      const [kind, idText] = label.split(' ');
      const id = Number(idText);
      this.faultsUsed++;
      if (kind === 'kill') engine.killBroker(id);
      else if (kind === 'power-loss') engine.powerLossBroker(id);
      else if (kind === 'restart') engine.startBroker(id);
      else throw new Error(`unknown move: ${label}`);
    }
    this.sim.scheduler.flush();
  }
}
