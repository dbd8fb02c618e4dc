/**
 * WAL checkpoints of the broker files on a worker thread, beside the engine rather than in it.
 *
 * A checkpoint copies what the WAL holds into the database file and, with synchronous NORMAL,
 * fsyncs both. Run on the engine's thread (a timer ~100 ms after a commit, sqlite-file.ts), it
 * takes a large share of that thread's time under produce load, much of it waiting for the disk,
 * during which no broker does anything. Kafka
 * writes to its logs on the request threads and leaves flushing to the OS and to threads of its
 * own; here a worker thread opens its own connection to the file, runs `wal_checkpoint(PASSIVE)`
 * (which never takes the writer's lock, so the engine's commits go on meanwhile) and closes it.
 * Produce gains more throughput than it pays in CPU per record (the WAL grows to
 * WAL_SAFETY_PAGES before it starts over, see sqlite-file.ts); the figures are in
 * docs/performance.md.
 *
 * What needs it: a file opened without SQLite's exclusive locking mode (another connection can
 * then open it; sqlite-file.ts keeps the data directory's lock on `metadata.db`). What the engine
 * sees: nothing — it asks (`request`), and a file already being checkpointed is not asked again.
 * Whether a request is still in flight is shared memory, not a message, so a thread that never
 * yields (the produce benchmark's loop) still sees it end. `drain` waits (blocking, bounded) for
 * the requests in flight, which `close` does before the files close, so a closed storage leaves
 * no connection of the worker behind.
 *
 * The worker starts on the first request and stops after `idleMs` without one: a quiet cluster's
 * WAL seldom reaches the checkpoint size, so it costs no thread and no memory while idle. If the
 * worker cannot start or dies, `request` answers false and the caller checkpoints inline, as
 * before.
 *
 * The worker's code is a string (eval), not a module: the engine runs from one bundle (esbuild
 * for Node, vite for Electron's utility process), and a second entry file would have to follow it
 * into both. It loads better-sqlite3 from the path this module resolves.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Slots for files (a data directory holds one file per broker); beyond it, checkpoints run inline. */
const SLOTS = 4_096;
/** How long the worker may sit without a request before it stops. */
export const DEFAULT_IDLE_MS = 10_000;
/** The longest `close` waits for a checkpoint in flight (a stalled disk must not hang a close forever). */
const DRAIN_MS = 30_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlitePath);
const flags = new Int32Array(workerData.flags);
parentPort.on('message', (m) => {
  try {
    const db = new Database(m.path, { fileMustExist: true, timeout: 0 });
    try { db.pragma('wal_checkpoint(PASSIVE)'); } finally { db.close(); }
  } catch (e) {
    // e.g. the disk is full, or the file went away: the WAL keeps the data; a later commit asks again.
  }
  Atomics.store(flags, m.slot, 0);
  Atomics.sub(flags, 0, 1);
  Atomics.notify(flags, 0);
});
`;

export interface WalCheckpointerOptions {
  idleMs?: number;
  /** better-sqlite3's entry file for the worker (tests give a wrong one to see the fallback). */
  sqlitePath?: string;
}

export class WalCheckpointer {
  /** [0]: requests in flight; [slot]: 1 while that file's checkpoint is in flight. */
  private readonly flags = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  private readonly slots = new Map<string, number>();
  private worker: Worker | null = null;
  private broken = false;
  private idleTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly idleMs: number;
  private readonly sqlitePath: string | undefined;
  /** Checkpoints handed to the worker (tests and the benchmark read it). */
  requested = 0;

  constructor(options: WalCheckpointerOptions = {}) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.sqlitePath = options.sqlitePath;
  }

  /** Whether a worker thread is running now. */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Requests not finished yet. */
  get inFlight(): number {
    return Atomics.load(this.flags, 0);
  }

  /**
   * Ask for a PASSIVE checkpoint of the file at `path` on the worker. True when it is asked or
   * already in flight; false when the caller should checkpoint inline (no worker can run).
   */
  request(path: string): boolean {
    if (this.broken) return false;
    let slot = this.slots.get(path);
    if (slot === undefined) {
      if (this.slots.size >= SLOTS - 1) return false;
      slot = this.slots.size + 1;
      this.slots.set(path, slot);
    }
    if (Atomics.load(this.flags, slot) !== 0) return true;
    const worker = this.worker ?? this.start();
    if (!worker) return false;
    Atomics.store(this.flags, slot, 1);
    Atomics.add(this.flags, 0, 1);
    worker.postMessage({ path, slot });
    this.requested++;
    this.armIdle();
    return true;
  }

  /** Block until no checkpoint is in flight, at most `timeoutMs`; false if some still are. */
  drain(timeoutMs = DRAIN_MS): boolean {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const n = Atomics.load(this.flags, 0);
      if (n <= 0) return true;
      const left = until - Date.now();
      if (left <= 0) return false;
      Atomics.wait(this.flags, 0, n, left);
    }
  }

  /** Wait for the checkpoints in flight, then stop the worker. */
  close(): void {
    this.drain();
    this.stop();
    this.broken = true;
  }

  private start(): Worker | null {
    try {
      const sqlitePath = this.sqlitePath ?? createRequire(import.meta.url).resolve('better-sqlite3');
      // No inherited Node options: the source is CommonJS (`--input-type=module` would make it
      // an ES module without require), and it needs no loader (`--import tsx`).
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        execArgv: [],
        workerData: { sqlitePath, flags: this.flags.buffer },
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
      });
      // The worker never keeps the process alive: a pending checkpoint is only an optimisation.
      worker.unref();
      worker.on('error', () => this.fail(worker));
      worker.on('exit', () => this.fail(worker));
      this.worker = worker;
      return worker;
    } catch {
      this.broken = true;
      return null;
    }
  }

  /** The worker died or exited: what it had in flight will not finish; checkpoint inline from now on. */
  private fail(worker: Worker): void {
    if (this.worker !== worker) return; // stopped on purpose
    this.worker = null;
    this.broken = true;
    this.flags.fill(0);
    Atomics.notify(this.flags, 0);
  }

  private stop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    void worker.terminate();
  }

  private armIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      // Still busy: look again later rather than cut a checkpoint short.
      if (this.inFlight > 0) this.armIdle();
      else this.stop();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
