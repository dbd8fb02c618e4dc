/**
 * Crash recovery with a real process: `crash-host.ts` hosts the cluster on a SQLite data
 * directory and produces acks=all; the test SIGKILLs it at a random moment, reopens the directory
 * in this process and checks that every acknowledged record is there, at its offset, below a
 * consistent high watermark. The directory carries over from cycle to cycle, so later cycles
 * recover from a directory that already survived earlier kills (and earlier recoveries).
 *
 * Most kills land 50–400 ms after the host said "ready" (mid-traffic); every fifth lands during
 * the host's own start-up, while it is recovering from the previous kill. Between cycles the test
 * closes the directory either with an orderly shutdown or by just closing it (a second crash).
 *
 * CRASH_SEED=<n> replays a seed's kill plan (the timing of a real process is not reproducible,
 * so a seed names the plan, not the history); CRASH_CYCLES=<n> runs more cycles.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import { CRASH_PARTITIONS, CRASH_TOPIC, type CrashHostLine } from './crash-host.js';
import { seededRandom } from '../core/random.js';
import { recordText, Simulation } from './simulation.js';

const HOST = fileURLToPath(new URL('./crash-host.ts', import.meta.url));
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CYCLES = Number(process.env.CRASH_CYCLES ?? 20);
/** Real time a host may take to say "ready" (tsx compiles on first start; CI machines are slow). */
const READY_TIMEOUT_MS = 60_000;
/** Virtual time the reopened cluster gets to come back with full ISRs. */
const RECOVERY_BUDGET_MS = 180_000;

interface Acked {
  partition: number;
  offset: number;
  value: string;
  cycle: number;
}

interface ChildRun {
  lines: CrashHostLine[];
  stderr: string;
  signal: NodeJS.Signals | null;
  code: number | null;
  /**
   * Bytes after the last newline: a line the kill cut short. A short line goes out in one write(2),
   * which a pipe never splits (PIPE_BUF), so this stays empty unless the pipe was full.
   */
  fragment: string;
  readyAfterMs: number;
}

type KillPlan = { after: 'ready' | 'opened'; delayMs: number };

const running = new Set<ReturnType<typeof spawn>>();
const dirs: string[] = [];
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Spawn the host, SIGKILL it per the plan, and collect everything it printed. */
function runHost(dir: string, seed: number, plan: KillPlan): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', HOST, dir, String(seed)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    const lines: CrashHostLine[] = [];
    let buffer = '';
    let stderr = '';
    let readyAfterMs = -1;
    let killTimer: NodeJS.Timeout | null = null;
    const deadline = setTimeout(() => child.kill('SIGKILL'), READY_TIMEOUT_MS);
    const armKill = (): void => {
      if (killTimer) return;
      clearTimeout(deadline);
      killTimer = setTimeout(() => child.kill('SIGKILL'), plan.delayMs);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const text of parts) {
        let line: CrashHostLine;
        try {
          line = JSON.parse(text) as CrashHostLine;
        } catch {
          stderr += `(stdout, not JSON) ${text}\n`; // something other than the host wrote to stdout
          continue;
        }
        lines.push(line);
        if ('ready' in line) readyAfterMs = Date.now() - started;
        if (('ready' in line && plan.after === 'ready') || ('opened' in line && plan.after === 'opened')) armKill();
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    // 'close' comes after the exit and after both pipes drained: every line the host wrote is in.
    child.on('close', (code, signal) => {
      clearTimeout(deadline);
      if (killTimer) clearTimeout(killTimer);
      running.delete(child);
      resolve({ lines, stderr, signal, code, fragment: buffer, readyAfterMs });
    });
  });
}

interface Verified {
  partitionsChecked: number;
  acksChecked: number;
  recordsRead: number;
}

/**
 * Reopen the directory as the next process would, bring the cluster back to full ISRs and check
 * every acknowledgement so far. Returns the problems found (empty = consistent).
 */
function verify(dir: string, seed: number, ledger: Map<string, Acked>, orderlyClose: boolean): { problems: string[]; stats: Verified } {
  const problems: string[] = [];
  const stats: Verified = { partitionsChecked: 0, acksChecked: 0, recordsRead: 0 };
  const storage = SqliteStorage.open(dir);
  try {
    const sim = new Simulation({ seed, storage, start: false });
    if (!sim.engine.metadata.topicsByName.has(CRASH_TOPIC)) {
      if (ledger.size > 0) problems.push(`topic ${CRASH_TOPIC} is gone from the metadata log, with ${ledger.size} acknowledged records`);
      return { problems, stats };
    }

    // The directory as the kill left it (no broker started, so the views read the disk).
    const diskHw: number[] = [];
    for (let p = 0; p < CRASH_PARTITIONS; p++) {
      const view = sim.partition(CRASH_TOPIC, p);
      for (const r of view.replicaStates) {
        if (r.highWatermark > r.logEndOffset) problems.push(`on disk, broker ${r.brokerId} has ${CRASH_TOPIC}-${p} with HW ${r.highWatermark} > LEO ${r.logEndOffset}`);
        if (r.logStartOffset > r.highWatermark) problems.push(`on disk, broker ${r.brokerId} has ${CRASH_TOPIC}-${p} with log start ${r.logStartOffset} > HW ${r.highWatermark}`);
      }
      diskHw.push(Math.max(0, ...view.replicaStates.map((r) => Math.min(r.highWatermark, r.logEndOffset))));
    }

    storage.batch(() => {
      sim.engine.start();
      sim.waitFor(() => recovered(sim), RECOVERY_BUDGET_MS, 'running brokers, a leader and a full, caught-up ISR for every partition');

      const seen = new Map<string, string>();
      for (let p = 0; p < CRASH_PARTITIONS; p++) {
        stats.partitionsChecked++;
        const view = sim.partition(CRASH_TOPIC, p);
        const hw = view.highWatermark;
        const records = new Map<number, string | null>();
        for (const r of sim.consumeAll(CRASH_TOPIC, p)) {
          records.set(r.offset, recordText(r));
          stats.recordsRead++;
          const v = recordText(r) ?? '';
          const where = `${p}@${r.offset}`;
          if (seen.has(v)) problems.push(`value ${v} is stored twice: at ${seen.get(v)} and at ${where}`);
          seen.set(v, where);
        }
        let maxAcked = -1;
        for (const a of ledger.values()) {
          if (a.partition !== p) continue;
          stats.acksChecked++;
          maxAcked = Math.max(maxAcked, a.offset);
          const got = records.get(a.offset);
          if (got !== a.value) problems.push(`acked ${a.value} (cycle ${a.cycle}) at ${CRASH_TOPIC}-${p}@${a.offset} reads ${got === undefined ? 'nothing (below the log start or above the HW)' : got}`);
        }
        if (hw < maxAcked + 1) problems.push(`${CRASH_TOPIC}-${p}: leader HW ${hw} is below the last acknowledged offset ${maxAcked} + 1`);
        if (hw < diskHw[p]!) problems.push(`${CRASH_TOPIC}-${p}: leader HW ${hw} is below the HW ${diskHw[p]} a replica had on disk (the committed prefix shrank)`);

        const leaderLog = sim.replicaLog(view.leader, CRASH_TOPIC, p);
        for (const r of view.replicaStates) {
          if (r.highWatermark > r.logEndOffset) problems.push(`broker ${r.brokerId}, ${CRASH_TOPIC}-${p}: HW ${r.highWatermark} > LEO ${r.logEndOffset}`);
          if (!view.isr.includes(r.brokerId)) continue;
          if (r.logEndOffset < hw) problems.push(`broker ${r.brokerId} is in the ISR of ${CRASH_TOPIC}-${p} with LEO ${r.logEndOffset} < HW ${hw}`);
          if (r.brokerId === view.leader) continue;
          const log = sim.replicaLog(r.brokerId, CRASH_TOPIC, p);
          const leaderBelowHw = leaderLog.filter((e) => e.offset < hw);
          const followerBelowHw = log.filter((e) => e.offset < hw);
          const differs = leaderBelowHw.findIndex((e, i) => {
            const f = followerBelowHw[i];
            return !f || f.offset !== e.offset || f.epoch !== e.epoch || f.value !== e.value;
          });
          if (differs >= 0 || followerBelowHw.length !== leaderBelowHw.length) {
            const at = leaderBelowHw[differs]?.offset ?? followerBelowHw[leaderBelowHw.length]?.offset;
            problems.push(`ISR members ${view.leader} (leader) and ${r.brokerId} disagree on ${CRASH_TOPIC}-${p} below HW ${hw}, first at offset ${at}`);
          }
        }
      }

      if (orderlyClose) {
        sim.engine.shutdown();
        sim.waitFor(() => sim.engine.isShutDown(), 120_000, 'an orderly shutdown');
      }
    });
  } finally {
    storage.close(); // without a shutdown this is a crash as far as the next process can tell
  }
  return { problems, stats };
}

function recovered(sim: Simulation): boolean {
  if (!sim.engine.listBrokers().every((b) => b.state === 'running')) return false;
  for (let p = 0; p < CRASH_PARTITIONS; p++) {
    const view = sim.engine.describePartition(CRASH_TOPIC, p);
    if (!view || view.leader < 0 || view.isr.length !== view.replicas.length) return false;
    const leader = sim.internals.brokers.get(view.leader)?.partitionFor(CRASH_TOPIC, p);
    if (!leader?.isLeader || leader.log.highWatermark !== leader.log.logEndOffset) return false;
  }
  return true;
}

describe('crash recovery of a real host process', () => {
  it(`every acknowledged record survives SIGKILL of the host process (${CYCLES} cycles)`, async () => {
    const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 1_000_000));
    const random = seededRandom(seed);
    const dir = mkdtempSync(join(tmpdir(), 'replica-studio-crash-'));
    const ledger = new Map<string, Acked>(); // "partition:offset" -> what was acknowledged there
    const began = Date.now();
    let acks = 0;
    let failedProduces = 0;
    let acksChecked = 0;
    let midStartupKills = 0;
    let tornLines = 0;
    let passed = false;
    const perCycle: string[] = [];

    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const childSeed = (seed % 1_000_000) * 100 + cycle; // values are `${childSeed}-${n}`: unique per cycle
        const duringStartup = cycle % 5 === 3;
        const plan: KillPlan = duringStartup ? { after: 'opened', delayMs: random.nextInt(25) } : { after: 'ready', delayMs: 50 + random.nextInt(351) };
        const orderlyClose = cycle % 2 === 0;
        const context = (): string => `cycle ${cycle} of seed ${seed} (CRASH_SEED=${seed}; host seed ${childSeed}, kill ${plan.delayMs} ms after "${plan.after}", data dir ${dir})`;

        const cycleStart = Date.now();
        const run = await runHost(dir, childSeed, plan);
        const fatal = run.lines.find((l): l is { fatal: string } => 'fatal' in l);
        if (run.signal !== 'SIGKILL' || fatal) {
          throw new Error(`${context()}: the host ended by itself (code ${run.code}, signal ${run.signal}) before the kill\n${fatal?.fatal ?? ''}\n${run.stderr}`);
        }
        // A line cut short by the kill was never fully told, so it acknowledges nothing.
        if (run.fragment) tornLines++;
        if (!duringStartup && !run.lines.some((l) => 'ready' in l)) throw new Error(`${context()}: the host never got ready\n${run.stderr}`);
        if (duringStartup && !run.lines.some((l) => 'ready' in l)) midStartupKills++;

        let cycleAcks = 0;
        for (const line of run.lines) {
          if ('error' in line) failedProduces++;
          if (!('ack' in line)) continue;
          const { partition, baseOffset, values } = line.ack;
          values.forEach((value, i) => {
            const key = `${partition}:${baseOffset + i}`;
            const earlier = ledger.get(key);
            if (earlier && earlier.value !== value) {
              throw new Error(`${context()}: ${CRASH_TOPIC}-${partition}@${baseOffset + i} acknowledged twice: ${earlier.value} (cycle ${earlier.cycle}) and now ${value}`);
            }
            ledger.set(key, { partition, offset: baseOffset + i, value, cycle });
          });
          cycleAcks++;
        }
        acks += cycleAcks;

        const verifyStart = Date.now();
        let result: ReturnType<typeof verify>;
        try {
          result = verify(dir, childSeed, ledger, orderlyClose);
        } catch (e) {
          throw new Error(`${context()}: recovery failed: ${(e as Error).stack ?? String(e)}`);
        }
        if (result.problems.length > 0) throw new Error(`${context()}: ${result.problems.length} problem(s) after recovery:\n  ${result.problems.slice(0, 20).join('\n  ')}`);
        acksChecked += result.stats.acksChecked;
        const phases = `${run.readyAfterMs < 0 ? 'killed in start-up' : `ready ${run.readyAfterMs}`}+${plan.delayMs}, verify ${Date.now() - verifyStart}`;
        perCycle.push(`#${cycle} ${cycleAcks} acks ${Date.now() - cycleStart} ms (${phases})`);
      }
      passed = true;
    } finally {
      const summary = `crash recovery: seed ${seed}, ${perCycle.length}/${CYCLES} cycles, ${acks} acks (${ledger.size} records), ${failedProduces} failed produces, ${midStartupKills} kills during start-up, ${tornLines} torn lines, ${acksChecked} record checks, ${Date.now() - began} ms`;
      console.log(`${summary}\n  ${perCycle.join('\n  ')}`);
      // A failing run keeps its directory for a post-mortem (its path is in the error).
      if (passed) dirs.push(dir);
    }
    expect(ledger.size).toBeGreaterThan(0);
  }, Math.max(240_000, CYCLES * 12_000));
});
