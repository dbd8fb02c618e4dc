/**
 * The producers' state of one partition log (Kafka's ProducerStateManager with its
 * ProducerAppendInfo): idempotent sequences, and the transactions (KIP-98) that pass through it.
 *
 * Per producer id it keeps the epoch, the metadata of the last five batches appended
 * (NUM_BATCHES_TO_RETAIN — why five requests may be in flight), the coordinator epoch of the last
 * marker and the first offset of the transaction it has open here, and judges each new batch:
 *
 *   epoch older than the one seen                            INVALID_PRODUCER_EPOCH
 *   same first and last sequence as a retained batch         a duplicate: answered with the
 *                                                            retained offsets, not appended
 *   a newer epoch that does not start at sequence 0          OUT_OF_ORDER_SEQUENCE_NUMBER
 *   same epoch, first sequence ≠ last sequence + 1
 *   (wrapping after 2^31 - 1 to 0)                           OUT_OF_ORDER_SEQUENCE_NUMBER
 *   a producer the log does not know (never seen, or its
 *   batches removed by retention)                            any sequence accepted (KIP-360)
 *   a plain batch while its transaction is open here         INVALID_TXN_STATE
 *   a transactional batch that opens a transaction here
 *   but was not verified with the coordinator (KIP-890)      INVALID_TXN_STATE
 *   a marker of an older epoch                               INVALID_PRODUCER_EPOCH
 *   a marker from an older coordinator epoch                 TRANSACTION_COORDINATOR_FENCED
 *
 * Transactions: the first transactional batch of a producer opens its transaction at that
 * offset; its COMMIT or ABORT marker closes it, and an ABORT adds {producer, first offset, marker
 * offset} to the aborted-transaction index that read_committed fetches return. A closed
 * transaction stays "unstable" until the high watermark passes its marker, so the last stable
 * offset (LSO) = min(HW, first offset of any open transaction, first offset of any closed one
 * whose marker is not yet replicated) — Kafka's firstUnstableOffset.
 *
 * KIP-890 part 1: before a producer's first transactional batch here, the leader asks the
 * transaction coordinator whether the partition was added to the transaction and holds a
 * verification guard meanwhile; a marker for that producer drops the guard, so a late write of a
 * transaction that has since ended cannot reopen it (a hanging transaction).
 *
 * Invariants: state changes only through `append`/`appendMarker` (leaders and followers alike,
 * so a follower that becomes leader judges as its predecessor did), `truncateTo` and
 * `removeBefore`; the retained batches of a producer are in sequence order; open transactions
 * are kept in offset order (appends come in offset order). Truncating a log that saw a
 * transaction cannot be undone piecewise (a removed marker reopens its transaction): the log
 * rebuilds this state from its batches instead (`truncateTo` answers false).
 * Kafka 3.x answers a duplicate with the original offsets and no error; DUPLICATE_SEQUENCE_NUMBER
 * is what brokers before 1.0 sent, and clients still treat it as success.
 */
import { markerOf, type TxnMarker } from './control-records.js';
import { offsetSpan, type RecordBatch } from './records.js';

/** The producer fields of a batch header, its record count, and whether it is transactional. */
export interface ProducerBatch {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  count: number;
  transactional?: boolean;
}

interface RetainedBatch {
  firstSeq: number;
  lastSeq: number;
  firstOffset: number;
  lastOffset: number;
}

interface ProducerEntry {
  epoch: number;
  batches: RetainedBatch[];
  /** The coordinator epoch of the last marker (-1: none yet). */
  coordinatorEpoch: number;
  /** The first offset of the transaction this producer has open here, or null. */
  txnFirstOffset: number | null;
  /** Timestamp of the last batch or marker appended (-1: unknown). */
  lastTimestamp: number;
}

/** One aborted transaction of this partition (Kafka's AbortedTxn in the .txnindex file). */
export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  /** The offset of its ABORT marker. */
  lastOffset: number;
  /** The partition's LSO once the marker was written (Kafka's index field). */
  lastStableOffset: number;
}

/** An open transaction of this partition. */
export interface OpenTxn {
  producerId: number;
  firstOffset: number;
}

/** Kafka's VerificationGuard: the token of one verification; a marker for the producer voids it. */
export type VerificationGuard = object;

export type ProducerCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; firstOffset: number; lastOffset: number }
  | { kind: 'error'; error: 'INVALID_PRODUCER_EPOCH' | 'OUT_OF_ORDER_SEQUENCE_NUMBER' | 'INVALID_TXN_STATE'; message: string };

export type MarkerCheck = { kind: 'append' } | { kind: 'error'; error: 'INVALID_PRODUCER_EPOCH' | 'TRANSACTION_COORDINATOR_FENCED'; message: string };

/** A producer as DescribeProducers (KIP-664) reports it. */
export interface ProducerDescription {
  producerId: number;
  epoch: number;
  /** -1 when its last batches are gone (only a marker left). */
  lastSequence: number;
  /** The last offset of its last data batch (-1 when none is retained). */
  lastOffset: number;
  lastTimestamp: number;
  coordinatorEpoch: number;
  /** Where its open transaction started here (-1: none). */
  currentTxnStartOffset: number;
}

/** Batches kept per producer for duplicate detection (Kafka's NUM_BATCHES_TO_RETAIN). */
export const NUM_BATCHES_TO_RETAIN = 5;
const MAX_SEQUENCE = 0x7fffffff;

/** The sequence of the batch's last record (sequences wrap to 0 after 2^31 - 1). */
export function lastSequence(b: ProducerBatch): number {
  return (b.baseSequence + b.count - 1) % (MAX_SEQUENCE + 1);
}

/** Bytes read per step when the state is rebuilt from a log. */
const SCAN_BYTES = 4 * 1024 * 1024;

/**
 * What a stored batch tells its log's producer state: a data batch's sequences (the offsets it
 * spans, not its records: a cleaned batch keeps its last sequence) and transaction, or a marker.
 * An empty control batch is a marker whose transaction the cleaner removed whole: nothing to do.
 */
export function trackProducer(state: ProducerStateManager, b: RecordBatch): void {
  const p = b.producer;
  if (!p) return;
  if (b.control) {
    const marker = markerOf(b);
    if (marker) state.appendMarker(p.producerId, p.producerEpoch, marker, b.baseOffset, b.appendTimeMs);
    return;
  }
  state.append({ producerId: p.producerId, producerEpoch: p.producerEpoch, baseSequence: p.baseSequence, count: offsetSpan(b), transactional: b.transactional === true }, b.baseOffset, b.lastOffset, b.appendTimeMs);
}

const inSequence = (lastSeq: number, nextSeq: number): boolean => nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === MAX_SEQUENCE);

export class ProducerStateManager {
  private readonly producers = new Map<number, ProducerEntry>();
  /** Open transactions by first offset, in offset order. */
  private readonly open = new Map<number, OpenTxn>();
  /** Closed transactions whose marker the HW may not have passed yet. */
  private unreplicated: { producerId: number; firstOffset: number; lastOffset: number }[] = [];
  /** Aborted transactions, in marker order. */
  private aborted: AbortedTxn[] = [];
  private readonly verifications = new Map<number, { epoch: number; guard: VerificationGuard }>();
  /** Whether a transactional batch or a marker ever went through: truncation then rebuilds. */
  private sawTransactions = false;

  constructor(private readonly partitionName: string) {}

  /** The state of a log, rebuilt from its batches in [from, until) (after a restart, on a new leader, after truncation). */
  static fromLog(name: string, read: (from: number, until: number, maxBytes: number) => RecordBatch[], from: number, until: number): ProducerStateManager {
    const state = new ProducerStateManager(name);
    let next = from;
    while (next < until) {
      const batches = read(next, until, SCAN_BYTES);
      if (batches.length === 0) break;
      for (const b of batches) {
        trackProducer(state, b);
        next = b.lastOffset + 1;
      }
    }
    return state;
  }

  private epochError(pid: number, epoch: number, current: number, offset: number): { kind: 'error'; error: 'INVALID_PRODUCER_EPOCH'; message: string } {
    return {
      kind: 'error',
      error: 'INVALID_PRODUCER_EPOCH',
      message: `Epoch of producer ${pid} at offset ${offset} in ${this.partitionName} is ${epoch}, which is smaller than the last seen epoch ${current}`,
    };
  }

  /**
   * How a client's batch from an idempotent or transactional producer is to be treated; no state
   * changes. `guard`: the verification this append carries (KIP-890), if any. A coordinator's
   * own write (the group coordinator's transactional offsets) is not sequence-checked, as Kafka's
   * AppendOrigin.COORDINATOR is not.
   */
  check(batch: ProducerBatch, nextOffset: number, guard?: VerificationGuard, origin: 'client' | 'coordinator' = 'client'): ProducerCheck {
    if (batch.producerId < 0) return { kind: 'append' };
    const pid = batch.producerId;
    const entry = this.producers.get(pid);
    if (entry && batch.producerEpoch < entry.epoch) return this.epochError(pid, batch.producerEpoch, entry.epoch, nextOffset);
    if (entry?.txnFirstOffset != null && !batch.transactional) {
      return { kind: 'error', error: 'INVALID_TXN_STATE', message: `Expected transactional write from producer ${pid} at offset ${nextOffset} in partition ${this.partitionName}` };
    }
    if (guard !== undefined && batch.transactional && entry?.txnFirstOffset == null && this.verifications.get(pid)?.guard !== guard) {
      return {
        kind: 'error',
        error: 'INVALID_TXN_STATE',
        message: `Transactional write of producer ${pid} at offset ${nextOffset} in partition ${this.partitionName}: its verification with the coordinator no longer holds (the transaction ended meanwhile)`,
      };
    }
    if (!entry || origin === 'coordinator') return { kind: 'append' };
    if (batch.producerEpoch !== entry.epoch) {
      if (batch.baseSequence !== 0) return this.newEpochSequenceError(batch, entry.epoch, nextOffset);
      return { kind: 'append' };
    }
    const last = lastSequence(batch);
    const dup = entry.batches.find((b) => b.firstSeq === batch.baseSequence && b.lastSeq === last);
    if (dup) return { kind: 'duplicate', firstOffset: dup.firstOffset, lastOffset: dup.lastOffset };
    const tail = entry.batches[entry.batches.length - 1];
    if (tail && !inSequence(tail.lastSeq, batch.baseSequence)) {
      return {
        kind: 'error',
        error: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
        message: `Out of order sequence number for producer ${pid} at offset ${nextOffset} in ${this.partitionName}: ${batch.baseSequence} (incoming seq. number), ${tail.lastSeq} (current end sequence number)`,
      };
    }
    return { kind: 'append' };
  }

  private newEpochSequenceError(batch: ProducerBatch, current: number, offset: number): ProducerCheck {
    return {
      kind: 'error',
      error: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
      message: `Invalid sequence number for new epoch of producer ${batch.producerId} at offset ${offset} in ${this.partitionName}: ${batch.producerEpoch} (request epoch), ${batch.baseSequence} (seq. number), ${current} (current producer epoch)`,
    };
  }

  /** Whether a COMMIT/ABORT marker from this producer and coordinator epoch may be written (Kafka's appendEndTxnMarker checks). */
  checkMarker(producerId: number, producerEpoch: number, coordinatorEpoch: number, offset: number): MarkerCheck {
    const entry = this.producers.get(producerId);
    if (!entry) return { kind: 'append' };
    if (producerEpoch < entry.epoch) return this.epochError(producerId, producerEpoch, entry.epoch, offset);
    if (entry.coordinatorEpoch > coordinatorEpoch) {
      return {
        kind: 'error',
        error: 'TRANSACTION_COORDINATOR_FENCED',
        message: `Invalid coordinator epoch for producerId ${producerId} at offset ${offset} in partition ${this.partitionName}: ${coordinatorEpoch} (zombie), ${entry.coordinatorEpoch} (current)`,
      };
    }
    return { kind: 'append' };
  }

  /** Records an appended data batch at [firstOffset, lastOffset] (leader after check(), or follower). */
  append(batch: ProducerBatch, firstOffset: number, lastOffset: number, timestamp = -1): void {
    if (batch.producerId < 0) return;
    let entry = this.producers.get(batch.producerId);
    if (!entry) {
      entry = { epoch: batch.producerEpoch, batches: [], coordinatorEpoch: -1, txnFirstOffset: null, lastTimestamp: -1 };
      this.producers.set(batch.producerId, entry);
    } else if (batch.producerEpoch > entry.epoch) {
      entry.epoch = batch.producerEpoch;
      entry.batches = [];
    }
    entry.batches.push({ firstSeq: batch.baseSequence, lastSeq: lastSequence(batch), firstOffset, lastOffset });
    if (entry.batches.length > NUM_BATCHES_TO_RETAIN) entry.batches.shift();
    entry.lastTimestamp = timestamp;
    if (batch.transactional) {
      this.sawTransactions = true;
      this.verifications.delete(batch.producerId);
      if (entry.txnFirstOffset === null) {
        entry.txnFirstOffset = firstOffset;
        this.open.set(firstOffset, { producerId: batch.producerId, firstOffset });
      }
    }
  }

  /**
   * Records a COMMIT or ABORT marker appended at `offset` (Kafka's appendEndTxnMarker then
   * completeTxn): the producer's open transaction here closes; an ABORT joins the aborted index.
   */
  appendMarker(producerId: number, producerEpoch: number, marker: TxnMarker, offset: number, timestamp = -1): void {
    this.sawTransactions = true;
    this.verifications.delete(producerId);
    let entry = this.producers.get(producerId);
    if (!entry) {
      entry = { epoch: producerEpoch, batches: [], coordinatorEpoch: -1, txnFirstOffset: null, lastTimestamp: -1 };
      this.producers.set(producerId, entry);
    }
    if (producerEpoch !== entry.epoch) {
      entry.epoch = producerEpoch;
      entry.batches = [];
    }
    entry.coordinatorEpoch = marker.coordinatorEpoch;
    entry.lastTimestamp = timestamp;
    const first = entry.txnFirstOffset;
    entry.txnFirstOffset = null;
    if (first === null) return; // a marker of a transaction with no data here changes no offset
    this.open.delete(first);
    this.unreplicated.push({ producerId, firstOffset: first, lastOffset: offset });
    if (marker.type === 'ABORT') {
      let next = offset + 1;
      for (const t of this.open.values()) {
        next = t.firstOffset;
        break;
      }
      this.aborted.push({ producerId, firstOffset: first, lastOffset: offset, lastStableOffset: next });
    }
  }

  /** Start verifying that the producer's first transactional write here belongs to its transaction (KIP-890). */
  startVerification(producerId: number, producerEpoch: number): VerificationGuard {
    const existing = this.verifications.get(producerId);
    if (existing && existing.epoch === producerEpoch) return existing.guard;
    const guard: VerificationGuard = {};
    this.verifications.set(producerId, { epoch: producerEpoch, guard });
    return guard;
  }

  /** Whether the producer has a transaction open here (its writes need no verification then). */
  hasOpenTransaction(producerId: number): boolean {
    return this.producers.get(producerId)?.txnFirstOffset != null;
  }

  /**
   * Kafka's firstUnstableOffset against high watermark `hw`: the first offset of an open
   * transaction, or of a closed one whose marker is at or above `hw`; null when none.
   */
  firstUnstableOffset(hw: number): number | null {
    if (this.unreplicated.length > 0) this.unreplicated = this.unreplicated.filter((t) => t.lastOffset >= hw);
    let first: number | null = null;
    for (const t of this.open.values()) {
      first = t.firstOffset;
      break;
    }
    for (const t of this.unreplicated) if (first === null || t.firstOffset < first) first = t.firstOffset;
    return first;
  }

  /** The open transactions, oldest first. */
  openTransactions(): OpenTxn[] {
    return [...this.open.values()];
  }

  /** Aborted transactions overlapping [from, until): those whose marker is at or after `from` and that began before `until`. */
  abortedTransactions(from: number, until: number): AbortedTxn[] {
    const out: AbortedTxn[] = [];
    for (const t of this.aborted) if (t.lastOffset >= from && t.firstOffset < until) out.push(t);
    return out;
  }

  /**
   * Forgets every batch at or above `offset` (log truncation); producers left with none go.
   * False when this state saw a transaction: the caller must rebuild it from the log.
   */
  truncateTo(offset: number): boolean {
    if (this.sawTransactions) return false;
    for (const [pid, entry] of this.producers) {
      entry.batches = entry.batches.filter((b) => b.lastOffset < offset);
      if (entry.batches.length === 0) this.producers.delete(pid);
    }
    return true;
  }

  /** Forgets every batch, and every aborted or closed transaction, below `offset` (retention, DeleteRecords). */
  removeBefore(offset: number): void {
    for (const [pid, entry] of this.producers) {
      entry.batches = entry.batches.filter((b) => b.lastOffset >= offset);
      if (entry.batches.length === 0 && entry.txnFirstOffset === null) this.producers.delete(pid);
    }
    this.aborted = this.aborted.filter((t) => t.lastOffset >= offset);
    this.unreplicated = this.unreplicated.filter((t) => t.lastOffset >= offset);
  }

  /** Known producers (DescribeProducers, the console). */
  describe(): ProducerDescription[] {
    return [...this.producers].map(([producerId, e]) => {
      const tail = e.batches[e.batches.length - 1];
      return {
        producerId,
        epoch: e.epoch,
        lastSequence: tail ? tail.lastSeq : -1,
        lastOffset: tail ? tail.lastOffset : -1,
        lastTimestamp: e.lastTimestamp,
        coordinatorEpoch: e.coordinatorEpoch,
        currentTxnStartOffset: e.txnFirstOffset ?? -1,
      };
    });
  }
}
