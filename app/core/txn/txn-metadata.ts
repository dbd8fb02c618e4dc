/**
 * One transactional id's state on its coordinator (Kafka's TransactionMetadata): the producer id
 * and epoch it hands out, the transaction timeout, the state machine and the partitions of the
 * transaction in flight.
 *
 * States and the transitions Kafka allows (to ← from):
 *
 *   Empty              ← Empty, CompleteCommit, CompleteAbort       InitProducerId (epoch bump)
 *   Ongoing            ← Ongoing, Empty, CompleteCommit, CompleteAbort    AddPartitions / AddOffsets
 *   PrepareCommit      ← Ongoing                                     EndTxn(commit)
 *   PrepareAbort       ← Ongoing, PrepareEpochFence                  EndTxn(abort), a timeout, fencing
 *   CompleteCommit     ← PrepareCommit                               every marker written
 *   CompleteAbort      ← PrepareAbort
 *   Dead               ← Empty, CompleteCommit, CompleteAbort       transactional.id.expiration.ms
 *   PrepareEpochFence  ← Ongoing                                     a new producer (or a timeout) fences
 *                                                                    the open transaction: never written
 *
 * A change is two-phase, as in Kafka: `prepare…` checks the transition and returns the new
 * state (a `TxnTransit`) while marking it pending; once the record is replicated in
 * `__transaction_state`, `completeTransition` applies it, and a failed write clears the pending
 * state. While one is pending, the id answers CONCURRENT_TRANSACTIONS. An illegal transition is a
 * bug, not a client error: it throws.
 */
import type { TxnStateName } from './record-codec.js';

/** A topic-partition as the coordinator keys it. */
export type TopicPartitionKey = string;

export const tpKeyOf = (topic: string, partition: number): TopicPartitionKey => `${topic}\u0000${partition}`;
export function splitTp(key: TopicPartitionKey): { topic: string; partition: number } {
  const i = key.lastIndexOf('\u0000');
  return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) };
}

const VALID_PREVIOUS: Readonly<Record<TxnStateName, readonly TxnStateName[]>> = {
  Empty: ['Empty', 'CompleteCommit', 'CompleteAbort'],
  Ongoing: ['Ongoing', 'Empty', 'CompleteCommit', 'CompleteAbort'],
  PrepareCommit: ['Ongoing'],
  PrepareAbort: ['Ongoing', 'PrepareEpochFence'],
  CompleteCommit: ['PrepareCommit'],
  CompleteAbort: ['PrepareAbort'],
  Dead: ['Empty', 'CompleteAbort', 'CompleteCommit'],
  PrepareEpochFence: ['Ongoing'],
};

/** States whose transactional id may expire (TransactionState.isExpirationAllowed). */
export const EXPIRABLE: ReadonlySet<TxnStateName> = new Set(['Empty', 'CompleteCommit', 'CompleteAbort']);

const NO_PRODUCER_EPOCH = -1;
const SHORT_MAX = 32767;

/** Kafka's isEpochExhausted: the next bump would overflow, so a new producer id is due. */
export const isEpochExhausted = (epoch: number): boolean => epoch >= SHORT_MAX - 1;

/** The state a transition leads to (Kafka's TxnTransitMetadata). */
export interface TxnTransit {
  producerId: number;
  lastProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TxnStateName;
  partitions: ReadonlySet<TopicPartitionKey>;
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
}

export class TransactionMetadata {
  pendingState: TxnStateName | null = null;
  /** An epoch fence was written and failed: the next fence must not bump the epoch again. */
  hasFailedEpochFence = false;
  readonly partitions = new Set<TopicPartitionKey>();

  constructor(
    readonly transactionalId: string,
    public producerId: number,
    public lastProducerId: number,
    public producerEpoch: number,
    public lastProducerEpoch: number,
    public txnTimeoutMs: number,
    public state: TxnStateName,
    public txnStartTimestamp: number,
    public txnLastUpdateTimestamp: number,
  ) {}

  get pendingTransitionInProgress(): boolean {
    return this.pendingState !== null;
  }

  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.producerEpoch);
  }

  /** Ongoing, PrepareCommit or PrepareAbort: a transaction is in flight. */
  get hasPendingTransaction(): boolean {
    return this.state === 'Ongoing' || this.state === 'PrepareAbort' || this.state === 'PrepareCommit';
  }

  /** A partition's marker was written: it leaves the transaction (only while preparing to complete). */
  removePartition(tp: TopicPartitionKey): void {
    if (this.state !== 'PrepareCommit' && this.state !== 'PrepareAbort') {
      throw new Error(`transaction ${this.transactionalId} is ${this.state} (pending ${this.pendingState}) while a marker was written: not expected`);
    }
    this.partitions.delete(tp);
  }

  /** Kafka's prepareFenceProducerEpoch: bump the epoch (unless a failed fence already did) to abort the open transaction. */
  prepareFenceProducerEpoch(): TxnTransit {
    if (this.producerEpoch === SHORT_MAX) throw new Error(`cannot fence producer ${this.producerId} with epoch ${SHORT_MAX}: it would overflow`);
    const bumped = this.hasFailedEpochFence ? this.producerEpoch : this.producerEpoch + 1;
    return this.prepareTransitionTo('PrepareEpochFence', this.producerId, bumped, NO_PRODUCER_EPOCH, this.txnTimeoutMs, new Set(this.partitions), this.txnStartTimestamp, this.txnLastUpdateTimestamp);
  }

  /**
   * Kafka's prepareIncrementProducerEpoch (InitProducerId): the next epoch, or — a retry of a bump
   * whose answer was lost (KIP-360) — the current one; PRODUCER_FENCED when the expected epoch is
   * neither the current nor the last.
   */
  prepareIncrementProducerEpoch(newTxnTimeoutMs: number, expectedProducerEpoch: number | null, now: number): TxnTransit | 'PRODUCER_FENCED' {
    if (this.isProducerEpochExhausted) throw new Error(`no more producer epochs for producer id ${this.producerId}`);
    const bumped = this.producerEpoch + 1;
    let next: [number, number];
    if (expectedProducerEpoch === null) next = [bumped, NO_PRODUCER_EPOCH];
    else if (this.producerEpoch === NO_PRODUCER_EPOCH || expectedProducerEpoch === this.producerEpoch) next = [bumped, this.producerEpoch];
    else if (expectedProducerEpoch === this.lastProducerEpoch) next = [this.producerEpoch, this.lastProducerEpoch];
    else return 'PRODUCER_FENCED';
    return this.prepareTransitionTo('Empty', this.producerId, next[0], next[1], newTxnTimeoutMs, new Set(), -1, now);
  }

  /** Kafka's prepareProducerIdRotation: a new producer id at epoch 0 once the epochs ran out. */
  prepareProducerIdRotation(newProducerId: number, newTxnTimeoutMs: number, now: number, recordLastEpoch: boolean): TxnTransit {
    if (this.hasPendingTransaction) throw new Error('cannot rotate producer ids while a transaction is still pending');
    return this.prepareTransitionTo('Empty', newProducerId, 0, recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH, newTxnTimeoutMs, new Set(), -1, now);
  }

  prepareAddPartitions(added: Iterable<TopicPartitionKey>, now: number): TxnTransit {
    const start = this.state === 'Empty' || this.state === 'CompleteAbort' || this.state === 'CompleteCommit' ? now : this.txnStartTimestamp;
    return this.prepareTransitionTo('Ongoing', this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs, new Set([...this.partitions, ...added]), start, now);
  }

  prepareAbortOrCommit(newState: 'PrepareCommit' | 'PrepareAbort', now: number): TxnTransit {
    return this.prepareTransitionTo(newState, this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs, new Set(this.partitions), this.txnStartTimestamp, now);
  }

  prepareComplete(now: number): TxnTransit {
    const next = this.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort';
    this.hasFailedEpochFence = false;
    return this.prepareTransitionTo(next, this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs, new Set(), this.txnStartTimestamp, now);
  }

  prepareDead(): TxnTransit {
    return this.prepareTransitionTo('Dead', this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs, new Set(), this.txnStartTimestamp, this.txnLastUpdateTimestamp);
  }

  private prepareTransitionTo(
    state: TxnStateName,
    producerId: number,
    producerEpoch: number,
    lastProducerEpoch: number,
    txnTimeoutMs: number,
    partitions: ReadonlySet<TopicPartitionKey>,
    txnStartTimestamp: number,
    now: number,
  ): TxnTransit {
    if (this.pendingState !== null) throw new Error(`transaction ${this.transactionalId}: preparing ${state} while ${this.pendingState} is pending`);
    if (producerId < 0) throw new Error(`illegal new producer id ${producerId}`);
    if (state !== 'Dead' && producerEpoch < 0) throw new Error(`illegal new producer epoch ${producerEpoch}`);
    if (!VALID_PREVIOUS[state].includes(this.state)) throw new Error(`transaction ${this.transactionalId}: ${state} cannot follow ${this.state}`);
    this.pendingState = state;
    return { producerId, lastProducerId: this.producerId, producerEpoch, lastProducerEpoch, txnTimeoutMs, state, partitions, txnStartTimestamp, txnLastUpdateTimestamp: now };
  }

  /** Kafka's completeTransitionTo: apply a prepared transition once its record is replicated. */
  completeTransition(t: TxnTransit): void {
    const to = this.pendingState;
    if (to === null || to !== t.state) throw new Error(`transaction ${this.transactionalId}: completing ${t.state} while ${to} is pending`);
    const sameProducer = t.producerEpoch === this.producerEpoch && t.producerId === this.producerId;
    const fail = (): never => {
      throw new Error(`transaction ${this.transactionalId}: the transition to ${t.state} does not fit its state ${this.state}`);
    };
    switch (to) {
      case 'Empty': {
        const validBump = t.producerEpoch === this.producerEpoch + 1 || (t.producerEpoch === 0 && t.producerId !== this.producerId);
        if ((this.producerEpoch !== t.producerEpoch && !validBump) || t.partitions.size > 0 || t.txnStartTimestamp !== -1) fail();
        this.txnTimeoutMs = t.txnTimeoutMs;
        this.producerEpoch = t.producerEpoch;
        this.lastProducerEpoch = t.lastProducerEpoch;
        this.producerId = t.producerId;
        this.lastProducerId = t.lastProducerId;
        break;
      }
      case 'Ongoing':
        if (!sameProducer || [...this.partitions].some((p) => !t.partitions.has(p)) || this.txnTimeoutMs !== t.txnTimeoutMs) fail();
        this.txnStartTimestamp = t.txnStartTimestamp;
        for (const p of t.partitions) this.partitions.add(p);
        break;
      case 'PrepareAbort':
      case 'PrepareCommit':
        if (!sameProducer || this.partitions.size !== t.partitions.size || [...this.partitions].some((p) => !t.partitions.has(p))) fail();
        if (this.txnTimeoutMs !== t.txnTimeoutMs || this.txnStartTimestamp !== t.txnStartTimestamp) fail();
        break;
      case 'CompleteAbort':
      case 'CompleteCommit':
        if (!sameProducer || this.txnTimeoutMs !== t.txnTimeoutMs || t.txnStartTimestamp === -1) fail();
        this.txnStartTimestamp = t.txnStartTimestamp;
        this.partitions.clear();
        break;
      case 'PrepareEpochFence':
      case 'Dead':
        fail();
    }
    this.txnLastUpdateTimestamp = t.txnLastUpdateTimestamp;
    this.pendingState = null;
    this.state = to;
  }
}
