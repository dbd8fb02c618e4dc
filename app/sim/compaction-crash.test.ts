/**
 * Compaction survives SIGKILL and power loss on real SQLite files.
 *
 * SIGKILL: `compaction-crash-host.ts` writes keyed updates and tombstones to a compacted topic
 * whose three replicas are cleaned almost all the time; the test kills it at a random moment
 * (every other cycle's kill also waits until the host reports a cleaner mid-job, so a slow machine
 * still kills cleanings; the host says how many cleaners were mid-job when it was killed), reopens the directory here and checks, for every replica:
 *   - every record read is one that was written, at its offset (an acknowledged one reads what
 *     was acknowledged), no value twice, offsets only growing;
 *   - each key's last acknowledged write is still there at its offset, unless a later write of
 *     that key (not yet acknowledged when the kill came) made it into the log;
 *   - the replicas agree on each key's latest value below the high watermark (each compacted
 *     its own log, at its own pace, so their records may differ, never their table), and every
 *     replica's log end is the leader's.
 * The directory carries over from cycle to cycle, as in crash-recovery.test.ts.
 *
 * Power loss: the same checks on a broker that loses power while its cleaner is mid-job (the
 * engine's power loss: the unflushed tail is gone on restart; a roll flushes, and the cleaner
 * never goes past the active segment, so what it cleaned was flushed).
 *
 * COMPACTION_CRASH_SEED=<n> replays a seed's kill plan; COMPACTION_CRASH_CYCLES=<n> runs more.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../core/random.js';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import { COMPACTED_TOPIC, COMPACTED_TOPIC_CONFIGS, COMPACTION_CRASH_BROKER_CONFIGS, type CompactionCrashLine } from './compaction-crash-host.js';
import { Simulation } from './simulation.js';

const HOST = fileURLToPath(new URL('./compaction-crash-host.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CYCLES = Number(process.env.COMPACTION_CRASH_CYCLES ?? 6);
const READY_TIMEOUT_MS = 60_000;
const MID_CLEANING_WAIT_MS = 30_000;
const decoder = new TextDecoder();

const running = new Set<ReturnType<typeof spawn>>();
const dirs: string[] = [];
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * Runs the host and SIGKILLs it `delayMs` after it is ready; with `midCleaning`, the kill waits
 * from then on for the host to report a cleaner mid-job (at most MID_CLEANING_WAIT_MS more), so that
 * a slow machine, whose host steps fewer times in the delay, still gets kills in the middle of cleanings.
 */
function runHost(dir: string, seed: number, delayMs: number, midCleaning: boolean): Promise<{ lines: CompactionCrashLine[]; stderr: string; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', HOST, dir, String(seed)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    const lines: CompactionCrashLine[] = [];
    let buffer = '';
    let stderr = '';
    let kill: NodeJS.Timeout | null = null;
    let cleaners = 0;
    let armed = false;
    const deadline = setTimeout(() => child.kill('SIGKILL'), READY_TIMEOUT_MS);
    const arm = (): void => {
      if (!midCleaning || cleaners > 0) {
        child.kill('SIGKILL');
        return;
      }
      armed = true;
      kill = setTimeout(() => child.kill('SIGKILL'), MID_CLEANING_WAIT_MS);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const text of parts) {
        const line = JSON.parse(text) as CompactionCrashLine;
        lines.push(line);
        if ('cleaning' in line) {
          cleaners = line.cleaning;
          if (armed && cleaners > 0) child.kill('SIGKILL');
        }
        if ('ready' in line && !kill) {
          clearTimeout(deadline);
          kill = setTimeout(arm, delayMs);
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(deadline);
      if (kill) clearTimeout(kill);
      running.delete(child);
      resolve({ lines, stderr, signal });
    });
  });
}

/** What was written where: every acknowledged entry (a later cycle may write an offset again only if it was never acked). */
type Ledger = Map<number, { key: string; value: string | null }>;

/** The problems a replica's log shows against the ledger (empty: consistent). */
function checkReplica(name: string, records: { offset: number; key: string; value: string | null }[], ledger: Ledger): { problems: string[]; table: Map<string, { offset: number; value: string | null }> } {
  const problems: string[] = [];
  const table = new Map<string, { offset: number; value: string | null }>();
  const seen = new Set<string>();
  let last = -1;
  for (const r of records) {
    if (r.offset <= last) problems.push(`${name}: offset ${r.offset} after ${last}`);
    last = r.offset;
    const acked = ledger.get(r.offset);
    if (acked && (acked.key !== r.key || acked.value !== r.value)) problems.push(`${name}@${r.offset} reads ${r.key}=${r.value}, acknowledged as ${acked.key}=${acked.value}`);
    if (r.value !== null) {
      if (seen.has(r.value)) problems.push(`${name}: value ${r.value} twice`);
      seen.add(r.value);
    }
    table.set(r.key, { offset: r.offset, value: r.value });
  }
  const lastAcked = new Map<string, { offset: number; value: string | null }>();
  for (const [offset, w] of [...ledger].sort((a, b) => a[0] - b[0])) lastAcked.set(w.key, { offset, value: w.value });
  for (const [key, w] of lastAcked) {
    const now = table.get(key);
    if (!now || now.offset < w.offset) problems.push(`${name}: ${key}'s last acknowledged write at ${w.offset} (${w.value}) is gone (latest now: ${now ? `${now.offset}` : 'none'})`);
    else if (now.offset === w.offset && now.value !== w.value) problems.push(`${name}: ${key}@${w.offset} reads ${now.value}, acknowledged ${w.value}`);
  }
  return { problems, table };
}

function replicaRecords(sim: Simulation, brokerId: number): { offset: number; key: string; value: string | null }[] {
  const p = sim.internals.brokers.get(brokerId)!.partitionFor(COMPACTED_TOPIC, 0)!;
  return p.log.read(p.log.logStartOffset, p.log.highWatermark, Number.MAX_SAFE_INTEGER).flatMap((b) =>
    b.records.map((r, i) => ({ offset: b.baseOffset + (b.offsetDeltas ? b.offsetDeltas[i]! : i), key: decoder.decode(r.key!), value: r.value === null ? null : decoder.decode(r.value) })),
  );
}

/** Bring the reopened cluster back and check every replica; the problems found. */
function verifyCluster(sim: Simulation, ledger: Ledger): string[] {
  sim.waitFor(() => {
    if (!sim.engine.listBrokers().every((b) => b.state === 'running')) return false;
    const view = sim.engine.describePartition(COMPACTED_TOPIC, 0);
    const leader = view && view.leader >= 0 ? sim.internals.brokers.get(view.leader)?.partitionFor(COMPACTED_TOPIC, 0) : undefined;
    return !!view && view.isr.length === 3 && !!leader?.isLeader && view.replicaStates.every((r) => r.logEndOffset === leader.log.logEndOffset && r.highWatermark === leader.log.logEndOffset);
  }, 180_000, 'a full, caught-up ISR');
  const problems: string[] = [];
  const tables = [1, 2, 3].map((id) => {
    const r = checkReplica(`broker ${id}`, replicaRecords(sim, id), ledger);
    problems.push(...r.problems);
    return new Map([...r.table].map(([k, w]) => [k, w.value]));
  });
  for (const id of [2, 3]) if (JSON.stringify([...tables[id - 1]!].sort()) !== JSON.stringify([...tables[0]!].sort())) problems.push(`broker ${id}'s latest values differ from broker 1's`);
  return problems;
}

describe('compaction and crashes on real SQLite files', () => {
  it(`loses nothing acknowledged and reads the same when the host is SIGKILLed mid-cleaning (${CYCLES} cycles)`, async () => {
    const seed = Number(process.env.COMPACTION_CRASH_SEED ?? Math.floor(Math.random() * 1_000_000));
    const random = seededRandom(seed);
    const dir = mkdtempSync(join(tmpdir(), 'replica-studio-compaction-crash-'));
    dirs.push(dir);
    const ledger: Ledger = new Map();
    let killedMidClean = 0;
    let cleanings = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const hostSeed = (seed % 1_000_000) * 100 + cycle;
      const delayMs = 400 + random.nextInt(1600);
      const context = `cycle ${cycle} (COMPACTION_CRASH_SEED=${seed}, kill ${delayMs} ms after ready, dir ${dir})`;
      // Every other cycle kills the host while a cleaner reports being mid-job; the others at a random moment.
      const run = await runHost(dir, hostSeed, delayMs, cycle % 2 === 1);
      const fatal = run.lines.find((l): l is { fatal: string } => 'fatal' in l);
      if (run.signal !== 'SIGKILL' || fatal) throw new Error(`${context}: the host ended by itself\n${fatal?.fatal ?? ''}\n${run.stderr}`);
      for (const line of run.lines) {
        if ('ack' in line) line.ack.entries.forEach(([key, value], i) => ledger.set(line.ack.baseOffset + i, { key, value }));
        if ('cleaned' in line) cleanings++;
      }
      const lastCleaning = [...run.lines].reverse().find((l): l is { cleaning: number } => 'cleaning' in l);
      if (lastCleaning && lastCleaning.cleaning > 0) killedMidClean++;
      const storage = SqliteStorage.open(dir);
      try {
        const sim = new Simulation({ seed: hostSeed, storage, start: false, staticConfigs: { ...COMPACTION_CRASH_BROKER_CONFIGS } });
        const problems = storage.batch(() => {
          sim.engine.start();
          return verifyCluster(sim, ledger);
        });
        expect(problems, context).toEqual([]);
      } finally {
        storage.close(); // a second crash as far as the next cycle's host can tell
      }
    }
    expect(cleanings).toBeGreaterThan(0);
    expect(killedMidClean, `kills that landed mid-cleaning (seed ${seed})`).toBeGreaterThan(0);
  }, 600_000);

  it('loses nothing committed when a broker loses power in the middle of a cleaning, and cleans on after it restarts', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replica-studio-compaction-power-'));
    dirs.push(dir);
    const storage = SqliteStorage.open(dir);
    try {
      const sim = new Simulation({ seed: 77, storage, staticConfigs: { ...COMPACTION_CRASH_BROKER_CONFIGS, 'log.cleaner.io.max.bytes.per.second': '20000' } });
      sim.createTopic(COMPACTED_TOPIC, 1, 3, { ...COMPACTED_TOPIC_CONFIGS }, [[1, 2, 3]]);
      const ledger: Ledger = new Map();
      const encoder = new TextEncoder();
      let sequence = 0;
      const write = (): void => {
        const entries: [string, string | null][] = Array.from({ length: 3 }, () => [`k${sequence % 17}`, sequence % 11 === 0 ? null : `v${sequence++}`]);
        sequence++;
        const r = sim.await<{ errorCode: string; baseOffset: number }>((done) =>
          sim.engine.produce({ topic: COMPACTED_TOPIC, partition: 0, acks: 'all', timeoutMs: 10_000, records: entries.map(([k, v]) => ({ key: encoder.encode(k), value: v === null ? null : encoder.encode(v), headers: [], timestamp: 0 })) }, done),
        );
        if (r.errorCode === 'NONE') entries.forEach(([key, value], i) => ledger.set(r.baseOffset + i, { key, value }));
      };
      const midClean = (): boolean => sim.engine.describeCompaction(COMPACTED_TOPIC, 0)!.find((r) => r.brokerId === 2)?.phase === 'clean';
      for (let i = 0; i < 2_000 && !midClean(); i++) {
        write();
        sim.advance(20);
      }
      expect(midClean()).toBe(true);
      sim.engine.powerLossBroker(2);
      for (let i = 0; i < 100; i++) {
        write();
        sim.advance(20);
      }
      sim.engine.startBroker(2);
      const cleanedBefore = sim.eventsOf('log.cleaned').filter((e) => e.brokerId === 2).length;
      expect(verifyCluster(sim, ledger)).toEqual([]);
      sim.waitFor(() => sim.eventsOf('log.cleaned').filter((e) => e.brokerId === 2).length > cleanedBefore, 120_000, 'broker 2 to clean again');
      expect(verifyCluster(sim, ledger)).toEqual([]);
    } finally {
      storage.close();
    }
  });
});
