/**
 * The fault run's compacted topic (`FaultRunOptions.compacted`): a topic `ct` with
 * cleanup.policy=compact whose segments roll every few seconds and whose replicas' cleaners run
 * all through the faults, keyed acks=all writes and tombstones to it, and readers that read it
 * from the start as a table. It keeps its own partitions apart from the run's dense-offset
 * checks (the power-loss guard protects them too, through `RunContext.compactedTps`).
 *
 * Checks: while running, a reader gets offsets that only grow, across the cleaner's gaps, and
 * at an acknowledged offset reads what was acknowledged; after healing, with every replica
 * caught up, every replica's table (each key's last record below the HW) holds each key's last
 * acknowledged write at its offset — or a later write of that key that reached the log before
 * its producer heard back — and the replicas agree on every key's latest value (a key deleted
 * on one replica may keep its tombstone on another, whose cleaner set a later delete horizon).
 * delete.retention.ms is longer than the run, so no tombstone ages out: that a replica which was
 * away longer than it keeps what a removed tombstone deleted is Kafka's behaviour, shown apart
 * (scenarios/compaction.test.ts).
 */
import type { LogRecord } from '../../core/log/records.js';
import { recordOffset } from '../../core/log/records.js';
import type { RunContext, TopicPartition } from './context.js';

const TOPIC = 'ct';
const KEYS = 12;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

interface Written {
  key: string;
  value: string | null;
  /** The order it was sent in. */
  seq: number;
}

export class CompactedTraffic {
  inFlight = 0;
  /** Per partition: offset -> what was acknowledged there. */
  private readonly acked = new Map<string, Map<number, Written>>();
  /** Every value ever sent (a write may reach the log without its acknowledgement). */
  private readonly sent = new Set<string>();
  /** The last tombstone sent for each key (a tombstone may reach the log unacknowledged, then age out). */
  private readonly lastTombstoneSent = new Map<string, number>();
  private n = 0;

  constructor(
    private readonly ctx: RunContext,
    configs: Readonly<Record<string, string>>,
  ) {
    const partitions = ctx.int(1, 2);
    // Longer than any run: a replica down for longer than delete.retention.ms misses the
    // tombstones its leader removed meanwhile and keeps the values they deleted (as in Kafka;
    // compaction.test.ts shows it), which would make the replicas' tables differ by design.
    const retention = ctx.int(10, 20) * 60_000;
    ctx.sim.createTopic(TOPIC, partitions, 3, {
      ...configs,
      'cleanup.policy': 'compact',
      'segment.ms': String(ctx.int(3, 8) * 1000),
      'min.cleanable.dirty.ratio': '0.1',
      'delete.retention.ms': String(retention),
    });
    for (let p = 0; p < partitions; p++) {
      const tp = { topic: TOPIC, partition: p, key: `${TOPIC}-${p}` };
      ctx.compactedTps.push(tp);
      this.acked.set(tp.key, new Map());
    }
    ctx.log(`compacted topic ${TOPIC}×${partitions}: delete.retention.ms=${retention}`);
  }

  start(): void {
    this.producerLoop();
    for (const tp of this.ctx.compactedTps) this.readerLoop(tp);
  }

  private producerLoop(): void {
    const ctx = this.ctx;
    const send = (): void => {
      if (!ctx.trafficOn) return;
      const tp = ctx.pick(ctx.compactedTps)!;
      const entries: Written[] = Array.from({ length: ctx.int(1, 3) }, () => {
        const seq = this.n++;
        return { key: `k${ctx.int(0, KEYS - 1)}`, value: ctx.chance(0.1) ? null : `${tp.key}:${seq}`, seq };
      });
      for (const e of entries) {
        if (e.value !== null) this.sent.add(e.value);
        else this.lastTombstoneSent.set(`${tp.key}/${e.key}`, e.seq);
      }
      const records: LogRecord[] = entries.map((e) => ({ key: encoder.encode(e.key), value: e.value === null ? null : encoder.encode(e.value), headers: [], timestamp: 0 }));
      this.inFlight++;
      ctx.sim.engine.produce({ topic: tp.topic, partition: tp.partition, acks: 'all', timeoutMs: ctx.pick([5_000, 15_000])!, records }, (r) => {
        this.inFlight--;
        if (r.errorCode === 'NONE') {
          const log = this.acked.get(tp.key)!;
          entries.forEach((e, i) => {
            const before = log.get(r.baseOffset + i);
            if (before) ctx.violation(`${tp.key}@${r.baseOffset + i} acknowledged twice: ${before.key}=${before.value} and ${e.key}=${e.value}`);
            log.set(r.baseOffset + i, e);
          });
          ctx.stats.ackedRecords += entries.length;
        }
        if (ctx.trafficOn) ctx.sim.scheduler.schedule(r.errorCode === 'NONE' ? ctx.int(20, 300) : ctx.int(200, 1000), send);
      });
    };
    ctx.sim.scheduler.schedule(ctx.int(0, 200), send);
  }

  /** A table reader from offset 0, polling the partition's leader. */
  private readerLoop(tp: TopicPartition): void {
    const ctx = this.ctx;
    let position = 0;
    const poll = (): void => {
      if (!ctx.trafficOn) return;
      ctx.sim.engine.consume({ topic: tp.topic, partition: tp.partition, offset: position, maxRecords: 200 }, (r) => {
        if (r.errorCode === 'NONE') {
          for (const rec of r.records) {
            if (rec.offset < position) ctx.violation(`${tp.key}: reader at ${position} got offset ${rec.offset}`, `back|${tp.key}|${rec.offset}`);
            const value = rec.value === null ? null : decoder.decode(rec.value);
            const acked = this.acked.get(tp.key)!.get(rec.offset);
            if (acked && (acked.value !== value || acked.key !== decoder.decode(rec.key!))) ctx.violation(`${tp.key}@${rec.offset} read ${value}, acknowledged ${acked.key}=${acked.value}`);
            if (value !== null && !this.sent.has(value)) ctx.violation(`${tp.key}@${rec.offset} read ${value}, which no producer sent`);
            position = rec.offset + 1;
          }
          position = Math.max(position, r.nextOffset);
        }
        ctx.sim.scheduler.schedule(r.records.length > 0 ? ctx.int(10, 100) : ctx.int(200, 800), poll);
      });
    };
    ctx.sim.scheduler.schedule(ctx.int(0, 500), poll);
  }

  /** Every produce answered, and every replica of every partition caught up with its leader. */
  settled(): boolean {
    if (this.inFlight > 0) return false;
    const engine = this.ctx.sim.engine;
    return this.ctx.compactedTps.every((tp) => {
      const view = engine.describePartition(tp.topic, tp.partition);
      if (!view || view.leader < 0 || view.isr.length !== view.replicas.length) return false;
      const leader = view.replicaStates.find((r) => r.brokerId === view.leader)!;
      return leader.highWatermark === leader.logEndOffset && view.replicaStates.every((r) => r.logEndOffset === leader.logEndOffset && r.highWatermark === leader.logEndOffset);
    });
  }

  /** After healing: each replica's table against what was acknowledged, and the replicas against each other. */
  finalCheck(): void {
    const ctx = this.ctx;
    for (const tp of ctx.compactedTps) {
      const view = ctx.sim.engine.describePartition(tp.topic, tp.partition)!;
      const lastAcked = new Map<string, Written & { offset: number }>();
      for (const [offset, w] of [...this.acked.get(tp.key)!].sort((a, b) => a[0] - b[0])) lastAcked.set(w.key, { ...w, offset });
      const tables: string[] = [];
      for (const id of view.replicas) {
        const p = ctx.sim.internals.brokers.get(id)?.partitionFor(tp.topic, tp.partition);
        if (!p) {
          ctx.violation(`${tp.key}: broker ${id} serves no replica after healing`);
          continue;
        }
        const table = new Map<string, { offset: number; value: string | null }>();
        for (const b of p.log.read(p.log.logStartOffset, p.log.highWatermark, Number.MAX_SAFE_INTEGER)) {
          b.records.forEach((r, i) => table.set(decoder.decode(r.key!), { offset: recordOffset(b, i), value: r.value === null ? null : decoder.decode(r.value) }));
        }
        for (const [key, w] of lastAcked) {
          const now = table.get(key);
          if (!now) {
            // Gone is right for an acknowledged tombstone, or for a value a later tombstone deleted.
            const deletedLater = (this.lastTombstoneSent.get(`${tp.key}/${key}`) ?? -1) > w.seq;
            if (w.value !== null && !deletedLater) ctx.violation(`${tp.key} on broker ${id}: ${key}'s last acknowledged write ${w.value}@${w.offset} is gone`);
          } else if (now.value !== null && !this.sent.has(now.value)) ctx.violation(`${tp.key} on broker ${id}: ${key} reads ${now.value}, which no producer sent`);
          else if (now.offset < w.offset) ctx.violation(`${tp.key} on broker ${id}: ${key} reads ${now.value}@${now.offset}, older than its last acknowledged write ${w.value}@${w.offset}`);
          else if (now.offset === w.offset && now.value !== w.value) ctx.violation(`${tp.key} on broker ${id}: ${key}@${w.offset} reads ${now.value}, acknowledged ${w.value}`);
        }
        // A tombstone may still be on one replica and aged out on another (each sets its own delete horizon): both read as deleted.
        tables.push(JSON.stringify([...table].filter(([, v]) => v.value !== null).map(([k, v]) => [k, v.value]).sort()));
      }
      if (new Set(tables).size > 1) ctx.violation(`${tp.key}: the replicas disagree on the latest value of some key:\n    ${tables.join('\n    ')}`);
    }
  }
}
