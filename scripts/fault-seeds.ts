/**
 * Runs the seeded randomized fault test over many seeds (app/sim/fault-run/).
 *
 *   npm run faults -- --seeds 10000 [--from N] [--jobs J] [--bail] [--minutes M] [--elr]
 *                                                            run seeds N .. N+10000-1
 *   --minutes M stops handing out seeds after M minutes of wall time and reports the seeds run;
 *   --elr runs every seed with eligible leader replicas on (KIP-966); --txn adds transactional
 *   producers, checked through a read_committed consumer (app/sim/fault-run/transactional.ts).
 *   npm run faults -- --seed S [--verbose]                  replay one seed; --verbose prints its history:
 *                                                            the faults with the events of the brokers and
 *                                                            partitions its violations name, in time order
 *
 * Prints progress and a summary; every failing seed is printed with its violations and its full
 * fault schedule (replay it with --seed). Exits 1 when any seed fails (at once with --bail, which
 * the mutation run uses). The work is bounded by the seed count: each seed runs a bounded amount
 * of virtual time.
 *
 * --jobs splits the seeds over child processes (default: the available cores, at most 4); each
 * seed's history depends on the seed alone, so the split changes nothing but the wall time.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runFaultSeed, type FaultRunResult } from '../app/sim/fault-run/run.js';

interface SeedOutcome {
  seed: number;
  ok: boolean;
  violations: string[];
  schedule: string[];
  historyHash: string;
  faults: number;
  acked: number;
  wallMs: number;
}

function outcome(r: FaultRunResult): SeedOutcome {
  return {
    seed: r.seed,
    ok: r.ok,
    violations: r.violations,
    schedule: r.ok ? [] : r.schedule,
    historyHash: r.historyHash,
    faults: r.stats.faults,
    acked: r.stats.ackedRecords,
    wallMs: r.stats.wallMs,
  };
}

function usage(code: number): never {
  console.log(`usage: npm run faults -- --seeds N [--from S] [--jobs J] [--bail] [--minutes M] [--elr] [--txn]
       npm run faults -- --seed S [--verbose] [--elr] [--txn]`);
  process.exit(code);
}

function positiveInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`--${name} must be a non-negative integer, got '${value}'`);
    usage(2);
  }
  return n;
}

function printFailure(o: SeedOutcome): void {
  console.log(`\nFAIL seed ${o.seed} (replay: npm run faults -- --seed ${o.seed} --verbose)`);
  for (const v of o.violations) console.log(`  violation: ${v}`);
  console.log('  fault schedule:');
  for (const line of o.schedule) console.log(`    ${line}`);
}

// ---------------------------------------------------------------- child process: run a range

if (process.argv.includes('--worker')) {
  const elr = process.argv.includes('--elr');
  const transactional = process.argv.includes('--txn');
  process.on('message', (msg: { seeds: number[] }) => {
    for (const seed of msg.seeds) process.send!({ outcome: outcome(runFaultSeed(seed, { eligibleLeaderReplicas: elr, transactional })) });
    process.send!({ done: true });
  });
} else {
  main();
}

function main(): void {
  let args;
  try {
    args = parseArgs({
      options: {
        seeds: { type: 'string' },
        from: { type: 'string' },
        seed: { type: 'string' },
        jobs: { type: 'string' },
        verbose: { type: 'boolean', default: false },
        bail: { type: 'boolean', default: false },
        minutes: { type: 'string' },
        elr: { type: 'boolean', default: false },
        txn: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    console.error((e as Error).message);
    usage(2);
  }
  if (args.help) usage(0);
  const elr = args.elr ?? false;
  const transactional = args.txn ?? false;
  if (args.seed !== undefined) return replay(positiveInt('seed', args.seed, 1), args.verbose ?? false, elr, transactional);
  const count = positiveInt('seeds', args.seeds, 200);
  const from = positiveInt('from', args.from, 1);
  const jobs = Math.max(1, Math.min(count, positiveInt('jobs', args.jobs, Math.min(4, availableParallelism()))));
  const minutes = args.minutes === undefined ? Infinity : positiveInt('minutes', args.minutes, 0);
  runMany(from, count, jobs, args.bail ?? false, { deadline: Date.now() + minutes * 60_000, elr, transactional });
}

function replay(seed: number, verbose: boolean, elr: boolean, transactional: boolean): void {
  const r = runFaultSeed(seed, { eligibleLeaderReplicas: elr, transactional, history: verbose });
  console.log(`seed ${seed}: ${r.ok ? 'ok' : 'FAILED'}  history ${r.historyHash.slice(0, 16)}  ${r.stats.wallMs} ms`);
  if (verbose) {
    // The faults with the events of the brokers and partitions the violations name (all of them
    // when the seed passed), and the checker's view of which brokers could heartbeat.
    console.log(r.ok ? 'history (every broker and partition):' : 'history (the brokers and partitions the violations name, with every fault):');
    for (const line of r.history) console.log(`  ${line}`);
    console.log('stats:', JSON.stringify(r.stats));
  } else if (!r.ok) {
    console.log('fault schedule:');
    for (const line of r.schedule) console.log(`  ${line}`);
    console.log('stats:', JSON.stringify(r.stats));
  }
  for (const v of r.violations) console.log(`violation: ${v}`);
  process.exit(r.ok ? 0 : 1);
}

function runMany(from: number, count: number, jobs: number, bail: boolean, limits: { deadline: number; elr: boolean; transactional: boolean }): void {
  const started = Date.now();
  const seeds = Array.from({ length: count }, (_, i) => from + i);
  const failures: SeedOutcome[] = [];
  let done = 0;
  let faults = 0;
  let acked = 0;
  let slowest = { seed: 0, wallMs: 0 };
  const step = Math.max(1, Math.floor(count / 20));
  console.log(`fault test: seeds ${from}..${from + count - 1} on ${jobs} process(es)${limits.elr ? ', eligible leader replicas on' : ''}${limits.transactional ? ', with transactional producers' : ''}${Number.isFinite(limits.deadline) ? `, stopping after ${((limits.deadline - started) / 60_000).toFixed(0)} min` : ''}`);
  let stopped = false;
  /** Seeds handed out so far. */
  let next = 0;

  const record = (o: SeedOutcome): void => {
    done++;
    faults += o.faults;
    acked += o.acked;
    if (o.wallMs > slowest.wallMs) slowest = { seed: o.seed, wallMs: o.wallMs };
    if (!o.ok) {
      failures.push(o);
      printFailure(o);
      if (bail) {
        console.log(`stopped at the first failing seed (--bail) after ${done} seed(s)`);
        process.exit(1);
      }
    }
    if (done % step === 0 || done === count || (stopped && done === next)) {
      const elapsed = (Date.now() - started) / 1000;
      const eta = (elapsed / done) * (count - done);
      console.log(`[${String(done).padStart(String(count).length)}/${count}] ${failures.length} failed  ${elapsed.toFixed(0)} s elapsed, ~${eta.toFixed(0)} s left`);
    }
  };

  const finish = (): void => {
    const elapsed = (Date.now() - started) / 1000;
    if (stopped) console.log(`\nstopped handing out seeds at the time limit (--minutes): seeds ${from}..${from + done - 1} ran`);
    console.log(`\n${done} seeds in ${elapsed.toFixed(1)} s (${((elapsed * 1000) / Math.max(1, done)).toFixed(0)} ms/seed wall, slowest seed ${slowest.seed}: ${slowest.wallMs} ms)`);
    console.log(`${faults} faults applied, ${acked} acknowledged records checked`);
    if (failures.length === 0) {
      console.log('all seeds passed');
      process.exit(0);
    }
    const list = failures.map((f) => f.seed).sort((a, b) => a - b);
    console.log(`${failures.length} seed(s) FAILED: ${list.join(' ')}`);
    process.exit(1);
  };

  if (jobs === 1) {
    for (const seed of seeds) {
      if (Date.now() >= limits.deadline) {
        stopped = true;
        break;
      }
      record(outcome(runFaultSeed(seed, { eligibleLeaderReplicas: limits.elr, transactional: limits.transactional })));
      next++;
    }
    return finish();
  }

  // Hand out small batches so a slow child does not hold back the end of the run.
  const batch = Math.max(1, Math.min(25, Math.floor(count / (jobs * 8))));
  let running = jobs;
  const script = fileURLToPath(import.meta.url);
  for (let j = 0; j < jobs; j++) {
    const child = fork(script, ['--worker', ...(limits.elr ? ['--elr'] : []), ...(limits.transactional ? ['--txn'] : [])], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const feed = (): void => {
      if (!stopped && next < seeds.length && Date.now() >= limits.deadline) stopped = true;
      if (next >= seeds.length || stopped) {
        child.disconnect();
        return;
      }
      child.send({ seeds: seeds.slice(next, next + batch) });
      next += batch;
    };
    child.on('message', (msg: { outcome?: SeedOutcome; done?: boolean }) => {
      if (msg.outcome) record(msg.outcome);
      if (msg.done) feed();
    });
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) {
        console.error(`worker exited with code ${code}`);
        process.exitCode = 1;
      }
      if (--running === 0) {
        if (done < (stopped ? next : count)) {
          console.error(`only ${done} of ${count} seeds ran`);
          process.exit(1);
        }
        finish();
      }
    });
    feed();
  }
}
