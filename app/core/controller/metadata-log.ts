/**
 * The controller's metadata log in memory and on disk, with its snapshots (KRaft's
 * `__cluster_metadata`: the log, SnapshotGenerator and MetadataLoader).
 *
 * Invariants: the records kept in memory are those after the previous snapshot, in order and
 * without gaps, so the record at offset o is at index o − logStartOffset; loading the latest
 * snapshot and then the stored records after it gives the image that was last committed.
 */
import type { MetadataStore } from '../log/log-store.js';
import type { MetadataImage } from '../metadata/image.js';
import type { CommittedRecord, MetadataRecord } from '../metadata/records.js';
import { loadSnapshot, snapshotOf, withoutCompactForm, type ImageSnapshot } from '../metadata/snapshot.js';

/**
 * Records between two snapshots (KRaft's metadata.log.max.record.bytes.between.snapshots, 20 MB,
 * is some 100,000 records of ours; fewer keeps the tail a broker replays short).
 */
export const SNAPSHOT_INTERVAL_RECORDS = 50_000;

export class MetadataLog {
  /** The records after `logStartOffset - 1` (older ones are in a snapshot). */
  private log: CommittedRecord[] = [];
  private logStartOffset = 0;
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
    }
    for (const r of this.store.readAfter(this.image.offset)) {
      const rec: CommittedRecord = { offset: r.offset, timestampMs: r.timestampMs, record: r.record as MetadataRecord };
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

  /** The records kept in memory (those after the previous snapshot) from `fromOffset` on. */
  records(fromOffset = 0): CommittedRecord[] {
    return this.log.slice(Math.max(0, fromOffset - this.logStartOffset));
  }

  /**
   * Up to `max` records from `fromOffset` on; null when they start before the records kept in
   * memory (the reader must load the latest snapshot first). No search, no copy of the whole log.
   */
  recordsFrom(fromOffset: number, max: number): CommittedRecord[] | null {
    if (fromOffset < this.logStartOffset) return null;
    const i = fromOffset - this.logStartOffset;
    return this.log.slice(i, i + max);
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
    if (keepFrom > this.logStartOffset) {
      this.log = this.log.slice(keepFrom - this.logStartOffset);
      this.logStartOffset = keepFrom;
    }
  }
}
