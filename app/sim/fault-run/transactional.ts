/**
 * The fault run's transactional producers (`FaultRunOptions.transactional`): a topic `xt` that
 * TXN_PRODUCERS producers write only in transactions (KIP-98) through the engine's Kafka requests
 * — FindCoordinator, InitProducerId, AddPartitionsToTxn, transactional batches, EndTxn — each
 * transaction one to three records on one or two partitions, committed or (one in five) aborted,
 * all through the faults. A producer that gets no definitive answer does what a Kafka client
 * does: it gives the transaction up and calls InitProducerId again, which fences its old epoch
 * and aborts (or completes) what it left.
 *
 * What each transaction became, as its producer knows it: committed (EndTxn commit answered
 * NONE), aborted (EndTxn abort answered NONE, or never asked to commit), or unknown (a commit
 * asked and not answered). Checks after healing, once no transaction holds any partition (LSO =
 * HW on every leader): a read_committed consumer of every partition (control batches skipped,
 * the aborted transactions the leader lists skipped up to their producer's ABORT marker, as
 * Kafka's Fetcher does) sees every record of every committed transaction exactly once, none of an
 * aborted one, and of an unknown one all its records once or none. While the run goes on, each
 * transaction is watched until it ends (lso-watch.ts): no leader's LSO passes it. An application
 * works a while between its last send and its commit, so transactions stay open across faults.
 */
import type { RunContext, TopicPartition } from './context.js';
import type { LsoWatch, WatchedTxn } from './lso-watch.js';
import { partitionsSettled, readCommittedValues } from './read-committed.js';
import { transactionalProduce } from './txn-produce.js';

const TOPIC = 'xt';
const TRANSACTION_LOG = '__transaction_state';
const TXN_PRODUCERS = 2;
const TXN_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 10_000;

type Fate = 'open' | 'committed' | 'aborted' | 'unknown';

interface Txn extends WatchedTxn {
  producer: number;
  values: string[];
  fate: Fate;
}

interface ProducerState {
  id: number;
  transactionalId: string;
  coordinator: number;
  producerId: number;
  epoch: number;
  /** Next sequence per partition in this epoch. */
  seq: Map<number, number>;
  n: number;
}

export class TransactionalTraffic {
  readonly txns: Txn[] = [];
  inFlight = 0;

  constructor(
    private readonly ctx: RunContext,
    configs: Readonly<Record<string, string>>,
    private readonly lsoWatch: LsoWatch,
  ) {
    const partitions = ctx.int(1, 3);
    ctx.sim.createTopic(TOPIC, partitions, 3, configs);
    // Outside the dense-offset checks (markers take offsets), inside the power-loss guard.
    for (let p = 0; p < partitions; p++) ctx.transactionalTps.push({ topic: TOPIC, partition: p, key: `${TOPIC}-${p}` });
  }

  private get partitions(): TopicPartition[] {
    return this.ctx.transactionalOf(TOPIC);
  }

  private leaderOf(partition: number): number {
    return this.ctx.sim.engine.metadata.topicsByName.get(TOPIC)?.partitions.get(partition)?.leader ?? -1;
  }

  private aliveBroker(): number {
    const ids = this.ctx.sim.engine.members().map((b) => b.id);
    return this.ctx.pick(ids)!;
  }

  start(): void {
    for (let i = 0; i < TXN_PRODUCERS; i++) {
      const p: ProducerState = { id: i, transactionalId: `${TOPIC}-tx-${i}`, coordinator: -1, producerId: -1, epoch: -1, seq: new Map(), n: 0 };
      this.ctx.sim.scheduler.schedule(this.ctx.int(0, 500), () => this.findCoordinator(p, () => this.init(p)));
    }
  }

  /** Every request this file sends is counted in flight until answered. */
  private track<T>(done: (answer: T) => void): (answer: T) => void {
    this.inFlight++;
    return (answer) => {
      this.inFlight--;
      done(answer);
    };
  }

  private later(fn: () => void, lo = 100, hi = 1000): void {
    if (this.ctx.trafficOn) this.ctx.sim.scheduler.schedule(this.ctx.int(lo, hi), fn);
  }

  private findCoordinator(p: ProducerState, then: () => void): void {
    if (!this.ctx.trafficOn) return;
    this.ctx.sim.engine.groupRequest(
      this.aliveBroker(),
      { api: 'findCoordinator', keyType: 1, keys: [p.transactionalId], clientId: `xt-${p.id}` },
      this.track((a) => {
        const c = a.kind === 'response' ? a.response.coordinators[0] : undefined;
        if (!c || c.errorCode !== 'NONE') return this.later(() => this.findCoordinator(p, then));
        p.coordinator = c.nodeId;
        this.ctx.guardInternalTopic(TRANSACTION_LOG);
        then();
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

  /** InitProducerId: a new epoch, which fences the old one and ends whatever it left open. */
  private init(p: ProducerState): void {
    if (!this.ctx.trafficOn) return;
    this.ctx.sim.engine.initProducerIdRequest(
      p.coordinator,
      { type: 'initProducerId', transactionalId: p.transactionalId, transactionTimeoutMs: TXN_TIMEOUT_MS, apiVersion: 4 },
      this.track((a) => {
        if (a.kind !== 'response') return this.later(() => this.findCoordinator(p, () => this.init(p)));
        const r = a.response;
        if (r.error === 'CONCURRENT_TRANSACTIONS' || r.error === 'COORDINATOR_LOAD_IN_PROGRESS') return this.later(() => this.init(p));
        if (r.error !== 'NONE') return this.later(() => this.findCoordinator(p, () => this.init(p)));
        p.producerId = r.producerId;
        p.epoch = r.producerEpoch;
        p.seq.clear();
        this.later(() => this.begin(p), 0, 200);
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

  /** Give the transaction up: its fate is settled by what it reached; start over with a new epoch. */
  private giveUp(p: ProducerState, t: Txn, commitAsked: boolean): void {
    t.fate = commitAsked ? 'unknown' : 'aborted';
    this.later(() => this.findCoordinator(p, () => this.init(p)));
  }

  private begin(p: ProducerState): void {
    const ctx = this.ctx;
    if (!ctx.trafficOn) return;
    const parts = this.partitions.map((tp) => tp.partition);
    const chosen = ctx.chance(0.5) || parts.length === 1 ? [ctx.pick(parts)!] : [...new Set([ctx.pick(parts)!, ctx.pick(parts)!])];
    const byPartition = new Map(chosen.map((part) => [part, Array.from({ length: ctx.int(1, 2) }, () => `${TOPIC}-${part}:x${p.id}.${p.n++}`)]));
    const t: Txn = {
      producer: p.id,
      values: [...byPartition.values()].flat(),
      fate: 'open',
      transactionalId: p.transactionalId,
      producerId: p.producerId,
      producerEpoch: p.epoch,
      firstOffsets: new Map(),
      open: () => t.fate === 'open',
    };
    this.txns.push(t);
    this.lsoWatch.watch(t);
    ctx.sim.engine.txnRequest(
      p.coordinator,
      { api: 'addPartitionsToTxn', apiVersion: 3, transactions: [{ transactionalId: p.transactionalId, producerId: p.producerId, producerEpoch: p.epoch, verifyOnly: false, topics: [{ name: TOPIC, partitions: chosen }] }] },
      this.track((a) => {
        const errors = a.kind === 'response' ? a.response.results.flatMap((r) => r.topics.flatMap((x) => x.partitions.map((y) => y.errorCode))) : ['UNREACHABLE'];
        if (errors.some((e) => e !== 'NONE')) return this.giveUp(p, t, false);
        this.produce(p, t, [...byPartition], 0);
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

  private produce(p: ProducerState, t: Txn, writes: [number, string[]][], i: number): void {
    if (!this.ctx.trafficOn) return this.giveUp(p, t, false);
    // The application works a while between its sends and its commit: the transaction holds its partitions meanwhile.
    if (i === writes.length) return this.later(() => this.end(p, t, !this.ctx.chance(0.2)), 0, 400);
    const [partition, values] = writes[i]!;
    const leader = this.leaderOf(partition);
    if (leader < 0) return this.giveUp(p, t, false);
    const baseSequence = p.seq.get(partition) ?? 0;
    this.ctx.sim.engine.produceRequest(
      leader,
      transactionalProduce(p, TOPIC, partition, values, baseSequence),
      this.track((a) => {
        const r = a.kind === 'response' ? a.response.partitions[0] : undefined;
        // Not acknowledged: the batch may or may not be in the log; the transaction is given up (and aborted).
        if (!r || r.error !== 'NONE') return this.giveUp(p, t, false);
        p.seq.set(partition, baseSequence + values.length);
        this.lsoWatch.acked(t, TOPIC, partition, r.baseOffset);
        this.produce(p, t, writes, i + 1);
      }),
    );
  }

  private end(p: ProducerState, t: Txn, commit: boolean, attempt = 0): void {
    if (!this.ctx.trafficOn && attempt === 0) return this.giveUp(p, t, false);
    this.ctx.sim.engine.txnRequest(
      p.coordinator,
      { api: 'endTxn', apiVersion: 3, transactionalId: p.transactionalId, producerId: p.producerId, producerEpoch: p.epoch, committed: commit },
      this.track((a) => {
        const e = a.kind === 'response' ? a.response.errorCode : 'UNREACHABLE';
        if (e === 'NONE') {
          t.fate = commit ? 'committed' : 'aborted';
          return this.later(() => this.begin(p), 10, 300);
        }
        // A commit whose answer is lost may still have been prepared: the client asks again while it can.
        if ((e === 'CONCURRENT_TRANSACTIONS' || e === 'UNREACHABLE') && attempt < 5 && this.ctx.trafficOn) return this.later(() => this.end(p, t, commit, attempt + 1), 100, 500);
        this.giveUp(p, t, commit);
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

  /** Every request answered, every replica caught up, and no transaction holding any partition (LSO = HW on the leader). */
  settled(): boolean {
    return this.inFlight === 0 && partitionsSettled(this.ctx, this.partitions);
  }

  finalCheck(): void {
    const ctx = this.ctx;
    const seen = new Map<string, number>();
    for (const tp of this.partitions) for (const v of readCommittedValues(ctx, TOPIC, tp.partition)) seen.set(v, (seen.get(v) ?? 0) + 1);
    const fates = { committed: 0, aborted: 0, unknown: 0, open: 0 };
    for (const t of this.txns) {
      fates[t.fate]++;
      const counts = t.values.map((v) => seen.get(v) ?? 0);
      const what = `transaction of x${t.producer} [${t.values.join(', ')}] (${t.fate})`;
      if (counts.some((c) => c > 1)) ctx.violation(`${TOPIC}: a record of the ${what} is visible to read_committed more than once`);
      if (t.fate === 'committed' && counts.some((c) => c === 0)) ctx.violation(`${TOPIC}: the committed ${what} lost ${t.values.filter((_, i) => counts[i] === 0).join(', ')} for read_committed`);
      if ((t.fate === 'aborted' || t.fate === 'open') && counts.some((c) => c > 0)) ctx.violation(`${TOPIC}: read_committed sees ${t.values.filter((_, i) => counts[i]! > 0).join(', ')} of the aborted ${what}`);
      if (t.fate === 'unknown' && counts.some((c) => c === 0) && counts.some((c) => c > 0)) ctx.violation(`${TOPIC}: the ${what} is partly visible to read_committed`);
    }
    const known = new Set(this.txns.flatMap((t) => t.values));
    for (const v of seen.keys()) if (!known.has(v)) ctx.violation(`${TOPIC}: read_committed sees '${v}', which no transaction wrote`);
    ctx.log(`transactions on ${TOPIC}: ${fates.committed} committed, ${fates.aborted + fates.open} aborted, ${fates.unknown} unknown; ${seen.size} records visible to read_committed`);
  }
}
