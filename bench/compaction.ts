/**
 * Log compaction benchmarks (issue 30), on real SQLite files:
 *
 * 1. Cleaner throughput: a compacted replica log of COMPACTION_MB MB of keyed 1 KiB records over
 *    KEYS keys (so most records are superseded), in segments of SEGMENT_MB MB, cleaned by the
 *    engine's CleanJob with Kafka's per-cleaner read buffer (256 KiB) from the first dirty offset
 *    to the active segment: MB of log cleaned (the bytes the cleaning read, Kafka's "MB of log
 *    processed") per second of wall time, against the raw SQLite write limit measured in the same
 *    run — the same encoded batches inserted into a fresh file in transactions of one segment.
 *
 * 2. A coordinator's load: one group with 1,000,000 commits to 100 partitions written to its
 *    `__consumer_offsets` partition (10,000 superseded commits per partition), loaded by its
 *    coordinator when its broker starts, before and after the log cleaner compacted that
 *    partition. The figure is the load after cleaning within the load before (ratio = before /
 *    after), with the records each read as context.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { CleanJob } from '../app/core/log/cleaner/clean-job.js';
import { logToClean } from '../app/core/log/cleaner/cleanable.js';
import { lastOffsetsOfProducers } from '../app/core/log/cleaner/log-cleaner.js';
import { OffsetMap } from '../app/core/log/cleaner/offset-map.js';
import { PartitionLog } from '../app/core/log/partition-log.js';
import type { LogRecord } from '../app/core/log/records.js';
import { OFFSETS_TOPIC } from '../app/core/engine.js';
import { groupRecordCodec } from '../app/protocol/group-records.js';
import { createCleanedBatchWriter } from '../app/protocol/records/cleaned-batch-writer.js';
import { encodeRecordBatch } from '../app/protocol/records/record-batch.js';
import { Simulation } from '../app/sim/simulation.js';
import { SqliteStorage } from '../app/storage/sqlite-storage.js';
import { makeTempDir, removeTempDir } from './produce-throughput.js';

export const COMPACTION_MB = 64;
export const SEGMENT_MB = 8;
export const KEYS = 2_000;
const VALUE_BYTES = 1024;
const RECORDS_PER_BATCH = 16;
/** Kafka's per-cleaner read buffer with one thread: log.cleaner.io.buffer.size / threads / 2. */
const READ_BUFFER = 256 * 1024;
/** Kafka's dedupe buffer with one thread, at its default load factor. */
const DEDUPE_BYTES = 128 * 1024 * 1024;

export const LOAD_COMMITS = 1_000_000;
export const LOAD_PARTITIONS = 100;
const COMMITS_PER_BATCH = 1_000;

export interface CleanerThroughput {
  /** MB (10^6 bytes) of log the cleaning read, per second of wall time. */
  cleanedMbPerSec: number;
  /** MB per second the raw limit inserted. */
  rawMbPerSec: number;
  logMb: number;
  keptMb: number;
  elapsedMs: number;
  cpuMs: number;
  steps: number;
  recordsRead: number;
  recordsKept: number;
}

function cpuMs(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

export function measureCleanerThroughput(): CleanerThroughput {
  const dir = makeTempDir('replica-bench-compaction-');
  const storage = SqliteStorage.open(dir);
  try {
    const log = new PartitionLog(storage.broker(1).replica('compacted:0'), 0);
    const roll = { segmentBytes: SEGMENT_MB * 1_000_000, segmentMs: Infinity };
    const values = Array.from({ length: 64 }, () => new Uint8Array(randomBytes(VALUE_BYTES)));
    const encoder = new TextEncoder();
    const encoded: Buffer[] = [];
    let n = 0;
    while (log.sizeBytes() < COMPACTION_MB * 1_000_000) {
      const records: LogRecord[] = Array.from({ length: RECORDS_PER_BATCH }, () => {
        const i = n++;
        return { key: encoder.encode(`key-${i % KEYS}`), value: values[i % values.length]!, headers: [], timestamp: 1 };
      });
      storage.batch(() => {
        const b = log.appendAsLeader(records, 0, 1, roll);
        encoded.push(Buffer.from(encodeRecordBatch(b)));
      });
    }
    log.rollActiveSegment(1);
    log.maybeIncreaseHighWatermark(log.logEndOffset);
    log.flush(1);
    const logBytes = log.sizeBytes();
    const ltc = logToClean(log, 1, { minCleanableDirtyRatio: 0.5, minCompactionLagMs: 0, maxCompactionLagMs: Infinity, deleteRetentionMs: 86_400_000, segmentBytes: roll.segmentBytes, maxMessageBytes: 1_048_588 });
    const job = new CleanJob(log, ltc, new OffsetMap(DEDUPE_BYTES), 0.9, { minCleanableDirtyRatio: 0.5, minCompactionLagMs: 0, maxCompactionLagMs: Infinity, deleteRetentionMs: 86_400_000, segmentBytes: roll.segmentBytes, maxMessageBytes: 1_048_588 }, createCleanedBatchWriter(), 1, () => lastOffsetsOfProducers(log));
    const cpu = process.cpuUsage();
    const started = performance.now();
    let steps = 0;
    while (!job.done) {
      job.step(READ_BUFFER);
      steps++;
    }
    const elapsedMs = performance.now() - started;
    const cleanCpuMs = cpuMs(cpu);
    const raw = rawWriteLimit(dir, encoded, Math.ceil((SEGMENT_MB * 1_000_000) / encoded[0]!.length));
    return {
      cleanedMbPerSec: job.stats.bytesRead / 1e6 / (elapsedMs / 1000),
      rawMbPerSec: raw,
      logMb: logBytes / 1e6,
      keptMb: log.sizeBytes() / 1e6,
      elapsedMs,
      cpuMs: cleanCpuMs,
      steps,
      recordsRead: job.stats.recordsRead,
      recordsKept: job.stats.recordsWritten,
    };
  } finally {
    storage.close();
    removeTempDir(dir);
  }
}

/** The raw SQLite write limit: the same encoded batches into a fresh file, a segment per transaction (WAL, synchronous NORMAL). */
function rawWriteLimit(dir: string, batches: readonly Buffer[], perTransaction: number): number {
  const db = new BetterSqlite3(join(dir, 'raw.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec('CREATE TABLE batches (replica INTEGER NOT NULL, base_offset INTEGER NOT NULL, last_offset INTEGER NOT NULL, leader_epoch INTEGER NOT NULL, append_time INTEGER NOT NULL, max_timestamp INTEGER NOT NULL, size INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (replica, base_offset))');
    const insert = db.prepare('INSERT INTO batches VALUES (1, ?, ?, 0, 1, 1, ?, ?)');
    let bytes = 0;
    const started = performance.now();
    for (let i = 0; i < batches.length; i += perTransaction) {
      db.exec('BEGIN');
      for (let j = i; j < Math.min(batches.length, i + perTransaction); j++) {
        const data = batches[j]!;
        insert.run(j * RECORDS_PER_BATCH, j * RECORDS_PER_BATCH + RECORDS_PER_BATCH - 1, data.length, data);
        bytes += data.length;
      }
      db.exec('COMMIT');
    }
    return bytes / 1e6 / ((performance.now() - started) / 1000);
  } finally {
    db.close();
  }
}

export interface CoordinatorLoad {
  beforeMs: number;
  afterMs: number;
  recordsBefore: number;
  recordsAfter: number;
  cleanMs: number;
}

/** One broker's cluster on SQLite, one group with LOAD_COMMITS commits; load before and after cleaning. */
export function measureCoordinatorLoad(log: (line: string) => void = () => {}): CoordinatorLoad {
  const dir = makeTempDir('replica-bench-offsets-');
  const storage = SqliteStorage.open(dir);
  try {
    const sim = new Simulation({ seed: 30, brokers: 1, storage, staticConfigs: { 'offsets.topic.num.partitions': '1', 'offsets.topic.replication.factor': '1', 'log.cleaner.enable': 'false' } });
    const groupId = 'bench-group';
    // The first FindCoordinator creates __consumer_offsets (RF 1 on the one broker).
    storage.batch(() => sim.waitFor(() => {
      let found = false;
      sim.engine.groupRequest(1, { api: 'findCoordinator', keyType: 0, keys: [groupId] }, (a) => (found = a.kind === 'response' && a.response.coordinators[0]!.errorCode === 'NONE'));
      sim.advance(200);
      return found;
    }, 60_000, 'a coordinator'));
    const replica = () => sim.internals.brokers.get(1)!.partitionFor(OFFSETS_TOPIC, 0)!;
    const roll = { segmentBytes: 100 * 1024 * 1024, segmentMs: Infinity };
    for (let written = 0; written < LOAD_COMMITS; written += COMMITS_PER_BATCH) {
      const records: LogRecord[] = Array.from({ length: COMMITS_PER_BATCH }, (_, i) => ({
        key: groupRecordCodec.offsetCommitKey(groupId, 'events', (written + i) % LOAD_PARTITIONS),
        value: groupRecordCodec.offsetCommitValue({ offset: written + i, leaderEpoch: 0, metadata: '', commitTimestampMs: sim.now, expireTimestampMs: null }),
        headers: [],
        timestamp: sim.now,
      }));
      storage.batch(() => {
        const p = replica();
        p.log.appendAsLeader(records, p.leaderEpoch, sim.now, roll);
        p.log.maybeIncreaseHighWatermark(p.log.logEndOffset);
      });
    }
    const timeLoad = (): number => {
      storage.batch(() => {
        sim.engine.stopBroker(1);
        sim.waitFor(() => sim.engine.listBrokers()[0]!.state === 'stopped', 60_000, 'the broker to stop');
      });
      const loads = sim.eventsOf('coordinator.loaded').length;
      const started = performance.now();
      storage.batch(() => {
        sim.engine.startBroker(1);
        sim.waitFor(() => sim.eventsOf('coordinator.loaded').length > loads, 120_000, 'the coordinator to load');
      });
      return performance.now() - started;
    };
    const recordsBefore = replica().log.logEndOffset;
    const beforeMs = timeLoad();
    log(`loaded ${recordsBefore.toLocaleString('en-US')} commits in ${Math.round(beforeMs)} ms`);
    // Clean the partition as its broker's cleaner would (the cleaner is off so the first load saw every commit).
    const p = replica();
    const cleanStarted = performance.now();
    storage.batch(() => {
      p.log.rollActiveSegment(sim.now);
      const cfg = { minCleanableDirtyRatio: 0.5, minCompactionLagMs: 0, maxCompactionLagMs: Infinity, deleteRetentionMs: 86_400_000, segmentBytes: roll.segmentBytes, maxMessageBytes: 1_048_588 };
      const job = new CleanJob(p.log, logToClean(p.log, sim.now, cfg), new OffsetMap(DEDUPE_BYTES), 0.9, cfg, createCleanedBatchWriter(), sim.now, () => lastOffsetsOfProducers(p.log));
      while (!job.done) job.step(READ_BUFFER);
      p.log.setCleanerCheckpoint(job.endOffset);
    });
    const cleanMs = performance.now() - cleanStarted;
    let recordsAfter = 0;
    for (const b of replica().log.read(0, replica().log.logEndOffset, Number.MAX_SAFE_INTEGER)) recordsAfter += b.records.length;
    const afterMs = timeLoad();
    log(`cleaned in ${Math.round(cleanMs)} ms to ${recordsAfter.toLocaleString('en-US')} records; loaded in ${Math.round(afterMs)} ms`);
    return { beforeMs, afterMs, recordsBefore, recordsAfter, cleanMs };
  } finally {
    storage.close();
    removeTempDir(dir);
  }
}
