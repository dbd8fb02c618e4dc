/**
 * The idempotent producer's state of one partition log (Kafka's ProducerStateManager, for
 * producers without transactions). Per producer id it keeps the epoch and the metadata of the
 * last five batches appended (NUM_BATCHES_TO_RETAIN — why five requests may be in flight), and
 * judges each new batch from that producer:
 *
 *   epoch older than the one seen                            INVALID_PRODUCER_EPOCH
 *   same first and last sequence as a retained batch         a duplicate: answered with the
 *                                                            retained offsets, not appended
 *   a newer epoch that does not start at sequence 0          OUT_OF_ORDER_SEQUENCE_NUMBER
 *   same epoch, first sequence ≠ last sequence + 1
 *   (wrapping after 2^31 - 1 to 0)                           OUT_OF_ORDER_SEQUENCE_NUMBER
 *   a producer the log does not know (never seen, or its
 *   batches removed by retention)                            any sequence accepted (KIP-360)
 *
 * Invariants: state changes only through `append` (leaders and followers alike, so a follower
 * that becomes leader judges retries as its predecessor did) and `truncateTo`, which forgets the
 * batches at and above the offset; the retained batches of a producer are in sequence order.
 * Kafka 3.x answers a duplicate with the original offsets and no error; DUPLICATE_SEQUENCE_NUMBER
 * is what brokers before 1.0 sent, and clients still treat it as success.
 */

/** The producer fields of a batch header, and its record count. */
export interface ProducerBatch {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  count: number;
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
}

export type ProducerCheck =
  | { kind: 'append' }
  | { kind: 'duplicate'; firstOffset: number; lastOffset: number }
  | { kind: 'error'; error: 'INVALID_PRODUCER_EPOCH' | 'OUT_OF_ORDER_SEQUENCE_NUMBER'; message: string };

/** Batches kept per producer for duplicate detection (Kafka's NUM_BATCHES_TO_RETAIN). */
export const NUM_BATCHES_TO_RETAIN = 5;
const MAX_SEQUENCE = 0x7fffffff;

/** The sequence of the batch's last record (sequences wrap to 0 after 2^31 - 1). */
export function lastSequence(b: ProducerBatch): number {
  return (b.baseSequence + b.count - 1) % (MAX_SEQUENCE + 1);
}

const inSequence = (lastSeq: number, nextSeq: number): boolean => nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === MAX_SEQUENCE);

export class ProducerStateManager {
  private readonly producers = new Map<number, ProducerEntry>();

  constructor(private readonly partitionName: string) {}

  /** How a client's batch from an idempotent producer is to be treated; no state changes. */
  check(batch: ProducerBatch, nextOffset: number): ProducerCheck {
    if (batch.producerId < 0) return { kind: 'append' };
    const entry = this.producers.get(batch.producerId);
    if (!entry) return { kind: 'append' };
    const pid = batch.producerId;
    if (batch.producerEpoch < entry.epoch) {
      return {
        kind: 'error',
        error: 'INVALID_PRODUCER_EPOCH',
        message: `Epoch of producer ${pid} at offset ${nextOffset} in ${this.partitionName} is ${batch.producerEpoch}, which is smaller than the last seen epoch ${entry.epoch}`,
      };
    }
    const last = lastSequence(batch);
    if (batch.producerEpoch === entry.epoch) {
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
    if (batch.baseSequence !== 0) {
      return {
        kind: 'error',
        error: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
        message: `Invalid sequence number for new epoch of producer ${pid} at offset ${nextOffset} in ${this.partitionName}: ${batch.producerEpoch} (request epoch), ${batch.baseSequence} (seq. number), ${entry.epoch} (current producer epoch)`,
      };
    }
    return { kind: 'append' };
  }

  /** Records an appended batch at [firstOffset, lastOffset] (leader after check(), or follower). */
  append(batch: ProducerBatch, firstOffset: number, lastOffset: number): void {
    if (batch.producerId < 0) return;
    let entry = this.producers.get(batch.producerId);
    if (!entry || batch.producerEpoch > entry.epoch) {
      entry = { epoch: batch.producerEpoch, batches: [] };
      this.producers.set(batch.producerId, entry);
    }
    entry.batches.push({ firstSeq: batch.baseSequence, lastSeq: lastSequence(batch), firstOffset, lastOffset });
    if (entry.batches.length > NUM_BATCHES_TO_RETAIN) entry.batches.shift();
  }

  /** Forgets every batch at or above `offset` (log truncation); producers left with none go. */
  truncateTo(offset: number): void {
    for (const [pid, entry] of this.producers) {
      entry.batches = entry.batches.filter((b) => b.lastOffset < offset);
      if (entry.batches.length === 0) this.producers.delete(pid);
    }
  }

  /** Forgets every batch below `offset` (retention, DeleteRecords). */
  removeBefore(offset: number): void {
    for (const [pid, entry] of this.producers) {
      entry.batches = entry.batches.filter((b) => b.lastOffset >= offset);
      if (entry.batches.length === 0) this.producers.delete(pid);
    }
  }

  /** Known producers and their epoch and last sequence (DescribeProducers, the console). */
  describe(): { producerId: number; epoch: number; lastSequence: number; lastOffset: number }[] {
    return [...this.producers].map(([producerId, e]) => {
      const tail = e.batches[e.batches.length - 1]!;
      return { producerId, epoch: e.epoch, lastSequence: tail.lastSeq, lastOffset: tail.lastOffset };
    });
  }
}
