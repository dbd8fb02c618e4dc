/**
 * Writing a transaction's end (Kafka's TransactionMarkerChannelManager and its
 * TransactionMarkerRequestCompletionHandler): once PrepareCommit or PrepareAbort is in the
 * transaction log, the coordinator sends WriteTxnMarkers to the leader of every partition of the
 * transaction, and when each has written its marker it writes CompleteCommit / CompleteAbort.
 *
 * Rules, each as Kafka's:
 * - Markers go per leader as the coordinator's metadata names it; a partition whose topic is gone
 *   leaves the transaction (it cannot hold data any more); one without a live leader waits.
 * - A marker answered NONE (or UNSUPPORTED_FOR_MESSAGE_FORMAT / UNSUPPORTED_VERSION) takes its
 *   partition out of the transaction; NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION,
 *   NOT_ENOUGH_REPLICAS(_AFTER_APPEND), REQUEST_TIMED_OUT, KAFKA_STORAGE_ERROR, and a leader that
 *   does not answer, send it again (to whoever leads then); INVALID_PRODUCER_EPOCH and
 *   TRANSACTION_COORDINATOR_FENCED end the sending (a newer producer or coordinator owns it now).
 * - Nothing is sent once the coordinator epoch changed: the new coordinator finishes the job
 *   from the log (it finds the transaction in PrepareCommit/PrepareAbort when it loads).
 * - The Complete write is retried while it fails with COORDINATOR_NOT_AVAILABLE.
 *
 * Retries wait `RETRY_BACKOFF_MS` (Kafka's sender thread polls again at once; a pause keeps a
 * simulated cluster without a leader from spinning).
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { MarkerType } from '../log/control-records.js';
import type { TxnCoordinatorHost } from './host.js';
import type { TxnMarkerEntry, WriteTxnMarkersResponse } from './messages.js';
import { splitTp, tpKeyOf, type TopicPartitionKey, type TransactionMetadata, type TxnTransit } from './txn-metadata.js';
import type { TxnStateManager } from './txn-state.js';

export const RETRY_BACKOFF_MS = 100;
/** How long a coordinator waits for a WriteTxnMarkers answer (Kafka's request.timeout.ms). */
export const MARKER_REQUEST_TIMEOUT_MS = 30_000;

interface PendingCompleteTxn {
  transactionalId: string;
  coordinatorEpoch: number;
  txn: TransactionMetadata;
  transit: TxnTransit;
  result: MarkerType;
}

const RETRIABLE: ReadonlySet<KafkaErrorName> = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'NOT_LEADER_OR_FOLLOWER',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'REQUEST_TIMED_OUT',
  'KAFKA_STORAGE_ERROR',
]);

export class TxnMarkerChannel {
  private readonly pending = new Map<string, PendingCompleteTxn>();

  constructor(
    private readonly host: TxnCoordinatorHost,
    private readonly state: TxnStateManager,
  ) {}

  /** Transactions whose markers are still being written (the console shows them). */
  pendingTransactions(): ReadonlySet<string> {
    return new Set(this.pending.keys());
  }

  /** Kafka's addTxnMarkersToSend: the transaction is prepared in the log; write its markers, then complete it. */
  addTxnMarkersToSend(coordinatorEpoch: number, result: MarkerType, txn: TransactionMetadata, transit: TxnTransit): void {
    const p: PendingCompleteTxn = { transactionalId: txn.transactionalId, coordinatorEpoch, txn, transit, result };
    this.pending.set(txn.transactionalId, p);
    this.send(p, new Set(txn.partitions));
    this.maybeWriteTxnCompletion(txn.transactionalId);
  }

  /** The coordinator lost the transaction log partition: forget its transactions' pending markers. */
  removeMarkersForTxnTopicPartition(partition: number): void {
    for (const id of [...this.pending.keys()]) if (this.state.partitionFor(id) === partition) this.pending.delete(id);
  }

  shutdown(): void {
    this.pending.clear();
  }

  /** Whether `p` is still the live attempt for its transaction under its coordinator epoch. */
  private stillCurrent(p: PendingCompleteTxn): boolean {
    if (this.pending.get(p.transactionalId) !== p) return false;
    const found = this.state.getTransactionState(p.transactionalId);
    if (found.error !== 'NONE' || found.coordinatorEpoch !== p.coordinatorEpoch) {
      this.pending.delete(p.transactionalId);
      return false;
    }
    return true;
  }

  /** Kafka's addTxnMarkersToBrokerQueue: group the partitions by leader and send each leader its markers. */
  private send(p: PendingCompleteTxn, partitions: ReadonlySet<TopicPartitionKey>): void {
    if (partitions.size === 0 || !this.stillCurrent(p)) return;
    const image = this.host.image;
    const byLeader = new Map<number, TopicPartitionKey[]>();
    const waiting = new Set<TopicPartitionKey>();
    let removed = false;
    for (const k of partitions) {
      const { topic, partition } = splitTp(k);
      const state = image.topicsByName.get(topic)?.partitions.get(partition);
      if (!state) {
        // The partition is gone (its topic deleted): no marker can or need be written.
        p.txn.removePartition(k);
        removed = true;
        continue;
      }
      const leader = state.leader;
      const broker = image.brokers.get(leader);
      if (leader < 0 || !broker || broker.fenced) waiting.add(k);
      else byLeader.set(leader, [...(byLeader.get(leader) ?? []), k]);
    }
    if (waiting.size > 0) this.retryLater(p, waiting);
    for (const [leader, keys] of byLeader) this.sendTo(p, leader, keys);
    if (removed) this.maybeWriteTxnCompletion(p.transactionalId);
  }

  private retryLater(p: PendingCompleteTxn, partitions: ReadonlySet<TopicPartitionKey>): void {
    const incarnation = this.state.incarnation;
    this.host.after(RETRY_BACKOFF_MS, () => {
      if (incarnation === this.state.incarnation) this.send(p, partitions);
    });
  }

  private sendTo(p: PendingCompleteTxn, leader: number, keys: TopicPartitionKey[]): void {
    const byTopic = new Map<string, number[]>();
    for (const k of keys) {
      const { topic, partition } = splitTp(k);
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
    }
    const entry: TxnMarkerEntry = {
      producerId: p.txn.producerId,
      producerEpoch: p.txn.producerEpoch,
      coordinatorEpoch: p.coordinatorEpoch,
      result: p.result,
      topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
    };
    const incarnation = this.state.incarnation;
    this.host.send(leader, { api: 'writeTxnMarkers', markers: [entry] }, MARKER_REQUEST_TIMEOUT_MS, (answer) => {
      if (incarnation !== this.state.incarnation) return;
      if (answer.kind === 'unreachable') {
        if (this.stillCurrent(p)) this.retryLater(p, new Set(keys));
        return;
      }
      this.onResponse(p, answer.response);
    });
  }

  /** Kafka's TransactionMarkerRequestCompletionHandler for one transaction's answer. */
  private onResponse(p: PendingCompleteTxn, response: WriteTxnMarkersResponse): void {
    if (!this.stillCurrent(p)) return;
    const entry = response.markers.find((m) => m.producerId === p.txn.producerId);
    const retry = new Set<TopicPartitionKey>();
    for (const t of entry?.topics ?? []) {
      for (const { partition, errorCode } of t.partitions) {
        const k = tpKeyOf(t.name, partition);
        if (errorCode === 'NONE' || errorCode === 'UNSUPPORTED_FOR_MESSAGE_FORMAT' || errorCode === 'UNSUPPORTED_VERSION') {
          if (p.txn.partitions.has(k)) p.txn.removePartition(k);
        } else if (RETRIABLE.has(errorCode)) {
          retry.add(k);
        } else if (errorCode === 'INVALID_PRODUCER_EPOCH' || errorCode === 'TRANSACTION_COORDINATOR_FENCED') {
          // Another producer epoch or coordinator owns the transaction now: stop here.
          this.pending.delete(p.transactionalId);
          return;
        } else {
          throw new Error(`unexpected ${errorCode} writing the transaction marker of ${p.transactionalId} to ${t.name}-${partition}`);
        }
      }
    }
    if (retry.size > 0) this.retryLater(p, retry);
    else this.maybeWriteTxnCompletion(p.transactionalId);
  }

  /** Kafka's maybeWriteTxnCompletion: every marker is written; write CompleteCommit / CompleteAbort. */
  private maybeWriteTxnCompletion(transactionalId: string): void {
    const p = this.pending.get(transactionalId);
    if (!p || p.txn.partitions.size > 0) return;
    this.pending.delete(transactionalId);
    const found = this.state.getTransactionState(transactionalId);
    if (found.error !== 'NONE' || found.coordinatorEpoch !== p.coordinatorEpoch) return; // the new coordinator finishes it
    this.tryAppendToLog(p);
  }

  private tryAppendToLog(p: PendingCompleteTxn): void {
    const incarnation = this.state.incarnation;
    this.state.appendTransactionToLog(
      p.transactionalId,
      p.coordinatorEpoch,
      p.transit,
      (error) => {
        if (error === 'COORDINATOR_NOT_AVAILABLE' && incarnation === this.state.incarnation) {
          this.host.after(RETRY_BACKOFF_MS, () => {
            if (incarnation === this.state.incarnation) this.tryAppendToLog(p);
          });
        }
      },
      { retryOnError: (e) => e === 'COORDINATOR_NOT_AVAILABLE', reason: `every ${p.result === 'COMMIT' ? 'COMMIT' : 'ABORT'} marker written` },
    );
  }
}
