/**
 * The batches a broker keeps in memory at the end of each replica log: the ones followers and
 * consumers ask for right after they were appended, served without reading the file.
 *
 * Each log keeps at most `perLogBatches` batches and `perLogBytes` stored bytes, and the broker's
 * logs together at most `budget` of estimated memory: a batch costs its stored bytes plus
 * `recordCost` per record (a decoded record is an object with its key and value arrays, several
 * times a small record's bytes). Over the budget, the batches appended longest ago go first,
 * whichever log holds them — a tail is a cache of what was just written, as the page cache is
 * for a Kafka broker, and never the place a record lives. Without the shared budget, every log
 * kept its last megabyte: 1,000,000 records produced over 10,000 partitions (RF 3) left the engine
 * at 1.9 GB of RSS for as long as it ran.
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

export const DEFAULT_TAIL_LIMITS: TailLimits = { perLogBatches: 32, perLogBytes: 1 << 20, budget: 8 << 20 };

interface Entry {
  batch: RecordBatch;
  cost: number;
  owner: BatchTail;
  live: boolean;
}

/** What one batch is counted as against the budget. */
export function tailCost(batch: RecordBatch): number {
  return batch.sizeBytes + (batch.lastOffset - batch.baseOffset + 1) * RECORD_COST;
}

/** The shared budget of one broker's tails: every entry in append order, the oldest evicted first. */
export class TailBudget {
  private queue: Entry[] = [];
  private head = 0;
  private liveEntries = 0;
  /** Estimated bytes the tails hold now. */
  cost = 0;

  constructor(readonly limits: TailLimits = DEFAULT_TAIL_LIMITS) {}

  /** A new, empty tail for one log. */
  tail(): BatchTail {
    return new BatchTail(this);
  }

  /** Batches all the tails hold now. */
  get batches(): number {
    return this.liveEntries;
  }

  /** @internal */
  added(entry: Entry): void {
    this.queue.push(entry);
    this.cost += entry.cost;
    this.liveEntries++;
    while (this.cost > this.limits.budget && this.head < this.queue.length) {
      const oldest = this.queue[this.head]!;
      this.queue[this.head++] = undefined as unknown as Entry;
      if (oldest.live) oldest.owner.dropOldest(oldest);
    }
    // Entries a log dropped on its own stay queued until passed; the queue is rebuilt from the
    // live ones once the dead outnumber them, so it never grows past twice what the tails hold.
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.queue.length - this.head > 2 * this.liveEntries + 1024) {
      this.queue = this.queue.slice(this.head).filter((e) => e.live);
      this.head = 0;
    }
  }

  /** @internal */
  removed(entry: Entry): void {
    entry.live = false;
    this.cost -= entry.cost;
    this.liveEntries--;
  }

  /** Queue length, live and dead entries (for tests: it stays bounded). */
  get queued(): number {
    return this.queue.length - this.head;
  }
}

/** The batches kept at the end of one log, oldest first. */
export class BatchTail {
  private entries: Entry[] = [];
  private bytes = 0;

  constructor(private readonly budget: TailBudget) {}

  get length(): number {
    return this.entries.length;
  }

  at(i: number): RecordBatch {
    return this.entries[i]!.batch;
  }

  /** The oldest batch kept, if any. */
  get first(): RecordBatch | undefined {
    return this.entries[0]?.batch;
  }

  push(batch: RecordBatch): void {
    const { perLogBatches, perLogBytes } = this.budget.limits;
    const entry: Entry = { batch, cost: tailCost(batch), owner: this, live: true };
    this.entries.push(entry);
    this.bytes += batch.sizeBytes;
    this.budget.added(entry);
    while (this.entries.length > perLogBatches || (this.entries.length > 1 && this.bytes > perLogBytes)) this.drop(this.entries.shift()!);
  }

  /** Keep only the batches `keep` accepts. */
  retain(keep: (b: RecordBatch) => boolean): void {
    const kept: Entry[] = [];
    for (const e of this.entries) {
      if (keep(e.batch)) kept.push(e);
      else this.drop(e);
    }
    this.entries = kept;
  }

  clear(): void {
    this.retain(() => false);
  }

  /** @internal The budget evicts this log's oldest batch. */
  dropOldest(entry: Entry): void {
    if (this.entries[0] !== entry) throw new Error('a tail evicted out of append order');
    this.entries.shift();
    this.drop(entry);
  }

  private drop(entry: Entry): void {
    this.bytes -= entry.batch.sizeBytes;
    this.budget.removed(entry);
  }
}
