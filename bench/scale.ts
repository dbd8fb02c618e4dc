/**
 * The `scale` ladder (`npm run bench -- scale [--rungs 10000,30000,100000] [--budget-s N]`):
 * black-box over the real headless host (`main/cli/cli.ts` from its bundle, as `npm start` runs
 * it; the engine in its own child process), 12 brokers, topics of 1,000 partitions at RF 3, no traffic. Per rung it prints:
 *
 *   create → all in sync (the controller's view) → settled (the brokers have made every replica:
 *   the processes' CPU stays below SETTLED_CORES for three 2 s windows) · idle CPU, measured once
 *   settled (host + engine, in cores) · RSS (host + engine)
 *   · controlled shutdown of one broker (leaders moved) · restart → URL printed → every broker running
 *   · RSS after the restart
 *
 * Every phase is bounded in wall time; a phase over its limit ends the rung (the table says so)
 * and the larger rungs are skipped. Measurements on a shared machine are noisy: the load average
 * is printed beside the table.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { hostEntry } from '../main/engine/bundle-entry.js';
import { HOST_NODE_ARGS } from '../main/engine/node-args.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BROKERS = 12;
export const PARTITIONS_PER_TOPIC = 1_000;
export const REPLICATION_FACTOR = 3;
const IDLE_SETTLE_MS = 5_000;
const IDLE_WINDOW_MS = 20_000;
/** Below this, over three 2 s windows in a row, the cluster has settled: the work a create or a restart started is done. */
const SETTLED_CORES = 0.1;
const SETTLE_WINDOW_MS = 2_000;
const SETTLED_WINDOWS = 3;
/**
 * Records each partition holds before the restart: the cold-start goal names a 10,000-partition,
 * 1,000,000-record data directory. Larger rungs restart without records (10 million over HTTP
 * would take longer than the ladder's budget on this machine).
 */
export const defaultRecordsPerPartition = (partitions: number): number => (partitions <= 10_000 ? 100 : 0);
const RECORD_VALUE_BYTES = 100;
const RECORDS_PER_CALL = 5_000;
const CLOCK_TICKS_PER_SEC = 100;

export interface RungResult {
  partitions: number;
  createToInSyncMs?: number;
  /** From the create until the processes' CPU fell below SETTLED_CORES (the brokers made every replica). */
  createToSettledMs?: number;
  idleCores?: number;
  rssMb?: number;
  /** Controlled shutdown: until the broker leads nothing (leaders moved), and until it stopped. */
  leadersMovedMs?: number;
  shutdownMs?: number;
  leadersMoved?: number;
  restartUrlMs?: number;
  restartRunningMs?: number;
  rssAfterRestartMb?: number;
  /** Records produced before the restart, and how long that took. */
  records?: number;
  produceMs?: number;
  /** Why the rung stopped early, if it did. */
  stopped?: string;
}

export interface Host {
  child: ChildProcess;
  origin: string;
  token: string;
  stderr: () => string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Start the host on `dataDir` (`args`: how a new cluster starts, default BROKERS bare brokers);
 * resolves once it printed its URL (it does so once the cluster answers).
 */
export async function startHost(dataDir: string, timeoutMs: number, onProgress: (line: string) => void, args = ['--brokers', String(BROKERS)]): Promise<Host> {
  // As `npm start` runs it: the host's bundle (built the first time, then only checked for staleness).
  const entry = await hostEntry();
  const child = spawn(process.execPath, [...HOST_NODE_ARGS, ...entry.execArgv, entry.file, '--data', dataDir, '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    const text = d.toString();
    stderr += text;
    for (const line of text.split('\n')) if (line.trim()) onProgress(line.trim());
  });
  return new Promise<Host>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no URL within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        clearTimeout(timer);
        const url = new URL(line.trim());
        resolve({ child, origin: url.origin, token: url.searchParams.get('token') ?? '', stderr: () => stderr });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the host exited with ${code}: ${stderr.slice(-500)}`));
    });
  });
}

export function stopHost(host: Host, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    if (host.child.exitCode !== null) return resolve(host.child.exitCode);
    const kill = setTimeout(() => host.child.kill('SIGKILL'), timeoutMs);
    host.child.once('exit', (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    host.child.kill('SIGTERM');
  });
}

/**
 * Calls a contract method over HTTP. Through node:http rather than fetch: undici gives up on an
 * answer whose headers take more than 300 s, and making a twin of 100,000 partitions on a loaded
 * machine may; the limit is the caller's `timeoutMs`.
 */
export function post<T>(host: Host, method: string, body: unknown, timeoutMs = 60_000): Promise<T> {
  const payload = JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const req = request(`${host.origin}/api/${method}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${host.token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
      signal: AbortSignal.timeout(timeoutMs),
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        try {
          const r = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { ok: true; value: T } | { ok: false; error: { code: string; message: string } };
          if (!r.ok) reject(new Error(`${method}: ${r.error.code} ${r.error.message}`));
          else resolve(r.value);
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
    });
    req.end(payload);
  });
}

interface Describe {
  partitionCount: number;
  offlinePartitions: number;
  underReplicatedPartitions: number;
  brokers: { id: number; state: string }[];
}
interface BrokerRow {
  id: number;
  state: string;
  leaderCount: number;
}

/** Poll until `test` holds; the elapsed ms, or undefined after `timeoutMs`. */
export async function until(test: () => Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<number | undefined> {
  const started = performance.now();
  for (;;) {
    try {
      if (await test()) return performance.now() - started;
    } catch {
      // not answering yet: keep polling
    }
    if (performance.now() - started > timeoutMs) return undefined;
    await sleep(everyMs);
  }
}

/** The pid and every descendant's pid (Linux /proc). */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const p = out[i]!;
    const path = `/proc/${p}/task/${p}/children`;
    if (!existsSync(path)) continue;
    for (const c of readFileSync(path, 'utf8').trim().split(/\s+/)) if (c) out.push(Number(c));
  }
  return out;
}

function cpuTicks(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // exited
    }
  }
  return ticks;
}

export function rssMb(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      // exited
    }
  }
  return kb / 1024;
}

async function cores(host: Host, windowMs: number): Promise<number> {
  const pids = processTree(host.child.pid!);
  const t0 = cpuTicks(pids);
  const w0 = performance.now();
  await sleep(windowMs);
  const ticks = cpuTicks(pids) - t0;
  return ticks / CLOCK_TICKS_PER_SEC / ((performance.now() - w0) / 1000);
}

const idleCores = (host: Host): Promise<number> => cores(host, IDLE_WINDOW_MS);

/**
 * Waits until SETTLED_WINDOWS 2 s windows in a row are below SETTLED_CORES (6 s: longer than the
 * engine's memory settler takes to look, so the one collection after a burst counts as settling);
 * false if that never happens within `timeoutMs`.
 */
export async function settled(host: Host, timeoutMs: number): Promise<boolean> {
  const started = performance.now();
  let quiet = 0;
  while (performance.now() - started < timeoutMs) {
    quiet = (await cores(host, SETTLE_WINDOW_MS)) < SETTLED_CORES ? quiet + 1 : 0;
    if (quiet >= SETTLED_WINDOWS) return true;
  }
  return false;
}

/** Run one rung; `limitMs` bounds each phase. */
export async function runRung(partitions: number, limitMs: number, log: (line: string) => void, recordsPerPartition = defaultRecordsPerPartition(partitions)): Promise<RungResult> {
  const result: RungResult = { partitions };
  const dataDir = mkdtempSync(join(tmpdir(), 'replica-scale-'));
  let host: Host | undefined;
  const progress = (line: string): void => log(`    host: ${line}`);
  try {
    host = await startHost(dataDir, limitMs, progress);
    const h = host;
    const topics = Math.ceil(partitions / PARTITIONS_PER_TOPIC);
    const createStart = performance.now();
    for (let t = 0; t < topics; t++) {
      await post(h, 'topics.create', { name: `scale-${t}`, partitions: PARTITIONS_PER_TOPIC, replicationFactor: REPLICATION_FACTOR }, limitMs);
    }
    const inSync = await until(async () => {
      const d = await post<Describe>(h, 'cluster.describe', {});
      return d.partitionCount === topics * PARTITIONS_PER_TOPIC && d.offlinePartitions === 0 && d.underReplicatedPartitions === 0;
    }, Math.round(limitMs - (performance.now() - createStart)));
    if (inSync === undefined) return { ...result, stopped: 'not all in sync within the limit' };
    result.createToInSyncMs = performance.now() - createStart;
    log(`  ${partitions}: create → all in sync ${(result.createToInSyncMs / 1000).toFixed(2)} s`);
    // The controller's metadata says in sync as soon as the partitions exist (a new partition's ISR
    // is its whole replica set); the brokers then make their replicas. Idle is what is left after.
    if (!(await settled(h, limitMs))) return { ...result, stopped: `CPU not below ${SETTLED_CORES} core within the limit after the create` };
    result.createToSettledMs = performance.now() - createStart;
    log(`  ${partitions}: create → settled ${(result.createToSettledMs / 1000).toFixed(2)} s`);
    result.idleCores = await idleCores(h);
    result.rssMb = rssMb(processTree(h.child.pid!));
    log(`  ${partitions}: idle ${result.idleCores.toFixed(3)} cores, RSS ${Math.round(result.rssMb)} MB`);

    // Records, so that the restart below reopens logs that hold data (after the idle figure, which is without traffic).
    if (recordsPerPartition > 0) {
      const produceStart = performance.now();
      const perTopic = PARTITIONS_PER_TOPIC * recordsPerPartition;
      const value = 'v'.repeat(RECORD_VALUE_BYTES);
      for (let t = 0; t < topics; t++) {
        for (let sent = 0; sent < perTopic; sent += RECORDS_PER_CALL) {
          const n = Math.min(RECORDS_PER_CALL, perTopic - sent);
          // Keyed records: the producer's partitioner (murmur2 of the key) spreads them over the topic.
          const records = Array.from({ length: n }, (_, i) => ({ key: `k${sent + i}`, value }));
          const answer = await post<{ batches: { errorCode: string }[] }>(h, 'records.produce', { topic: `scale-${t}`, acks: 'all', records }, limitMs);
          const failed = answer.batches.find((b) => b.errorCode !== 'NONE');
          if (failed) return { ...result, stopped: `records.produce: ${failed.errorCode}` };
          if (performance.now() - produceStart > limitMs) return { ...result, stopped: 'records not produced within the limit' };
        }
      }
      result.records = topics * perTopic;
      result.produceMs = performance.now() - produceStart;
      log(`  ${partitions}: ${result.records.toLocaleString('en-US')} records of ${RECORD_VALUE_BYTES} B produced (acks=all) in ${(result.produceMs / 1000).toFixed(1)} s`);
      await settled(h, limitMs);
    }

    // Controlled shutdown of the broker leading the most partitions: leaders move, then it stops.
    const brokers = await post<BrokerRow[]>(h, 'brokers.list', {});
    const victim = brokers.reduce((a, b) => (b.leaderCount > a.leaderCount ? b : a));
    result.leadersMoved = victim.leaderCount;
    const stopStart = performance.now();
    await post(h, 'brokers.stop', { brokerId: victim.id }, limitMs);
    const moved = await until(async () => ((await post<BrokerRow[]>(h, 'brokers.list', {})).find((b) => b.id === victim.id)?.leaderCount ?? 0) === 0, limitMs, 10);
    if (moved === undefined) return { ...result, stopped: 'leaders not moved within the limit' };
    result.leadersMovedMs = performance.now() - stopStart;
    const stopped = await until(async () => (await post<BrokerRow[]>(h, 'brokers.list', {})).find((b) => b.id === victim.id)?.state === 'stopped', limitMs, 20);
    if (stopped === undefined) return { ...result, stopped: 'controlled shutdown not done within the limit' };
    result.shutdownMs = performance.now() - stopStart;
    log(`  ${partitions}: controlled shutdown of broker ${victim.id}: ${victim.leaderCount} leaders moved in ${(result.leadersMovedMs / 1000).toFixed(2)} s, stopped after ${(result.shutdownMs / 1000).toFixed(2)} s`);
    await post(h, 'brokers.start', { brokerId: victim.id }, limitMs);
    await until(async () => (await post<Describe>(h, 'cluster.describe', {})).brokers.every((b) => b.state === 'running'), limitMs);

    // Restart the host: orderly close, then open the same data directory again.
    await stopHost(h, limitMs);
    host = undefined;
    const restartStart = performance.now();
    host = await startHost(dataDir, limitMs, progress);
    const h2 = host;
    result.restartUrlMs = performance.now() - restartStart;
    const running = await until(async () => (await post<Describe>(h2, 'cluster.describe', {})).brokers.every((b) => b.state === 'running'), limitMs);
    if (running === undefined) return { ...result, stopped: 'not every broker running within the limit after the restart' };
    result.restartRunningMs = performance.now() - restartStart;
    await settled(h2, limitMs);
    await sleep(IDLE_SETTLE_MS);
    result.rssAfterRestartMb = rssMb(processTree(h2.child.pid!));
    log(`  ${partitions}: restart → URL ${(result.restartUrlMs / 1000).toFixed(2)} s, every broker running ${(result.restartRunningMs / 1000).toFixed(2)} s, RSS ${Math.round(result.rssAfterRestartMb)} MB`);
    return result;
  } catch (e) {
    return { ...result, stopped: e instanceof Error ? e.message : String(e) };
  } finally {
    if (host) await stopHost(host, 30_000);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const s = (ms?: number): string => (ms === undefined ? '—' : `${(ms / 1000).toFixed(2)} s`);
const mb = (v?: number): string => (v === undefined ? '—' : `${Math.round(v)} MB`);

export function formatTable(rows: RungResult[]): string {
  const head = ['partitions', 'create → in sync / settled', 'idle CPU (settled)', 'RSS', 'controlled shutdown: leaders moved / stopped', 'restart → URL', 'restart → all running', 'RSS after restart', 'note'];
  const body = rows.map((r) => [
    r.records ? `${r.partitions.toLocaleString('en-US')} (${r.records.toLocaleString('en-US')} records)` : r.partitions.toLocaleString('en-US'),
    `${s(r.createToInSyncMs)} / ${s(r.createToSettledMs)}`,
    r.idleCores === undefined ? '—' : `${r.idleCores.toFixed(3)} core`,
    mb(r.rssMb),
    r.leadersMovedMs === undefined ? '—' : `${r.leadersMoved} in ${s(r.leadersMovedMs)} / ${s(r.shutdownMs)}`,
    s(r.restartUrlMs),
    s(r.restartRunningMs),
    mb(r.rssAfterRestartMb),
    r.stopped ?? '',
  ]);
  const all = [head, ...body];
  const widths = head.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  return all.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')).join('\n');
}

/** The whole ladder within `budgetMs`: a rung that stopped early ends it. */
export async function runLadder(rungs: number[], budgetMs: number, log: (line: string) => void, recordsPerPartition?: number): Promise<RungResult[]> {
  const started = performance.now();
  const out: RungResult[] = [];
  for (const partitions of rungs) {
    const left = budgetMs - (performance.now() - started);
    if (left < 30_000) {
      out.push({ partitions, stopped: 'skipped: the ladder is out of time' });
      continue;
    }
    if (out.some((r) => r.stopped)) {
      out.push({ partitions, stopped: 'skipped: a smaller rung exceeded a limit' });
      continue;
    }
    log(`rung ${partitions.toLocaleString('en-US')} partitions (load average ${loadavg()[0]!.toFixed(2)})`);
    // Each phase may take a share of what is left, never less than a minute.
    out.push(await runRung(partitions, Math.round(Math.max(60_000, left / 3)), log, recordsPerPartition ?? defaultRecordsPerPartition(partitions)));
  }
  return out;
}
