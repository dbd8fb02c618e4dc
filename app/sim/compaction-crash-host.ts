/**
 * The compaction crash host: like `crash-host.ts`, a child program hosting a 3-broker cluster on
 * a SQLite data directory, here writing keyed updates and tombstones (acks=all) to a compacted
 * topic whose replicas' cleaners are busy nearly all the time (segments roll every 2 s of broker
 * time, a cleaner reads 2 KiB a step and is throttled), so that `compaction-crash.test.ts` can
 * SIGKILL it in the middle of cleanings and check what the directory kept.
 *
 *   node --import tsx app/sim/compaction-crash-host.ts <dataDir> <seed>
 *
 * The same durability contract as crash-host.ts: an acknowledgement is printed only after the
 * storage batch in which the producer received it has committed.
 *
 * Output, one JSON object per line:
 *   {"ready":true,"nowMs":…}
 *   {"ack":{"baseOffset":o,"entries":[[key,value|null],…]}}   entries[i] at offset o+i, acked
 *   {"cleaning":n}                                  how many replicas' cleaners are mid-job (on change)
 *   {"cleaned":{"brokerId":b,"endOffset":o}}         a cleaning finished (committed with its step)
 *   {"fatal":"…"}
 */
import esMain from 'es-main';
import type { LogRecord } from '../core/log/records.js';
import { seededRandom } from '../core/random.js';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import { Simulation } from './simulation.js';

export const COMPACTED_TOPIC = 'table';
export const COMPACTED_TOPIC_CONFIGS: Readonly<Record<string, string>> = {
  'cleanup.policy': 'compact',
  'min.insync.replicas': '2',
  'segment.ms': '2000',
  'min.cleanable.dirty.ratio': '0.01',
};
/** Cleaners that read 2 KiB a step, a little throttled: a cleaning spans many steps. */
export const COMPACTION_CRASH_BROKER_CONFIGS: Readonly<Record<string, string>> = {
  'log.cleaner.backoff.ms': '200',
  'log.cleaner.io.buffer.size': '4096',
  'log.cleaner.io.max.bytes.per.second': '1000000',
};
export const KEYS = 30;

export type CompactionCrashLine =
  | { ready: true; nowMs: number }
  | { ack: { baseOffset: number; entries: [string, string | null][] } }
  | { cleaning: number }
  | { cleaned: { brokerId: number; endOffset: number } }
  | { fatal: string };

const IN_FLIGHT = 4;
const STARTUP_BUDGET_MS = 120_000;
const encoder = new TextEncoder();

function emit(line: CompactionCrashLine): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

export function runCompactionCrashHost(dataDir: string, seed: number): void {
  const storage = SqliteStorage.open(dataDir);
  const sim = storage.batch(() => new Simulation({ seed, storage, start: false, staticConfigs: { ...COMPACTION_CRASH_BROKER_CONFIGS } }));
  const { engine, scheduler } = sim;
  const random = seededRandom(seed ^ 0x2c1b3c6d);
  let pending: CompactionCrashLine[] = [];
  engine.subscribe((e) => {
    if (e.type === 'log.cleaned' && e.topic === COMPACTED_TOPIC) pending.push({ cleaned: { brokerId: e.brokerId, endOffset: e.endOffset } });
  });
  let cleaning = 0;
  const step = (before?: () => void): void => {
    storage.batch(() => {
      before?.();
      // At least 20 ms of broker time a step: segments roll and cleaners run while the producers keep the clock busy.
      const next = scheduler.nextDueTime();
      scheduler.advanceTo(Math.max(next ?? 0, scheduler.now() + 20));
    });
    const lines = pending;
    pending = [];
    for (const line of lines) emit(line);
    const now = engine.describeCompaction(COMPACTED_TOPIC, 0)?.filter((r) => r.phase !== null).length ?? 0;
    if (now !== cleaning) emit({ cleaning: (cleaning = now) });
  };
  const stepUntil = (predicate: () => boolean, what: string): void => {
    const deadline = scheduler.now() + STARTUP_BUDGET_MS;
    while (!predicate()) {
      if (scheduler.now() > deadline) throw new Error(`start-up: no ${what} after ${STARTUP_BUDGET_MS} ms of virtual time`);
      step();
    }
  };

  storage.batch(() => engine.start());
  stepUntil(() => engine.listBrokers().every((b) => b.state === 'running'), 'running brokers');
  if (!engine.metadata.topicsByName.has(COMPACTED_TOPIC)) {
    storage.batch(() => engine.createTopic({ name: COMPACTED_TOPIC, partitions: 1, replicationFactor: 3, configs: { ...COMPACTED_TOPIC_CONFIGS } }));
  }
  stepUntil(() => {
    const view = engine.describePartition(COMPACTED_TOPIC, 0);
    return view !== undefined && view.leader >= 0 && sim.internals.brokers.get(view.leader)?.partitionFor(COMPACTED_TOPIC, 0)?.isLeader === true;
  }, 'a leader');
  emit({ ready: true, nowMs: scheduler.now() });

  let inFlight = 0;
  let sequence = 0;
  const produce = (): void => {
    const entries: [string, string | null][] = Array.from({ length: 1 + random.nextInt(4) }, () => [`k${random.nextInt(KEYS)}`, random.nextInt(10) === 0 ? null : `${seed}-${sequence++}`]);
    const records: LogRecord[] = entries.map(([k, v]) => ({ key: encoder.encode(k), value: v === null ? null : encoder.encode(v), headers: [], timestamp: 0 }));
    inFlight++;
    engine.produce({ topic: COMPACTED_TOPIC, partition: 0, acks: 'all', timeoutMs: 10_000, records }, (r) => {
      inFlight--;
      if (r.errorCode === 'NONE') pending.push({ ack: { baseOffset: r.baseOffset, entries } });
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
    process.stderr.write('usage: node --import tsx app/sim/compaction-crash-host.ts <dataDir> <seed>\n');
    process.exit(2);
  }
  try {
    runCompactionCrashHost(dataDir, seed);
  } catch (e) {
    fail(e);
  }
}
