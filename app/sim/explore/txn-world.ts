/**
 * The explorer's transaction scope (KIP-98): one transaction across two partitions, its markers
 * and a coordinator failover, on the real engine with every message delivered by choice
 * (choice-port.ts) — the same model as world.ts, over a different cluster.
 *
 * The cluster: broker 0 hosts the controller and nothing else (never crashed, its channel eager);
 * `__transaction_state` has one partition on brokers [1, 2] (created up front with that placement,
 * `min.insync.replicas` 2), so broker 1 is the transaction coordinator and broker 2 the one that
 * takes over; topic `t` has partition 0 on brokers [2, 3] and partition 1 on [3, 2] (RF 2, so a
 * marker counts for read_committed once its follower has it below the HW, and the data partition's
 * leader moves when broker 2 is killed). Timeouts are scaled as in world.ts (session 2 s).
 *
 * Setup, delivered as it comes: InitProducerId, AddPartitionsToTxn for both partitions, a record
 * on each (`v0`, `v1`), then EndTxn with the scope's result. From `start: 'end-txn'` everything
 * after the EndTxn request is explored; from `start: 'markers'` the setup delivers on until the
 * coordinator has sent both WriteTxnMarkers, and the exploration starts there.
 *
 * Moves: deliver the oldest message of a link, let 1 s pass, kill or restart a broker (the
 * coordinator 1, or 2, which takes over), within the fault budget.
 */
import type { AddPartitionsToTxnResponse, DescribeTransactionsResponse } from '../../core/txn/messages.js';
import type { BrokerAnswer } from '../../core/cluster/kafka-requests.js';
import type { RecordBatch } from '../../core/log/records.js';
import { MemoryStorage } from '../../core/log/memory-log-store.js';
import { TRANSACTION_STATE_TOPIC } from '../../core/txn/host.js';
import { createCompressionCodecs } from '../../protocol/records/compression.js';
import { encodeRecordBatch } from '../../protocol/records/record-batch.js';
import { createProducedBatchValidator } from '../../protocol/records/produced-batch-validator.js';
import { Simulation, textRecord } from '../simulation.js';
import { ChoicePort } from './choice-port.js';

export interface TxnScope {
  result: 'COMMIT' | 'ABORT';
  start: 'end-txn' | 'markers';
  /** Kills and restarts together. */
  faults: number;
}

export const TXN_ID = 'x-tx';
export const TOPIC = 't';
/** Each partition's one transactional record. */
export const VALUES = ['v0', 'v1'] as const;
const TICK_MS = 1_000;
const codecs = createCompressionCodecs();

const SCALED_CONFIGS: Record<string, string> = {
  'broker.heartbeat.interval.ms': '500',
  'broker.session.timeout.ms': '2000',
  'replica.lag.time.max.ms': '3000',
  'replica.fetch.wait.max.ms': '1000',
  'replica.fetch.backoff.ms': '1000',
  'replica.socket.timeout.ms': '4000',
  'replica.high.watermark.checkpoint.interval.ms': '1000',
  'transaction.state.log.num.partitions': '1',
  'transaction.state.log.replication.factor': '2',
  'transaction.state.log.min.isr': '2',
};

export type HeldTransaction = DescribeTransactionsResponse['transactionStates'][number];

export class TxnWorld {
  readonly sim: Simulation;
  readonly port: ChoicePort;
  readonly ids = [1, 2, 3];
  /** Brokers the explorer may kill and restart: the coordinator and its successor. */
  readonly faultable = [1, 2];
  faultsUsed = 0;
  producerId = -1;
  producerEpoch = -1;
  /** What EndTxn answered the client (null: no answer yet). */
  endTxnAnswer: string | null = null;

  constructor(readonly scope: TxnScope) {
    let port: ChoicePort | null = null;
    this.sim = new Simulation({
      seed: 31,
      brokers: [{ id: 0 }, ...this.ids.map((id) => ({ id }))],
      storage: new MemoryStorage(),
      staticConfigs: SCALED_CONFIGS,
      producedBatches: createProducedBatchValidator(codecs),
      deliveries: (scheduler) => (port = new ChoicePort(scheduler, 0)),
    });
    this.port = port!;
    this.sim.createTopic(TRANSACTION_STATE_TOPIC, 1, 2, { 'cleanup.policy': 'compact', 'min.insync.replicas': '2' }, [[1, 2]]);
    this.sim.createTopic(TOPIC, 2, 2, {}, [[2, 3], [3, 2]]);
    this.sim.waitFor(() => [0, 1].every((p) => this.sim.partition(TOPIC, p).isr.length === 2), 30_000, 'a full ISR of t');
    this.sim.waitFor(() => this.sim.partition(TRANSACTION_STATE_TOPIC, 0).isr.length === 2, 30_000, 'a full ISR');
    this.setupTransaction();
    this.sim.advance(2 * TICK_MS);
    this.sim.scheduler.flush();
    this.port.exploring = true;
    this.endTxn();
    if (scope.start === 'markers') this.deliverUntilMarkersSent();
  }

  private setupTransaction(): void {
    const sim = this.sim;
    const init = sim.await<Parameters<Parameters<Simulation['engine']['initProducerIdRequest']>[2]>[0]>((done) =>
      sim.engine.initProducerIdRequest(1, { type: 'initProducerId', transactionalId: TXN_ID, transactionTimeoutMs: 60_000, apiVersion: 4 }, done),
    );
    if (init.kind !== 'response' || init.response.error !== 'NONE') throw new Error(`InitProducerId: ${JSON.stringify(init)}`);
    this.producerId = init.response.producerId;
    this.producerEpoch = init.response.producerEpoch;
    const ids = { transactionalId: TXN_ID, producerId: this.producerId, producerEpoch: this.producerEpoch };
    const added = sim.await<BrokerAnswer<AddPartitionsToTxnResponse>>((done) =>
      sim.engine.txnRequest(1, { api: 'addPartitionsToTxn', apiVersion: 3, transactions: [{ ...ids, verifyOnly: false, topics: [{ name: TOPIC, partitions: [0, 1] }] }] }, done),
    );
    const errors = added.kind === 'response' ? added.response.results.flatMap((r) => r.topics.flatMap((x) => x.partitions.map((p) => p.errorCode))) : [added.kind];
    if (errors.length !== 2 || errors.some((e) => e !== 'NONE')) throw new Error(`AddPartitionsToTxn: ${errors.join(', ')}`);
    VALUES.forEach((value, partition) => {
      const wire = encodeRecordBatch(
        { baseOffset: 0, lastOffset: 0, leaderEpoch: -1, appendTimeMs: 0, records: [textRecord(value)], sizeBytes: 0, transactional: true },
        { codecs, producer: { id: this.producerId, epoch: this.producerEpoch, baseSequence: 0 } },
      );
      const r = sim.await<Parameters<Parameters<Simulation['engine']['produceRequest']>[2]>[0]>((done) =>
        sim.engine.produceRequest(
          partition === 0 ? 2 : 3,
          { type: 'produce', acks: -1, timeoutMs: 3_000, transactionalId: TXN_ID, partitions: [{ topic: TOPIC, partition, wire, producer: { ...ids, baseSequence: 0, transactional: true } }] },
          done,
        ),
      );
      if (r.kind !== 'response' || r.response.partitions[0]?.error !== 'NONE') throw new Error(`Produce to ${TOPIC}-${partition}: ${JSON.stringify(r)}`);
    });
  }

  private endTxn(): void {
    this.sim.engine.txnRequest(
      1,
      { api: 'endTxn', apiVersion: 3, transactionalId: TXN_ID, producerId: this.producerId, producerEpoch: this.producerEpoch, committed: this.scope.result === 'COMMIT' },
      (a) => (this.endTxnAnswer = a.kind === 'response' ? a.response.errorCode : a.kind),
      30_000,
    );
    this.sim.scheduler.flush();
  }

  /** Deliver in order until both WriteTxnMarkers are on their way (the `markers` start). */
  private deliverUntilMarkersSent(): void {
    for (let i = 0; i < 200; i++) {
      const markers = this.port.all().filter((d) => d.label.includes('writeTxnMarkers'));
      if (markers.length === 2) return;
      const next = this.port.all().find((d) => !d.label.includes('writeTxnMarkers'));
      if (next) this.port.deliver(next);
      else this.sim.scheduler.advance(TICK_MS);
      this.sim.scheduler.flush();
    }
    throw new Error('the coordinator never sent its markers');
  }

  moves(): string[] {
    const out = this.port.enabled().map((p) => p.label);
    out.push('time +1s');
    if (this.faultsUsed < this.scope.faults) {
      for (const id of this.faultable) out.push(`${this.sim.internals.brokers.get(id)!.isAlive ? 'kill' : 'restart'} ${id}`);
    }
    return out;
  }

  apply(label: string): void {
    if (label.startsWith('deliver ')) {
      const p = this.port.enabled().find((x) => x.label === label);
      if (!p) throw new Error(`not enabled: ${label}`);
      this.port.deliver(p);
    } else if (label === 'time +1s') {
      this.sim.scheduler.advance(TICK_MS);
    } else {
      const [kind, idText] = label.split(' ');
      const id = Number(idText);
      this.faultsUsed++;
      if (kind === 'kill') this.sim.engine.killBroker(id);
      else if (kind === 'restart') this.sim.engine.startBroker(id);
      else throw new Error(`unknown move: ${label}`);
    }
    this.sim.scheduler.flush();
  }

  /** What the coordinator of the id (the leader of the log partition) holds, or why it cannot say. */
  held(): HeldTransaction | string {
    const leader = this.sim.engine.metadata.topicsByName.get(TRANSACTION_STATE_TOPIC)?.partitions.get(0)?.leader ?? -1;
    const broker = this.sim.internals.brokers.get(leader);
    if (!broker?.isAlive) return 'no live coordinator';
    let answer: DescribeTransactionsResponse | null = null;
    broker.handleTxnRequest({ type: 'txn', api: 'describeTransactions', transactionalIds: [TXN_ID] }, (r) => (answer = r as DescribeTransactionsResponse));
    const held = (answer as DescribeTransactionsResponse | null)?.transactionStates[0];
    return !held ? 'no answer' : held.errorCode === 'NONE' ? held : held.errorCode;
  }

  /** The leader replica of `t`-`partition` when its broker is alive. */
  leaderReplica(partition: number) {
    const leader = this.sim.engine.metadata.topicsByName.get(TOPIC)?.partitions.get(partition)?.leader ?? -1;
    const broker = this.sim.internals.brokers.get(leader);
    const replica = broker?.isAlive ? broker.partitionFor(TOPIC, partition) : undefined;
    return replica?.isLeader ? replica : undefined;
  }

  /** Every batch of the leader's log of `t`-`partition` (empty without a live leader). */
  batches(partition: number): RecordBatch[] {
    const r = this.leaderReplica(partition);
    return r ? r.log.read(r.log.logStartOffset, r.log.logEndOffset, Number.MAX_SAFE_INTEGER) : [];
  }
}
