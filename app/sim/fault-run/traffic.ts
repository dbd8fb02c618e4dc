/**
 * The fault run's clients: producers with max.in.flight 1 that send fresh values on every
 * attempt (no retries, so a value names one attempt), and one consumer per partition reading
 * the leader it has cached. They record what was acknowledged and what was seen; the checker
 * compares both with the logs.
 *
 * Invariant checked here (invariant 4 of the run): consumers see dense offsets, no offset is
 * acknowledged twice, and an acknowledged value and a consumed value at one offset agree.
 */
import { textRecord } from '../simulation.js';
import type { PartitionTrack, RunContext, TopicPartition } from './context.js';

const decoder = new TextDecoder();

export class Traffic {
  /** Produce requests sent and not yet answered. */
  inFlight = 0;
  private readonly leaderCache = new Map<string, number>();

  constructor(private readonly ctx: RunContext) {}

  private refreshLeader(tp: TopicPartition): number {
    const leader = this.ctx.sim.engine.metadata.topicsByName.get(tp.topic)?.partitions.get(tp.partition)?.leader ?? -1;
    this.leaderCache.set(tp.key, leader);
    return leader;
  }

  private cachedLeader(tp: TopicPartition): number {
    return this.leaderCache.get(tp.key) ?? this.refreshLeader(tp);
  }

  /**
   * One producer. acks=all writes are the ones that must survive; an acks=1 producer adds
   * unreplicated tails for the divergence and truncation paths (its writes only have to obey the
   * log invariants).
   */
  producerLoop(id: number, acks: -1 | 1): void {
    const ctx = this.ctx;
    let n = 0;
    let lastRefresh = 0;
    const s = ctx.sim.scheduler;
    const next = (delay: number): void => {
      s.schedule(delay, send);
    };
    const send = (): void => {
      if (!ctx.trafficOn) return;
      const tp = ctx.pick(ctx.tps)!;
      // metadata.max.age: refresh the cached leaders now and then, and after every error.
      if (ctx.now() - lastRefresh > 10_000) {
        for (const x of ctx.tps) this.refreshLeader(x);
        lastRefresh = ctx.now();
      }
      const leader = this.cachedLeader(tp);
      if (leader < 0) {
        this.refreshLeader(tp);
        return next(ctx.int(100, 500));
      }
      const count = ctx.int(1, 3);
      const values = Array.from({ length: count }, () => `${tp.key}:p${id}.${n++}`);
      ctx.stats.produceRequests++;
      this.inFlight++;
      const timeoutMs = ctx.pick([5_000, 15_000, 30_000])!;
      ctx.sim.engine.produceTo(leader, { topic: tp.topic, partition: tp.partition, acks, records: values.map((v) => textRecord(v)), timeoutMs }, (r) => {
        this.inFlight--;
        if (r.errorCode === 'NONE' && acks === -1) this.onAck(tp, r.baseOffset, values);
        else if (r.errorCode !== 'NOT_ENOUGH_REPLICAS') this.refreshLeader(tp);
        if (ctx.trafficOn) next(r.errorCode === 'NONE' ? ctx.int(10, 300) : ctx.int(100, 1000));
      });
    };
    next(ctx.int(0, 200));
  }

  private onAck(tp: TopicPartition, baseOffset: number, values: string[]): void {
    const ctx = this.ctx;
    const t = ctx.track.get(tp.key)!;
    if (baseOffset < 0) return ctx.violation(`${tp.key}: acks=all produce answered NONE without an offset`);
    values.forEach((v, i) => {
      const offset = baseOffset + i;
      const before = t.acked.get(offset);
      if (before !== undefined) ctx.violation(`${tp.key}@${offset} acknowledged twice: '${before}' and '${v}'`);
      const seen = t.consumed.get(offset);
      if (seen !== undefined && seen !== v) ctx.violation(`${tp.key}@${offset} acknowledged as '${v}' but a consumer read '${seen}'`);
      t.acked.set(offset, v);
      ctx.acks.push(`${tp.key}@${offset}=${v}`);
      ctx.stats.ackedRecords++;
    });
  }

  /** One consumer per partition polling the leader it has cached. */
  consumerLoop(tp: TopicPartition): void {
    const ctx = this.ctx;
    const s = ctx.sim.scheduler;
    const t = ctx.track.get(tp.key)!;
    let leader = -1;
    const poll = (): void => {
      if (!ctx.trafficOn) return;
      if (leader < 0) leader = ctx.sim.engine.metadata.topicsByName.get(tp.topic)?.partitions.get(tp.partition)?.leader ?? -1;
      if (leader < 0) return void s.schedule(ctx.int(200, 1000), poll);
      const position = t.position;
      ctx.sim.engine.consumeFrom(leader, { topic: tp.topic, partition: tp.partition, offset: position, maxRecords: 500 }, (r) => {
        if (r.errorCode === 'NONE') this.onConsumed(tp, t, position, r.records);
        else {
          if (r.errorCode === 'OFFSET_OUT_OF_RANGE') {
            ctx.violation(
              `${tp.key}: consumer at ${position} got OFFSET_OUT_OF_RANGE from leader ${leader} (log ${r.logStartOffset}..${r.logEndOffset}, HW ${r.highWatermark})`,
              `out-of-range|${tp.key}|${position}|${leader}`,
            );
          }
          leader = -1;
        }
        s.schedule(ctx.int(300, 2500), poll);
      });
    };
    s.schedule(ctx.int(0, 1000), poll);
  }

  private onConsumed(tp: TopicPartition, t: PartitionTrack, position: number, records: { offset: number; value: Uint8Array | null }[]): void {
    const ctx = this.ctx;
    if (t.position !== position) return; // an older poll answered late
    let expected = position;
    for (const r of records) {
      if (r.offset !== expected) {
        ctx.violation(`${tp.key}: consumer fetching at ${position} got offset ${r.offset} where ${expected} was expected (offsets not dense)`);
        return;
      }
      const v = r.value ? decoder.decode(r.value) : '';
      const acked = t.acked.get(r.offset);
      if (acked !== undefined && acked !== v) ctx.violation(`${tp.key}@${r.offset}: consumer read '${v}' but '${acked}' was acknowledged there`);
      t.consumed.set(r.offset, v);
      ctx.stats.consumedRecords++;
      expected++;
    }
    t.position = expected;
  }
}
