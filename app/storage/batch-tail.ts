/**
 * The batches a broker keeps in memory at the end of each replica log: the ones followers and
 * consumers ask for right after they were appended, served without reading the file.
 *
 * Each log keeps at most `perLogBatches` batches and `perLogBytes` stored bytes, and the broker's
 * logs together at most `budget` of estimated memory: a batch costs its stored bytes plus
 * RECORD_COST per record (a decoded record is an object with its key and value arrays, several
 * times a small record's bytes). Over the budget, the oldest batches of the log appended to
 * longest ago go first (the logs in order of their last append, as an LRU list), so an idle
 * partition's tail is given back before a busy one's — a tail is a cache of what was just
 * written, as the page cache is for a Kafka broker, and never the place a record lives. The
 * bookkeeping allocates nothing per batch: it sits on the produce path of every replica.
 * Without the shared budget, every log would keep its last megabyte for as long as the engine
 * runs, so memory would grow with the partition count rather than with what is being read.
 */
import type { RecordBatch } from '../core/log/records.js';

/** Estimated memory of one decoded record beyond its bytes (object, key and value arrays, their buffers). */
export const RECORD_COST = 300;

export interface TailLimits {
  perLogBatches: number;
  perLogBytes: number;
  /** Estimated bytes all the tails of one broker may hold together. */
  budget: number;
}

export const DEFAULT_TAIL_LIMITS: TailLimits = { perLogBatches: 32, perLogBytes: 1 << 20, budget: 4 << 20 };

/** What one batch is counted as against the budget. */
export function tailCost(batch: RecordBatch): number {
  return batch.sizeBytes + (batch.lastOffset - batch.baseOffset + 1) * RECORD_COST;
}

/** The shared budget of one broker's tails. */
export class TailBudget {
  /** The tails that hold a batch, the one appended to longest ago first. */
  private readonly recent = new Map<BatchTail, true>();
  /** Estimated bytes the tails hold now. */
  cost = 0;
  /** Batches all the tails hold now. */
  batches = 0;

  constructor(readonly limits: TailLimits = DEFAULT_TAIL_LIMITS) {}

  /** A new, empty tail for one log. */
  tail(): BatchTail {
    return new BatchTail(this);
  }

  /** Tails that hold at least one batch. */
  get tailsHolding(): number {
    return this.recent.size;
  }

  /** @internal `tail` was just appended to. */
  appended(tail: BatchTail, cost: number): void {
    this.cost += cost;
    this.batches++;
    this.recent.delete(tail);
    this.recent.set(tail, true);
  }

  /** @internal */
  removed(tail: BatchTail, cost: number, empty: boolean): void {
    this.cost -= cost;
    this.batches--;
    if (empty) this.recent.delete(tail);
  }

  /** @internal Evict until within the budget. */
  settle(): void {
    while (this.cost > this.limits.budget) {
      const oldest = this.recent.keys().next().value;
      if (!oldest) return;
      oldest.dropOldest();
    }
  }
}

/** The batches kept at the end of one log, oldest first. */
export class BatchTail {
  private entries: RecordBatch[] = [];
  private bytes = 0;

  constructor(private readonly budget: TailBudget) {}

  get length(): number {
    return this.entries.length;
  }

  at(i: number): RecordBatch {
    return this.entries[i]!;
  }

  /** The oldest batch kept, if any. */
  get first(): RecordBatch | undefined {
    return this.entries[0];
  }

  push(batch: RecordBatch): void {
    const { perLogBatches, perLogBytes } = this.budget.limits;
    this.entries.push(batch);
    this.bytes += batch.sizeBytes;
    this.budget.appended(this, tailCost(batch));
    while (this.entries.length > perLogBatches || (this.entries.length > 1 && this.bytes > perLogBytes)) this.dropOldest();
    this.budget.settle();
  }

  /** Keep only the batches `keep` accepts. */
  retain(keep: (b: RecordBatch) => boolean): void {
    const kept: RecordBatch[] = [];
    const gone: RecordBatch[] = [];
    for (const b of this.entries) (keep(b) ? kept : gone).push(b);
    this.entries = kept;
    for (const b of gone) this.dropped(b);
  }

  clear(): void {
    this.retain(() => false);
  }

  /** @internal */
  dropOldest(): void {
    this.dropped(this.entries.shift()!);
  }

  private dropped(b: RecordBatch): void {
    this.bytes -= b.sizeBytes;
    this.budget.removed(this, tailCost(b), this.entries.length === 0);
  }
}
