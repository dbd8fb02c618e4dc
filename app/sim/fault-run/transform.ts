/**
 * The fault run's consume-transform-produce loop (KIP-98, KIP-447), as Kafka Streams'
 * exactly_once_v2 or a Java client's `sendOffsetsToTransaction` loop runs it, through the
 * engine's Kafka requests and all through the faults: a transactional producer reads a few
 * records of a partition of the input topic `xin` from its group's committed offset, writes one
 * output record per input record to the output topic `xout` (`xout:<partition>:<offset>`), and in
 * the same transaction commits the group `xg`'s offset past them (AddOffsetsToTxn,
 * TxnOffsetCommit), then commits (or, one in five, aborts) the transaction. Two such transformers
 * (transform-worker.ts), each with its own transactional id, are members of `xg`
 * (transform-member.ts: JoinGroup, SyncGroup, heartbeats), each reading the partitions the group
 * assigns it and committing with its generation and member id (KIP-447). One transaction in
 * eight stalls before its TxnOffsetCommit past the group session, so the group gives its input to
 * the other transformer, which transforms it again; the stalled one's commit must then be refused
 * (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID), after which it aborts, rejoins and starts again from the
 * committed offsets, as the Java client's CommitFailedException asks of an application. A failure
 * anywhere else
 * gives the transaction up as a client does: InitProducerId again (which fences the old epoch and
 * completes or aborts what it left), then the group's committed offsets again with require_stable
 * (so a commit whose answer was lost is seen if it happened), and it goes on from there.
 *
 * Checks after healing: the group's committed offset C of each input partition is within its log,
 * and a read_committed consumer of `xout` sees the output of every input record below C exactly
 * once and of none at or above it — the committed offsets match the committed output exactly once.
 */
import type { BrokerAnswer } from '../../core/cluster/kafka-requests.js';
import type { FindCoordinatorResponse } from '../../core/group/messages.js';
import type { RunContext, TopicPartition } from './context.js';
import type { LsoWatch } from './lso-watch.js';
import { partitionsSettled, readCommittedValues } from './read-committed.js';
import { GROUP, INPUT, OUTPUT, TransformWorker, type TransformShared } from './transform-worker.js';

const INPUT_RECORDS = 150;
/** Transformers in the group: two, so a stalled one's input is taken over by the other. */
const WORKERS = 2;

export class TransformTraffic {
  inFlight = 0;
  private readonly shared: TransformShared;
  private readonly workers: TransformWorker[];

  constructor(
    private readonly ctx: RunContext,
    configs: Readonly<Record<string, string>>,
    lsoWatch: LsoWatch,
  ) {
    const inputs = ctx.int(1, 2);
    const outputs = ctx.int(1, 2);
    this.shared = { inputs, outputs, fates: { committed: 0, aborted: 0, unknown: 0, open: 0 }, txns: [], fencedCommits: 0, track: (done) => this.track(done) };
    this.workers = Array.from({ length: WORKERS }, (_, i) => new TransformWorker(ctx, lsoWatch, this.shared, `xc-tx-${i}`));
    ctx.sim.createTopic(INPUT, inputs, 3, configs);
    ctx.sim.createTopic(OUTPUT, outputs, 3, configs);
    for (let p = 0; p < inputs; p++) {
      ctx.transactionalTps.push({ topic: INPUT, partition: p, key: `${INPUT}-${p}` });
      for (let i = 0; i < INPUT_RECORDS; i += 50) {
        const r = ctx.sim.produce(INPUT, p, Array.from({ length: 50 }, (_, j) => `${INPUT}-${p}:${i + j}`));
        if (r.errorCode !== 'NONE') throw new Error(`could not write the input ${INPUT}-${p}: ${r.errorCode}`);
      }
    }
    for (let p = 0; p < outputs; p++) ctx.transactionalTps.push({ topic: OUTPUT, partition: p, key: `${OUTPUT}-${p}` });
  }

  private get outputTps(): TopicPartition[] {
    return this.ctx.transactionalOf(OUTPUT);
  }

  private track<T>(done: (answer: T) => void): (answer: T) => void {
    this.inFlight++;
    return (answer) => {
      this.inFlight--;
      done(answer);
    };
  }

  start(): void {
    for (const w of this.workers) w.start();
  }

  /** Every request answered and no transaction holding an output partition. */
  settled(): boolean {
    return this.inFlight === 0 && partitionsSettled(this.ctx, this.outputTps);
  }

  /** The group's committed offsets, asked of its coordinator until it answers them stable. */
  private committedOffsets(): Map<number, number> {
    const ctx = this.ctx;
    for (let attempt = 0; attempt < 20; attempt++) {
      const found = ctx.sim.await<BrokerAnswer<FindCoordinatorResponse>>((done) => ctx.sim.engine.groupRequest(ctx.sim.engine.members()[0]!.id, { api: 'findCoordinator', keyType: 0, keys: [GROUP] }, done), 60_000);
      const c = found.kind === 'response' ? found.response.coordinators[0] : undefined;
      if (c?.errorCode === 'NONE') {
        this.workers[0]!.member.coordinator = c.nodeId;
        let offsets: Map<number, number> | null = null;
        let answered = false;
        this.workers[0]!.fetchPositions(
          () => {},
          (o) => ((offsets = o), (answered = true)),
        );
        ctx.sim.waitFor(() => answered, 60_000, `the committed offsets of ${GROUP}`);
        if (offsets) return offsets;
      }
      ctx.sim.advance(1_000);
    }
    throw new Error(`the group ${GROUP} never answered its committed offsets stable`);
  }

  finalCheck(): void {
    const ctx = this.ctx;
    const committed = this.committedOffsets();
    const seen = new Map<string, number>();
    for (const tp of this.outputTps) for (const v of readCommittedValues(ctx, OUTPUT, tp.partition)) seen.set(v, (seen.get(v) ?? 0) + 1);
    let exactlyOnce = 0;
    for (let p = 0; p < this.shared.inputs; p++) {
      const c = committed.get(p) ?? 0;
      if (c > INPUT_RECORDS) ctx.violation(`${GROUP}: committed offset ${c} of ${INPUT}-${p} is past its ${INPUT_RECORDS} records`);
      for (let offset = 0; offset < INPUT_RECORDS; offset++) {
        const v = `${OUTPUT}:${p}:${offset}`;
        const n = seen.get(v) ?? 0;
        seen.delete(v);
        if (offset < c && n !== 1) ctx.violation(`${GROUP} committed ${INPUT}-${p} up to ${c}, but the output of offset ${offset} is visible ${n} times to read_committed`);
        else if (offset >= c && n > 0) ctx.violation(`the output of ${INPUT}-${p} offset ${offset} is visible ${n} times to read_committed, but ${GROUP}'s committed offset is ${c}`);
        else if (offset < c) exactlyOnce++;
      }
    }
    for (const v of seen.keys()) ctx.violation(`read_committed sees '${v}' on ${OUTPUT}, which transforms no input record`);
    ctx.log(
      `consume-transform-produce: ${this.shared.fates.committed} committed, ${this.shared.fates.aborted} aborted, ${this.shared.fates.unknown} unknown; ${WORKERS} members of ${GROUP}, ${this.workers.map((w) => w.member.generations).join(' and ')} generations, ${this.shared.fencedCommits} commits fenced (${this.workers.map((w) => [...w.member.rejoinsBy].map(([e, n]) => `${e} ${n}`).join(', ') || 'no rejoin').join('; ')}); ${GROUP} committed ${[...committed].map(([p, o]) => `${INPUT}-${p}@${o}`).join(' ')}, ${exactlyOnce} outputs exactly once`,
    );
  }
}
