/**
 * `npm run bench`: every benchmark figure as a ratio against a limit measured in the same run,
 * printed as a table and merged (by figure name) into `bench/results/latest.json`:
 *
 *   { machine: { cpu, cores, node, sqlite, platform }, figures: [{ name, value, unit, limit, ratio, goal, pass }] }
 *
 * Throughput figures pass at ratio = value / limit ≥ 0.5. The latency figure
 * `host.cluster-describe.p99-under-load` (see describe-under-load.ts) has a fixed limit of 50 ms
 * that its value must not exceed: its ratio is limit / value and its goal 1.
 *
 * Benchmarks are never test assertions: a figure below its goal is reported, not thrown. The
 * whole run stays under BUDGET_MS of wall time and removes its temp dirs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import {
  MAX_IN_FLIGHT,
  MIN_INSYNC_REPLICAS,
  RECORDS_PER_REQUEST,
  REPLICATION_FACTOR,
  measureProduce,
  removeAllTempDirs,
  sqliteVersion,
  type WindowOptions,
} from './produce-throughput.js';
import { PROBE_EVERY_MS, PRODUCERS, RECORDS, VALUE_BYTES, measureDescribeUnderLoad } from './describe-under-load.js';

export interface Figure {
  name: string;
  value: number;
  unit: string;
  limit: number;
  ratio: number;
  goal: number;
  pass: boolean;
  /** What else the run measured alongside (not judged). */
  context?: Record<string, number>;
}

export interface Machine {
  cpu: string;
  cores: number;
  node: string;
  sqlite: string;
  platform: string;
}

interface Results {
  machine: Machine;
  figures: Figure[];
}

const BUDGET_MS = 60_000;
const GOAL = 0.5;
const WINDOW: WindowOptions = { warmupMs: 1_000, windowMs: 3_000 };
const SIZES = [
  { label: '100B', bytes: 100 },
  { label: '1KiB', bytes: 1024 },
];
/** `cluster.describe` over HTTP under load: its p99 must stay within this many ms. */
const DESCRIBE_P99_LIMIT_MS = 50;
const DESCRIBE_WINDOW_MS = 3_000;
const RESULTS_FILE = join(dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');

function machine(): Machine {
  const cpu = cpus();
  return { cpu: cpu[0]?.model.trim() ?? 'unknown', cores: cpu.length, node: process.version, sqlite: sqliteVersion(), platform: `${platform()} ${release()}` };
}

function figure(name: string, value: number, unit: string, limit: number): Figure {
  const ratio = limit > 0 ? value / limit : 0;
  return { name, value: round(value), unit, limit: round(limit), ratio: Math.round(ratio * 1000) / 1000, goal: GOAL, pass: ratio >= GOAL };
}

function round(n: number): number {
  return n >= 100 ? Math.round(n) : Math.round(n * 100) / 100;
}

/** Merge `figures` into the results file: same name replaces, other figures stay. */
function writeResults(m: Machine, figures: Figure[]): Results {
  let previous: Figure[] = [];
  if (existsSync(RESULTS_FILE)) {
    try {
      const parsed = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Partial<Results>;
      if (Array.isArray(parsed.figures)) previous = parsed.figures;
    } catch {
      console.warn(`${RESULTS_FILE} is not valid JSON; starting it afresh.`);
    }
  }
  const byName = new Map(previous.map((f) => [f.name, f]));
  for (const f of figures) byName.set(f.name, f);
  const results: Results = { machine: m, figures: [...byName.values()] };
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

function printTable(figures: Figure[]): void {
  const rows = [
    ['name', 'value', 'unit', 'limit', 'ratio', 'goal', 'pass'],
    ...figures.map((f) => [f.name, fmt(f.value), f.unit, fmt(f.limit), f.ratio.toFixed(3), String(f.goal), f.pass ? 'yes' : 'NO']),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]): string => r.map((cell, c) => (c === 0 || c === 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ');
  console.log(line(rows[0]!));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows.slice(1)) console.log(line(r));
}

function pct(share: number): string {
  return `${Math.round(share * 100)}%`;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

async function main(): Promise<void> {
  const started = performance.now();
  const budgetLeft = (): number => BUDGET_MS - (performance.now() - started);
  const m = machine();
  console.log(`machine: ${m.cpu}, ${m.cores} cores, node ${m.node}, SQLite ${m.sqlite}, ${m.platform}; load average ${loadavg()[0]!.toFixed(2)}`);
  console.log(
    `produce: RF=${REPLICATION_FACTOR}, acks=all, min.insync.replicas=${MIN_INSYNC_REPLICAS}, 1 partition, ${RECORDS_PER_REQUEST} records per request, ` +
      `${MAX_IN_FLIGHT} requests in flight, WAL + synchronous=NORMAL; ${WINDOW.warmupMs} ms warm-up, ${WINDOW.windowMs} ms window each for engine and raw limit, in alternating slices; MB = 10^6 value bytes`,
  );
  const figures: Figure[] = [];
  for (const size of SIZES) {
    // Engine and raw limit each take warm-up + window (plus set-up): stop rather than overrun.
    if (budgetLeft() < 2.5 * (WINDOW.warmupMs + WINDOW.windowMs)) {
      console.warn(`skipping ${size.label}: not enough of the ${BUDGET_MS / 1000} s budget left`);
      continue;
    }
    const { engine, raw, rawBatchesPerTransaction, cpu } = await measureProduce(size.bytes, WINDOW);
    console.log(
      `  ${size.label}: engine ${fmt(Math.round(engine.recordsPerSec))} records/s (${engine.requests} requests acked, ${engine.errors} errors, ${engine.steps} steps, ` +
        `${engine.batchesPerTransaction.toFixed(2)} batches per transaction per file); raw 3-file insert ${fmt(Math.round(raw.recordsPerSec))} records/s ` +
        `at ${rawBatchesPerTransaction.toFixed(2)} batches per transaction`,
    );
    console.log(
      `        per CPU second: engine ${fmt(Math.round(cpu.engineRecordsPerCpuSec))}, raw ${fmt(Math.round(cpu.rawRecordsPerCpuSec))} records ` +
        `(ratio ${(cpu.engineRecordsPerCpuSec / cpu.rawRecordsPerCpuSec).toFixed(3)}); CPU share of wall time: engine ${pct(cpu.engineCpuShare)}, raw ${pct(cpu.rawCpuShare)}`,
    );
    if (Math.abs(engine.batchesPerTransaction - rawBatchesPerTransaction) > 0.1 * rawBatchesPerTransaction) {
      console.warn(`        warning: the engine's grouping moved from its warm-up (${rawBatchesPerTransaction.toFixed(2)}) to the window (${engine.batchesPerTransaction.toFixed(2)})`);
    }
    if (engine.errors > 0) console.warn(`        warning: ${engine.errors} produce requests failed`);
    const base = `produce.rf3.acks-all.isr2.${size.label}`;
    figures.push(figure(`${base}.records`, engine.recordsPerSec, 'records/s', raw.recordsPerSec));
    figures.push(figure(`${base}.throughput`, engine.mbPerSec, 'MB/s', raw.mbPerSec));
  }
  // The host under load: HTTP in this process, the engine in a child (as `npm run serve`).
  if (budgetLeft() < 5 * DESCRIBE_WINDOW_MS) {
    console.warn(`skipping host.cluster-describe: not enough of the ${BUDGET_MS / 1000} s budget left`);
  } else {
    console.log(
      `host under load: engine in a child process, HTTP host here, load from a third process; topic of 3 partitions, RF=3; ${PRODUCERS} records.produce in flight over HTTP ` +
        `(acks=all, ${RECORDS} records of ${VALUE_BYTES} B), cluster.describe over HTTP every ${PROBE_EVERY_MS} ms for ${DESCRIBE_WINDOW_MS} ms`,
    );
    const d = await measureDescribeUnderLoad(DESCRIBE_WINDOW_MS);
    console.log(
      `  cluster.describe: p50 ${d.p50Ms.toFixed(1)} ms, p99 ${d.p99Ms.toFixed(1)} ms, max ${d.maxMs.toFixed(1)} ms over ${d.samples} calls (${d.describeErrors} errors); ` +
        `produce meanwhile ${fmt(Math.round(d.recordsPerSec))} records/s (${d.produced} requests acked, ${d.produceErrors} errors)`,
    );
    console.log(`        a latency figure: value ≤ limit passes, so its ratio is limit / value and its goal 1`);
    const ratio = d.p99Ms > 0 ? DESCRIBE_P99_LIMIT_MS / d.p99Ms : 0;
    figures.push({
      name: 'host.cluster-describe.p99-under-load',
      value: round(d.p99Ms),
      unit: 'ms',
      limit: DESCRIBE_P99_LIMIT_MS,
      ratio: Math.round(ratio * 1000) / 1000,
      goal: 1,
      pass: ratio >= 1,
      context: { p50Ms: round(d.p50Ms), maxMs: round(d.maxMs), samples: d.samples, describeErrors: d.describeErrors, produceRecordsPerSec: Math.round(d.recordsPerSec), produceErrors: d.produceErrors },
    });
  }
  console.log('');
  printTable(figures);
  const results = writeResults(m, figures);
  console.log(`\nwrote ${results.figures.length} figures to ${RESULTS_FILE} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

process.on('exit', removeAllTempDirs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopped; temp dirs removed, results not written`);
    process.exit(130);
  });
}
// The phases check the budget themselves; this only catches a phase that hangs.
setTimeout(() => {
  console.error(`bench: over the ${BUDGET_MS / 1000} s budget, giving up`);
  process.exit(1);
}, BUDGET_MS).unref();
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
