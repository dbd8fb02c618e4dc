/**
 * The crash host: a child program that hosts a 3-broker cluster on a SQLite data directory and
 * produces acks=all as fast as it can, so that `crash-recovery.test.ts` can SIGKILL it at any
 * moment and check what the directory kept.
 *
 *   node --import tsx app/sim/crash-host.ts <dataDir> <seed>
 *
 * It opens (or creates) topic `acked` (3 partitions, RF=3, min.insync.replicas=2), runs the
 * virtual clock until every broker runs and every partition has a leader, prints `{"ready":true}`
 * and then loops: one step = `storage.batch(() => scheduler.advanceTo(next due time))`, with
 * `setImmediate` between steps so the event loop turns (and stdout drains) between commits.
 *
 * Durability contract (the point of the program): an acknowledgement is written to stdout only
 * after the storage batch in which the client received it has committed. Produce callbacks run
 * inside `advanceTo`, so they only queue their lines; the step prints them once `batch` returned.
 * Node documents pipe stdout as asynchronous on POSIX, but libuv tries the write(2) at once and
 * only queues what the pipe cannot take; with the parent reading and a `setImmediate` between
 * steps, every line leaves in the `write` call itself (measured: `writableLength` stays 0). A line
 * still queued when the kill lands is lost, which only means one acknowledgement fewer to check.
 *
 * Output, one JSON object per line:
 *   {"opened":true,"nowMs":…}                       storage open, engine built (nothing started)
 *   {"ready":true,"nowMs":…,"created":bool}         cluster up, topic has leaders
 *   {"ack":{"partition":p,"baseOffset":o,"values":[…]}}   records values[i] at offset o+i, acked
 *   {"error":{"partition":p,"errorCode":"…","values":[…]}} a produce that failed (not acked)
 *   {"fatal":"…"}                                    an exception; the process exits with 1
 */
import esMain from 'es-main';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import { seededRandom } from '../core/random.js';
import { Simulation, textRecord } from './simulation.js';

export const CRASH_TOPIC = 'acked';
export const CRASH_PARTITIONS = 3;
export const CRASH_TOPIC_CONFIGS: Readonly<Record<string, string>> = { 'min.insync.replicas': '2' };

/** A line the host writes to stdout. */
export type CrashHostLine =
  | { opened: true; nowMs: number }
  | { ready: true; nowMs: number; created: boolean }
  | { ack: { partition: number; baseOffset: number; values: string[] } }
  | { error: { partition: number; errorCode: string; values: string[] } }
  | { fatal: string };

/** Produce requests kept in flight at once. */
const IN_FLIGHT = 6;
/** Virtual time allowed for start-up (the old broker sessions must expire first: 9 s). */
const STARTUP_BUDGET_MS = 120_000;

function emit(line: CrashHostLine): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

export function runCrashHost(dataDir: string, seed: number): void {
  const storage = SqliteStorage.open(dataDir);
  const sim = storage.batch(() => new Simulation({ seed, storage, start: false }));
  const { engine, scheduler, internals } = sim;
  const random = seededRandom(seed ^ 0x5bd1e995);
  emit({ opened: true, nowMs: scheduler.now() });

  /** Lines produced by callbacks during the current step; printed after its commit. */
  let pending: CrashHostLine[] = [];

  /**
   * One step: `before` (issuing requests only schedules work), then the next instant of the
   * virtual clock, all in one storage transaction per file.
   */
  const step = (before?: () => void): void => {
    storage.batch(() => {
      before?.();
      const next = scheduler.nextDueTime();
      if (next !== undefined) scheduler.advanceTo(next);
    });
    // Committed: only now may the acknowledgements of this step be told.
    const lines = pending;
    pending = [];
    for (const line of lines) emit(line);
  };

  const stepUntil = (predicate: () => boolean, what: string): void => {
    const deadline = scheduler.now() + STARTUP_BUDGET_MS;
    while (!predicate()) {
      if (scheduler.now() > deadline) throw new Error(`start-up: no ${what} after ${STARTUP_BUDGET_MS} ms of virtual time`);
      step();
    }
  };

  const partitionsLed = (): boolean => {
    for (let p = 0; p < CRASH_PARTITIONS; p++) {
      const view = engine.describePartition(CRASH_TOPIC, p);
      if (!view || view.leader < 0 || !internals.brokers.get(view.leader)?.partitionFor(CRASH_TOPIC, p)?.isLeader) return false;
    }
    return true;
  };

  storage.batch(() => engine.start());
  stepUntil(() => engine.listBrokers().every((b) => b.state === 'running'), 'running brokers');
  const created = !engine.metadata.topicsByName.has(CRASH_TOPIC);
  if (created) {
    storage.batch(() =>
      engine.createTopic({ name: CRASH_TOPIC, partitions: CRASH_PARTITIONS, replicationFactor: 3, configs: { ...CRASH_TOPIC_CONFIGS } }),
    );
  }
  stepUntil(partitionsLed, 'leader for every partition');
  emit({ ready: true, nowMs: scheduler.now(), created });

  let inFlight = 0;
  let sequence = 0;
  const produce = (): void => {
    const partition = random.nextInt(CRASH_PARTITIONS);
    const values = Array.from({ length: 1 + random.nextInt(4) }, () => `${seed}-${sequence++}`);
    inFlight++;
    engine.produce({ topic: CRASH_TOPIC, partition, acks: 'all', timeoutMs: 10_000, records: values.map((v) => textRecord(v)) }, (r) => {
      inFlight--;
      pending.push(r.errorCode === 'NONE' ? { ack: { partition, baseOffset: r.baseOffset, values } } : { error: { partition, errorCode: r.errorCode, values } });
    });
  };

  const loop = (): void => {
    try {
      step(() => {
        while (inFlight < IN_FLIGHT) produce();
      });
    } catch (e) {
      fail(e);
      return;
    }
    setImmediate(loop);
  };
  setImmediate(loop);
}

function fail(e: unknown): never {
  emit({ fatal: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  process.exit(1);
}

if (esMain(import.meta)) {
  const [dataDir, seedArg] = process.argv.slice(2);
  const seed = Number(seedArg);
  if (!dataDir || !Number.isSafeInteger(seed)) {
    process.stderr.write('usage: node --import tsx app/sim/crash-host.ts <dataDir> <seed>\n');
    process.exit(2);
  }
  try {
    runCrashHost(dataDir, seed);
  } catch (e) {
    fail(e);
  }
}
