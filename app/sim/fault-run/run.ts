/**
 * The seeded randomized fault test: one seed drives acks=all produce and consume traffic against a
 * simulated cluster (RF=3, min.insync.replicas=2, unclean election off) while faults drawn from the
 * seed hit it, then heals everything and checks Kafka's durability guarantees.
 *
 * The parts: `traffic.ts` (producers and consumers), `faults.ts` (the fault injector and its
 * power-loss exclusion), `checker.ts` (the invariants), `context.ts` (the state they share: one
 * seeded random, so the same seed gives the same history). This file sets a run up, runs its
 * phases and sums it up, with a hash over its whole history.
 */
import { createHash } from 'node:crypto';
import { ELR_FEATURE } from '../../core/engine.js';
import { seededRandom } from '../../core/random.js';
import { Simulation } from '../simulation.js';
import { Checker } from './checker.js';
import { RunContext, type FaultRunStats } from './context.js';
import { FaultInjector, type PowerLossGuard, type TimedFault } from './faults.js';
import { historyLines, subjectsOf } from './history.js';
import { Traffic } from './traffic.js';
import { CompactedTraffic } from './compacted.js';
import { TransactionalTraffic } from './transactional.js';
import { LsoWatch } from './lso-watch.js';
import { TransformTraffic } from './transform.js';
import { createProducedBatchValidator } from '../../protocol/records/produced-batch-validator.js';
import { createCompressionCodecs } from '../../protocol/records/compression.js';

export type { FaultRunStats } from './context.js';
export { describeFault, type FaultAction, type TimedFault } from './faults.js';

export interface FaultRunOptions {
  /** Brokers in the cluster (default: drawn from the seed, 3 to 5). */
  brokers?: number;
  /** Topics as partition counts, all RF=3 (default: drawn from the seed). */
  topics?: number[];
  /** Virtual time with traffic and faults before everything heals (default 150 s). */
  faultPhaseMs?: number;
  /** Topic min.insync.replicas (default 2). */
  minInsyncReplicas?: number;
  /** Topic unclean.leader.election.enable (default false). */
  uncleanLeaderElectionEnable?: boolean;
  /** A fixed fault schedule (times from the start of the fault phase) instead of random faults. */
  faults?: TimedFault[];
  /**
   * Turn eligible leader replicas on first (kafka-features.sh upgrade --feature
   * eligible.leader.replicas.version=1, KIP-966): the same checks then hold with ELR elections.
   */
  eligibleLeaderReplicas?: boolean;
  /** Which power losses the generator allows (see faults.ts); default 'safe-holder'. */
  powerLossGuard?: PowerLossGuard;
  /** Called with the simulation once it exists (debugging a failing seed: subscribe, inspect). */
  inspect?: (sim: Simulation) => void;
  /** Build `history` even when the run passes (a failing run always has it). */
  history?: boolean;
  /** Add a compacted topic with keyed writes and tombstones, checked as a table (compacted.ts). */
  compacted?: boolean;
  /**
   * Add a topic written only in transactions, checked through a read_committed consumer
   * (transactional.ts), a consume-transform-produce loop checked against its group's committed
   * offsets (transform.ts), and the LSO of every open transaction's partitions while it runs (lso-watch.ts).
   */
  transactional?: boolean;
}

export interface FaultRunResult {
  seed: number;
  ok: boolean;
  violations: string[];
  /** Every applied fault and heal with its virtual time ("t=12.345s kill 2"). */
  schedule: string[];
  /** sha256 over every event, the schedule and every acknowledgement. */
  historyHash: string;
  /**
   * What a person needs to judge the run (history.ts): the faults, with the engine's events and the
   * checker's reachability changes for the brokers and partitions the violations name. Empty when
   * the run passed and `options.history` was not set.
   */
  history: string[];
  stats: FaultRunStats;
}

/**
 * How long after healing the cluster may take to be whole again. The slowest path is a follower
 * whose fetch was lost on a cut link just before the heal: it is sent again only when it times
 * out (replica.socket.timeout.ms, 30 s) and after replica.fetch.backoff.ms (1 s). Meanwhile a
 * broker killed just before the heal is refused as a duplicate until its old session runs out
 * (broker.session.timeout.ms, 9 s, after a controller failover of about 4 s) and is unfenced at
 * its next heartbeat (2 s). Measured: at most 30.6 s over the first 200 seeds.
 */
const LIVENESS_BOUND_MS = 45_000;
const RECOVERY_LIMIT_MS = 300_000;
const CONVERGENCE_LIMIT_MS = 120_000;

export function runFaultSeed(seed: number, options: FaultRunOptions = {}): FaultRunResult {
  return new FaultRun(seed, options).run();
}

class FaultRun {
  private readonly ctx: RunContext;
  private readonly traffic: Traffic;
  private readonly faults: FaultInjector;
  private readonly checker: Checker;
  private maxConcurrent = 2;
  private withAcks1 = false;
  private compacted: CompactedTraffic | null = null;
  private transactional: TransactionalTraffic | null = null;
  private lsoWatch: LsoWatch | null = null;
  private transform: TransformTraffic | null = null;

  constructor(
    readonly seed: number,
    private readonly options: FaultRunOptions,
  ) {
    this.ctx = new RunContext(seededRandom((seed * 2654435761) ^ 0x5bd1e995));
    this.traffic = new Traffic(this.ctx);
    this.checker = new Checker(this.ctx, options.uncleanLeaderElectionEnable ?? false, options.eligibleLeaderReplicas ?? false);
    this.faults = new FaultInjector(this.ctx, options.powerLossGuard ?? 'safe-holder', () => this.checker.onFault());
  }

  run(): FaultRunResult {
    const ctx = this.ctx;
    const started = performance.now();
    try {
      this.setup();
      this.faultPhase();
      this.healAndCheck();
    } catch (e) {
      const err = e as Error;
      ctx.violation(`exception: ${err.stack ?? err.message}`);
    }
    ctx.stats.wallMs = Math.round(performance.now() - started);
    ctx.stats.virtualMs = ctx.now();
    ctx.stats.events = ctx.sim?.events.length ?? 0;
    const hash = createHash('sha256');
    for (const e of ctx.sim?.events ?? []) hash.update(JSON.stringify(e)).update('\n');
    hash.update(JSON.stringify(ctx.schedule)).update(JSON.stringify(ctx.acks));
    const violations = [...ctx.violations, ...ctx.finalViolations];
    const ok = violations.length === 0;
    const history = ok && !this.options.history ? [] : historyLines(ctx.sim?.events ?? [], this.checker.reachability.changes, ctx.scheduleAt, subjectsOf(violations, ctx.tps));
    return { seed: this.seed, ok, violations, schedule: ctx.schedule, historyHash: hash.digest('hex'), history, stats: ctx.stats };
  }

  private setup(): void {
    const ctx = this.ctx;
    const o = this.options;
    const brokers = o.brokers ?? (ctx.chance(0.7) ? 3 : ctx.chance(0.66) ? 4 : 5);
    const topics = o.topics ?? (ctx.chance(0.6) ? [ctx.int(1, 4)] : [ctx.int(1, 2), ctx.int(1, 2)]);
    const networkDelayMs = ctx.chance(0.4) ? 0 : ctx.chance(0.66) ? ctx.int(1, 5) : ctx.int(10, 30);
    this.maxConcurrent = ctx.int(1, 4);
    this.withAcks1 = o.faults === undefined && ctx.chance(0.5);
    // Transactional producers send Kafka's batches, which the LogValidator port checks.
    ctx.sim = new Simulation({ seed: this.seed, brokers, networkDelayMs, ...(o.transactional ? { producedBatches: createProducedBatchValidator(createCompressionCodecs()) } : {}) });
    ctx.sim.engine.subscribe((e) => {
      this.faults.onEvent(e);
      this.checker.onEvent(e);
    });
    this.checker.start();
    o.inspect?.(ctx.sim);
    if (o.eligibleLeaderReplicas) {
      const [r] = ctx.sim.engine.updateFeatures([{ feature: ELR_FEATURE, maxVersionLevel: 1 }]);
      if (r?.errorCode !== 'NONE') ctx.violation(`could not enable ${ELR_FEATURE}: ${r?.errorCode}`);
    }
    const configs: Record<string, string> = { 'min.insync.replicas': String(o.minInsyncReplicas ?? 2) };
    if (o.uncleanLeaderElectionEnable) configs['unclean.leader.election.enable'] = 'true';
    // Some seeds flush often, so a power loss drops only part of a tail.
    if (o.faults === undefined && ctx.chance(0.3)) configs['flush.messages'] = String(ctx.int(1, 20));
    topics.forEach((n, i) => {
      const name = `t${i}`;
      ctx.sim.createTopic(name, n, 3, configs);
      for (let p = 0; p < n; p++) ctx.addPartition({ topic: name, partition: p, key: `${name}-${p}` });
    });
    if (o.compacted) this.compacted = new CompactedTraffic(ctx, configs);
    if (o.transactional) {
      this.lsoWatch = new LsoWatch(ctx);
      this.transactional = new TransactionalTraffic(ctx, configs, this.lsoWatch);
      this.transform = new TransformTraffic(ctx, configs, this.lsoWatch);
    }
    ctx.stats.brokers = brokers;
    ctx.stats.partitions = ctx.tps.length;
    ctx.log(`cluster: ${brokers} brokers${o.eligibleLeaderReplicas ? ', ELR on' : ''}, topics ${topics.map((n, i) => `t${i}×${n}`).join(' ')}, RF=3, ${Object.entries(configs).map(([k, v]) => `${k}=${v}`).join(' ')}, networkDelayMs=${networkDelayMs}, up to ${this.maxConcurrent} concurrent faults${this.withAcks1 ? ', plus an acks=1 producer' : ''}`);
  }

  private faultPhase(): void {
    const ctx = this.ctx;
    const start = ctx.now();
    const phase = this.options.faultPhaseMs ?? 150_000;
    this.traffic.producerLoop(0, -1);
    this.traffic.producerLoop(1, -1);
    if (this.withAcks1) this.traffic.producerLoop(2, 1);
    for (const tp of ctx.tps) this.traffic.consumerLoop(tp);
    this.compacted?.start();
    this.transactional?.start();
    this.transform?.start();
    this.lsoWatch?.start();
    this.checker.checkpointLoop();
    if (this.options.faults) this.faults.schedule(this.options.faults);
    else this.faults.randomFaults(start + phase, this.maxConcurrent);
    ctx.sim.scheduler.advance(phase);
    ctx.trafficOn = false;
  }

  private healAndCheck(): void {
    const ctx = this.ctx;
    const brokers = ctx.sim.internals.brokers;
    const s = ctx.sim.scheduler;
    ctx.finalPhase = true;
    this.faults.healAll();
    const restart = (): void => {
      for (const id of this.faults.brokerIds()) {
        if (!brokers.get(id)!.isAlive) this.faults.apply({ kind: 'start', broker: id }, 'heal');
      }
    };
    restart();
    // Liveness: with every fault healed and every broker started, the cluster gets back to full
    // health on its own within LIVENESS_BOUND_MS of engine time: every partition has a leader,
    // every replica is back in the ISR, and every replica's log and HW reach the leader's log end.
    const healed = s.runUntil(
      () => {
        restart();
        this.checker.scanLeaders();
        return ctx.tps.every((tp) => this.checker.converged(tp));
      },
      LIVENESS_BOUND_MS,
      250,
    );
    ctx.stats.healedInMs = healed;
    if (healed < 0) ctx.violation(`liveness: not back to full health within ${LIVENESS_BOUND_MS / 1000}s after healing: ${this.checker.describeState(this.traffic.inFlight)}`);
    // Then the produce requests still in flight end (at worst by their request timeout) and the
    // records they appended replicate too.
    const recovered = s.runUntil(
      () => {
        restart();
        this.checker.scanLeaders();
        return this.traffic.inFlight === 0 && ctx.tps.every((tp) => this.checker.fullyReplicated(tp)) && (this.compacted?.settled() ?? true) && (this.transactional?.settled() ?? true) && (this.transform?.settled() ?? true);
      },
      RECOVERY_LIMIT_MS,
      250,
    );
    if (recovered < 0) {
      ctx.violation(`cluster did not recover within ${RECOVERY_LIMIT_MS / 1000}s after healing: ${this.checker.describeState(this.traffic.inFlight)}`);
      return;
    }
    const converged = s.runUntil(() => ctx.tps.every((tp) => this.checker.converged(tp)), CONVERGENCE_LIMIT_MS, 250);
    this.checker.scanLeaders();
    this.checker.checkAgreement();
    if (converged < 0) ctx.violation(`replicas did not converge within ${CONVERGENCE_LIMIT_MS / 1000}s: ${this.checker.describeState(this.traffic.inFlight)}`);
    for (const tp of ctx.tps) this.checker.finalCheck(tp);
    this.compacted?.finalCheck();
    this.transactional?.finalCheck();
    this.transform?.finalCheck();
    if (this.lsoWatch) {
      ctx.stats.lsoChecks = this.lsoWatch.checked;
      ctx.stats.pendingOffsetChecks = this.lsoWatch.offsetsChecked;
    }
  }
}
