/**
 * The state one fault run shares between its parts (traffic, fault injector, checker): the
 * simulation, the one seeded random every draw comes from, the partitions under test with what
 * was acknowledged and seen on each, the statistics, and the violation and schedule logs.
 *
 * Every random draw of a run goes through this one `Random`, in the order the parts make them,
 * so the same seed gives the same history whichever file a draw is written in.
 */
import type { Random } from '../../core/random.js';
import type { Simulation } from '../simulation.js';

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
  /** Engine time from the heal until every partition had a leader, a full ISR and HW = LEO everywhere (-1: never). */
  healedInMs: number;
  /** With transactional producers: samples at which an open transaction's partition had its LSO checked (lso-watch.ts). */
  lsoChecks?: number;
  /** OffsetFetch checks of a transaction's pending group offsets (lso-watch.ts). */
  pendingOffsetChecks?: number;
}

export interface TopicPartition {
  topic: string;
  partition: number;
  key: string;
}

export interface PartitionTrack {
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

const MAX_VIOLATIONS = 25;

export class RunContext {
  sim!: Simulation;
  readonly tps: TopicPartition[] = [];
  /** The compacted topic's partitions (compacted.ts): checked apart, guarded against power loss like the others. */
  readonly compactedTps: TopicPartition[] = [];
  /**
   * The transactional topic's partitions and those of `__transaction_state` once it exists
   * (transactional.ts): checked apart, guarded against power loss like the others (a power loss
   * of a transaction log partition's whole ISR could undo a commit, as in Kafka).
   */
  readonly transactionalTps: TopicPartition[] = [];

  /** The guarded transactional partitions of `topic`. */
  transactionalOf(topic: string): TopicPartition[] {
    return this.transactionalTps.filter((tp) => tp.topic === topic);
  }

  /** Once internal topic `topic` exists, the power-loss guard covers its partitions too (a lost commit there could undo what was acknowledged). */
  guardInternalTopic(topic: string): void {
    if (this.transactionalTps.some((tp) => tp.topic === topic)) return;
    const log = this.sim.engine.metadata.topicsByName.get(topic);
    if (log) for (const p of log.partitions.keys()) this.transactionalTps.push({ topic, partition: p, key: `${topic}-${p}` });
  }
  readonly track = new Map<string, PartitionTrack>();
  readonly stats: FaultRunStats = {
    brokers: 0,
    partitions: 0,
    virtualMs: 0,
    faults: 0,
    faultsByKind: {},
    produceRequests: 0,
    ackedRecords: 0,
    consumedRecords: 0,
    leaderChanges: 0,
    truncations: 0,
    events: 0,
    wallMs: 0,
    healedInMs: -1,
  };
  /** Every applied fault and heal with its virtual time. */
  readonly schedule: string[] = [];
  /** The same, with the time as a number (the verbose history merges it with the events). */
  readonly scheduleAt: { atMs: number; text: string }[] = [];
  /** Every acknowledgement, in order (part of the history hash). */
  readonly acks: string[] = [];
  readonly violations: string[] = [];
  readonly finalViolations: string[] = [];
  private readonly reported = new Set<string>();
  /** After the heal: violations go to the final list. */
  finalPhase = false;
  /** Producers and consumers keep going while this holds. */
  trafficOn = true;

  constructor(private readonly rnd: Random) {}

  now(): number {
    return this.sim ? this.sim.now : 0;
  }

  int(lo: number, hi: number): number {
    return lo + this.rnd.nextInt(hi - lo + 1);
  }
  chance(p: number): boolean {
    return this.rnd.nextFloat() < p;
  }
  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[this.rnd.nextInt(items.length)];
  }
  /** A draw in [0, bound) (weighted choices). */
  nextInt(bound: number): number {
    return this.rnd.nextInt(bound);
  }

  addPartition(tp: TopicPartition): void {
    this.tps.push(tp);
    this.track.set(tp.key, { acked: new Map(), consumed: new Map(), hwByEpoch: new Map(), epochStart: new Map(), leaderHw: new Map(), maxHw: 0, position: 0 });
  }

  /**
   * Report a violation. `once` names a condition that repeats while it lasts (a consumer stuck
   * past the log end, a divergence seen at every checkpoint): it is reported the first time only.
   * The run and the final checks each keep their first MAX_VIOLATIONS, so a noisy run does not
   * hide which acknowledged records were lost.
   */
  violation(message: string, once?: string): void {
    if (once !== undefined) {
      if (this.reported.has(once)) return;
      this.reported.add(once);
    }
    const list = this.finalPhase ? this.finalViolations : this.violations;
    if (list.length < MAX_VIOLATIONS) list.push(`t=${(this.now() / 1000).toFixed(3)}s ${message}`);
    else if (list.length === MAX_VIOLATIONS) list.push('… further violations omitted');
  }

  log(text: string): void {
    this.schedule.push(`t=${(this.now() / 1000).toFixed(3)}s ${text}`);
    this.scheduleAt.push({ atMs: this.now(), text });
  }
}
