/**
 * A twin at scale (`npm run bench -- twin [--partitions N] [--records-per-partition N] [--record-budget N]`,
 * issue 35): a source cluster of 50 brokers in 5 racks with 100,000 partitions (100 topics of
 * 1,000, RF 3, placed by the controller's placer) in a headless host of its own, reached only
 * over the Kafka protocol by a second headless host (the console), which makes a twin of it:
 *
 *   `connections.createTwin` timed until it answers (the twin's brokers, topics, assignments,
 *   leaders, configs and synthetic offsets in place), then the twin checked through the console
 *   (every partition there, with the source's replicas) · `impact.ofStop` of a rack on the twin,
 *   over HTTP, first call and fastest of 5 · RSS of the console's processes (the host and the
 *   twin's engine) and of the source's.
 *
 * The source holds `--records-per-partition` records of 100 B in every partition (default 2,
 * written with `records.fill`: 200,000 records, so the default record budget of 100,000 scales
 * every offset by a half and the twin writes one synthetic record to every partition). Every phase is bounded in wall time.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RESULTS_FILE, machine, printTable, round, withinFigure, writeResults, type Figure, type Results } from './figures.js';
import { post, processTree, rssMb, startHost, stopHost, until, type Host } from './scale.js';

export const TWIN_BROKERS = 50;
export const TWIN_RACKS = 5;
export const TWIN_PARTITIONS = 100_000;
const PER_TOPIC = 1_000;
const RF = 3;
const VALUE_BYTES = 100;
const FILL_PER_CALL = 10_000;
const IMPACT_RUNS = 5;
/** Issue 35: a twin of 50 brokers × 100,000 partitions opens within 30 s and answers an impact question within 1 s. */
const OPEN_LIMIT_MS = 30_000;
const IMPACT_LIMIT_MS = 1_000;
/** A twin is a local cluster of that size: issue 17's memory goal for 100,000 partitions (bench/run.ts SCALE_LIMITS). */
const RSS_LIMIT_MB = 1_500;

export interface TwinBenchOptions {
  partitions?: number;
  recordsPerPartition?: number;
  recordBudget?: number;
  /** Bounds each phase (wall ms). */
  limitMs?: number;
}

export interface TwinBenchResult {
  partitions: number;
  sourceRecords: number;
  sourceSetupMs: number;
  createTwinMs?: number;
  recordsWritten?: number;
  changes?: number;
  impactFirstMs?: number;
  impactFastestMs?: number;
  impactTouched?: number;
  consoleRssMb?: number;
  sourceRssMb?: number;
  stopped?: string;
}

const rackOf = (id: number): string => `rack-${((id - 1) % TWIN_RACKS) + 1}`;

interface TwinAnswer {
  connection: { id: string };
  changes: unknown[];
  recordsWritten: number;
}

/** Make the source: brokers 4–50 added to the balanced profile's three (racks rack-1..rack-5), topics, records. */
async function makeSource(h: Host, partitions: number, recordsPerPartition: number, limitMs: number, log: (line: string) => void): Promise<number> {
  for (let id = 4; id <= TWIN_BROKERS; id++) await post(h, 'brokers.add', { id, rack: rackOf(id) }, limitMs);
  await until(async () => (await post<{ id: number; state: string }[]>(h, 'brokers.list', {})).filter((b) => b.state === 'running').length === TWIN_BROKERS, limitMs);
  const topics = Math.ceil(partitions / PER_TOPIC);
  for (let t = 0; t < topics; t++) await post(h, 'topics.create', { name: `twin-${String(t).padStart(3, '0')}`, partitions: PER_TOPIC, replicationFactor: RF }, limitMs);
  log(`  source: ${TWIN_BROKERS} brokers, ${topics} topics × ${PER_TOPIC} partitions created`);
  // The source's records through records.fill (the source is a local cluster too): `recordsPerPartition` of 100 B in every partition.
  let records = 0;
  const all = Array.from({ length: topics * PER_TOPIC }, (_, i) => ({ topic: `twin-${String(Math.floor(i / PER_TOPIC)).padStart(3, '0')}`, partition: i % PER_TOPIC, records: recordsPerPartition, valueBytes: VALUE_BYTES }));
  for (let i = 0; i < all.length && recordsPerPartition > 0; i += FILL_PER_CALL) {
    for (const r of await post<{ topic: string; partition: number; errorCode: string; records: number }[]>(h, 'records.fill', { partitions: all.slice(i, i + FILL_PER_CALL) }, limitMs)) {
      if (r.errorCode !== 'NONE') throw new Error(`records.fill on the source: ${r.topic}-${r.partition} ${r.errorCode}`);
      records += r.records;
    }
  }
  const inSync = await until(async () => {
    const d = await post<{ partitionCount: number; underReplicatedPartitions: number; offlinePartitions: number }>(h, 'cluster.describe', {});
    return d.partitionCount >= partitions && d.underReplicatedPartitions === 0 && d.offlinePartitions === 0;
  }, limitMs, 500);
  if (inSync === undefined) throw new Error('the source did not get every partition in sync within the limit');
  return records;
}

export async function measureTwin(options: TwinBenchOptions, log: (line: string) => void): Promise<TwinBenchResult> {
  const partitions = options.partitions ?? TWIN_PARTITIONS;
  const limitMs = options.limitMs ?? 20 * 60_000;
  const sourceDir = mkdtempSync(join(tmpdir(), 'replica-twin-source-'));
  const consoleDir = mkdtempSync(join(tmpdir(), 'replica-twin-console-'));
  const progress = (who: string) => (line: string) => log(`    ${who}: ${line}`);
  let source: Host | undefined;
  let console_: Host | undefined;
  const result: TwinBenchResult = { partitions, sourceRecords: 0, sourceSetupMs: 0 };
  try {
    const setupStart = performance.now();
    source = await startHost(join(sourceDir, 'data'), limitMs, progress('source'), ['--kafka-port', '0', '--profile', 'balanced']);
    result.sourceRecords = await makeSource(source, partitions, options.recordsPerPartition ?? 2, limitMs, log);
    result.sourceSetupMs = performance.now() - setupStart;
    log(`  source ready in ${(result.sourceSetupMs / 1000).toFixed(1)} s (${result.sourceRecords.toLocaleString('en-US')} records; load average ${loadavg()[0]!.toFixed(2)})`);
    const bootstrap = (await post<{ bootstrapServers: string }>(source, 'cluster.describe', {})).bootstrapServers;

    console_ = await startHost(join(consoleDir, 'data'), limitMs, progress('console'), ['--kafka-port', '0', '--brokers', '1', '--config', join(consoleDir, 'config')]);
    const c = console_;
    const sourceId = (await post<{ id: string }>(c, 'connections.addExternal', { name: 'production', settings: { bootstrapServers: bootstrap.split(',') } })).id;

    const started = performance.now();
    const twin = await post<TwinAnswer>(c, 'connections.createTwin', { name: 'production twin', source: sourceId, ...(options.recordBudget !== undefined ? { recordBudget: options.recordBudget } : {}) }, limitMs);
    result.createTwinMs = performance.now() - started;
    result.recordsWritten = twin.recordsWritten;
    result.changes = twin.changes.length;
    log(`  createTwin: ${(result.createTwinMs / 1000).toFixed(1)} s (${result.changes.toLocaleString('en-US')} changes, ${twin.recordsWritten.toLocaleString('en-US')} synthetic records)`);

    const on = <T>(method: string, input: Record<string, unknown> = {}): Promise<T> => post<T>(c, method, { ...input, connection: twin.connection.id }, limitMs);
    const described = await on<{ partitionCount: number; brokers: { id: number }[] }>('cluster.describe');
    if (described.brokers.length !== TWIN_BROKERS) throw new Error(`the twin has ${described.brokers.length} brokers, not ${TWIN_BROKERS}`);
    const sample = await on<{ partitions: { partition: number; replicas: number[] }[] }>('topics.describe', { name: 'twin-000' });
    const sourceSample = await post<{ partitions: { partition: number; replicas: number[] }[] }>(source, 'topics.describe', { name: 'twin-000' });
    if (JSON.stringify(sample.partitions.map((p) => p.replicas)) !== JSON.stringify(sourceSample.partitions.map((p) => p.replicas))) throw new Error("twin-000's replicas on the twin differ from the source's");

    let fastest = Infinity;
    for (let i = 0; i < IMPACT_RUNS; i++) {
      const t0 = performance.now();
      const impact = await on<{ touched: number }>('impact.ofStop', { racks: [rackOf(1)], limit: 100 });
      const ms = performance.now() - t0;
      if (i === 0) {
        result.impactFirstMs = ms;
        result.impactTouched = impact.touched;
      }
      fastest = Math.min(fastest, ms);
    }
    result.impactFastestMs = fastest;
    log(`  impact.ofStop of ${rackOf(1)} on the twin over HTTP: first ${Math.round(result.impactFirstMs!)} ms, fastest of ${IMPACT_RUNS} ${Math.round(fastest)} ms (${result.impactTouched!.toLocaleString('en-US')} partitions touched)`);
    result.consoleRssMb = rssMb(processTree(c.child.pid!));
    result.sourceRssMb = rssMb(processTree(source.child.pid!));
    log(`  RSS: console host + twin ${Math.round(result.consoleRssMb)} MB (${rssParts(c.child.pid!)}), source ${Math.round(result.sourceRssMb)} MB`);
    return result;
  } catch (e) {
    return { ...result, stopped: e instanceof Error ? e.message : String(e) };
  } finally {
    await Promise.all([console_ && stopHost(console_, 60_000), source && stopHost(source, 60_000)]);
    rmSync(sourceDir, { recursive: true, force: true });
    rmSync(consoleDir, { recursive: true, force: true });
  }
}

/** Each process of a host's tree by what it runs: the host itself, the engine of its own cluster, a twin's engine (its data directory is under the config's clusters/). */
function rssParts(hostPid: number): string {
  return processTree(hostPid)
    .map((pid) => {
      let cmd = '';
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        // exited
      }
      const role = pid === hostPid ? 'host' : cmd.includes(`${sep}clusters${sep}`) ? 'twin engine' : 'engine';
      return `${role} ${Math.round(rssMb([pid]))} MB`;
    })
    .join(', ');
}

/** The figures of one run, named `twin.<k>.…` after its partition count. */
export function twinFigures(r: TwinBenchResult): Figure[] {
  const k = `twin.${Math.round(r.partitions / 1000)}k`;
  const out: Figure[] = [];
  if (r.createTwinMs !== undefined) {
    out.push({
      ...withinFigure(`${k}.create-opened`, r.createTwinMs, 'ms', OPEN_LIMIT_MS),
      context: { sourceRecords: r.sourceRecords, syntheticRecords: r.recordsWritten ?? 0, changes: r.changes ?? 0 },
    });
  }
  if (r.impactFastestMs !== undefined) {
    out.push({ ...withinFigure(`${k}.impact-of-rack-stop`, r.impactFastestMs, 'ms', IMPACT_LIMIT_MS), context: { firstMs: round(r.impactFirstMs ?? 0), touched: r.impactTouched ?? 0 } });
  }
  if (r.consoleRssMb !== undefined) out.push({ ...withinFigure(`${k}.console-rss`, r.consoleRssMb, 'MB', RSS_LIMIT_MB), context: { sourceRssMb: Math.round(r.sourceRssMb ?? 0) } });
  return out;
}

/** `npm run bench -- twin [--partitions N] [--records-per-partition N] [--record-budget N] [--limit-s N]`: these figures alone. */
export async function twinMain(argv: string[]): Promise<void> {
  const arg = (name: string): number | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : undefined;
  };
  const m = machine();
  const partitions = arg('--partitions') ?? TWIN_PARTITIONS;
  console.log(`machine: ${m.cpu}, ${m.cores} cores, node ${m.node}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(
    `twin: a source host of ${TWIN_BROKERS} brokers in ${TWIN_RACKS} racks × ${partitions.toLocaleString('en-US')} partitions (RF ${RF}), a console host reaching it over the Kafka protocol; ` +
      `createTwin until it answers, then impact.ofStop of a rack on the twin over HTTP`,
  );
  const limitS = arg('--limit-s');
  const r = await measureTwin(
    {
      partitions,
      ...(arg('--records-per-partition') !== undefined ? { recordsPerPartition: arg('--records-per-partition')! } : {}),
      ...(arg('--record-budget') !== undefined ? { recordBudget: arg('--record-budget')! } : {}),
      ...(limitS !== undefined ? { limitMs: limitS * 1000 } : {}),
    },
    (line) => console.log(line),
  );
  if (r.stopped) console.warn(`twin: stopped: ${r.stopped}`);
  console.log(`(load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')})\n`);
  const figures = twinFigures(r);
  printTable(figures);
  if (figures.length > 0) {
    // The machine block stays the last full run's (its load average describes those figures); these carry their own.
    if (m.loadAverage !== undefined) for (const f of figures) f.context = { ...f.context, loadAverage: m.loadAverage };
    const previous = existsSync(RESULTS_FILE) ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Partial<Results>).machine : undefined;
    const same = previous && previous.cpu === m.cpu && previous.cores === m.cores && previous.node === m.node;
    const results = writeResults(same ? previous : m, figures);
    console.log(`\nwrote ${results.figures.length} figures to ${RESULTS_FILE}`);
  }
}
