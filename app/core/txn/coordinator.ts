/**
 * A broker's transaction coordinator (Kafka's TransactionCoordinator with its KafkaApis entry
 * points, KIP-98): FindCoordinator for transactional ids, which any broker answers, and the
 * transaction APIs, which only the leader of the id's `__transaction_state` partition serves —
 * InitProducerId with a transactional id, AddPartitionsToTxn (and KIP-890's verification),
 * AddOffsetsToTxn, EndTxn, DescribeTransactions and ListTransactions. The state and the log are in
 * txn-state.ts, the markers in txn-markers.ts, the state machine in txn-metadata.ts.
 *
 * Rules (Kafka's; each error named as Kafka answers it):
 * - InitProducerId: a transaction timeout above transaction.max.timeout.ms is
 *   INVALID_TRANSACTION_TIMEOUT, "" INVALID_REQUEST; a new id gets a new producer id at epoch 0;
 *   a known one gets its epoch bumped (a new producer id once the epochs run out), which fences
 *   the previous producer of the id. If that producer left a transaction Ongoing, it is aborted
 *   first (PrepareEpochFence → PrepareAbort with the bumped epoch) and the new producer is told
 *   CONCURRENT_TRANSACTIONS until the abort completes; PrepareCommit/PrepareAbort answer
 *   CONCURRENT_TRANSACTIONS too. A producer id and epoch in the request (KIP-360) that is not the
 *   current one is PRODUCER_FENCED.
 * - AddPartitionsToTxn / AddOffsetsToTxn / EndTxn: another producer id is
 *   INVALID_PRODUCER_ID_MAPPING, another epoch PRODUCER_FENCED (INVALID_PRODUCER_EPOCH below the
 *   versions that know it), a pending change or a transaction being completed
 *   CONCURRENT_TRANSACTIONS; EndTxn out of turn is INVALID_TXN_STATE, a repeated one answered as
 *   done. EndTxn answers once PrepareCommit/PrepareAbort is replicated; the markers follow.
 * - The coordinator aborts transactions open longer than their timeout, every
 *   transaction.abort.timed.out.transaction.cleanup.interval.ms, fencing their producer epoch.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { FindCoordinatorResponse } from '../group/messages.js';
import { OFFSETS_TOPIC } from '../group/host.js';
import { offsetsPartitionFor } from '../group/partition-for.js';
import type { ClientInitProducerIdRequest, ClientInitProducerIdResponse } from '../broker/messages.js';
import { TRANSACTION_STATE_TOPIC, type TxnCoordinatorHost } from './host.js';
import type {
  AddOffsetsToTxnRequest,
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnResponse,
  AddPartitionsToTxnTransaction,
  DescribedTransaction,
  DescribeTransactionsResponse,
  EndTxnRequest,
  ListTransactionsRequest,
  ListTransactionsResponse,
  TxnErrorResponse,
  TxnNetworkRequest,
} from './messages.js';
import { TxnMarkerChannel } from './txn-markers.js';
import { isEpochExhausted, splitTp, tpKeyOf, TransactionMetadata, type TopicPartitionKey, type TxnTransit } from './txn-metadata.js';
import { TxnStateManager, type TxnToComplete } from './txn-state.js';

/** FindCoordinator's key type for transactional ids. */
export const COORDINATOR_TYPE_TRANSACTION = 1;

type Reply<T> = (response: T) => void;

/** PRODUCER_FENCED for clients that know it, INVALID_PRODUCER_EPOCH below (KafkaApis' conversion). */
function fencedFor(error: KafkaErrorName, apiVersion: number, knowsFencedFrom: number): KafkaErrorName {
  return error === 'PRODUCER_FENCED' && apiVersion < knowsFencedFrom ? 'INVALID_PRODUCER_EPOCH' : error;
}

export class TransactionCoordinator {
  readonly state: TxnStateManager;
  readonly markers: TxnMarkerChannel;

  constructor(private readonly host: TxnCoordinatorHost) {
    this.state = new TxnStateManager(host, {
      onLoaded: (_partition, toComplete) => this.completeLoaded(toComplete),
      onUnloaded: (partition) => this.markers.removeMarkersForTxnTopicPartition(partition),
    });
    this.markers = new TxnMarkerChannel(host, this.state);
  }

  private now(): number {
    return this.host.scheduler.now();
  }

  /**
   * A loaded transaction log partition held transactions in PrepareCommit/PrepareAbort: their
   * markers may not all have been written by the coordinator before, so write them all again
   * (as Kafka's TransactionCoordinator does when it is elected for the partition).
   */
  completeLoaded(toComplete: readonly TxnToComplete[]): void {
    for (const t of toComplete) this.markers.addTxnMarkersToSend(t.coordinatorEpoch, t.result, t.txn, t.transit);
  }

  /** The broker process started: serve transactional ids, abort timed-out transactions and expire ids periodically. */
  startup(): void {
    this.state.active = true;
    const cfg = this.host.brokerConfig().txn;
    const incarnation = this.state.incarnation;
    const every = (ms: number, fn: () => void): void => {
      this.host.after(ms, () => {
        if (incarnation !== this.state.incarnation) return;
        fn();
        every(ms, fn);
      });
    };
    every(cfg.abortTimedOutIntervalMs, () => this.abortTimedOutTransactions());
    every(cfg.removeExpiredIntervalMs, () => this.state.removeExpiredTransactionalIds());
    this.state.reconcileLeadership();
  }

  /** The broker process ended: everything in memory is gone. */
  shutdown(): void {
    this.state.shutdown();
    this.markers.shutdown();
  }

  /** This broker's metadata changed: load or unload transaction log partitions whose leadership moved. */
  onMetadata(): void {
    this.state.reconcileLeadership();
  }

  // ================================================================ FindCoordinator

  findCoordinator(keys: readonly string[], clientId = ''): FindCoordinatorResponse {
    const answer = (key: string, errorCode: KafkaErrorName, nodeId = -1, errorMessage: string | null = null) => ({ key, nodeId, errorCode, errorMessage });
    if (!this.host.txnRecords) return { coordinators: keys.map((k) => answer(k, 'COORDINATOR_NOT_AVAILABLE', -1, 'This engine was created without the transaction log codec.')) };
    const image = this.host.image;
    const topic = image.topicsByName.get(TRANSACTION_STATE_TOPIC);
    if (!topic) {
      this.host.requestTransactionTopic(clientId);
      return { coordinators: keys.map((k) => answer(k, 'COORDINATOR_NOT_AVAILABLE')) };
    }
    return {
      coordinators: keys.map((key) => {
        if (key.length === 0) return answer(key, 'INVALID_REQUEST', -1, 'A transactional id must not be empty.');
        const leader = topic.partitions.get(this.state.partitionFor(key))?.leader ?? -1;
        const broker = image.brokers.get(leader);
        return leader >= 0 && broker && !broker.fenced ? answer(key, 'NONE', leader) : answer(key, 'COORDINATOR_NOT_AVAILABLE');
      }),
    };
  }

  // ================================================================ requests

  handle(req: TxnNetworkRequest, reply: (res: unknown) => void): void {
    switch (req.api) {
      case 'addPartitionsToTxn':
        return this.addPartitionsToTxn(req, reply);
      case 'addOffsetsToTxn':
        return this.addOffsetsToTxn(req, reply);
      case 'endTxn':
        return this.handleEndTxn(req, reply);
      case 'describeTransactions':
        return reply(this.describeTransactions(req.transactionalIds));
      case 'listTransactions':
        return reply(this.listTransactions(req));
      default:
        throw new Error(`${req.api} is a partition leader's request, not the coordinator's`);
    }
  }

  // ================================================================ InitProducerId

  initProducerId(req: ClientInitProducerIdRequest, reply: Reply<ClientInitProducerIdResponse>): void {
    const transactionalId = req.transactionalId!;
    const fail = (error: KafkaErrorName, message?: string): void => reply({ error: fencedFor(error, req.apiVersion ?? 4, 4), ...(message ? { message } : {}), producerId: -1, producerEpoch: -1 });
    const expected = req.producerId !== undefined && req.producerId >= 0 ? { producerId: req.producerId, producerEpoch: req.producerEpoch ?? -1 } : null;
    if ((req.producerId ?? -1) >= 0 !== (req.producerEpoch ?? -1) >= 0) return fail('INVALID_REQUEST');
    if (transactionalId.length === 0) return fail('INVALID_REQUEST');
    const maxTimeout = this.host.brokerConfig().txn.maxTimeoutMs;
    if (req.transactionTimeoutMs <= 0 || req.transactionTimeoutMs > maxTimeout) {
      return fail('INVALID_TRANSACTION_TIMEOUT', `The transaction timeout ${req.transactionTimeoutMs} ms is not in (0, transaction.max.timeout.ms = ${maxTimeout} ms]`);
    }
    const found = this.state.getTransactionState(transactionalId);
    if (found.error !== 'NONE') return fail(found.error);
    if (found.txn) return this.initExisting(found.coordinatorEpoch, found.txn, req, expected, reply, fail);
    this.host.generateProducerId((a) => {
      if (a.error !== 'NONE') return fail(a.error);
      const created = new TransactionMetadata(transactionalId, a.producerId, -1, -1, -1, req.transactionTimeoutMs, 'Empty', -1, this.now());
      const put = this.state.putIfNotExists(created);
      if (put.error !== 'NONE') return fail(put.error);
      this.initExisting(put.coordinatorEpoch, put.txn!, req, expected, reply, fail);
    });
  }

  private initExisting(
    coordinatorEpoch: number,
    txn: TransactionMetadata,
    req: ClientInitProducerIdRequest,
    expected: { producerId: number; producerEpoch: number } | null,
    reply: Reply<ClientInitProducerIdResponse>,
    fail: (error: KafkaErrorName, message?: string) => void,
  ): void {
    const validExpected =
      expected === null || txn.producerEpoch === -1 || expected.producerId === txn.producerId || (expected.producerId === txn.lastProducerId && isEpochExhausted(expected.producerEpoch));
    if (txn.pendingTransitionInProgress) return fail('CONCURRENT_TRANSACTIONS');
    if (!validExpected) return fail('PRODUCER_FENCED');
    const respond = (transit: TxnTransit): void =>
      this.state.appendTransactionToLog(
        txn.transactionalId,
        coordinatorEpoch,
        transit,
        (error) => (error === 'NONE' ? reply({ error: 'NONE', producerId: transit.producerId, producerEpoch: transit.producerEpoch }) : fail(error)),
        { reason: 'InitProducerId' },
      );
    switch (txn.state) {
      case 'PrepareAbort':
      case 'PrepareCommit':
        return fail('CONCURRENT_TRANSACTIONS');
      case 'CompleteAbort':
      case 'CompleteCommit':
      case 'Empty': {
        if (txn.isProducerEpochExhausted && (expected === null || expected.producerEpoch === txn.producerEpoch)) {
          return this.host.generateProducerId((a) => {
            if (a.error !== 'NONE') return fail(a.error);
            if (txn.pendingTransitionInProgress) return fail('CONCURRENT_TRANSACTIONS');
            respond(txn.prepareProducerIdRotation(a.producerId, req.transactionTimeoutMs, this.now(), expected !== null));
          });
        }
        const bumped = txn.prepareIncrementProducerEpoch(req.transactionTimeoutMs, expected?.producerEpoch ?? null, this.now());
        if (bumped === 'PRODUCER_FENCED') return fail('PRODUCER_FENCED');
        return respond(bumped);
      }
      case 'Ongoing': {
        // Fence the producer that left it open: abort with a bumped epoch, and let the new one retry.
        const fence = txn.prepareFenceProducerEpoch();
        return this.endTransaction(txn.transactionalId, fence.producerId, fence.producerEpoch, 'ABORT', false, (error) => fail(error === 'NONE' ? 'CONCURRENT_TRANSACTIONS' : error), 'a new producer fenced the open transaction');
      }
      case 'Dead':
      case 'PrepareEpochFence':
        throw new Error(`transactional id ${txn.transactionalId} found in state ${txn.state}: it should never be left there`);
    }
  }

  // ================================================================ AddPartitionsToTxn, AddOffsetsToTxn

  private addPartitionsToTxn(req: AddPartitionsToTxnRequest, reply: Reply<AddPartitionsToTxnResponse>): void {
    const results: AddPartitionsToTxnResponse['results'] = new Array(req.transactions.length);
    let left = req.transactions.length;
    if (left === 0) return reply({ results: [] });
    req.transactions.forEach((t, i) => {
      const settle = (byPartition: (tp: { name: string; partition: number }) => KafkaErrorName): void => {
        results[i] = { transactionalId: t.transactionalId, topics: t.topics.map((topic) => ({ name: topic.name, partitions: topic.partitions.map((partition) => ({ partition, errorCode: byPartition({ name: topic.name, partition }) })) })) };
        if (--left === 0) reply({ results });
      };
      // Every partition must exist, else none is added (UNKNOWN_TOPIC_OR_PARTITION, the rest OPERATION_NOT_ATTEMPTED).
      const missing = new Set<string>();
      for (const topic of t.topics) for (const p of topic.partitions) if (!this.host.image.topicsByName.get(topic.name)?.partitions.has(p)) missing.add(tpKeyOf(topic.name, p));
      if (missing.size > 0) return settle((tp) => (missing.has(tpKeyOf(tp.name, tp.partition)) ? 'UNKNOWN_TOPIC_OR_PARTITION' : 'OPERATION_NOT_ATTEMPTED'));
      const partitions = t.topics.flatMap((topic) => topic.partitions.map((p) => tpKeyOf(topic.name, p)));
      if (t.verifyOnly) return settle(this.verifyPartitions(t, new Set(partitions)));
      this.addPartitions(t.transactionalId, t.producerId, t.producerEpoch, partitions, (error) => {
        const e = fencedFor(error, req.apiVersion, 2);
        settle(() => e);
      });
    });
  }

  /** Kafka's handleVerifyPartitionsInTransaction (KIP-890): a partition the transaction lacks is TRANSACTION_ABORTABLE. */
  private verifyPartitions(t: AddPartitionsToTxnTransaction, partitions: ReadonlySet<TopicPartitionKey>): (tp: { name: string; partition: number }) => KafkaErrorName {
    if (t.transactionalId.length === 0) return () => 'INVALID_REQUEST';
    const found = this.state.getTransactionState(t.transactionalId);
    if (found.error !== 'NONE') return () => found.error;
    const txn = found.txn;
    if (!txn || txn.producerId !== t.producerId) return () => 'INVALID_PRODUCER_ID_MAPPING';
    if (txn.producerEpoch !== t.producerEpoch) return () => 'PRODUCER_FENCED';
    if (txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort') return () => 'CONCURRENT_TRANSACTIONS';
    return (tp) => (partitions.has(tpKeyOf(tp.name, tp.partition)) && txn.partitions.has(tpKeyOf(tp.name, tp.partition)) ? 'NONE' : 'TRANSACTION_ABORTABLE');
  }

  /** Kafka's handleAddPartitionsToTransaction. */
  private addPartitions(transactionalId: string, producerId: number, producerEpoch: number, partitions: TopicPartitionKey[], done: (error: KafkaErrorName) => void): void {
    if (transactionalId.length === 0) return done('INVALID_REQUEST');
    const found = this.state.getTransactionState(transactionalId);
    if (found.error !== 'NONE') return done(found.error);
    const txn = found.txn;
    if (!txn || txn.producerId !== producerId) return done('INVALID_PRODUCER_ID_MAPPING');
    if (txn.producerEpoch !== producerEpoch) return done('PRODUCER_FENCED');
    if (txn.pendingTransitionInProgress || txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort') return done('CONCURRENT_TRANSACTIONS');
    if (txn.state === 'Ongoing' && partitions.every((p) => txn.partitions.has(p))) return done('NONE');
    const began = txn.state !== 'Ongoing';
    this.state.appendTransactionToLog(transactionalId, found.coordinatorEpoch, txn.prepareAddPartitions(partitions, this.now()), done, {
      reason: `${began ? 'began with' : 'added'} ${partitions.map((k) => `${splitTp(k).topic}-${splitTp(k).partition}`).join(', ')}`,
    });
  }

  /** AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the transaction. */
  private addOffsetsToTxn(req: AddOffsetsToTxnRequest, reply: Reply<TxnErrorResponse>): void {
    const offsets = this.host.image.topicsByName.get(OFFSETS_TOPIC);
    const count = offsets ? offsets.partitions.size : this.host.brokerConfig().groups.offsetsTopicNumPartitions;
    const partition = tpKeyOf(OFFSETS_TOPIC, offsetsPartitionFor(req.groupId, count));
    this.addPartitions(req.transactionalId, req.producerId, req.producerEpoch, [partition], (error) => reply({ errorCode: fencedFor(error, req.apiVersion, 2) }));
  }

  // ================================================================ EndTxn

  private handleEndTxn(req: EndTxnRequest, reply: Reply<TxnErrorResponse>): void {
    this.endTransaction(req.transactionalId, req.producerId, req.producerEpoch, req.committed ? 'COMMIT' : 'ABORT', true, (error) => reply({ errorCode: fencedFor(error, req.apiVersion, 2) }), req.committed ? 'EndTxn(commit)' : 'EndTxn(abort)');
  }

  /** Kafka's endTransaction: write PrepareCommit/PrepareAbort, answer, then write the markers. */
  private endTransaction(transactionalId: string, producerId: number, producerEpoch: number, result: 'COMMIT' | 'ABORT', fromClient: boolean, done: (error: KafkaErrorName) => void, reason: string): void {
    if (transactionalId.length === 0) return done('INVALID_REQUEST');
    const found = this.state.getTransactionState(transactionalId);
    if (found.error !== 'NONE') return done(found.error);
    const txn = found.txn;
    if (!txn || txn.producerId !== producerId) return done('INVALID_PRODUCER_ID_MAPPING');
    if ((fromClient && producerEpoch !== txn.producerEpoch) || producerEpoch < txn.producerEpoch) return done('PRODUCER_FENCED');
    if (txn.pendingTransitionInProgress && txn.pendingState !== 'PrepareEpochFence') return done('CONCURRENT_TRANSACTIONS');
    const invalid = (): void => done('INVALID_TXN_STATE');
    let isEpochFence = false;
    let transit: TxnTransit;
    switch (txn.state) {
      case 'Ongoing': {
        const next = result === 'COMMIT' ? 'PrepareCommit' : 'PrepareAbort';
        if (next === 'PrepareAbort' && txn.pendingState === 'PrepareEpochFence') {
          // The fence is never written: the abort carries the bumped epoch instead.
          isEpochFence = true;
          txn.pendingState = null;
          txn.producerEpoch = producerEpoch;
          txn.lastProducerEpoch = -1;
        }
        transit = txn.prepareAbortOrCommit(next, this.now());
        break;
      }
      case 'CompleteCommit':
        return result === 'COMMIT' ? done('NONE') : invalid();
      case 'CompleteAbort':
        return result === 'ABORT' ? done('NONE') : invalid();
      case 'PrepareCommit':
        return result === 'COMMIT' ? done('CONCURRENT_TRANSACTIONS') : invalid();
      case 'PrepareAbort':
        return result === 'ABORT' ? done('CONCURRENT_TRANSACTIONS') : invalid();
      case 'Empty':
        return invalid();
      default:
        throw new Error(`transactional id ${transactionalId} found in state ${txn.state}: it should never be left there`);
    }
    const coordinatorEpoch = found.coordinatorEpoch;
    this.state.appendTransactionToLog(
      transactionalId,
      coordinatorEpoch,
      transit,
      (error) => {
        if (error !== 'NONE') {
          const now = this.state.getTransactionState(transactionalId);
          if (isEpochFence && now.error === 'NONE' && now.coordinatorEpoch === coordinatorEpoch && now.txn) now.txn.hasFailedEpochFence = true;
          return done(error);
        }
        const now = this.state.getTransactionState(transactionalId);
        if (now.error !== 'NONE') return done(now.error);
        if (now.coordinatorEpoch !== coordinatorEpoch || !now.txn) return done('NOT_COORDINATOR');
        const t = now.txn;
        if (t.producerId !== producerId) return done('INVALID_PRODUCER_ID_MAPPING');
        if (t.producerEpoch !== producerEpoch) return done('PRODUCER_FENCED');
        if (t.pendingTransitionInProgress) return done('CONCURRENT_TRANSACTIONS');
        if (t.state !== (result === 'COMMIT' ? 'PrepareCommit' : 'PrepareAbort')) return invalid();
        const complete = t.prepareComplete(this.now());
        done('NONE');
        this.markers.addTxnMarkersToSend(coordinatorEpoch, result, t, complete);
      },
      { reason },
    );
  }

  /** Kafka's abortTimedOutTransactions: fence and abort every transaction open past its timeout. */
  abortTimedOutTransactions(): void {
    for (const t of this.state.timedOutTransactions()) {
      const found = this.state.getTransactionState(t.transactionalId);
      if (found.error !== 'NONE' || !found.txn) continue;
      const txn = found.txn;
      if (txn.producerId !== t.producerId || txn.pendingTransitionInProgress) continue;
      const fence = txn.prepareFenceProducerEpoch();
      this.endTransaction(t.transactionalId, fence.producerId, fence.producerEpoch, 'ABORT', false, () => {}, `open longer than its timeout (${txn.txnTimeoutMs} ms)`);
    }
  }

  // ================================================================ DescribeTransactions, ListTransactions

  private describeTransactions(ids: readonly string[]): DescribeTransactionsResponse {
    return {
      transactionStates: ids.map((transactionalId): DescribedTransaction => {
        const none = { transactionalId, state: '' as const, transactionTimeoutMs: 0, transactionStartTimeMs: -1, producerId: -1, producerEpoch: -1, topics: [] };
        if (!this.state.active) return { ...none, errorCode: 'COORDINATOR_NOT_AVAILABLE' };
        if (transactionalId.length === 0) return { ...none, errorCode: 'INVALID_REQUEST' };
        const found = this.state.getTransactionState(transactionalId);
        if (found.error !== 'NONE') return { ...none, errorCode: found.error };
        const t = found.txn;
        if (!t || t.state === 'Dead') return { ...none, errorCode: 'TRANSACTIONAL_ID_NOT_FOUND' };
        const byTopic = new Map<string, number[]>();
        for (const k of t.partitions) {
          const { topic, partition } = splitTp(k);
          byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
        }
        return {
          errorCode: 'NONE',
          transactionalId,
          state: t.state,
          transactionTimeoutMs: t.txnTimeoutMs,
          transactionStartTimeMs: t.txnStartTimestamp,
          producerId: t.producerId,
          producerEpoch: t.producerEpoch,
          topics: [...byTopic].map(([name, partitions]) => ({ name, partitions: partitions.sort((a, b) => a - b) })),
        };
      }),
    };
  }

  private listTransactions(req: ListTransactionsRequest): ListTransactionsResponse {
    if (!this.state.active) return { errorCode: 'COORDINATOR_NOT_AVAILABLE', unknownStateFilters: [], transactionStates: [] };
    return this.state.listTransactionStates(req.producerIdFilters, req.stateFilters, req.durationFilterMs);
  }
}
