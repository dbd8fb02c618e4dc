/**
 * The controller's metadata log in memory and on disk, with its snapshots (KRaft's
 * `__cluster_metadata`: the log, SnapshotGenerator and MetadataLoader).
 *
 * Invariants: the store holds the records after the previous snapshot (from `logStartOffset`), in
 * order and without gaps; memory holds the tail of them from `memoryStartOffset`, so the record at
 * offset o ≥ memoryStartOffset is at index o − memoryStartOffset. Loading the latest snapshot and
 * then the stored records after it gives the image that was last committed.
 *
 * Kafka's controller serves brokers from its log on disk. Here the tail every broker still has to
 * read stays in memory and the rest is read back from the store: a reopen commits a record for
 * each replica that rejoins an ISR, so records every broker has applied would otherwise sit in
 * memory until the next snapshot but one, in proportion to the partition count.
 */
import type { MetadataStore, StoredMetadataRecord } from '../log/log-store.js';
import type { MetadataImage } from '../metadata/image.js';
import type { CommittedRecord, MetadataRecord } from '../metadata/records.js';
import { loadSnapshot, snapshotOf, withoutCompactForm, type ImageSnapshot } from '../metadata/snapshot.js';

/**
 * Records between two snapshots (KRaft's metadata.log.max.record.bytes.between.snapshots, 20 MB,
 * is some 100,000 records of ours; fewer keeps the tail a broker replays short).
 */
export const SNAPSHOT_INTERVAL_RECORDS = 50_000;

/** Records every broker has are dropped from memory only this many at a time (one copy each). */
export const RELEASE_BATCH_RECORDS = 4_096;

export class MetadataLog {
  /** The records from `memoryStartOffset` on (older ones are in the store or a snapshot). */
  private log: CommittedRecord[] = [];
  /** The first record stored (older ones are in a snapshot). */
  private logStartOffset = 0;
  /** The first record kept in memory. */
  private memoryStartOffset = 0;
  /** The latest snapshot: what a broker behind `logStartOffset` loads. */
  private snapshot: ImageSnapshot | null = null;

  constructor(
    private readonly image: MetadataImage,
    private readonly store: MetadataStore,
  ) {}

  /** KRaft's MetadataLoader: the latest snapshot into the image, then only the records after it. */
  load(): void {
    const stored = this.store.latestSnapshot();
    if (stored) {
      const snap = stored.data as ImageSnapshot;
      loadSnapshot(this.image, snap);
      // Kept for brokers that start behind; without its tuples, beside the states built from them.
      this.snapshot = withoutCompactForm(snap);
      this.logStartOffset = snap.offset + 1;
      this.memoryStartOffset = this.logStartOffset;
    }
    for (const r of this.store.readAfter(this.image.offset)) {
      const rec = committed(r);
      this.log.push(rec);
      this.image.apply(rec);
    }
  }

  /** Keep and store records the image has just applied; snapshot once an interval has passed. */
  append(committed: CommittedRecord[], nowMs: number): void {
    for (const c of committed) this.log.push(c);
    this.store.append(committed.map((c) => ({ offset: c.offset, timestampMs: c.timestampMs, record: c.record })));
    if (this.image.offset - (this.snapshot?.offset ?? -1) >= SNAPSHOT_INTERVAL_RECORDS) this.takeSnapshot(nowMs);
  }

  /** The records after the previous snapshot from `fromOffset` on. */
  records(fromOffset = 0): CommittedRecord[] {
    if (fromOffset >= this.memoryStartOffset) return this.log.slice(fromOffset - this.memoryStartOffset);
    return this.store.readAfter(Math.max(fromOffset, this.logStartOffset) - 1).map(committed);
  }

  /**
   * Up to `max` records from `fromOffset` on; null when they start before the records stored
   * (the reader must load the latest snapshot first). No search, no copy of the whole log; read
   * from the store only for a reader behind what every broker with a session has.
   */
  recordsFrom(fromOffset: number, max: number): CommittedRecord[] | null {
    if (fromOffset < this.logStartOffset) return null;
    if (fromOffset < this.memoryStartOffset) return this.store.readAfter(fromOffset - 1, max).map(committed);
    const i = fromOffset - this.memoryStartOffset;
    return this.log.slice(i, i + max);
  }

  /**
   * Every broker with a session has applied the records up to `offset`: memory need not keep
   * them (a broker that comes back later reads them from the store). Dropped in batches.
   */
  release(offset: number): void {
    const upTo = Math.min(offset, this.image.offset);
    if (upTo + 1 - this.memoryStartOffset < RELEASE_BATCH_RECORDS) return;
    this.log = this.log.slice(upTo + 1 - this.memoryStartOffset);
    this.memoryStartOffset = upTo + 1;
  }

  /** How many records memory keeps (the rest after the previous snapshot are only stored). */
  get recordsInMemory(): number {
    return this.log.length;
  }

  /** The latest metadata snapshot (null before the first). */
  latestSnapshot(): ImageSnapshot | null {
    return this.snapshot;
  }

  /**
   * Write a snapshot of the image (KRaft's SnapshotGenerator) and forget what the one before it
   * covers: the stored log and the records kept in memory start after the previous snapshot, so a
   * broker less than one interval behind still catches up by records. Taken every
   * SNAPSHOT_INTERVAL_RECORDS records and when the cluster closes in order.
   */
  takeSnapshot(nowMs: number): void {
    if (this.snapshot?.offset === this.image.offset || this.image.offset < 0) return;
    const keepFrom = this.snapshot ? this.snapshot.offset + 1 : 0;
    this.snapshot = snapshotOf(this.image);
    this.store.saveSnapshot({ offset: this.snapshot.offset, timestampMs: nowMs, data: this.snapshot }, keepFrom);
    if (keepFrom > this.memoryStartOffset) {
      this.log = this.log.slice(keepFrom - this.memoryStartOffset);
      this.memoryStartOffset = keepFrom;
    }
    this.logStartOffset = Math.max(this.logStartOffset, keepFrom);
  }
}

function committed(r: StoredMetadataRecord): CommittedRecord {
  return { offset: r.offset, timestampMs: r.timestampMs, record: r.record as MetadataRecord };
}
