/**
 * A broker's log cleaner (Kafka's LogCleaner with its LogCleanerManager): `log.cleaner.threads`
 * cleaners, each repeatedly taking the dirtiest compacted log this broker holds — leader or
 * follower replica alike, each replica compacts its own log — and cleaning it (clean-job.ts).
 *
 * Per cleaner: an offset map of `log.cleaner.dedupe.buffer.size / threads` bytes and a read
 * buffer of `log.cleaner.io.buffer.size / threads / 2` bytes (Kafka splits the I/O buffer into a
 * read and a write half); a job advances one buffer per step on the broker's scheduler, so the
 * broker serves requests between steps. `log.cleaner.io.max.bytes.per.second` throttles every
 * cleaner together: after a step that read and wrote n bytes, the next step of any cleaner waits
 * until the average stays at the rate (Kafka's shared Throttler). A cleaner with nothing to clean
 * sleeps `log.cleaner.backoff.ms`. After each attempt the cleaner applies retention to the
 * compacted logs whose cleanup.policy also has `delete` (Kafka's `deletableLogs`; the retention
 * task leaves compacted logs to the cleaner).
 *
 * A finished cleaning writes the log's checkpoint (the first offset it did not cover, persisted
 * with the log); an aborted one leaves it. An error other than a storage failure marks the
 * partition uncleanable with its reason (Kafka's uncleanable-partitions-count) and the cleaner
 * goes on with the other logs; a storage failure halts the broker as any other (the host's
 * guard). `log.cleaner.enable=false` runs no cleaner: compacted logs then keep everything.
 */
import type { EngineEvent } from '../../../api/events.js';
import { KafkaError } from '../../../api/errors.js';
import type { Scheduler, TimerHandle } from '../../time.js';
import { type CleanableLog, type CompactionConfig, isCleanable, type LogToClean, logToClean } from './cleanable.js';
import type { CleanedBatchWriter } from './cleaned-batch.js';
import { CleanAbortedError, CleanJob, type JobLog } from './clean-job.js';
import { OffsetMap } from './offset-map.js';
import type { CleanerView, CleanSummary } from './compaction-status.js';

/** The broker's cleaner settings, resolved (BrokerRuntimeConfig.cleaner). */
export interface CleanerRuntimeConfig {
  enable: boolean;
  threads: number;
  dedupeBufferSize: number;
  dedupeBufferLoadFactor: number;
  ioBufferSize: number;
  maxIoBytesPerSecond: number;
  backoffMs: number;
}

/** A compacted log as the cleaner sees it: the log, its partition and its topic's settings. */
export interface CompactedLog {
  key: string;
  topic: string;
  partition: number;
  log: JobLog & RetainedLog;
  config: CompactionConfig & { cleanupPolicyDelete: boolean; retentionMs: number; retentionBytes: number };
}

/** What the cleaner asks of a log beyond cleaning it: its producers, and retention. */
export interface RetainedLog extends CleanableLog {
  /** The idempotent producers the log knows, each with the last offset of its last batch. */
  producerState(): { describe(): { producerId: number; lastOffset: number }[] };
  deleteOldSegments(nowMs: number, cfg: { retentionMs: number; retentionBytes: number }): number;
  setCleanerCheckpoint(offset: number | null): void;
}

export interface LogCleanerHost {
  readonly brokerId: number;
  readonly scheduler: Scheduler;
  cleanerConfig(): CleanerRuntimeConfig;
  /** Every log this broker serves whose cleanup.policy has `compact`, in a stable order. */
  compactedLogs(): CompactedLog[];
  /** Whether `log` is still this broker's log of `key` (not removed, not replaced). */
  isCurrent(key: string, log: JobLog): boolean;
  /** Run `fn` after `ms` while this broker process lives. */
  after(ms: number, fn: () => void): TimerHandle;
  /** Retention moved a compacted log's start. */
  logStartMoved(key: string): void;
  emit(event: EngineEvent): void;
  readonly cleanedBatches: CleanedBatchWriter;
}

/** Each idempotent producer a log knows, with the last offset of its last batch (the cleaner keeps that batch). */
export function lastOffsetsOfProducers(log: Pick<RetainedLog, 'producerState'>): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of log.producerState().describe()) out.set(p.producerId, p.lastOffset);
  return out;
}

interface Thread {
  id: number;
  map: OffsetMap;
  mapBytes: number;
  job: { entry: CompactedLog; job: CleanJob } | null;
  stopped: boolean;
}

export class LogCleaner {
  private threads: Thread[] = [];
  private readonly inProgress = new Set<string>();
  private readonly uncleanable = new Map<string, string>();
  private readonly lastCleans = new Map<string, CleanSummary>();
  /** When the throttle lets the next step run (engine time). */
  private ioNextMs = 0;
  /** The dirtiest ratio seen at the last selection (Kafka's max-dirty-percent). */
  maxDirtyRatio = 0;
  /** When a cleaner last looked for a log (Kafka's time-since-last-run-ms), -1 before. */
  lastRunMs = -1;

  constructor(private readonly host: LogCleanerHost) {}

  startup(): void {
    this.threads = [];
    this.inProgress.clear();
    const cfg = this.host.cleanerConfig();
    if (!cfg.enable) return;
    for (let i = 0; i < Math.max(cfg.threads, 0); i++) this.addThread(i);
  }

  /** The process ends: every job stops where it is (its swapped groups stay, its checkpoint does not move). */
  shutdown(): void {
    for (const t of this.threads) t.stopped = true;
    this.threads = [];
    this.inProgress.clear();
  }

  private addThread(id: number): void {
    const t: Thread = { id, map: new OffsetMap(0), mapBytes: -1, job: null, stopped: false };
    this.threads.push(t);
    this.host.after(0, () => this.tick(t));
  }

  isInProgress(key: string): boolean {
    return this.inProgress.has(key);
  }

  uncleanableReason(key: string): string | undefined {
    return this.uncleanable.get(key);
  }

  /** How many partitions are marked uncleanable (Kafka's uncleanable-partitions-count). */
  get uncleanableCount(): number {
    return this.uncleanable.size;
  }

  lastClean(key: string): CleanSummary | undefined {
    return this.lastCleans.get(key);
  }

  /** What the cleaner knows of `key` (compaction-status.ts). */
  view(key: string): CleanerView {
    return {
      enabled: this.host.cleanerConfig().enable,
      inProgress: this.jobOf(key)?.phase === 'map' ? 'map' : this.jobOf(key) ? 'clean' : null,
      uncleanableReason: this.uncleanable.get(key) ?? null,
      lastClean: this.lastCleans.get(key) ?? null,
    };
  }

  /** The job a cleaner is running on `key`, if any (its phase and progress). */
  jobOf(key: string): CleanJob | undefined {
    for (const t of this.threads) if (t.job?.entry.key === key) return t.job.job;
    return undefined;
  }

  private tick(t: Thread): void {
    if (t.stopped) return;
    const cfg = this.host.cleanerConfig();
    if (!this.adjustThreads(t, cfg)) return;
    const now = this.host.scheduler.now();
    if (!t.job) {
      // One walk of the broker's compacted logs per idle turn (the list is empty on most brokers).
      const logs = this.host.compactedLogs();
      const grabbed = this.grabFilthiest(logs, now, cfg, t);
      if (!grabbed) {
        this.deleteOldSegments(logs, now);
        this.maintainUncleanable(logs);
        this.host.after(cfg.backoffMs, () => this.tick(t));
        return;
      }
      t.job = grabbed;
    }
    const { entry, job } = t.job;
    let bytes = 0;
    try {
      if (!this.host.isCurrent(entry.key, entry.log)) throw new CleanAbortedError('the replica left this broker');
      bytes = job.step(Math.max(1, Math.floor(cfg.ioBufferSize / Math.max(cfg.threads, 1) / 2)));
      if (job.done) this.doneCleaning(t, now);
    } catch (e) {
      t.job = null;
      this.inProgress.delete(entry.key);
      if (!(e instanceof CleanAbortedError)) this.markUncleanable(entry, e);
    }
    this.host.after(this.throttle(bytes, cfg, now), () => this.tick(t));
  }

  /** Follow a change of log.cleaner.threads (Kafka restarts its cleaners); false when `t` is no longer wanted. */
  private adjustThreads(t: Thread, cfg: CleanerRuntimeConfig): boolean {
    const wanted = cfg.enable ? Math.max(cfg.threads, 0) : 0;
    if (t.id >= wanted) {
      t.stopped = true;
      if (t.job) this.inProgress.delete(t.job.entry.key);
      this.threads = this.threads.filter((x) => x !== t);
      return false;
    }
    if (t.id === 0) for (let i = this.threads.length; i < wanted; i++) if (!this.threads.some((x) => x.id === i)) this.addThread(i);
    return true;
  }

  /** The delay before the next step: zero unless the shared throttle is behind. */
  private throttle(bytes: number, cfg: CleanerRuntimeConfig, now: number): number {
    const rate = cfg.maxIoBytesPerSecond;
    if (!(rate > 0) || !Number.isFinite(rate) || bytes <= 0) return 0;
    this.ioNextMs = Math.max(this.ioNextMs, now) + (bytes * 1000) / rate;
    // Whole milliseconds: the engine's clock ends up in record timestamps.
    return Math.max(0, Math.ceil(this.ioNextMs - now));
  }

  /** Kafka's grabFilthiestCompactedLog: the cleanable log with the highest dirty ratio, now in progress. */
  private grabFilthiest(logs: readonly CompactedLog[], now: number, cfg: CleanerRuntimeConfig, t: Thread): { entry: CompactedLog; job: CleanJob } | null {
    this.lastRunMs = now;
    let best: { entry: CompactedLog; ltc: LogToClean } | null = null;
    let maxRatio = 0;
    for (const entry of logs) {
      if (this.inProgress.has(entry.key) || this.uncleanable.has(entry.key)) continue;
      let ltc: LogToClean;
      try {
        ltc = logToClean(entry.log, now, entry.config);
        if (ltc.forceUpdateCheckpoint) entry.log.setCleanerCheckpoint(ltc.firstDirtyOffset);
      } catch (e) {
        this.markUncleanable(entry, e);
        continue;
      }
      if (ltc.totalBytes <= 0) continue;
      maxRatio = Math.max(maxRatio, ltc.cleanableRatio);
      if (!isCleanable(ltc, entry.config.minCleanableDirtyRatio)) continue;
      if (!best || ltc.cleanableRatio > best.ltc.cleanableRatio) best = { entry, ltc };
    }
    this.maxDirtyRatio = maxRatio;
    if (!best) return null;
    const memory = Math.min(Math.floor(cfg.dedupeBufferSize / Math.max(cfg.threads, 1)), 2 ** 31 - 1);
    if (t.mapBytes !== memory) {
      t.map = new OffsetMap(memory);
      t.mapBytes = memory;
    }
    const { entry, ltc } = best;
    try {
      const job = new CleanJob(entry.log, ltc, t.map, cfg.dedupeBufferLoadFactor, entry.config, this.host.cleanedBatches, now, () => lastOffsetsOfProducers(entry.log));
      this.inProgress.add(entry.key);
      return { entry, job };
    } catch (e) {
      this.markUncleanable(entry, e);
      return null;
    }
  }

  /** Kafka's doneCleaning: the checkpoint moves to where the cleaning ended. */
  private doneCleaning(t: Thread, now: number): void {
    const { entry, job } = t.job!;
    t.job = null;
    this.inProgress.delete(entry.key);
    entry.log.setCleanerCheckpoint(job.endOffset);
    const summary: CleanSummary = {
      startedAtMs: job.nowMs,
      finishedAtMs: now,
      firstDirtyOffset: job.toClean.firstDirtyOffset,
      endOffset: job.endOffset,
      cleanableRatio: job.toClean.cleanableRatio,
      stats: { ...job.stats },
    };
    this.lastCleans.set(entry.key, summary);
    const logs = this.host.compactedLogs();
    const s = job.stats;
    this.host.emit({
      type: 'log.cleaned',
      atMs: now,
      topic: entry.topic,
      partition: entry.partition,
      brokerId: this.host.brokerId,
      firstDirtyOffset: summary.firstDirtyOffset,
      endOffset: summary.endOffset,
      bytesRead: s.bytesRead,
      bytesWritten: s.bytesWritten,
      recordsRead: s.recordsRead,
      recordsWritten: s.recordsWritten,
      tombstonesRemoved: s.tombstonesRemoved,
      tombstonesKept: s.tombstonesKept,
    });
    this.deleteOldSegments(logs, now);
  }

  private markUncleanable(entry: CompactedLog, e: unknown): void {
    // A storage failure is the broker's (its only log directory is offline): not the cleaner's to swallow.
    if (e instanceof KafkaError && e.code === 'KAFKA_STORAGE_ERROR') throw e;
    const reason = e instanceof Error ? e.message : String(e);
    this.uncleanable.set(entry.key, reason);
    this.host.emit({ type: 'log.uncleanable', atMs: this.host.scheduler.now(), topic: entry.topic, partition: entry.partition, brokerId: this.host.brokerId, reason });
  }

  /** Kafka's deletableLogs: retention for compacted logs whose policy also has `delete`, none being cleaned. */
  private deleteOldSegments(logs: readonly CompactedLog[], now: number): void {
    for (const entry of logs) {
      if (!entry.config.cleanupPolicyDelete || this.inProgress.has(entry.key) || this.uncleanable.has(entry.key)) continue;
      const start = entry.log.logStartOffset;
      entry.log.deleteOldSegments(now, entry.config);
      if (entry.log.logStartOffset !== start) this.host.logStartMoved(entry.key);
    }
  }

  /** Forget uncleanable partitions and summaries of logs this broker no longer holds. */
  private maintainUncleanable(logs: readonly CompactedLog[]): void {
    if (this.uncleanable.size === 0 && this.lastCleans.size === 0) return;
    const present = new Set(logs.map((e) => e.key));
    for (const k of [...this.uncleanable.keys()]) if (!present.has(k)) this.uncleanable.delete(k);
    for (const k of [...this.lastCleans.keys()]) if (!present.has(k)) this.lastCleans.delete(k);
  }
}
