/**
 * The fault run's checker: Kafka's durability guarantees, watched while faults hit the cluster
 * and checked again once it has healed.
 *
 * Invariants (see Kafka's replication design: the high-watermark rule, KIP-101 and KIP-279):
 * 1. Every acknowledged record (errorCode NONE) is readable at its offset with its value once the
 *    faults heal, and so is every record a consumer saw.
 * 2. The committed prefix never shrinks ("the cluster-wide HW never goes backwards"): a leader's
 *    HW is monotonic within its epoch, and a leader taking over epoch E starts with a log end
 *    offset at least as high as any HW a leader of an earlier epoch exposed. A new leader may start
 *    with a stale HW but never without committed records. The final HW is at least the highest HW
 *    ever exposed.
 * 3. At checkpoints, every live ISR member agrees with the leader (value and batch epoch) on every
 *    offset below min(leader HW, its LEO); every live replica agrees below its own HW.
 * 4. No value is written at two offsets; no unclean election happens while it is disabled, except,
 *    with eligible leader replicas on, the last known leader's (KIP-966 balanced recovery, which
 *    Kafka counts as unclean); invariant 1 still holds for it.
 * With eligible leader replicas on, an ISR may be empty while the partition has no leader.
 * 5. Liveness: a broker that has been unable to heartbeat (its process down, or its link to the
 *    controller cut) for longer than broker.session.timeout.ms plus a heartbeat interval, counted
 *    from when it lost the ability or from when the current controller became active (a new
 *    controller gives every unfenced broker a fresh session, as Kafka's BrokerHeartbeatManager
 *    does), leads no partition: it was fenced and its leaderships moved to an ISR member or, with
 *    none left, the partition went offline. Decided from events (reachability.ts): checked at the
 *    deadline itself and at every leader change after it, never from samples of reachability.
 */
import type { EngineEvent } from '../../api/events.js';
import type { ReplicaPartition } from '../../core/broker/partition.js';
import type { PartitionTrack, RunContext, TopicPartition } from './context.js';
import { Reachability } from './reachability.js';

const CHECKPOINT_EVERY_MS = 5_000;
/**
 * broker.session.timeout.ms (9 s) + broker.heartbeat.interval.ms (2 s) + a second. Kafka's
 * QuorumController fences a broker when its session expires (a deferred event at
 * BrokerHeartbeatManager.nextCheckTimeNs, one stale broker per event); the margin keeps the check
 * about the rule rather than the exact instant.
 */
export const FENCE_WITHIN_MS = 12_000;
const decoder = new TextDecoder();

export class Checker {
  /** Which brokers can heartbeat, from every change as it happens. */
  readonly reachability: Reachability;
  /** When the current controller became active (undefined while there is none). */
  private controllerSince: number | undefined = undefined;

  constructor(
    private readonly ctx: RunContext,
    private readonly uncleanAllowed: boolean,
    private readonly elr = false,
  ) {
    this.reachability = new Reachability(ctx, (id) => this.armFenceCheck(id));
  }

  /** The cluster is up and the checker subscribed: take the state as it is now. */
  start(): void {
    this.controllerSince = this.ctx.sim.internals.controller.isActive ? this.ctx.now() : undefined;
    this.reachability.observe();
  }

  /** A fault was applied (a link cut or restored, a process stopped or started). */
  onFault(): void {
    this.reachability.observe();
  }

  onEvent(e: EngineEvent): void {
    const ctx = this.ctx;
    // Process changes the broker makes itself (a controlled shutdown ending, a storage failure)
    // are announced by broker.stateChanged in the turn they happen; looking on every event is cheap.
    if (e.type !== 'highWatermark.advanced' && e.type !== 'metrics.sampled') this.reachability.observe();
    switch (e.type) {
      case 'highWatermark.advanced':
        return this.onHighWatermark(e.topic, e.partition, e.brokerId, e.highWatermark, e.previous);
      case 'leader.changed':
        ctx.stats.leaderChanges++;
        if (e.unclean && !this.uncleanAllowed && !(this.elr && e.reason === 'last-known-leader')) ctx.violation(`${e.topic}-${e.partition}: unclean election of ${e.leader} although unclean.leader.election.enable=false`);
        if (e.leader >= 0) this.checkFenced(e.leader);
        return;
      case 'replica.truncated':
        ctx.stats.truncations++;
        return;
      case 'controller.changed':
        this.controllerSince = e.controllerId === null ? undefined : e.atMs;
        for (const id of this.reachability.unable()) this.armFenceCheck(id);
        return;
      default:
        return;
    }
  }

  private onHighWatermark(topic: string, partition: number, brokerId: number, hw: number, previous: number): void {
    const ctx = this.ctx;
    const key = `${topic}-${partition}`;
    const t = ctx.track.get(key);
    const p = ctx.sim.internals.brokers.get(brokerId)?.partitionFor(topic, partition);
    if (!t || !p) return;
    const epoch = p.leaderEpoch;
    const lk = `${brokerId}|${epoch}`;
    const last = t.leaderHw.get(lk);
    if (last !== undefined && previous < last) ctx.violation(`${key}: leader ${brokerId} HW went backwards within epoch ${epoch} (${last} -> ${previous})`);
    if (hw <= previous) ctx.violation(`${key}: leader ${brokerId} reported an HW advance ${previous} -> ${hw}`);
    t.leaderHw.set(lk, hw);
    t.maxHw = Math.max(t.maxHw, hw);
    this.noteTakeover(key, t, brokerId, p);
    if (hw > (t.hwByEpoch.get(epoch) ?? -1)) {
      t.hwByEpoch.set(epoch, hw);
      for (const [e, start] of t.epochStart) {
        if (e > epoch && hw > start.offset) {
          ctx.violation(`${key}: leader ${brokerId} of epoch ${epoch} exposed HW ${hw}, but broker ${start.broker} took over later epoch ${e} with only ${start.offset} records`);
        }
      }
    }
  }

  /** Record when a broker leads an epoch, and check it started with the whole committed prefix. */
  private noteTakeover(key: string, t: PartitionTrack, brokerId: number, p: ReplicaPartition): void {
    if (!p.isLeader) return;
    const known = t.epochStart.get(p.leaderEpoch);
    if (known) {
      if (known.broker !== brokerId) this.ctx.violation(`${key}: brokers ${known.broker} and ${brokerId} both led epoch ${p.leaderEpoch}`);
      return;
    }
    const start = p.leaderEpochStartOffset;
    t.epochStart.set(p.leaderEpoch, { broker: brokerId, offset: start });
    for (const [e, hw] of t.hwByEpoch) {
      if (e < p.leaderEpoch && hw > start) {
        this.ctx.violation(`${key}: broker ${brokerId} took over epoch ${p.leaderEpoch} with log end ${start}, below the HW ${hw} exposed in epoch ${e} (committed records lost)`);
      }
    }
  }

  scanLeaders(): void {
    for (const tp of this.ctx.tps) {
      const t = this.ctx.track.get(tp.key)!;
      for (const b of this.ctx.sim.internals.brokers.values()) {
        if (!b.isAlive) continue;
        const p = b.partitionFor(tp.topic, tp.partition);
        if (p?.isLeader) this.noteTakeover(tp.key, t, b.brokerId, p);
      }
    }
  }

  /**
   * Scan leaders every 500 ms and check agreement every 5 s while traffic runs. The scan also
   * cross-checks the reachability the events built against the network as it is (a change no
   * event announced would make invariant 5 count wrongly).
   */
  checkpointLoop(): void {
    const ctx = this.ctx;
    const s = ctx.sim.scheduler;
    const tick = (): void => {
      this.scanLeaders();
      this.checkAgreement();
      if (ctx.trafficOn) s.schedule(CHECKPOINT_EVERY_MS, tick);
    };
    s.schedule(ctx.int(500, CHECKPOINT_EVERY_MS), tick);
    const scan = (): void => {
      this.scanLeaders();
      for (const id of this.reachability.verify()) ctx.violation(`checker: broker ${id}'s link or process changed with no event or fault to announce it`, `unobserved|${id}`);
      if (ctx.trafficOn) s.schedule(500, scan);
    };
    s.schedule(250, scan);
  }

  /** When broker `id` must be fenced by, if it cannot heartbeat and a controller is active. */
  private fenceDeadline(id: number): number | undefined {
    const since = this.reachability.unableSince(id);
    if (since === undefined || this.controllerSince === undefined) return undefined;
    return Math.max(since, this.controllerSince) + FENCE_WITHIN_MS;
  }

  /** Check invariant 5 for `id` at its deadline (a later loss or a new controller arms a later one). */
  private armFenceCheck(id: number): void {
    const due = this.fenceDeadline(id);
    if (due !== undefined) this.ctx.sim.scheduler.schedule(due - this.ctx.now(), () => this.checkFenced(id));
  }

  /** Invariant 5: a broker past its fencing deadline leads nothing. */
  checkFenced(id: number): void {
    const ctx = this.ctx;
    const due = this.fenceDeadline(id);
    if (due === undefined || ctx.now() < due) return;
    const since = this.reachability.unableSince(id)!;
    const sec = (ms: number): string => (ms / 1000).toFixed(3);
    const controller = this.controllerSince! > since ? `; the controller active since t=${sec(this.controllerSince!)}s` : '';
    for (const tp of ctx.tps) {
      const state = ctx.sim.engine.metadata.topicsByName.get(tp.topic)?.partitions.get(tp.partition);
      if (state?.leader === id) {
        ctx.violation(
          `${tp.key}: broker ${id} has been unable to heartbeat for ${sec(ctx.now() - since)} s (since t=${sec(since)}s${controller}) and still leads it (fencing should have moved its leadership)`,
          `fence|${tp.key}|${id}|${since}`,
        );
      }
    }
  }

  /** Invariant 3: replicas agree with the leader on what is committed. */
  checkAgreement(): void {
    const ctx = this.ctx;
    const engine = ctx.sim.engine;
    const brokers = this.ctx.sim.internals.brokers;
    for (const tp of ctx.tps) {
      const state = engine.metadata.topicsByName.get(tp.topic)?.partitions.get(tp.partition);
      if (!state) continue;
      if ((state.isr.length === 0 && !(this.elr && state.leader < 0)) || state.isr.some((b) => !state.replicas.includes(b)) || (state.leader >= 0 && !state.isr.includes(state.leader))) {
        ctx.violation(`${tp.key}: controller state is malformed: leader ${state.leader}, ISR [${state.isr}], replicas [${state.replicas}]`, `malformed|${tp.key}|${state.partitionEpoch}`);
      }
      for (const b of brokers.values()) {
        const p = b.isAlive ? b.partitionFor(tp.topic, tp.partition) : undefined;
        if (p && !(p.log.logStartOffset <= p.log.highWatermark && p.log.highWatermark <= p.log.logEndOffset)) {
          ctx.violation(`${tp.key}: replica ${b.brokerId} has log start ${p.log.logStartOffset}, HW ${p.log.highWatermark}, LEO ${p.log.logEndOffset}`, `bounds|${tp.key}|${b.brokerId}`);
        }
      }
      if (state.leader < 0) continue;
      const lb = brokers.get(state.leader);
      const lp = lb?.isAlive ? lb.partitionFor(tp.topic, tp.partition) : undefined;
      if (!lp || !lp.isLeader || lp.leaderEpoch !== state.leaderEpoch) continue;
      const leaderLog = flatten(lp, lp.log.logStartOffset, lp.log.logEndOffset);
      const hw = lp.log.highWatermark;
      for (const id of state.replicas) {
        if (id === state.leader) continue;
        const b = brokers.get(id);
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
            ctx.violation(
              `${tp.key}@${o}: ${inIsr ? 'ISR member' : 'replica'} ${id} (LEO ${mp.log.logEndOffset}, HW ${mp.log.highWatermark}) disagrees with leader ${state.leader} (HW ${hw}): ${show(m)} vs ${show(a)}`,
              `agree|${tp.key}|${id}|${o}|${state.leaderEpoch}`,
            );
            break;
          }
        }
      }
    }
  }

  /** Every replica in the ISR and the leader serving the controller's epoch. */
  fullyReplicated(tp: TopicPartition): boolean {
    const engine = this.ctx.sim.engine;
    const brokers = this.ctx.sim.internals.brokers;
    const state = engine.metadata.topicsByName.get(tp.topic)?.partitions.get(tp.partition);
    if (!state || state.leader < 0 || state.isr.length !== state.replicas.length) return false;
    const lp = brokers.get(state.leader)?.partitionFor(tp.topic, tp.partition);
    return !!lp && lp.isLeader && lp.leaderEpoch === state.leaderEpoch;
  }

  /** Fully replicated, and every replica ends where the leader does with the HW at that end. */
  converged(tp: TopicPartition): boolean {
    if (!this.fullyReplicated(tp)) return false;
    const engine = this.ctx.sim.engine;
    const brokers = this.ctx.sim.internals.brokers;
    const state = engine.metadata.topicsByName.get(tp.topic)!.partitions.get(tp.partition)!;
    const lp = brokers.get(state.leader)!.partitionFor(tp.topic, tp.partition)!;
    const leo = lp.log.logEndOffset;
    if (lp.log.highWatermark !== leo) return false;
    return state.replicas.every((id) => {
      const p = brokers.get(id)?.partitionFor(tp.topic, tp.partition);
      return !!p && p.log.logEndOffset === leo && p.log.highWatermark === leo;
    });
  }

  /** Invariants 1, 2 and 4 after healing, read through the consumer path. */
  finalCheck(tp: TopicPartition): void {
    const ctx = this.ctx;
    const t = ctx.track.get(tp.key)!;
    const engine = ctx.sim.engine;
    const brokers = this.ctx.sim.internals.brokers;
    const state = engine.metadata.topicsByName.get(tp.topic)!.partitions.get(tp.partition)!;
    // "Readable" means a consumer gets it.
    const final = new Map<number, string>();
    let next = 0;
    let hw = -1;
    for (let i = 0; i < 1_000; i++) {
      const r = ctx.sim.consume(tp.topic, tp.partition, next);
      if (r.errorCode !== 'NONE') {
        ctx.violation(`${tp.key}: final read at ${next} failed with ${r.errorCode}`);
        break;
      }
      hw = r.highWatermark;
      if (r.records.length === 0) break;
      for (const rec of r.records) {
        if (rec.offset !== next) {
          ctx.violation(`${tp.key}: final read expected offset ${next}, got ${rec.offset} (offsets not dense)`);
          return;
        }
        final.set(rec.offset, rec.value ? decoder.decode(rec.value) : '');
        next++;
      }
    }
    if (hw < t.maxHw) ctx.violation(`${tp.key}: final HW ${hw} is below the highest HW ever exposed (${t.maxHw})`);
    const byValue = new Map<string, number>();
    for (const [o, v] of final) {
      const other = byValue.get(v);
      if (other !== undefined) ctx.violation(`${tp.key}: value '${v}' is in the log at offsets ${other} and ${o}`);
      byValue.set(v, o);
    }
    let missing = 0;
    for (const [o, v] of t.acked) {
      const found = final.get(o);
      if (found === v) continue;
      if (missing++ < 5) ctx.violation(`${tp.key}@${o}: acknowledged record '${v}' lost (final log has ${found === undefined ? 'nothing' : `'${found}'`} there, HW ${hw}, leader ${state.leader})`);
    }
    if (missing > 5) ctx.violation(`${tp.key}: ${missing} acknowledged records lost in all`);
    let unseen = 0;
    for (const [o, v] of t.consumed) {
      if (final.get(o) !== v && unseen++ < 3) ctx.violation(`${tp.key}@${o}: consumed record '${v}' is gone from the final log`);
    }
    // All replicas hold the same log once converged.
    const lp = brokers.get(state.leader)?.partitionFor(tp.topic, tp.partition);
    if (!lp) return;
    const leaderLog = flatten(lp, lp.log.logStartOffset, lp.log.logEndOffset);
    for (const id of state.replicas) {
      const p = brokers.get(id)?.partitionFor(tp.topic, tp.partition);
      if (!p || id === state.leader) continue;
      const log = flatten(p, p.log.logStartOffset, p.log.logEndOffset);
      if (p.log.logEndOffset !== lp.log.logEndOffset) ctx.violation(`${tp.key}: replica ${id} ends at ${p.log.logEndOffset}, leader ${state.leader} at ${lp.log.logEndOffset}`);
      for (const [o, m] of log) {
        const a = leaderLog.get(o);
        if (!a || a.epoch !== m.epoch || !sameBytes(a.value, m.value)) {
          ctx.violation(`${tp.key}@${o}: replica ${id} diverges from leader ${state.leader} after healing: ${show(m)} vs ${show(a)}`);
          break;
        }
      }
    }
  }

  /** The cluster in one line, for a violation that says it did not recover. */
  describeState(inFlightProduces: number): string {
    const engine = this.ctx.sim.engine;
    const parts = this.ctx.tps.map((tp) => {
      const v = engine.describePartition(tp.topic, tp.partition);
      if (!v) return `${tp.key}: ?`;
      return `${tp.key} leader=${v.leader} epoch=${v.leaderEpoch} isr=[${v.isr}] leo=[${v.replicaStates.map((r) => `${r.brokerId}:${r.logEndOffset}/${r.highWatermark}`)}]`;
    });
    const brokers = engine.listBrokers().map((b) => `${b.id}:${b.state}`);
    return `brokers ${brokers.join(' ')}; controller ${engine.controllerId}; ${parts.join('; ')}; in-flight produces ${inFlightProduces}`;
  }
}

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
