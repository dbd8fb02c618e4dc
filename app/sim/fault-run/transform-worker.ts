/**
 * One transformer of the fault run's consume-transform-produce loop (transform.ts): its own
 * transactional id and producer epoch, its membership of `xg` (transform-member.ts), and the input
 * partitions the group assigned it. Two run side by side, so when one stalls past its session the
 * other is assigned its partitions and transforms the same input again: only the group's fencing
 * of the stalled member's TxnOffsetCommit (KIP-447) keeps that input's output exactly once.
 */
import type { Engine } from '../../core/engine.js';
import type { KafkaErrorName } from '../../api/errors.js';
import type { BrokerAnswer } from '../../core/cluster/kafka-requests.js';
import type { TxnOffsetCommitResponse } from '../../core/group/messages.js';
import type { AddPartitionsToTxnResponse, TxnErrorResponse } from '../../core/txn/messages.js';
import { OFFSETS_TOPIC } from '../../core/group/host.js';
import type { RunContext } from './context.js';
import type { LsoWatch, WatchedTxn } from './lso-watch.js';
import { GroupMember, REJOIN_ERRORS, type Membership } from './transform-member.js';
import { transactionalProduce } from './txn-produce.js';

export const INPUT = 'xin';
export const OUTPUT = 'xout';
export const GROUP = 'xg';
const TXN_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** A stall longer than the group session (transform-member.ts) and shorter than the transaction timeout. */
const STALL_MS = 8_000;
const decoder = new TextDecoder();
type FetchAnswer = Parameters<Parameters<Engine['fetchRequest']>[2]>[0];

interface ProducerState {
  txnCoordinator: number;
  producerId: number;
  epoch: number;
  /** Next sequence per output partition in this epoch. */
  seq: Map<number, number>;
  /** Where it reads each input partition: the group's committed offset, moved on by its own commits. */
  positions: Map<number, number>;
}

export interface Txn extends WatchedTxn {
  fate: 'open' | 'committed' | 'aborted' | 'unknown';
}

/** What the transformers share: the topics' shape, the request count, what became of their transactions. */
export interface TransformShared {
  inputs: number;
  outputs: number;
  fates: { committed: number; aborted: number; unknown: number; open: number };
  txns: Txn[];
  /** TxnOffsetCommits refused because the group had moved on from the member's generation (KIP-447). */
  fencedCommits: number;
  track<T>(done: (answer: T) => void): (answer: T) => void;
}

export class TransformWorker {
  private readonly t: ProducerState = { txnCoordinator: -1, producerId: -1, epoch: -1, seq: new Map(), positions: new Map() };
  readonly member: GroupMember;

  constructor(
    private readonly ctx: RunContext,
    private readonly lsoWatch: LsoWatch,
    private readonly shared: TransformShared,
    readonly id: string,
  ) {
    this.member = new GroupMember(ctx, GROUP, INPUT, (done) => shared.track(done));
  }

  private track<T>(done: (answer: T) => void): (answer: T) => void {
    return this.shared.track(done);
  }

  private leaderOf(topic: string, partition: number): number {
    return this.ctx.sim.engine.metadata.topicsByName.get(topic)?.partitions.get(partition)?.leader ?? -1;
  }

  private later(fn: () => void, lo = 100, hi = 1000): void {
    if (this.ctx.trafficOn) this.ctx.sim.scheduler.schedule(this.ctx.int(lo, hi), fn);
  }

  start(): void {
    this.later(() => this.restart(), 0, 500);
  }

  /** A new epoch (fencing the old one and settling what it left), then the group's committed offsets. */
  private restart(): void {
    this.findCoordinator(1, this.id, (id) => {
      this.t.txnCoordinator = id;
      this.init();
    });
  }

  private findCoordinator(keyType: 0 | 1, key: string, then: (nodeId: number) => void): void {
    if (!this.ctx.trafficOn) return;
    const brokers = this.ctx.sim.engine.members().map((b) => b.id);
    this.ctx.sim.engine.groupRequest(
      this.ctx.pick(brokers)!,
      { api: 'findCoordinator', keyType, keys: [key], clientId: 'xc' },
      this.track((a) => {
        const c = a.kind === 'response' ? a.response.coordinators[0] : undefined;
        if (!c || c.errorCode !== 'NONE') return this.later(() => this.findCoordinator(keyType, key, then));
        then(c.nodeId);
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

  private init(): void {
    if (!this.ctx.trafficOn) return;
    this.ctx.sim.engine.initProducerIdRequest(
      this.t.txnCoordinator,
      { type: 'initProducerId', transactionalId: this.id, transactionTimeoutMs: TXN_TIMEOUT_MS, apiVersion: 4 },
      this.track((a) => {
        const e = a.kind === 'response' ? a.response.error : 'UNREACHABLE';
        if (e === 'CONCURRENT_TRANSACTIONS' || e === 'COORDINATOR_LOAD_IN_PROGRESS') return this.later(() => this.init());
        if (a.kind !== 'response' || e !== 'NONE') return this.later(() => this.restart());
        this.t.producerId = a.response.producerId;
        this.t.epoch = a.response.producerEpoch;
        this.t.seq.clear();
        this.member.join(() => {
          this.ctx.guardInternalTopic(OFFSETS_TOPIC);
          this.fetchPositions(() => this.later(() => this.step(), 0, 200));
        });
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

  /** OffsetFetch with require_stable: the group's committed offsets once no transaction holds any. */
  fetchPositions(then: () => void, done?: (offsets: Map<number, number> | null) => void): void {
    const partitions = Array.from({ length: this.shared.inputs }, (_, p) => p);
    this.ctx.sim.engine.groupRequest(
      this.member.coordinator,
      { api: 'offsetFetch', groupId: GROUP, topics: [{ name: INPUT, partitions }], requireStable: true },
      this.track((a) => {
        const got = a.kind === 'response' && a.response.errorCode === 'NONE' ? a.response.topics.flatMap((x) => x.partitions) : [];
        if (got.length !== partitions.length || got.some((p) => p.errorCode !== 'NONE')) {
          if (done) return done(null);
          const unstable = got.some((p) => p.errorCode === 'UNSTABLE_OFFSET_COMMIT');
          if (!unstable) this.member.onError(a.kind === 'response' ? a.response.errorCode : 'UNREACHABLE');
          return this.later(() => this.member.withCoordinator(() => this.fetchPositions(then)));
        }
        const offsets = new Map(got.map((p) => [p.partition, Math.max(0, p.offset)]));
        if (done) return done(offsets);
        for (const [p, o] of offsets) this.t.positions.set(p, o);
        then();
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

  /** Give the transaction up and start again from the group's committed offsets. */
  private giveUp(txn: Txn, commitAsked: boolean): void {
    txn.fate = commitAsked ? 'unknown' : 'aborted';
    this.shared.fates[txn.fate]++;
    this.later(() => this.restart());
  }

  /** Read a few records of one input partition from where it stands and transform them in one transaction. */
  private step(): void {
    const ctx = this.ctx;
    if (!ctx.trafficOn) return;
    // After a rebalance the consumer starts again from the group's committed offsets, as a Kafka consumer does.
    const member = this.member.joined();
    if (!member) return this.member.join(() => this.fetchPositions(() => this.step()));
    const assigned = this.member.assigned();
    if (assigned.length === 0) return this.later(() => this.step(), 500, 1000);
    const partition = ctx.pick(assigned)!;
    const from = this.t.positions.get(partition) ?? 0;
    const leader = this.leaderOf(INPUT, partition);
    if (leader < 0) return this.later(() => this.step());
    ctx.sim.engine.fetchRequest(
      leader,
      { type: 'clientFetch', maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 'read_committed', partitions: [{ topic: INPUT, partition, fetchOffset: from, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 }] },
      this.track((a: FetchAnswer) => {
        const f = a.kind === 'response' ? a.response.partitions[0] : undefined;
        if (!f || f.error !== 'NONE') return this.later(() => this.step());
        const records = f.batches.flatMap((b) => b.records.map((r, i) => ({ offset: b.baseOffset + i, value: r.value ? decoder.decode(r.value) : '' }))).filter((r) => r.offset >= from);
        const chunk = records.slice(0, ctx.int(1, 4));
        if (chunk.length === 0) return this.later(() => this.step(), 200, 1000);
        this.transform(partition, chunk, member);
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

  private transform(input: number, chunk: { offset: number; value: string }[], member: Membership): void {
    const ctx = this.ctx;
    const t = this.t;
    const byOutput = new Map<number, string[]>();
    for (const r of chunk) {
      const out = ctx.int(0, this.shared.outputs - 1);
      byOutput.set(out, [...(byOutput.get(out) ?? []), `${OUTPUT}:${input}:${r.offset}`]);
    }
    const next = chunk[chunk.length - 1]!.offset + 1;
    const txn: Txn = { fate: 'open', transactionalId: this.id, producerId: t.producerId, producerEpoch: t.epoch, firstOffsets: new Map(), open: () => txn.fate === 'open' };
    this.shared.txns.push(txn);
    this.lsoWatch.watch(txn);
    const ask = <R>(send: (done: (a: R) => void) => void, ok: (a: R) => boolean, then: () => void): void =>
      send(this.track((a: R) => (ok(a) ? then() : this.giveUp(txn, false))));
    const ids = { transactionalId: this.id, producerId: t.producerId, producerEpoch: t.epoch };
    const none = (e: KafkaErrorName | undefined) => e === 'NONE';
    ask<BrokerAnswer<AddPartitionsToTxnResponse>>(
      (done) => ctx.sim.engine.txnRequest(t.txnCoordinator, { api: 'addPartitionsToTxn', apiVersion: 3, transactions: [{ ...ids, verifyOnly: false, topics: [{ name: OUTPUT, partitions: [...byOutput.keys()] }] }] }, done, REQUEST_TIMEOUT_MS),
      (a) => a.kind === 'response' && a.response.results.every((r) => r.topics.every((x) => x.partitions.every((y) => none(y.errorCode)))),
      () =>
        this.produce(txn, [...byOutput], 0, () =>
          ask<BrokerAnswer<TxnErrorResponse>>(
            (done) => ctx.sim.engine.txnRequest(t.txnCoordinator, { api: 'addOffsetsToTxn', apiVersion: 3, ...ids, groupId: GROUP }, done, REQUEST_TIMEOUT_MS),
            (a) => a.kind === 'response' && none(a.response.errorCode),
            () => {
              // One transaction in eight stalls before its TxnOffsetCommit for longer than the group
              // session: the group moves on from the member, and the commit must be refused for it.
              const stallMs = ctx.chance(1 / 8) ? STALL_MS : 0;
              if (stallMs > 0) this.member.stall(stallMs);
              this.later(() => this.member.withCoordinator(() => this.commitOffsets(txn, input, next, member)), stallMs, stallMs);
            },
          ),
        ),
    );
  }

  /** TxnOffsetCommit with the member's generation (KIP-447), then EndTxn; aborted, and the group rejoined, when the group refuses the generation. */
  private commitOffsets(txn: Txn, input: number, next: number, member: Membership): void {
    const ctx = this.ctx;
    const t = this.t;
    ctx.sim.engine.groupRequest(
      this.member.coordinator,
      {
        api: 'txnOffsetCommit',
        apiVersion: 3,
        transactionalId: this.id,
        producerId: t.producerId,
        producerEpoch: t.epoch,
        groupId: GROUP,
        ...member,
        groupInstanceId: null,
        topics: [{ name: INPUT, partitions: [{ partition: input, offset: next, leaderEpoch: -1, metadata: null }] }],
      },
      this.track((a: BrokerAnswer<TxnOffsetCommitResponse>) => {
        const e = a.kind === 'response' ? (a.response.topics.flatMap((x) => x.partitions).find((y) => y.errorCode !== 'NONE')?.errorCode ?? 'NONE') : 'UNREACHABLE';
        if (e === 'NONE') {
          this.lsoWatch.offsetsAcked(txn, GROUP, INPUT, input, next);
          return this.later(() => this.end(txn, input, next, !ctx.chance(0.2)), 0, 300);
        }
        this.member.onError(e);
        if (!REJOIN_ERRORS.has(e as KafkaErrorName)) return this.giveUp(txn, false);
        // The group moved on from this member's generation, an abortable error (the Java client's
        // CommitFailedException): abort, rejoin and start again from the committed offsets.
        this.shared.fencedCommits++;
        this.end(txn, input, next, false);
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

  private produce(txn: Txn, writes: [number, string[]][], i: number, then: () => void): void {
    const t = this.t;
    if (!this.ctx.trafficOn) return this.giveUp(txn, false);
    if (i === writes.length) return then();
    const [partition, values] = writes[i]!;
    const leader = this.leaderOf(OUTPUT, partition);
    if (leader < 0) return this.giveUp(txn, false);
    const baseSequence = t.seq.get(partition) ?? 0;
    this.ctx.sim.engine.produceRequest(
      leader,
      transactionalProduce({ transactionalId: this.id, producerId: t.producerId, epoch: t.epoch }, OUTPUT, partition, values, baseSequence),
      this.track((a) => {
        const r = a.kind === 'response' ? a.response.partitions[0] : undefined;
        if (!r || r.error !== 'NONE') return this.giveUp(txn, false);
        t.seq.set(partition, baseSequence + values.length);
        this.lsoWatch.acked(txn, OUTPUT, partition, r.baseOffset);
        this.produce(txn, writes, i + 1, then);
      }),
    );
  }

  private end(txn: Txn, input: number, next: number, commit: boolean, attempt = 0): void {
    const t = this.t;
    this.ctx.sim.engine.txnRequest(
      t.txnCoordinator,
      { api: 'endTxn', apiVersion: 3, transactionalId: this.id, producerId: t.producerId, producerEpoch: t.epoch, committed: commit },
      this.track((a) => {
        const e = a.kind === 'response' ? a.response.errorCode : 'UNREACHABLE';
        if (e === 'NONE') {
          txn.fate = commit ? 'committed' : 'aborted';
          this.shared.fates[txn.fate]++;
          if (commit) {
            t.positions.set(input, next);
            return this.later(() => this.step(), 10, 300);
          }
          // Aborted: back to the group's committed offsets, as an application seeks its consumer there after abortTransaction.
          return this.fetchPositions(() => this.later(() => this.step(), 10, 300));
        }
        if ((e === 'CONCURRENT_TRANSACTIONS' || e === 'UNREACHABLE') && attempt < 5 && this.ctx.trafficOn) return this.later(() => this.end(txn, input, next, commit, attempt + 1), 100, 500);
        this.giveUp(txn, commit);
      }),
      REQUEST_TIMEOUT_MS,
    );
  }

}
