/**
 * `topics.compaction` (spread into `contract` in contract.ts): what each broker's log cleaner
 * makes of a compacted topic's replicas — Kafka's LogCleaner and LogCleanerManager, which Kafka
 * shows only through JMX metrics and log lines, so an external cluster answers
 * UNSUPPORTED_FOR_CONNECTION (capability `compaction`). Every replica compacts its own log: a
 * partition lists each replica its broker serves now.
 */
import { z } from 'zod';
import { method, returns } from './contract-kit.js';

/** Where the cleaner stands with a replica's log, the first that applies. */
export type CleanerStateView =
  /** A cleaner is working on it now (`phase` says which half). */
  | 'cleaning'
  /** The cleaner failed on it and leaves it until the broker restarts (Kafka's uncleanable partitions). */
  | 'uncleanable'
  /** log.cleaner.enable=false on the broker. */
  | 'cleaner-disabled'
  /** The log holds no record. */
  | 'empty'
  /** Every dirty record is in the active segment, which is never cleaned. */
  | 'active-segment'
  /** The dirty records are not below this replica's high watermark yet. */
  | 'high-watermark'
  /** The dirty segments are younger than min.compaction.lag.ms. */
  | 'min-compaction-lag'
  /** Dirty, but not above min.cleanable.dirty.ratio (and not past max.compaction.lag.ms). */
  | 'ratio-below-threshold'
  /** Dirty enough: the next cleaner run takes it (the dirtiest log first). */
  | 'eligible';

/** A segment of a replica's log, by section: clean (below the checkpoint, the tail), dirty (the head, cleanable now), uncleanable, active. */
export interface CompactionSegmentView {
  baseOffset: number;
  bytes: number;
  section: 'clean' | 'dirty' | 'uncleanable' | 'active';
}

/** The last cleaning of a replica's log (Kafka's cleaner log lines, in numbers). */
export interface LastCleanView {
  startedAtMs: number;
  finishedAtMs: number;
  /** The dirty section it covered: [firstDirtyOffset, endOffset). */
  firstDirtyOffset: number;
  endOffset: number;
  /** The dirty ratio that made the cleaner take the log. */
  cleanableRatio: number;
  bytesRead: number;
  bytesWritten: number;
  recordsRead: number;
  recordsWritten: number;
  /** Keyless records removed (a compacted log keeps none). */
  invalidRecords: number;
  /** Tombstones removed because delete.retention.ms had passed since the cleaning that first kept them. */
  tombstonesRemoved: number;
  /** Tombstones kept, waiting for their delete horizon. */
  tombstonesKept: number;
  /** When the first of those may go (-1: none kept). */
  earliestDeleteHorizonMs: number;
}

/** One replica's log as its broker's cleaner sees it. */
export interface ReplicaCompactionView {
  brokerId: number;
  leader: boolean;
  /** Every offset below it has been cleaned ("cleaned up to offset N"); null: never cleaned. */
  cleanerCheckpoint: number | null;
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
  /** Where the next cleaning would start and stop (segment-aligned). */
  firstDirtyOffset: number;
  firstUncleanableOffset: number;
  cleanBytes: number;
  cleanableBytes: number;
  /** cleanableBytes / (cleanBytes + cleanableBytes), compared with min.cleanable.dirty.ratio. */
  dirtyRatio: number;
  minCleanableDirtyRatio: number;
  /** Dirty for longer than max.compaction.lag.ms: taken whatever its ratio (KIP-354). */
  needCompactionNow: boolean;
  compactionDelayMs: number;
  state: CleanerStateView;
  /** The state in words: why the cleaner has (not) taken this log. */
  reason: string;
  uncleanableReason: string | null;
  phase: 'map' | 'clean' | null;
  lastClean: LastCleanView | null;
  segments: CompactionSegmentView[];
}

/** A topic's compaction: its settings and each partition's replicas. */
export interface TopicCompactionView {
  topic: string;
  /** cleanup.policy as resolved (`compact`, `delete` or both). */
  cleanupPolicy: string[];
  compacted: boolean;
  settings: {
    minCleanableDirtyRatio: number;
    minCompactionLagMs: number;
    /** null: no limit (Long.MAX_VALUE). */
    maxCompactionLagMs: number | null;
    deleteRetentionMs: number;
    segmentMs: number;
    segmentBytes: number;
  };
  /** Empty lists when the topic is not compacted (the cleaner leaves it alone). */
  partitions: { partition: number; replicas: ReplicaCompactionView[] }[];
}

export const compactionMethods = {
  /** The log cleaner's view of every replica of a topic (UNSUPPORTED_FOR_CONNECTION on an external cluster). */
  'topics.compaction': method(z.strictObject({ name: z.string().min(1) }), returns<TopicCompactionView>()),
} as const;
