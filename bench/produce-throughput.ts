/**
 * Produce throughput of the engine on SQLite, next to the raw SQLite limit measured in the same
 * run (issue 3).
 *
 * Engine: a 3-broker cluster on SqliteStorage (WAL, synchronous NORMAL) in a temp dir, one
 * partition with RF=3 and min.insync.replicas=2. The producer sends acks=all requests of
 * RECORDS_PER_REQUEST records and keeps MAX_IN_FLIGHT requests outstanding (Kafka's
 * max.in.flight.requests.per.connection = 5). The clock is driven as fast as possible: between
 * steps the producer tops its requests up (as a client thread would), then one step runs every
 * task due by the wall clock (virtual ms = real ms, never waiting) inside `storage.batch(...)`,
 * which is how the hosts drive the scheduler: one transaction per file per step.
 *
 * Raw limit: three better-sqlite3 files with the same pragmas as the storage's broker files (WAL,
 * synchronous NORMAL, page cache, checkpoints on a worker thread at the storage's cadence) and the same schema (`migrate(db, 'broker')`), inserting the same encoded batches into
 * each of the three files with the same INSERT the storage uses, grouped into transactions of the
 * size the engine achieved (its measured average batches per transaction per file).
 *
 * Both get the same wall time after a warm-up, in alternating slices so that a busy machine
 * slows both alike. Records are counted once (not once per replica) and MB/s counts record value
 * bytes (1 MB = 10^6 bytes).
 */
import BetterSqlite3, { type Database } from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { LogRecord, RecordBatch } from '../app/core/log/records.js';
import { estimateBatchSize } from '../app/core/log/records.js';
import { Simulation } from '../app/sim/simulation.js';
import { migrate } from '../app/storage/migrations.js';
import { encodeRecordBatch } from '../app/storage/record-batch-codec.js';
import { checkpointIfFull, DEFAULT_CACHE_KIB, DEFAULT_CHECKPOINT_DELAY_MS, WAL_SAFETY_PAGES, type SqliteFile } from '../app/storage/sqlite-file.js';
import { SqliteStorage } from '../app/storage/sqlite-storage.js';
import { WalCheckpointer } from '../app/storage/wal-checkpointer.js';

export const RECORDS_PER_REQUEST = 100;
export const MAX_IN_FLIGHT = 5;
export const REPLICATION_FACTOR = 3;
export const MIN_INSYNC_REPLICAS = 2;
const TOPIC = 'bench';
/** Distinct value buffers cycled through (incompressible random bytes). */
const VALUE_POOL = 1024;

export interface WindowOptions {
  warmupMs: number;
  windowMs: number;
}

/**
 * A warm-up is over once it has run `warmupMs` of wall time and the engine has had this much CPU
 * time (its JIT compiles most of the hot path by then): on a busy machine, where the engine may get
 * a fifth of a core, a second of wall time left it compiling through the window. Bounded by
 * WARMUP_MAX_MS of wall time.
 */
export const WARMUP_CPU_MS = 1_500;
export const WARMUP_MAX_MS = 20_000;

export interface Throughput {
  records: number;
  valueBytes: number;
  elapsedMs: number;
  recordsPerSec: number;
  mbPerSec: number;
}

export interface EngineResult extends Throughput {
  requests: number;
  errors: number;
  steps: number;
  /** Batch inserts into the three broker files during the window (3 per acked request). */
  batchInserts: number;
  /** Transactions committed on the three broker files during the window. */
  transactions: number;
  batchesPerTransaction: number;
}

/** Temp directories this process created, removed at the end (or on exit). */
const tempDirs = new Set<string>();

export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** Best effort, for exit paths: a file still open (Windows) keeps its directory. */
export function removeAllTempDirs(): void {
  for (const dir of [...tempDirs]) {
    try {
      removeTempDir(dir);
    } catch (e) {
      console.error(`could not remove ${dir}: ${(e as Error).message}`);
    }
  }
}

function valuePool(valueSize: number): Uint8Array[] {
  return Array.from({ length: VALUE_POOL }, () => new Uint8Array(randomBytes(valueSize)));
}

/** Record arrays of RECORDS_PER_REQUEST records over the value pool (records are never mutated, so they can be sent again). */
function requestPool(valueSize: number, timestamp: number): LogRecord[][] {
  const values = valuePool(valueSize);
  return Array.from({ length: VALUE_POOL / 8 }, (_, b) =>
    Array.from({ length: RECORDS_PER_REQUEST }, (_, i) => ({ key: null, value: values[(b * RECORDS_PER_REQUEST + i) % VALUE_POOL]!, headers: [], timestamp })),
  );
}

function throughput(records: number, valueSize: number, elapsedMs: number): Throughput {
  const valueBytes = records * valueSize;
  return { records, valueBytes, elapsedMs, recordsPerSec: (records * 1000) / elapsedMs, mbPerSec: valueBytes / 1e6 / (elapsedMs / 1000) };
}

/** Wall-clock time spent in a phase and what it produced. */
interface Tally {
  records: number;
  elapsedMs: number;
  /** CPU time of this process (user + system) in the phase: a diagnostic on a busy machine. */
  cpuMs: number;
}

function cpuMsSince(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
}

/**
 * The storage looks at each file's WAL about DEFAULT_CHECKPOINT_DELAY_MS after a commit and
 * checkpoints it once it holds CHECKPOINT_AT_BYTES (sqlite-file.ts). Engine and raw limit both
 * do so at that cadence of their own running time, inside their windows.
 */
class CheckpointCadence {
  private last = 0;
  constructor(private readonly run: () => void) {}
  tick(ranMs: number): void {
    if (ranMs - this.last < DEFAULT_CHECKPOINT_DELAY_MS) return;
    this.last = ranMs;
    this.run();
  }
}

/**
 * The engine side: RF=3, acks=all, min.insync.replicas=2 on SQLite. `runFor` drives it for a
 * slice of wall time; the cluster and its producer persist between slices, so engine and raw
 * slices can alternate (a noisy machine then slows both alike).
 */
export class EngineBench {
  readonly dir = makeTempDir('replica-bench-engine-');
  // The storage's background checkpoint is a timer; it would fire between slices, outside both
  // windows, so the bench runs it itself, inside the engine's window, at the storage's cadence.
  private readonly storage = SqliteStorage.open(this.dir, { synchronous: 'NORMAL', checkpointDelayMs: 2 ** 31 - 1 });
  private readonly checkpoints = new CheckpointCadence(() => this.storage.checkpointNow());
  private readonly sim: Simulation;
  private readonly leader: number;
  /** Prebuilt requests, cycled: the client's record building is not what is measured. */
  private readonly requests: LogRecord[][];
  private next = 0;
  private outstanding = 0;
  /** Running counters (never reset); windows are differences of snapshots. */
  private acked = { records: 0, requests: 0, errors: 0, steps: 0, transactions: 0 };
  /** Virtual time at the first step, and wall ms the engine has run since (pauses excluded). */
  private v0 = -1;
  private ranMs = 0;

  constructor(valueSize: number) {
    try {
      this.sim = new Simulation({ seed: 1, storage: this.storage, brokers: 3 });
      this.sim.createTopic(TOPIC, 1, REPLICATION_FACTOR, { 'min.insync.replicas': String(MIN_INSYNC_REPLICAS) });
      this.leader = this.sim.partition(TOPIC, 0).leader;
    } catch (e) {
      this.close();
      throw e;
    }
    // Count transactions on the broker files: a file joins a storage batch once per transaction.
    const brokerFiles = new Set([1, 2, 3].map((id) => this.storage.brokerFile(id)));
    const joined = this.storage.joined.bind(this.storage);
    this.storage.joined = (file: SqliteFile): void => {
      if (brokerFiles.has(file.path)) this.acked.transactions++;
      joined(file);
    };
    this.requests = requestPool(valueSize, Math.max(1, this.sim.now));
  }

  /** Batches in the three replica logs (each acked request is one batch per replica). */
  private batchesStored(): number {
    let offsets = 0;
    for (const id of [1, 2, 3]) offsets += this.sim.internals.brokers.get(id)!.partitionFor(TOPIC, 0)?.log.logEndOffset ?? 0;
    return offsets / RECORDS_PER_REQUEST;
  }

  snapshot(): EngineSnapshot {
    return { ...this.acked, batches: this.batchesStored() };
  }

  private send(): void {
    const records = this.requests[this.next++ % this.requests.length]!;
    this.outstanding++;
    this.sim.engine.produce({ topic: TOPIC, partition: 0, acks: 'all', records, timeoutMs: 30_000 }, (r) => {
      this.outstanding--;
      if (r.errorCode === 'NONE') {
        this.acked.records += RECORDS_PER_REQUEST;
        this.acked.requests++;
      } else this.acked.errors++;
    });
  }

  /** Produce for `ms` of wall time; returns the records acked meanwhile. */
  runFor(ms: number): Tally {
    const started = performance.now();
    const cpu = process.cpuUsage();
    if (this.v0 < 0) this.v0 = this.sim.now;
    const before = this.acked.records;
    const until = started + ms;
    for (;;) {
      const now = performance.now();
      if (now >= until) break;
      while (this.outstanding < MAX_IN_FLIGHT) this.send();
      // Virtual ms follow the wall ms this engine has run (integers; time spent in raw slices
      // does not count), so heartbeats and other periodic tasks run at their real rate.
      const target = Math.max(this.sim.now, this.v0 + Math.floor(this.ranMs + (now - started)));
      this.storage.batch(() => this.sim.scheduler.advanceTo(target));
      this.acked.steps++;
      this.checkpoints.tick(this.ranMs + (performance.now() - started));
    }
    const elapsedMs = performance.now() - started;
    this.ranMs += elapsedMs;
    if (this.sim.partition(TOPIC, 0).leader !== this.leader) throw new Error('the partition changed leader during the benchmark');
    return { records: this.acked.records - before, elapsedMs, cpuMs: cpuMsSince(cpu) };
  }

  close(): void {
    this.storage.close();
    removeTempDir(this.dir);
  }
}

export interface EngineSnapshot {
  records: number;
  requests: number;
  errors: number;
  steps: number;
  transactions: number;
  batches: number;
}

export function engineWindow(valueSize: number, elapsedMs: number, a: EngineSnapshot, b: EngineSnapshot): EngineResult {
  const batchInserts = b.batches - a.batches;
  const transactions = b.transactions - a.transactions;
  return {
    ...throughput(b.records - a.records, valueSize, elapsedMs),
    requests: b.requests - a.requests,
    errors: b.errors - a.errors,
    steps: b.steps - a.steps,
    batchInserts,
    transactions,
    batchesPerTransaction: transactions > 0 ? batchInserts / transactions : 0,
  };
}

interface RawFile {
  path: string;
  db: Database;
  insert: BetterSqlite3.Statement;
  replica: number;
}

function openRawFile(path: string): RawFile {
  const db = new BetterSqlite3(path, { timeout: 0 });
  // The pragmas of SqliteFile's broker files: WAL, synchronous NORMAL, its page cache, and its
  // checkpoints (on a worker thread, which RawLimitBench asks at the same cadence).
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`cache_size = -${DEFAULT_CACHE_KIB}`);
  db.pragma(`wal_autocheckpoint = ${WAL_SAFETY_PAGES}`);
  db.pragma('journal_size_limit = 0');
  migrate(db, 'broker', path);
  const replica = Number(db.prepare("INSERT INTO replicas (key) VALUES ('bench:0')").run().lastInsertRowid);
  const insert = db.prepare(
    'INSERT INTO batches (replica, base_offset, last_offset, leader_epoch, append_time, max_timestamp, size, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  return { path, db, insert, replica };
}

/**
 * The raw limit: the same encoded batches inserted once into each of three files, in
 * transactions of `batchesPerTransaction` batches (a fractional average is met over the run).
 * Batches are encoded up front: this measures SQLite, not the codec.
 */
export class RawLimitBench {
  readonly dir = makeTempDir('replica-bench-raw-');
  private readonly files: RawFile[] = [];
  private readonly encoded: Buffer[] = [];
  private offset = 0;
  private batches = 0;
  private carry = 0;
  private ranMs = 0;
  private readonly checkpointer = new WalCheckpointer();
  private readonly checkpoints = new CheckpointCadence(() => {
    for (const f of this.files) checkpointIfFull(f.db, f.path, (p) => this.checkpointer.request(p));
  });

  constructor(
    valueSize: number,
    private readonly batchesPerTransaction: number,
  ) {
    try {
      for (const id of [1, 2, 3]) this.files.push(openRawFile(join(this.dir, `broker-${id}.db`)));
    } catch (e) {
      this.close();
      throw e;
    }
    for (const [b, records] of requestPool(valueSize, 1).entries()) {
      const batch: RecordBatch = {
        baseOffset: b * RECORDS_PER_REQUEST,
        lastOffset: (b + 1) * RECORDS_PER_REQUEST - 1,
        leaderEpoch: 0,
        appendTimeMs: 1,
        records,
        sizeBytes: estimateBatchSize(records),
      };
      this.encoded.push(encodeRecordBatch(batch));
    }
  }

  runFor(ms: number): Tally {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const before = this.batches;
    const perTxn = Math.max(1, this.batchesPerTransaction);
    while (performance.now() < started + ms) {
      this.carry += perTxn;
      const n = Math.max(1, Math.floor(this.carry));
      this.carry -= n;
      for (const f of this.files) {
        f.db.exec('BEGIN');
        for (let i = 0; i < n; i++) {
          const data = this.encoded[(this.batches + i) % this.encoded.length]!;
          const base = this.offset + i * RECORDS_PER_REQUEST;
          f.insert.run(f.replica, base, base + RECORDS_PER_REQUEST - 1, 0, 1, 1, data.length, data);
        }
        f.db.exec('COMMIT');
      }
      this.offset += n * RECORDS_PER_REQUEST;
      this.batches += n;
      this.checkpoints.tick(this.ranMs + (performance.now() - started));
    }
    this.ranMs += performance.now() - started;
    return { records: (this.batches - before) * RECORDS_PER_REQUEST, elapsedMs: performance.now() - started, cpuMs: cpuMsSince(cpu) };
  }

  close(): void {
    this.checkpointer.close();
    for (const f of this.files) f.db.close();
    removeTempDir(this.dir);
  }
}

export interface ProduceMeasurement {
  engine: EngineResult;
  raw: Throughput;
  /** Batches per transaction per file the raw limit used (the engine's, from its warm-up). */
  rawBatchesPerTransaction: number;
  /**
   * The same throughputs per second of this process's CPU time, and the share of wall time each
   * got the CPU: on a busy machine this shows whether the wall-time ratio is the code or the load.
   */
  cpu: { engineRecordsPerCpuSec: number; rawRecordsPerCpuSec: number; engineCpuShare: number; rawCpuShare: number };
}

/**
 * Engine and raw limit for one value size: warm both up, then alternate slices of each until
 * both have run `windowMs`. The raw limit uses the grouping the engine reached in its warm-up;
 * the window's own grouping is reported next to it.
 */
export async function measureProduce(valueSize: number, window: WindowOptions, sliceMs = 250): Promise<ProduceMeasurement> {
  const engine = new EngineBench(valueSize);
  let raw: RawLimitBench | null = null;
  try {
    const w0 = engine.snapshot();
    const warm = { wallMs: 0, cpuMs: 0 };
    while (warm.wallMs < window.warmupMs || (warm.cpuMs < WARMUP_CPU_MS && warm.wallMs < WARMUP_MAX_MS)) {
      const t = engine.runFor(Math.min(sliceMs, Math.max(1, window.warmupMs - warm.wallMs)));
      warm.wallMs += t.elapsedMs;
      warm.cpuMs += t.cpuMs;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const w1 = engine.snapshot();
    const grouping = (w1.batches - w0.batches) / Math.max(1, w1.transactions - w0.transactions);
    raw = new RawLimitBench(valueSize, grouping);
    raw.runFor(window.warmupMs / 2);
    const e: Tally = { records: 0, elapsedMs: 0, cpuMs: 0 };
    const r: Tally = { records: 0, elapsedMs: 0, cpuMs: 0 };
    const start = engine.snapshot();
    while (e.elapsedMs < window.windowMs || r.elapsedMs < window.windowMs) {
      if (e.elapsedMs < window.windowMs) add(e, engine.runFor(Math.min(sliceMs, window.windowMs - e.elapsedMs)));
      if (r.elapsedMs < window.windowMs) add(r, raw.runFor(Math.min(sliceMs, window.windowMs - r.elapsedMs)));
      // Let signals and the watchdog in between slices.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const result = engineWindow(valueSize, e.elapsedMs, start, engine.snapshot());
    return {
      engine: result,
      raw: throughput(r.records, valueSize, r.elapsedMs),
      rawBatchesPerTransaction: grouping,
      cpu: { engineRecordsPerCpuSec: (e.records * 1000) / e.cpuMs, rawRecordsPerCpuSec: (r.records * 1000) / r.cpuMs, engineCpuShare: e.cpuMs / e.elapsedMs, rawCpuShare: r.cpuMs / r.elapsedMs },
    };
  } finally {
    engine.close();
    raw?.close();
  }
}

function add(total: Tally, part: Tally): void {
  total.records += part.records;
  total.elapsedMs += part.elapsedMs;
  total.cpuMs += part.cpuMs;
}

/** SQLite's version as better-sqlite3 links it. */
export function sqliteVersion(): string {
  const db = new BetterSqlite3(':memory:');
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}
