/**
 * The seeded randomized fault test: one seed drives acks=all produce and consume traffic against a
 * simulated cluster (RF=3, min.insync.replicas=2, unclean election off) while faults drawn from the
 * seed hit it, then heals everything and checks Kafka's durability guarantees.
 *
 * Invariants checked (kafka-semantics.md §1, §4, §5, §10):
 * 1. Every acknowledged record (errorCode NONE) is readable at its offset with its value once the
 *    faults heal, and so is every record a consumer saw.
 * 2. The committed prefix never shrinks ("the cluster-wide HW never goes backwards"): a leader's
 *    HW is monotonic within its epoch, and a leader taking over epoch E starts with a log end
 *    offset at least as high as any HW a leader of an earlier epoch exposed. A new leader may start
 *    with a stale HW (§1 rule 7) but never without committed records. The final HW is at least
 *    the highest HW ever exposed.
 * 3. At checkpoints, every live ISR member agrees with the leader (value and batch epoch) on every
 *    offset below min(leader HW, its LEO); every live replica agrees below its own HW.
 * 4. Consumers see dense offsets (each fetch starts at the position, +1 per record); no offset is
 *    acknowledged twice; no value is written at two offsets; no unclean election happens.
 *
 * Exclusion (the issue's "power loss of every ISR member at once", §10b.4–5): power loss drops a
 * replica's unflushed tail, so the generator applies a power loss only while another ISR member
 * that has not lost power since it (re)joined stays up and reachable, and, while a power-lost
 * replica is still in an ISR, it never takes down that last safe holder (otherwise the controller
 * can be left with ISR = {power-lost replica}: KIP-966's last-replica-standing loss).
 *
 * A named hub (~900 lines): generator, traffic and checker share one run's state, and splitting
 * them would only pass that state around.
 */
import { createHash } from 'node:crypto';
import type { EngineEvent } from '../api/events.js';
import type { Random } from '../core/random.js';
import type { ReplicaPartition } from '../core/broker/partition.js';
import { seededRandom } from './seeded-random.js';
import { Simulation, textRecord } from './sim.js';

// ================================================================ public types

export type FaultAction =
  | { kind: 'kill' | 'stop' | 'power-loss' | 'start' | 'isolate' | 'heal' | 'stall' | 'unstall'; broker: number }
  | { kind: 'cut' | 'restore'; a: number; b: number | 'controller' }
  | { kind: 'slow'; broker: number; delayMs: number };

export interface TimedFault {
  atMs: number;
  action: FaultAction;
}

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
   * Which power losses the generator allows. 'safe-holder' (default) is the exclusion described in
   * the header; 'at-power-loss' checks only at the moment of the power loss (a weaker guard that
   * still lets the last-replica-standing loss happen, kept to show why the default exists).
   */
  powerLossGuard?: 'safe-holder' | 'at-power-loss';
  /** Called with the simulation once it exists (debugging a failing seed: subscribe, inspect). */
  inspect?: (sim: Simulation) => void;
}

export interface FaultRunStats {
  brokers: number;
  partitions: number;
  virtualMs: number;
  faults: number;
  faultsByKind: Record<string, number>;
  produceRequests: number;
  ackedRecords: number;
  consumedRecords: number;
  leaderChanges: number;
  truncations: number;
  events: number;
  wallMs: number;
}

export interface FaultRunResult {
  seed: number;
  ok: boolean;
  violations: string[];
  /** Every applied fault and heal with its virtual time ("t=12.345s kill 2"). */
  schedule: string[];
  /** sha256 over every event, the schedule and every acknowledgement. */
  historyHash: string;
  stats: FaultRunStats;
}

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

const MAX_VIOLATIONS = 25;
const RECOVERY_LIMIT_MS = 300_000;
const CONVERGENCE_LIMIT_MS = 120_000;
const CHECKPOINT_EVERY_MS = 5_000;
/** broker.session.timeout.ms plus a heartbeat interval. */
const SESSION_MARGIN_MS = 11_000;

export function runFaultSeed(seed: number, options: FaultRunOptions = {}): FaultRunResult {
  return new FaultRun(seed, options).run();
}

// ================================================================ the run

interface TopicPartition {
  topic: string;
  partition: number;
  key: string;
}

interface ActiveFault {
  action: FaultAction;
  undo: FaultAction;
  active: boolean;
}

interface PartitionTrack {
  /** offset -> acknowledged value */
  acked: Map<number, string>;
  /** offset -> consumed value */
  consumed: Map<number, string>;
  /** Highest HW exposed by a leader of each epoch. */
  hwByEpoch: Map<number, number>;
  /** Log end offset of the leader of each epoch when it took over. */
  epochStart: Map<number, { broker: number; offset: number }>;
  /** (broker|epoch) -> last HW that leader exposed. */
  leaderHw: Map<string, number>;
  maxHw: number;
  position: number;
}

const decoder = new TextDecoder();

class FaultRun {
  private readonly rnd: Random;
  private sim!: Simulation;
  private readonly violations: string[] = [];
  private readonly finalViolations: string[] = [];
  private readonly reported = new Set<string>();
  private finalPhase = false;
  private readonly schedule: string[] = [];
  private readonly acks: string[] = [];
  private readonly tps: TopicPartition[] = [];
  private readonly track = new Map<string, PartitionTrack>();
  private readonly stats: FaultRunStats;
  private readonly faultsByKind: Record<string, number> = {};
  private faultStart = 0;
  private trafficOn = true;
  private inFlight = 0;
  private readonly active: ActiveFault[] = [];
  private seq = 0;
  private readonly lastPowerLoss = new Map<number, number>();
  /** When each broker last got its controller connection back (heal, restore, unslow). */
  private readonly lastReconnect = new Map<number, number>();
  private readonly lastJoin = new Map<string, number>();
  private readonly leaderCache = new Map<string, number>();
  private maxConcurrent = 2;
  private withAcks1 = false;
  private readonly uncleanAllowed: boolean;

  constructor(
    readonly seed: number,
    private readonly options: FaultRunOptions,
  ) {
    this.rnd = seededRandom((seed * 2654435761) ^ 0x5bd1e995);
    this.uncleanAllowed = options.uncleanLeaderElectionEnable ?? false;
    this.stats = {
      brokers: 0,
      partitions: 0,
      virtualMs: 0,
      faults: 0,
      faultsByKind: this.faultsByKind,
      produceRequests: 0,
      ackedRecords: 0,
      consumedRecords: 0,
      leaderChanges: 0,
      truncations: 0,
      events: 0,
      wallMs: 0,
    };
  }

  // ---------------------------------------------------------------- random helpers

  private int(lo: number, hi: number): number {
    return lo + this.rnd.nextInt(hi - lo + 1);
  }
  private chance(p: number): boolean {
    return this.rnd.nextFloat() < p;
  }
  private pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[this.rnd.nextInt(items.length)];
  }

  /**
   * Report a violation. `once` names a condition that repeats while it lasts (a consumer stuck
   * past the log end, a divergence seen at every checkpoint): it is reported the first time only.
   * The run and the final checks each keep their first MAX_VIOLATIONS, so a noisy run does not
   * hide which acknowledged records were lost.
   */
  private violation(message: string, once?: string): void {
    if (once !== undefined) {
      if (this.reported.has(once)) return;
      this.reported.add(once);
    }
    const list = this.finalPhase ? this.finalViolations : this.violations;
    if (list.length < MAX_VIOLATIONS) list.push(`t=${(this.now() / 1000).toFixed(3)}s ${message}`);
    else if (list.length === MAX_VIOLATIONS) list.push('… further violations omitted');
  }

  private now(): number {
    return this.sim ? this.sim.now : 0;
  }

  private log(text: string): void {
    this.schedule.push(`t=${(this.now() / 1000).toFixed(3)}s ${text}`);
  }

  // ---------------------------------------------------------------- main

  run(): FaultRunResult {
    const started = performance.now();
    try {
      this.setup();
      this.faultPhase();
      this.healAndCheck();
    } catch (e) {
      const err = e as Error;
      this.violation(`exception: ${err.stack ?? err.message}`);
    }
    this.stats.wallMs = Math.round(performance.now() - started);
    this.stats.virtualMs = this.now();
    this.stats.events = this.sim?.events.length ?? 0;
    const hash = createHash('sha256');
    for (const e of this.sim?.events ?? []) hash.update(JSON.stringify(e)).update('\n');
    hash.update(JSON.stringify(this.schedule)).update(JSON.stringify(this.acks));
    const violations = [...this.violations, ...this.finalViolations];
    return { seed: this.seed, ok: violations.length === 0, violations, schedule: this.schedule, historyHash: hash.digest('hex'), stats: this.stats };
  }

  private setup(): void {
    const o = this.options;
    const brokers = o.brokers ?? (this.chance(0.7) ? 3 : this.chance(0.66) ? 4 : 5);
    const topics = o.topics ?? (this.chance(0.6) ? [this.int(1, 4)] : [this.int(1, 2), this.int(1, 2)]);
    const networkDelayMs = this.chance(0.4) ? 0 : this.chance(0.66) ? this.int(1, 5) : this.int(10, 30);
    this.maxConcurrent = this.int(1, 4);
    this.withAcks1 = o.faults === undefined && this.chance(0.5);
    this.sim = new Simulation({ seed: this.seed, brokers, networkDelayMs });
    this.sim.engine.subscribe((e) => this.onEvent(e));
    o.inspect?.(this.sim);
    const configs: Record<string, string> = { 'min.insync.replicas': String(o.minInsyncReplicas ?? 2) };
    if (o.uncleanLeaderElectionEnable) configs['unclean.leader.election.enable'] = 'true';
    // Some seeds flush often, so a power loss drops only part of a tail.
    if (o.faults === undefined && this.chance(0.3)) configs['flush.messages'] = String(this.int(1, 20));
    topics.forEach((n, i) => {
      const name = `t${i}`;
      this.sim.createTopic(name, n, 3, configs);
      for (let p = 0; p < n; p++) {
        const tp = { topic: name, partition: p, key: `${name}-${p}` };
        this.tps.push(tp);
        this.track.set(tp.key, { acked: new Map(), consumed: new Map(), hwByEpoch: new Map(), epochStart: new Map(), leaderHw: new Map(), maxHw: 0, position: 0 });
      }
    });
    this.stats.brokers = brokers;
    this.stats.partitions = this.tps.length;
    this.log(`cluster: ${brokers} brokers, topics ${topics.map((n, i) => `t${i}×${n}`).join(' ')}, RF=3, ${Object.entries(configs).map(([k, v]) => `${k}=${v}`).join(' ')}, networkDelayMs=${networkDelayMs}, up to ${this.maxConcurrent} concurrent faults${this.withAcks1 ? ', plus an acks=1 producer' : ''}`);
  }

  private faultPhase(): void {
    const s = this.sim.scheduler;
    this.faultStart = this.now();
    const phase = this.options.faultPhaseMs ?? 150_000;
    this.producerLoop(0, -1);
    this.producerLoop(1, -1);
    if (this.withAcks1) this.producerLoop(2, 1);
    for (const tp of this.tps) this.consumerLoop(tp);
    this.checkpointLoop();
    if (this.options.faults) {
      for (const f of this.options.faults) s.schedule(f.atMs, () => this.apply(f.action, 'scheduled'));
    } else {
      this.faultLoop(phase);
    }
    s.advance(phase);
    this.trafficOn = false;
  }

  // ---------------------------------------------------------------- events

  private onEvent(e: EngineEvent): void {
    switch (e.type) {
      case 'highWatermark.advanced':
        return this.onHighWatermark(e.topic, e.partition, e.brokerId, e.highWatermark, e.previous);
      case 'isr.expanded':
        for (const b of e.added) this.lastJoin.set(`${e.topic}-${e.partition}|${b}`, ++this.seq);
        return;
      case 'leader.changed':
        this.stats.leaderChanges++;
        if (e.unclean && !this.uncleanAllowed) this.violation(`${e.topic}-${e.partition}: unclean election of ${e.leader} although unclean.leader.election.enable=false`);
        return;
      case 'replica.truncated':
        this.stats.truncations++;
        return;
      default:
        return;
    }
  }

  private onHighWatermark(topic: string, partition: number, brokerId: number, hw: number, previous: number): void {
    const key = `${topic}-${partition}`;
    const t = this.track.get(key);
    const p = this.sim.engine.brokers.get(brokerId)?.partitionFor(topic, partition);
    if (!t || !p) return;
    const epoch = p.leaderEpoch;
    const lk = `${brokerId}|${epoch}`;
    const last = t.leaderHw.get(lk);
    if (last !== undefined && previous < last) this.violation(`${key}: leader ${brokerId} HW went backwards within epoch ${epoch} (${last} -> ${previous})`);
    if (hw <= previous) this.violation(`${key}: leader ${brokerId} reported an HW advance ${previous} -> ${hw}`);
    t.leaderHw.set(lk, hw);
    t.maxHw = Math.max(t.maxHw, hw);
    this.noteTakeover(key, t, brokerId, p);
    if (hw > (t.hwByEpoch.get(epoch) ?? -1)) {
      t.hwByEpoch.set(epoch, hw);
      for (const [e, start] of t.epochStart) {
        if (e > epoch && hw > start.offset) {
          this.violation(`${key}: leader ${brokerId} of epoch ${epoch} exposed HW ${hw}, but broker ${start.broker} took over later epoch ${e} with only ${start.offset} records`);
        }
      }
    }
  }

  /** Record when a broker leads an epoch, and check it started with the whole committed prefix. */
  private noteTakeover(key: string, t: PartitionTrack, brokerId: number, p: ReplicaPartition): void {
    if (!p.isLeader) return;
    const known = t.epochStart.get(p.leaderEpoch);
    if (known) {
      if (known.broker !== brokerId) this.violation(`${key}: brokers ${known.broker} and ${brokerId} both led epoch ${p.leaderEpoch}`);
      return;
    }
    const start = p.leaderEpochStartOffset;
    t.epochStart.set(p.leaderEpoch, { broker: brokerId, offset: start });
    for (const [e, hw] of t.hwByEpoch) {
      if (e < p.leaderEpoch && hw > start) {
        this.violation(`${key}: broker ${brokerId} took over epoch ${p.leaderEpoch} with log end ${start}, below the HW ${hw} exposed in epoch ${e} (committed records lost)`);
      }
    }
  }

  private scanLeaders(): void {
    for (const tp of this.tps) {
      const t = this.track.get(tp.key)!;
      for (const b of this.sim.engine.brokers.values()) {
        if (!b.isAlive) continue;
        const p = b.partitionFor(tp.topic, tp.partition);
        if (p?.isLeader) this.noteTakeover(tp.key, t, b.brokerId, p);
      }
    }
  }

  // ---------------------------------------------------------------- traffic

  private refreshLeader(tp: TopicPartition): number {
    const leader = this.sim.engine.controller.image.topicsByName.get(tp.topic)?.partitions.get(tp.partition)?.leader ?? -1;
    this.leaderCache.set(tp.key, leader);
    return leader;
  }

  private cachedLeader(tp: TopicPartition): number {
    return this.leaderCache.get(tp.key) ?? this.refreshLeader(tp);
  }

  /**
   * One producer, max.in.flight 1, fresh values on every attempt (no retries). acks=all writes
   * are the ones that must survive; an acks=1 producer adds unreplicated tails for the
   * divergence and truncation paths (its writes only have to obey the log invariants).
   */
  private producerLoop(id: number, acks: -1 | 1): void {
    let n = 0;
    let lastRefresh = 0;
    const s = this.sim.scheduler;
    const next = (delay: number): void => {
      s.schedule(delay, send);
    };
    const send = (): void => {
      if (!this.trafficOn) return;
      const tp = this.pick(this.tps)!;
      // metadata.max.age: refresh the cached leaders now and then, and after every error.
      if (this.now() - lastRefresh > 10_000) {
        for (const x of this.tps) this.refreshLeader(x);
        lastRefresh = this.now();
      }
      const leader = this.cachedLeader(tp);
      if (leader < 0) {
        this.refreshLeader(tp);
        return next(this.int(100, 500));
      }
      const count = this.int(1, 3);
      const values = Array.from({ length: count }, () => `${tp.key}:p${id}.${n++}`);
      this.stats.produceRequests++;
      this.inFlight++;
      const timeoutMs = this.pick([5_000, 15_000, 30_000])!;
      this.sim.engine.produceTo(leader, { topic: tp.topic, partition: tp.partition, acks, records: values.map((v) => textRecord(v)), timeoutMs }, (r) => {
        this.inFlight--;
        if (r.errorCode === 'NONE' && acks === -1) this.onAck(tp, r.baseOffset, values);
        else if (r.errorCode !== 'NOT_ENOUGH_REPLICAS') this.refreshLeader(tp);
        if (this.trafficOn) next(r.errorCode === 'NONE' ? this.int(10, 300) : this.int(100, 1000));
      });
    };
    next(this.int(0, 200));
  }

  private onAck(tp: TopicPartition, baseOffset: number, values: string[]): void {
    const t = this.track.get(tp.key)!;
    if (baseOffset < 0) return this.violation(`${tp.key}: acks=all produce answered NONE without an offset`);
    values.forEach((v, i) => {
      const offset = baseOffset + i;
      const before = t.acked.get(offset);
      if (before !== undefined) this.violation(`${tp.key}@${offset} acknowledged twice: '${before}' and '${v}'`);
      const seen = t.consumed.get(offset);
      if (seen !== undefined && seen !== v) this.violation(`${tp.key}@${offset} acknowledged as '${v}' but a consumer read '${seen}'`);
      t.acked.set(offset, v);
      this.acks.push(`${tp.key}@${offset}=${v}`);
      this.stats.ackedRecords++;
    });
  }

  /** One consumer per partition polling the leader it has cached. */
  private consumerLoop(tp: TopicPartition): void {
    const s = this.sim.scheduler;
    const t = this.track.get(tp.key)!;
    let leader = -1;
    const poll = (): void => {
      if (!this.trafficOn) return;
      if (leader < 0) leader = this.sim.engine.controller.image.topicsByName.get(tp.topic)?.partitions.get(tp.partition)?.leader ?? -1;
      if (leader < 0) return void s.schedule(this.int(200, 1000), poll);
      const position = t.position;
      this.sim.engine.consumeFrom(leader, { topic: tp.topic, partition: tp.partition, offset: position, maxRecords: 500 }, (r) => {
        if (r.errorCode === 'NONE') this.onConsumed(tp, t, position, r.records);
        else {
          if (r.errorCode === 'OFFSET_OUT_OF_RANGE') {
            this.violation(
              `${tp.key}: consumer at ${position} got OFFSET_OUT_OF_RANGE from leader ${leader} (log ${r.logStartOffset}..${r.logEndOffset}, HW ${r.highWatermark})`,
              `out-of-range|${tp.key}|${position}|${leader}`,
            );
          }
          leader = -1;
        }
        s.schedule(this.int(300, 2500), poll);
      });
    };
    s.schedule(this.int(0, 1000), poll);
  }

  private onConsumed(tp: TopicPartition, t: PartitionTrack, position: number, records: { offset: number; value: Uint8Array | null }[]): void {
    if (t.position !== position) return; // an older poll answered late
    let expected = position;
    for (const r of records) {
      if (r.offset !== expected) {
        this.violation(`${tp.key}: consumer fetching at ${position} got offset ${r.offset} where ${expected} was expected (offsets not dense)`);
        return;
      }
      const v = r.value ? decoder.decode(r.value) : '';
      const acked = t.acked.get(r.offset);
      if (acked !== undefined && acked !== v) this.violation(`${tp.key}@${r.offset}: consumer read '${v}' but '${acked}' was acknowledged there`);
      t.consumed.set(r.offset, v);
      this.stats.consumedRecords++;
      expected++;
    }
    t.position = expected;
  }

  // ---------------------------------------------------------------- checkpoints

  private checkpointLoop(): void {
    const s = this.sim.scheduler;
    const tick = (): void => {
      this.scanLeaders();
      this.checkAgreement();
      if (this.trafficOn) s.schedule(CHECKPOINT_EVERY_MS, tick);
    };
    s.schedule(this.int(500, CHECKPOINT_EVERY_MS), tick);
    const scan = (): void => {
      this.scanLeaders();
      if (this.trafficOn) s.schedule(500, scan);
    };
    s.schedule(250, scan);
  }

  /** Invariant 3: replicas agree with the leader on what is committed. */
  private checkAgreement(): void {
    const engine = this.sim.engine;
    for (const tp of this.tps) {
      const state = engine.controller.image.topicsByName.get(tp.topic)?.partitions.get(tp.partition);
      if (!state) continue;
      if (state.isr.length === 0 || state.isr.some((b) => !state.replicas.includes(b)) || (state.leader >= 0 && !state.isr.includes(state.leader))) {
        this.violation(`${tp.key}: controller state is malformed: leader ${state.leader}, ISR [${state.isr}], replicas [${state.replicas}]`, `malformed|${tp.key}|${state.partitionEpoch}`);
      }
      for (const b of engine.brokers.values()) {
        const p = b.isAlive ? b.partitionFor(tp.topic, tp.partition) : undefined;
        if (p && !(p.log.logStartOffset <= p.log.highWatermark && p.log.highWatermark <= p.log.logEndOffset)) {
          this.violation(`${tp.key}: replica ${b.brokerId} has log start ${p.log.logStartOffset}, HW ${p.log.highWatermark}, LEO ${p.log.logEndOffset}`, `bounds|${tp.key}|${b.brokerId}`);
        }
      }
      if (state.leader < 0) continue;
      const lb = engine.brokers.get(state.leader);
      const lp = lb?.isAlive ? lb.partitionFor(tp.topic, tp.partition) : undefined;
      if (!lp || !lp.isLeader || lp.leaderEpoch !== state.leaderEpoch) continue;
      const leaderLog = flatten(lp, lp.log.logStartOffset, lp.log.logEndOffset);
      const hw = lp.log.highWatermark;
      for (const id of state.replicas) {
        if (id === state.leader) continue;
        const b = engine.brokers.get(id);
        const mp = b?.isAlive ? b.partitionFor(tp.topic, tp.partition) : undefined;
        if (!mp) continue;
        const inIsr = state.isr.includes(id);
        const until = inIsr ? Math.max(Math.min(hw, mp.log.logEndOffset), Math.min(mp.log.highWatermark, lp.log.logEndOffset)) : Math.min(mp.log.highWatermark, lp.log.logEndOffset);
        const from = Math.max(mp.log.logStartOffset, lp.log.logStartOffset);
        if (until <= from) continue;
        const memberLog = flatten(mp, from, until);
        for (let o = from; o < until; o++) {
          const a = leaderLog.get(o);
          const m = memberLog.get(o);
          if (!a || !m || a.epoch !== m.epoch || !sameBytes(a.value, m.value)) {
            this.violation(
              `${tp.key}@${o}: ${inIsr ? 'ISR member' : 'replica'} ${id} (LEO ${mp.log.logEndOffset}, HW ${mp.log.highWatermark}) disagrees with leader ${state.leader} (HW ${hw}): ${show(m)} vs ${show(a)}`,
              `agree|${tp.key}|${id}|${o}|${state.leaderEpoch}`,
            );
            break;
          }
        }
      }
    }
  }

  // ---------------------------------------------------------------- faults

  private faultLoop(phase: number): void {
    const s = this.sim.scheduler;
    const end = this.faultStart + phase;
    const tick = (): void => {
      if (this.now() >= end - 5_000) return;
      if (this.active.filter((f) => f.active).length < this.maxConcurrent) this.randomFault(end);
      s.schedule(this.int(1_000, 15_000), tick);
    };
    s.schedule(this.int(2_000, 10_000), tick);
  }

  private brokerIds(): number[] {
    return [...this.sim.engine.brokers.keys()].sort((a, b) => a - b);
  }

  private busy(broker: number, kinds: FaultAction['kind'][]): boolean {
    return this.active.some((f) => f.active && kinds.includes(f.action.kind) && 'broker' in f.action && f.action.broker === broker);
  }

  private randomFault(end: number): void {
    const engine = this.sim.engine;
    const ids = this.brokerIds();
    const alive = ids.filter((b) => engine.brokers.get(b)!.isAlive && !this.busy(b, ['kill', 'stop', 'power-loss']));
    const kinds: [string, number][] = [
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
    const total = kinds.reduce((a, [, w]) => a + w, 0);
    // Try a few draws: a fault the guard refuses is replaced by another.
    for (let attempt = 0; attempt < 6; attempt++) {
      let r = this.rnd.nextInt(total);
      const kind = kinds.find(([, w]) => (r -= w) < 0)![0];
      let action: FaultAction | undefined;
      let undo: FaultAction | undefined;
      switch (kind) {
        case 'kill':
        case 'stop':
        case 'power-loss': {
          const b = this.pick(alive.filter((x) => this.allowedDown(x, kind === 'power-loss')));
          if (b !== undefined) [action, undo] = [{ kind, broker: b }, { kind: 'start', broker: b }];
          break;
        }
        case 'controller': {
          const host = engine.controllerId;
          if (host === null || !alive.includes(host) || !this.allowedDown(host, false)) break;
          if (this.chance(0.5)) [action, undo] = [{ kind: 'kill', broker: host }, { kind: 'start', broker: host }];
          else if (!this.busy(host, ['isolate'])) [action, undo] = [{ kind: 'isolate', broker: host }, { kind: 'heal', broker: host }];
          break;
        }
        case 'isolate': {
          const b = this.pick(ids.filter((x) => !this.busy(x, ['isolate']) && this.allowedDown(x, false)));
          if (b !== undefined) [action, undo] = [{ kind: 'isolate', broker: b }, { kind: 'heal', broker: b }];
          break;
        }
        case 'stall': {
          const b = this.pick(ids.filter((x) => !this.busy(x, ['stall'])));
          if (b !== undefined) [action, undo] = [{ kind: 'stall', broker: b }, { kind: 'unstall', broker: b }];
          break;
        }
        case 'slow': {
          const b = this.pick(ids.filter((x) => !this.busy(x, ['slow']) && this.allowedDown(x, false)));
          if (b !== undefined) [action, undo] = [{ kind: 'slow', broker: b, delayMs: this.pick([20, 100, 400, 1500])! }, { kind: 'slow', broker: b, delayMs: 0 }];
          break;
        }
        case 'cut': {
          const a = this.pick(ids)!;
          const b = this.pick(ids.filter((x) => x !== a))!;
          if (!this.isCut(a, b)) [action, undo] = [{ kind: 'cut', a, b }, { kind: 'restore', a, b }];
          break;
        }
        case 'cut-controller': {
          const a = this.pick(ids.filter((x) => !this.isCut(x, 'controller') && this.allowedDown(x, false)));
          if (a !== undefined) [action, undo] = [{ kind: 'cut', a, b: 'controller' }, { kind: 'restore', a, b: 'controller' }];
          break;
        }
      }
      if (!action || !undo) continue;
      const f: ActiveFault = { action, undo, active: true };
      this.active.push(f);
      this.apply(action, kind === 'controller' ? 'controller host' : '');
      // Half the faults end before the session timeout (a restart meets its old, live session).
      const duration = this.chance(0.5) ? this.int(1_000, 12_000) : this.int(12_000, 60_000);
      this.sim.scheduler.schedule(Math.min(duration, Math.max(0, end - this.now())), () => this.undo(f));
      return;
    }
  }

  private isCut(a: number, b: number | 'controller'): boolean {
    return this.active.some(
      (f) => f.active && f.action.kind === 'cut' && ((f.action.a === a && f.action.b === b) || (f.action.a === b && f.action.b === a)),
    );
  }

  private undo(f: ActiveFault): void {
    if (!f.active) return;
    const b = 'broker' in f.undo ? this.sim.engine.brokers.get(f.undo.broker) : undefined;
    if (f.undo.kind === 'start' && b?.isAlive) {
      // A controlled shutdown still in progress: restart once it has finished.
      this.sim.scheduler.schedule(1_000, () => this.undo(f));
      return;
    }
    f.active = false;
    this.apply(f.undo, '');
    if (f.undo.kind === 'heal') this.reapply(f.undo.broker);
    const a = f.action;
    if (a.kind === 'isolate' || a.kind === 'slow') this.lastReconnect.set(a.broker, this.now());
    if (a.kind === 'cut' && a.b === 'controller') this.lastReconnect.set(a.a, this.now());
  }

  /** healBroker also clears the broker's stalls, cut links and delay: restore the faults still running. */
  private reapply(broker: number): void {
    const engine = this.sim.engine;
    for (const f of this.active) {
      if (!f.active) continue;
      const a = f.action;
      if (a.kind === 'stall' && a.broker === broker) engine.stallFollower(broker, true);
      else if (a.kind === 'slow' && a.broker === broker) engine.slowLink(broker, a.delayMs);
      else if (a.kind === 'cut' && (a.a === broker || a.b === broker)) engine.cutLink(a.a, a.b, true);
    }
  }

  private apply(a: FaultAction, note: string): void {
    const engine = this.sim.engine;
    this.log(`${describeFault(a)}${note ? ` (${note})` : ''}`);
    const isFault = !['start', 'heal', 'unstall', 'restore'].includes(a.kind) && !(a.kind === 'slow' && a.delayMs === 0);
    if (isFault) {
      this.stats.faults++;
      this.faultsByKind[a.kind] = (this.faultsByKind[a.kind] ?? 0) + 1;
    }
    switch (a.kind) {
      case 'kill':
        return engine.killBroker(a.broker);
      case 'stop':
        return engine.stopBroker(a.broker);
      case 'power-loss':
        this.lastPowerLoss.set(a.broker, ++this.seq);
        return engine.powerLossBroker(a.broker);
      case 'start':
        return engine.startBroker(a.broker);
      case 'isolate':
        return engine.isolateBroker(a.broker);
      case 'heal':
        return engine.healBroker(a.broker);
      case 'stall':
        return engine.stallFollower(a.broker, true);
      case 'unstall':
        return engine.stallFollower(a.broker, false);
      case 'cut':
        return engine.cutLink(a.a, a.b, true);
      case 'restore':
        return engine.cutLink(a.a, a.b, false);
      case 'slow':
        return engine.slowLink(a.broker, a.delayMs);
    }
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
    if (this.sim.engine.brokerState(broker) !== 'running' || this.tainted(tpKey, broker)) return false;
    if (this.options.powerLossGuard === 'at-power-loss') return true;
    // A broker that was cut off from the controller may still be fenced when its old session
    // runs out, up to broker.session.timeout.ms after it reconnects.
    const reconnected = this.lastReconnect.get(broker);
    if (reconnected !== undefined && this.now() - reconnected < SESSION_MARGIN_MS) return false;
    return !this.busy(broker, ['isolate', 'slow']) && !this.isCut(broker, 'controller');
  }

  /**
   * May `broker` go down (or lose its controller link), or lose power? For every partition whose
   * ISR holds it and a power-lost member, another safe holder must remain.
   */
  private allowedDown(broker: number, powerLoss: boolean): boolean {
    const strict = this.options.powerLossGuard !== 'at-power-loss';
    if (!strict && !powerLoss) return true;
    for (const tp of this.tps) {
      const state = this.sim.engine.controller.image.topicsByName.get(tp.topic)?.partitions.get(tp.partition);
      if (!state || !state.isr.includes(broker)) continue;
      const others = state.isr.filter((m) => m !== broker);
      const atRisk = powerLoss || others.some((m) => this.tainted(tp.key, m));
      if (atRisk && !others.some((m) => this.safeHolder(tp.key, m))) return false;
    }
    return true;
  }

  // ---------------------------------------------------------------- heal and final checks

  private healAndCheck(): void {
    const engine = this.sim.engine;
    const s = this.sim.scheduler;
    for (const f of this.active) f.active = false;
    this.finalPhase = true;
    this.log('heal all');
    for (const id of this.brokerIds()) engine.healBroker(id);
    const restart = (): void => {
      for (const id of this.brokerIds()) {
        const b = engine.brokers.get(id)!;
        if (!b.isAlive) this.apply({ kind: 'start', broker: id }, 'heal');
      }
    };
    restart();
    const recovered = s.runUntil(
      () => {
        restart();
        this.scanLeaders();
        return this.inFlight === 0 && this.tps.every((tp) => this.fullyReplicated(tp));
      },
      RECOVERY_LIMIT_MS,
      250,
    );
    if (recovered < 0) {
      this.violation(`cluster did not recover within ${RECOVERY_LIMIT_MS / 1000}s after healing: ${this.describeState()}`);
      return;
    }
    const converged = s.runUntil(() => this.tps.every((tp) => this.converged(tp)), CONVERGENCE_LIMIT_MS, 250);
    this.scanLeaders();
    this.checkAgreement();
    if (converged < 0) this.violation(`replicas did not converge within ${CONVERGENCE_LIMIT_MS / 1000}s: ${this.describeState()}`);
    for (const tp of this.tps) this.finalCheck(tp);
  }

  private fullyReplicated(tp: TopicPartition): boolean {
    const state = this.sim.engine.controller.image.topicsByName.get(tp.topic)?.partitions.get(tp.partition);
    if (!state || state.leader < 0 || state.isr.length !== state.replicas.length) return false;
    const lp = this.sim.engine.brokers.get(state.leader)?.partitionFor(tp.topic, tp.partition);
    return !!lp && lp.isLeader && lp.leaderEpoch === state.leaderEpoch;
  }

  private converged(tp: TopicPartition): boolean {
    if (!this.fullyReplicated(tp)) return false;
    const state = this.sim.engine.controller.image.topicsByName.get(tp.topic)!.partitions.get(tp.partition)!;
    const lp = this.sim.engine.brokers.get(state.leader)!.partitionFor(tp.topic, tp.partition)!;
    const leo = lp.log.logEndOffset;
    if (lp.log.highWatermark !== leo) return false;
    return state.replicas.every((id) => {
      const p = this.sim.engine.brokers.get(id)?.partitionFor(tp.topic, tp.partition);
      return !!p && p.log.logEndOffset === leo && p.log.highWatermark === leo;
    });
  }

  private finalCheck(tp: TopicPartition): void {
    const t = this.track.get(tp.key)!;
    const engine = this.sim.engine;
    const state = engine.controller.image.topicsByName.get(tp.topic)!.partitions.get(tp.partition)!;
    // Read everything through the consumer path: "readable" means a consumer gets it.
    const final = new Map<number, string>();
    let next = 0;
    let hw = -1;
    for (let i = 0; i < 1_000; i++) {
      const r = this.sim.consume(tp.topic, tp.partition, next);
      if (r.errorCode !== 'NONE') {
        this.violation(`${tp.key}: final read at ${next} failed with ${r.errorCode}`);
        break;
      }
      hw = r.highWatermark;
      if (r.records.length === 0) break;
      for (const rec of r.records) {
        if (rec.offset !== next) {
          this.violation(`${tp.key}: final read expected offset ${next}, got ${rec.offset} (offsets not dense)`);
          return;
        }
        final.set(rec.offset, rec.value ? decoder.decode(rec.value) : '');
        next++;
      }
    }
    if (hw < t.maxHw) this.violation(`${tp.key}: final HW ${hw} is below the highest HW ever exposed (${t.maxHw})`);
    const byValue = new Map<string, number>();
    for (const [o, v] of final) {
      const other = byValue.get(v);
      if (other !== undefined) this.violation(`${tp.key}: value '${v}' is in the log at offsets ${other} and ${o}`);
      byValue.set(v, o);
    }
    let missing = 0;
    for (const [o, v] of t.acked) {
      const found = final.get(o);
      if (found === v) continue;
      if (missing++ < 5) this.violation(`${tp.key}@${o}: acknowledged record '${v}' lost (final log has ${found === undefined ? 'nothing' : `'${found}'`} there, HW ${hw}, leader ${state.leader})`);
    }
    if (missing > 5) this.violation(`${tp.key}: ${missing} acknowledged records lost in all`);
    let unseen = 0;
    for (const [o, v] of t.consumed) {
      if (final.get(o) !== v && unseen++ < 3) this.violation(`${tp.key}@${o}: consumed record '${v}' is gone from the final log`);
    }
    // All replicas hold the same log once converged.
    const lp = engine.brokers.get(state.leader)?.partitionFor(tp.topic, tp.partition);
    if (!lp) return;
    const leaderLog = flatten(lp, lp.log.logStartOffset, lp.log.logEndOffset);
    for (const id of state.replicas) {
      const p = engine.brokers.get(id)?.partitionFor(tp.topic, tp.partition);
      if (!p || id === state.leader) continue;
      const log = flatten(p, p.log.logStartOffset, p.log.logEndOffset);
      if (p.log.logEndOffset !== lp.log.logEndOffset) this.violation(`${tp.key}: replica ${id} ends at ${p.log.logEndOffset}, leader ${state.leader} at ${lp.log.logEndOffset}`);
      for (const [o, m] of log) {
        const a = leaderLog.get(o);
        if (!a || a.epoch !== m.epoch || !sameBytes(a.value, m.value)) {
          this.violation(`${tp.key}@${o}: replica ${id} diverges from leader ${state.leader} after healing: ${show(m)} vs ${show(a)}`);
          break;
        }
      }
    }
  }

  private describeState(): string {
    const engine = this.sim.engine;
    const parts = this.tps.map((tp) => {
      const v = engine.describePartition(tp.topic, tp.partition);
      if (!v) return `${tp.key}: ?`;
      return `${tp.key} leader=${v.leader} epoch=${v.leaderEpoch} isr=[${v.isr}] leo=[${v.replicaStates.map((r) => `${r.brokerId}:${r.logEndOffset}/${r.highWatermark}`)}]`;
    });
    const brokers = engine.listBrokers().map((b) => `${b.id}:${b.state}`);
    return `brokers ${brokers.join(' ')}; controller ${engine.controllerId}; ${parts.join('; ')}; in-flight produces ${this.inFlight}`;
  }
}

// ================================================================ helpers

interface Entry {
  epoch: number;
  value: Uint8Array | null;
}

function flatten(p: ReplicaPartition, from: number, until: number): Map<number, Entry> {
  const out = new Map<number, Entry>();
  for (const b of p.log.read(from, until, Number.MAX_SAFE_INTEGER)) {
    b.records.forEach((r, i) => out.set(b.baseOffset + i, { epoch: b.leaderEpoch, value: r.value }));
  }
  return out;
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function show(e: Entry | undefined): string {
  return e ? `'${e.value ? decoder.decode(e.value) : ''}'(epoch ${e.epoch})` : 'nothing';
}
