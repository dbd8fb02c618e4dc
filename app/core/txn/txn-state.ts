/**
 * The transaction coordinator's transactional ids and their records in `__transaction_state`
 * (Kafka's TransactionStateManager): which partitions of it this broker owns, loading a
 * partition's ids from its log when it becomes the leader, writing each state change to the log
 * before it takes effect, and finding the transactions past their timeout and the ids past
 * transactional.id.expiration.ms.
 *
 * Invariants:
 * - A partition is owned from a completed load in one leader epoch (the coordinator epoch) until
 *   that leadership ends; while it loads, its ids answer COORDINATOR_LOAD_IN_PROGRESS, elsewhere
 *   NOT_COORDINATOR. A load started for an epoch that has since ended is dropped.
 * - A transition is applied in memory only once its record is replicated (acks=all), and only if
 *   the coordinator epoch is still the one it was written in (else NOT_COORDINATOR); a failed
 *   write clears the pending state unless the caller retries it.
 * - Loading replays the log in order, compacted or not: the last record of an id wins, a
 *   tombstone removes it. Ids found in PrepareCommit or PrepareAbort are handed back to be
 *   completed (their markers sent again): the previous coordinator may have died mid-commit.
 * - Nothing outlives the broker process: `shutdown` drops every id; answers of an ended
 *   incarnation are ignored.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import { offsetsPartitionFor } from '../group/partition-for.js';
import type { OffsetsPartition } from '../group/host.js';
import type { LogRecord } from '../log/records.js';
import { TRANSACTION_STATE_TOPIC, type TxnCoordinatorHost } from './host.js';
import type { ListTransactionsResponse } from './messages.js';
import { TXN_STATE_IDS, type StoredTxn, type TxnStateName } from './record-codec.js';
import { EXPIRABLE, splitTp, tpKeyOf, TransactionMetadata, type TxnTransit } from './txn-metadata.js';

export interface OwnedPartition {
  coordinatorEpoch: number;
  txns: Map<string, TransactionMetadata>;
}

export type TxnLookup = { error: Exclude<KafkaErrorName, 'NONE'> } | { error: 'NONE'; coordinatorEpoch: number; txn: TransactionMetadata | undefined };

/** Append errors as the coordinator answers them (TransactionStateManager.appendTransactionToLog). */
export function txnLogAppendError(error: KafkaErrorName): KafkaErrorName {
  switch (error) {
    case 'UNKNOWN_TOPIC_OR_PARTITION':
    case 'NOT_ENOUGH_REPLICAS':
    case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
    case 'REQUEST_TIMED_OUT':
      return 'COORDINATOR_NOT_AVAILABLE';
    case 'NOT_LEADER_OR_FOLLOWER':
    case 'KAFKA_STORAGE_ERROR':
      return 'NOT_COORDINATOR';
    case 'MESSAGE_TOO_LARGE':
    case 'RECORD_LIST_TOO_LARGE':
      return 'UNKNOWN_SERVER_ERROR';
    default:
      return error;
  }
}

/** A loaded transaction left in PrepareCommit or PrepareAbort, to be completed. */
export interface TxnToComplete {
  coordinatorEpoch: number;
  result: 'COMMIT' | 'ABORT';
  txn: TransactionMetadata;
  transit: TxnTransit;
}

export class TxnStateManager {
  readonly owned = new Map<number, OwnedPartition>();
  private readonly loading = new Map<number, number>();
  /** Bumped when the broker process ends: answers and timers of the old one do nothing. */
  incarnation = 0;
  active = false;

  constructor(
    private readonly host: TxnCoordinatorHost,
    private readonly lifecycle: { onLoaded(partition: number, toComplete: TxnToComplete[]): void; onUnloaded(partition: number): void },
  ) {}

  private now(): number {
    return this.host.scheduler.now();
  }

  /** The transaction topic's partition count: the topic's own once it exists, else the config. */
  partitionCount(): number {
    const topic = this.host.image.topicsByName.get(TRANSACTION_STATE_TOPIC);
    return topic ? topic.partitions.size : this.host.brokerConfig().txn.topicNumPartitions;
  }

  /** Kafka's partitionFor: `Utils.abs(transactionalId.hashCode) % partitions`. */
  partitionFor(transactionalId: string): number {
    return offsetsPartitionFor(transactionalId, this.partitionCount());
  }

  get isLoading(): boolean {
    return this.loading.size > 0;
  }

  /** Kafka's getTransactionState: the id's metadata on this coordinator, or why it cannot answer. */
  getTransactionState(transactionalId: string): TxnLookup {
    const partition = this.partitionFor(transactionalId);
    if (this.loading.has(partition)) return { error: 'COORDINATOR_LOAD_IN_PROGRESS' };
    const owned = this.owned.get(partition);
    if (!owned) return { error: 'NOT_COORDINATOR' };
    return { error: 'NONE', coordinatorEpoch: owned.coordinatorEpoch, txn: owned.txns.get(transactionalId) };
  }

  /** Kafka's putTransactionStateIfNotExists. */
  putIfNotExists(txn: TransactionMetadata): TxnLookup {
    const found = this.getTransactionState(txn.transactionalId);
    if (found.error !== 'NONE') return found;
    if (found.txn) return found;
    this.owned.get(this.partitionFor(txn.transactionalId))!.txns.set(txn.transactionalId, txn);
    return { ...found, txn };
  }

  private leaderReplica(partition: number): OffsetsPartition | undefined {
    const p = this.host.txnPartition(partition);
    return p?.isLeader ? p : undefined;
  }

  // ================================================================ leadership: load and unload

  /** Match owned partitions to this broker's leaderships of `__transaction_state` (after metadata changes). */
  reconcileLeadership(): void {
    if (!this.active || !this.host.txnRecords) return;
    const count = this.host.image.topicsByName.get(TRANSACTION_STATE_TOPIC)?.partitions.size ?? 0;
    for (const p of new Set([...this.owned.keys(), ...this.loading.keys()])) {
      const replica = p < count ? this.host.txnPartition(p) : undefined;
      const epoch = this.owned.get(p)?.coordinatorEpoch ?? this.loading.get(p);
      if (!replica?.isLeader || replica.leaderEpoch !== epoch) this.unload(p);
    }
    for (let p = 0; p < count; p++) {
      const replica = this.host.txnPartition(p);
      if (replica?.isLeader && !this.owned.has(p) && !this.loading.has(p)) this.scheduleLoad(p, replica.leaderEpoch);
    }
  }

  private scheduleLoad(partition: number, epoch: number): void {
    this.loading.set(partition, epoch);
    const incarnation = this.incarnation;
    this.host.after(0, () => {
      if (incarnation !== this.incarnation || this.loading.get(partition) !== epoch) return;
      const replica = this.leaderReplica(partition);
      if (!replica || replica.leaderEpoch !== epoch) {
        this.loading.delete(partition);
        return;
      }
      const loaded = this.load(replica);
      if (loaded === null) return; // the replica went offline reading: it stays unowned
      this.loading.delete(partition);
      this.owned.set(partition, { coordinatorEpoch: epoch, txns: loaded });
      const toComplete: TxnToComplete[] = [];
      for (const txn of loaded.values()) {
        if (txn.state !== 'PrepareCommit' && txn.state !== 'PrepareAbort') continue;
        toComplete.push({ coordinatorEpoch: epoch, result: txn.state === 'PrepareCommit' ? 'COMMIT' : 'ABORT', txn, transit: txn.prepareComplete(this.now()) });
      }
      if (loaded.size > 0) {
        this.host.emit({
          type: 'txnCoordinator.loaded',
          atMs: this.now(),
          brokerId: this.host.brokerId,
          txnPartition: partition,
          coordinatorEpoch: epoch,
          transactionalIds: [...loaded.keys()],
          completing: toComplete.map((t) => t.txn.transactionalId),
        });
      }
      this.lifecycle.onLoaded(partition, toComplete);
    });
  }

  /** Replay the partition's log into transactional ids; null when it cannot be read. */
  private load(replica: OffsetsPartition): Map<string, TransactionMetadata> | null {
    const codec = this.host.txnRecords!;
    const loaded = new Map<string, TransactionMetadata>();
    const bufferBytes = this.host.brokerConfig().txn.loadBufferSize;
    let next = replica.logStartOffset;
    while (next < replica.logEndOffset) {
      const batches = replica.read(next, bufferBytes);
      if (batches === null) return null;
      if (batches.length === 0) break;
      for (const batch of batches) {
        next = batch.lastOffset + 1;
        if (batch.control) continue;
        for (const record of batch.records) {
          if (!record.key) continue;
          try {
            const id = codec.readKey(record.key);
            if (record.value === null) loaded.delete(id);
            else loaded.set(id, fromStored(id, codec.readValue(record.value)));
          } catch {
            // Not a record this coordinator (or Kafka) could have written: skip it, as Kafka
            // skips an unknown key version, rather than leave the partition loading forever.
          }
        }
      }
    }
    return loaded;
  }

  private unload(partition: number): void {
    this.loading.delete(partition);
    if (this.owned.delete(partition)) this.lifecycle.onUnloaded(partition);
  }

  /** The broker process ends: forget everything; the next incarnation loads again. */
  shutdown(): void {
    this.incarnation++;
    this.active = false;
    this.owned.clear();
    this.loading.clear();
  }

  // ================================================================ writes

  /**
   * Kafka's appendTransactionToLog: write `transit` as the id's record (acks=all, the
   * transaction's timeout), then apply it if the coordinator epoch still holds. `done` gets the
   * coordinator's error; with `retryOnError` true for it the pending state is kept for a retry;
   * `reason` goes with the `transaction.stateChanged` event.
   */
  appendTransactionToLog(
    transactionalId: string,
    coordinatorEpoch: number,
    transit: TxnTransit,
    done: (error: KafkaErrorName) => void,
    options: { retryOnError?: (e: KafkaErrorName) => boolean; reason?: string } = {},
  ): void {
    const retryOnError = options.retryOnError ?? (() => false);
    const found = this.getTransactionState(transactionalId);
    if (found.error !== 'NONE') return done(found.error);
    if (!found.txn || found.coordinatorEpoch !== coordinatorEpoch) return done('NOT_COORDINATOR');
    const replica = this.leaderReplica(this.partitionFor(transactionalId));
    if (!replica) return done('NOT_COORDINATOR');
    const codec = this.host.txnRecords!;
    const record: LogRecord = { key: codec.key(transactionalId), value: codec.value(toStored(transit)), headers: [], timestamp: this.now() };
    const incarnation = this.incarnation;
    replica.append([record], -1, transit.txnTimeoutMs, (o) => {
      if (incarnation !== this.incarnation) return;
      let error = o.errorCode === 'NONE' ? 'NONE' : txnLogAppendError(o.errorCode);
      const now = this.getTransactionState(transactionalId);
      if (error === 'NONE') {
        if (now.error !== 'NONE') error = now.error;
        else if (!now.txn || now.coordinatorEpoch !== coordinatorEpoch) error = 'NOT_COORDINATOR';
        else {
          const previous = now.txn.state;
          now.txn.completeTransition(transit);
          this.emitChange(now.txn, previous, options.reason ?? '');
        }
      } else if (now.error === 'NONE' && now.txn && now.coordinatorEpoch === coordinatorEpoch && !retryOnError(error)) {
        now.txn.pendingState = null;
      }
      done(error);
    });
  }

  private emitChange(txn: TransactionMetadata, previous: TxnStateName, reason: string): void {
    this.host.emit({
      type: 'transaction.stateChanged',
      atMs: this.now(),
      transactionalId: txn.transactionalId,
      coordinatorId: this.host.brokerId,
      producerId: txn.producerId,
      producerEpoch: txn.producerEpoch,
      state: txn.state,
      previous,
      partitions: txn.partitions.size,
      reason,
    });
  }

  /** Kafka's timedOutTransactions: Ongoing, nothing pending, started longer ago than its timeout. */
  timedOutTransactions(): { transactionalId: string; producerId: number; producerEpoch: number }[] {
    const now = this.now();
    const out: { transactionalId: string; producerId: number; producerEpoch: number }[] = [];
    for (const { txns } of this.owned.values()) {
      for (const t of txns.values()) {
        if (!t.pendingTransitionInProgress && t.state === 'Ongoing' && t.txnStartTimestamp + t.txnTimeoutMs < now) {
          out.push({ transactionalId: t.transactionalId, producerId: t.producerId, producerEpoch: t.producerEpoch });
        }
      }
    }
    return out;
  }

  /**
   * Kafka's removeExpiredTransactionalIds: an id in Empty, CompleteCommit or CompleteAbort whose
   * last update is older than transactional.id.expiration.ms gets a tombstone and, once it is
   * replicated, leaves the cache.
   */
  removeExpiredTransactionalIds(): void {
    const now = this.now();
    const expiry = this.host.brokerConfig().txn.transactionalIdExpirationMs;
    const codec = this.host.txnRecords!;
    for (const [partition, owned] of this.owned) {
      const replica = this.leaderReplica(partition);
      if (!replica) continue;
      const expired: { txn: TransactionMetadata; transit: TxnTransit }[] = [];
      for (const txn of owned.txns.values()) {
        if (txn.pendingState === null && EXPIRABLE.has(txn.state) && txn.txnLastUpdateTimestamp <= now - expiry) expired.push({ txn, transit: txn.prepareDead() });
      }
      if (expired.length === 0) continue;
      const records = expired.map(({ txn }): LogRecord => ({ key: codec.key(txn.transactionalId), value: null, headers: [], timestamp: now }));
      const incarnation = this.incarnation;
      replica.append(records, -1, 30_000, (o) => {
        if (incarnation !== this.incarnation) return;
        const current = this.owned.get(partition);
        for (const { txn, transit } of expired) {
          const live = current?.txns.get(txn.transactionalId);
          if (current && current.coordinatorEpoch === owned.coordinatorEpoch && live === txn && txn.pendingState === 'Dead' && txn.producerEpoch === transit.producerEpoch && o.errorCode === 'NONE') {
            current.txns.delete(txn.transactionalId);
            const previous = txn.state;
            txn.state = 'Dead';
            txn.pendingState = null;
            this.emitChange(txn, previous, `no update for transactional.id.expiration.ms (${expiry} ms)`);
          } else {
            txn.pendingState = null;
          }
        }
      });
    }
  }

  /** Kafka's listTransactionStates. */
  listTransactionStates(producerIds: readonly number[], states: readonly string[], durationMs: number): ListTransactionsResponse {
    if (this.isLoading) return { errorCode: 'COORDINATOR_LOAD_IN_PROGRESS', unknownStateFilters: [], transactionStates: [] };
    const known = new Set<string>(TXN_STATE_IDS);
    const unknownStateFilters = states.filter((s) => !known.has(s));
    const stateSet = new Set(states.filter((s) => known.has(s)));
    const pids = new Set(producerIds);
    const now = this.now();
    const transactionStates: ListTransactionsResponse['transactionStates'] = [];
    for (const { txns } of this.owned.values()) {
      for (const t of txns.values()) {
        if (t.state === 'Dead') continue;
        if (pids.size > 0 && !pids.has(t.producerId)) continue;
        if (states.length > 0 && !stateSet.has(t.state)) continue;
        if (durationMs >= 0 && now - t.txnStartTimestamp <= durationMs) continue;
        transactionStates.push({ transactionalId: t.transactionalId, producerId: t.producerId, state: t.state });
      }
    }
    return { errorCode: 'NONE', unknownStateFilters, transactionStates };
  }
}

/** A transition as its TransactionLogValue. */
function toStored(t: TxnTransit): StoredTxn {
  const byTopic = new Map<string, number[]>();
  for (const k of t.partitions) {
    const { topic, partition } = splitTp(k);
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
  }
  return {
    producerId: t.producerId,
    producerEpoch: t.producerEpoch,
    transactionTimeoutMs: t.txnTimeoutMs,
    state: t.state,
    partitions: [...byTopic].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) })),
    lastUpdateTimestampMs: t.txnLastUpdateTimestamp,
    startTimestampMs: t.txnStartTimestamp,
  };
}

/** A loaded record as metadata (TransactionLog.readTxnRecordValue: no last producer id or epoch). */
function fromStored(transactionalId: string, s: StoredTxn): TransactionMetadata {
  const txn = new TransactionMetadata(transactionalId, s.producerId, -1, s.producerEpoch, -1, s.transactionTimeoutMs, s.state, s.startTimestampMs, s.lastUpdateTimestampMs);
  if (s.state !== 'Empty') for (const p of s.partitions) for (const n of p.partitions) txn.partitions.add(tpKeyOf(p.topic, n));
  return txn;
}
