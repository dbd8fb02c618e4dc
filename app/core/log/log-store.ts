/**
 * The storage port of the core. Every call is synchronous (better-sqlite3 is too), so the core
 * stays free of I/O scheduling. `memory-log-store.ts` implements it for tests and drills; the
 * SQLite implementation in `app/storage` plugs into the same interfaces.
 *
 * The "disk" of a broker outlives its process: a kill keeps everything written (the OS cache
 * survives), a power loss keeps only what was flushed — recovery truncates each replica to its
 * flushed offset.
 */
import type { EpochEntry } from './epoch-cache.js';
import type { RecordBatch } from './records.js';

export interface ReplicaCheckpoint {
  highWatermark: number;
  logStartOffset: number;
  /** Everything below this offset survives a power loss. */
  flushedOffset: number;
}

/**
 * A segment as a range of batches: it holds the batches from its base offset up to the next
 * segment's base offset (the last, "active" segment up to the log end). Only the boundaries are
 * stored; sizes and timestamps come from `rangeStats`.
 */
export interface SegmentInfo {
  baseOffset: number;
  /** Broker time the segment was created (Kafka's `LogSegment.created`, used by segment.ms). */
  createdMs: number;
}

/** One replica's log on one broker's disk. */
export interface ReplicaLogStore {
  /**
   * Append a batch whose baseOffset is at or after the current end of the log (after it only on
   * a follower of a compacted leader, whose log skips the offsets the cleaner removed).
   */
  append(batch: RecordBatch): void;
  /**
   * Batches overlapping [fromOffset, untilOffset), in offset order, at most `maxBytes` (at least one
   * batch). `headerFields`: the caller reads only the batches' header fields (offsets, producer
   * fields, the transactional and control bits) and the records of control batches, so a store
   * may leave the records unchecked until they are read (then checked as any read checks them).
   */
  read(fromOffset: number, untilOffset: number, maxBytes: number, headerFields?: boolean): RecordBatch[];
  /** Remove every record at or above `offset` (a batch straddling it is cut). */
  truncateTo(offset: number): void;
  /** Remove every record below `offset` (retention, or reset after OFFSET_OUT_OF_RANGE). */
  deleteBefore(offset: number): void;
  /** Offset after the last stored record, or `logStartOffset` when the log is empty. */
  endOffset(): number;
  /** Bytes currently stored. */
  sizeBytes(): number;
  loadEpochs(): EpochEntry[];
  saveEpochs(entries: readonly EpochEntry[]): void;
  loadCheckpoint(): ReplicaCheckpoint;
  saveCheckpoint(checkpoint: ReplicaCheckpoint): void;
  /** Segment boundaries, ordered by baseOffset; [] for a new log. */
  loadSegments(): SegmentInfo[];
  saveSegments(segments: readonly SegmentInfo[]): void;
  /**
   * Bytes, largest record timestamp and largest append time of the records in
   * [fromOffset, untilOffset); -1 for the maxima of an empty range.
   */
  rangeStats(fromOffset: number, untilOffset: number): { bytes: number; maxTimestamp: number; maxAppendTimeMs: number };
  /**
   * The log cleaner's swap (Kafka's `replaceSegments`), all or nothing: the batches whose base
   * offset is in [fromOffset, untilOffset) are replaced by `batches` (each within that range, in
   * offset order) and the segment list by `segments`. A crash leaves either the old or the new.
   */
  replaceCleaned(fromOffset: number, untilOffset: number, batches: readonly RecordBatch[], segments: readonly SegmentInfo[]): void;
  /** The first offset the log cleaner has not cleaned (Kafka's cleaner-offset-checkpoint); null when it never cleaned this log. */
  loadCleanerCheckpoint(): number | null;
  saveCleanerCheckpoint(offset: number | null): void;
}

/** Broker-level durable state, Kafka's clean-shutdown file and meta.properties. */
export interface BrokerDiskState {
  /** True after an orderly stop; false while running or after a crash. */
  cleanShutdown: boolean;
  /** Broker epoch of the last incarnation (sent as PreviousBrokerEpoch on registration). */
  lastBrokerEpoch: number;
  /** Set by a power loss; recovery truncates every replica to its flushed offset, then clears it. */
  powerLost: boolean;
}

export interface BrokerLogStore {
  /** Open (creating if needed) the replica log of a partition, keyed by `topicId:partition`. */
  replica(key: string): ReplicaLogStore;
  /** Keys of every replica log on this broker's disk. */
  replicaKeys(): string[];
  /** Whether this disk holds the replica log `key` (without creating it). */
  hasReplica(key: string): boolean;
  /** Delete a replica log from disk (replica removed from the assignment or topic deleted). */
  deleteReplica(key: string): void;
  /** Bytes of the record batches of every replica log on this disk (one read of the whole disk). */
  totalBytes(): number;
  loadState(): BrokerDiskState;
  saveState(state: BrokerDiskState): void;
}

/** A metadata log entry as stored: opaque JSON-serialisable payload with its offset. */
export interface StoredMetadataRecord {
  offset: number;
  timestampMs: number;
  record: unknown;
}

/** A snapshot of the metadata image at `offset` (KRaft's `<offset>-<epoch>.checkpoint`): opaque JSON-serialisable data. */
export interface StoredMetadataSnapshot {
  offset: number;
  timestampMs: number;
  data: unknown;
}

/**
 * The controller's durable metadata log (KRaft's `__cluster_metadata`) with its snapshots, plus a
 * few settings. Records at or below the oldest kept snapshot may be deleted (as KRaft deletes log
 * segments a snapshot covers); a reader starts from the latest snapshot and reads on from there.
 */
export interface MetadataStore {
  append(records: readonly StoredMetadataRecord[]): void;
  /** Every record still stored, in offset order. */
  readAll(): StoredMetadataRecord[];
  /** The stored records after `offset`, in offset order (the first `limit` of them when given). */
  readAfter(offset: number, limit?: number): StoredMetadataRecord[];
  /** True when neither a record nor a snapshot was ever stored (a new cluster). */
  isEmpty(): boolean;
  /** The newest snapshot, or null. */
  latestSnapshot(): StoredMetadataSnapshot | null;
  /** Store a snapshot; then delete every record and snapshot older than `keepFrom` (an offset). */
  saveSnapshot(snapshot: StoredMetadataSnapshot, keepFrom: number): void;
  /** Small durable key/value settings of the cluster (e.g. which brokers were running). */
  loadSettings(): Record<string, string>;
  saveSetting(key: string, value: string | null): void;
}

/** Everything the engine persists. */
export interface StorageProvider {
  broker(brokerId: number): BrokerLogStore;
  metadata(): MetadataStore;
  /**
   * The size of the file system a broker's log directory is on and what of it is free to use
   * (DescribeLogDirs v4's total and usable bytes); absent or null where there is no such disk.
   */
  logDirSpace?(brokerId: number): { totalBytes: number; usableBytes: number } | null;
  /**
   * Run `fn` with every write it makes grouped into one transaction per file, committed when it
   * returns (nested calls join the outer one); absent where writes need no grouping.
   */
  batch?<T>(fn: () => T): T;
}

/** Every replica key made so far, by topic id then partition: the same string object each time. */
const replicaKeys = new Map<string, string[]>();

/**
 * The key of a partition's replica log, `topicId:partition`. Always the same string object for
 * the same partition: the replication path looks keys up in maps for every partition of every
 * fetch, and a fresh concatenation there costs an allocation, a flatten and a hash each time.
 */
export function replicaKey(topicId: string, partition: number): string {
  let keys = replicaKeys.get(topicId);
  if (!keys) replicaKeys.set(topicId, (keys = []));
  return (keys[partition] ??= `${topicId}:${partition}`);
}
