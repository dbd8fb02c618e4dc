/**
 * What Kafka clients get from the listeners, measured from outside the engine's process (the
 * engine runs as `npm run serve` runs it: a child process with Kafka listeners on free ports).
 *
 * Fetch sessions (KIP-227): one consumer of a topic of FETCH_PARTITIONS partitions, all led by
 * broker 1 and all idle, sends Fetch v11 requests back to back on one connection (max.wait.ms 0,
 * so nothing waits: what is measured is what a fetch costs). First without a session (every
 * request names every partition and every answer lists them all), then in a session (a full
 * fetch, then incremental fetches that name nothing and are answered with nothing). Each gets a
 * warm-up and the same window.
 *
 * kcat (librdkafka): `kcat -P` produces KCAT_RECORDS records of 100 B to a topic of one partition,
 * RF 3, min.insync.replicas 2, acks=all, lz4, and `kcat -C -e` reads them all back; each is timed
 * from the process's start to its exit (client start and metadata included, as a user would time
 * it). Skipped with one line where kcat is not installed (Debian package kcat).
 */
import { spawn, spawnSync } from 'node:child_process';
import { type Socket, connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ClusterView } from '../app/api/views.js';
import { ApiKey, apiDefinition, readFetchResponse, readResponseHeader, requestHeaderVersion, writeRequestHeader } from '../app/protocol/generated/index.js';
import { FrameReader } from '../app/protocol/framing/frame-reader.js';
import { Reader, Writer } from '../app/protocol/runtime/index.js';
import { startRemoteService } from '../main/engine/forked-engine.js';
import { atLeastFigure, figure, fmt, type Figure } from './figures.js';
import { MIN_INSYNC_REPLICAS, REPLICATION_FACTOR, makeTempDir, removeTempDir, type WindowOptions } from './produce-throughput.js';

export const FETCH_PARTITIONS = 1_000;
export const KCAT_RECORDS = 200_000;
export const KCAT_VALUE_BYTES = 100;
const FETCH_VERSION = 11;
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface FetchSessionsResult {
  fullRequestsPerSec: number;
  incrementalRequestsPerSec: number;
  /** Bytes of one answer to an idle fetch: without a session, and in one. */
  fullResponseBytes: number;
  incrementalResponseBytes: number;
}

export interface KcatResult {
  produceRecordsPerSec: number;
  consumeRecordsPerSec: number;
  records: number;
}

function frame(apiKey: number, version: number, body: unknown, correlationId: number): Buffer {
  const def = apiDefinition(apiKey)!;
  const w = new Writer();
  const setSize = w.reserveInt32();
  writeRequestHeader(w, requestHeaderVersion(def, version), { requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId: 'fetch-bench' });
  def.writeRequest(w, version, body as never);
  setSize(w.length - 4);
  return Buffer.from(w.toBytes());
}

const open = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', noDelay: true });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });

/** One request at a time on `socket`: send, wait for the whole answer frame. */
function requester(socket: Socket): (request: Buffer) => Promise<Uint8Array> {
  const reader = new FrameReader(MAX_RESPONSE_BYTES);
  let waiting: ((f: Uint8Array) => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    const result = reader.push(chunk);
    for (const f of result.frames) waiting?.(f);
    if ('error' in result) socket.destroy(new Error(result.error));
  });
  return (request) =>
    new Promise((resolve) => {
      waiting = resolve;
      socket.write(request);
    });
}

export async function measureFetchSessions(window: WindowOptions): Promise<FetchSessionsResult> {
  const dataDir = makeTempDir('replica-bench-fetch-');
  const engine = await startRemoteService({ dataDir, seed: 1, brokers: 3, kafkaPort: 0, logger: { error: () => {} } });
  try {
    if (!(await engine.ready())) throw new Error('the brokers did not start');
    const created = await engine.call('topics.create', { name: 'idle', assignments: Array.from({ length: FETCH_PARTITIONS }, () => [1]) });
    if (!created.ok) throw new Error(created.error.message);
    const view = (await engine.call('cluster.describe', {})) as { ok: true; value: ClusterView };
    const port = view.value.brokers.find((b) => b.id === 1)!.listener!.port;
    const socket = await open(port);
    const send = requester(socket);
    const all = [{ topic: 'idle', partitions: Array.from({ length: FETCH_PARTITIONS }, (_, p) => ({ partition: p, fetchOffset: 0n, partitionMaxBytes: 1_048_576, currentLeaderEpoch: -1, logStartOffset: -1n })) }];
    const body = (sessionId: number, sessionEpoch: number, topics: typeof all | []) => ({ replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 52_428_800, isolationLevel: 0, sessionId, sessionEpoch, topics, forgottenTopicsData: [], rackId: '' });
    const decode = (f: Uint8Array) => {
      const r = new Reader(f);
      readResponseHeader(r, 0);
      return readFetchResponse(r, FETCH_VERSION);
    };
    let correlation = 0;

    /** Back-to-back fetches for warm-up + window; requests/s in the window. */
    const loop = async (next: () => Buffer): Promise<{ perSec: number; lastBytes: number }> => {
      let count = 0;
      let lastBytes = 0;
      const warmEnd = performance.now() + window.warmupMs;
      while (performance.now() < warmEnd) lastBytes = (await send(next())).length;
      const started = performance.now();
      while (performance.now() - started < window.windowMs) {
        lastBytes = (await send(next())).length;
        count++;
      }
      return { perSec: (count * 1000) / (performance.now() - started), lastBytes };
    };

    const full = await loop(() => frame(ApiKey.Fetch, FETCH_VERSION, body(0, -1, all), ++correlation));
    const opened = decode(await send(frame(ApiKey.Fetch, FETCH_VERSION, body(0, 0, all), ++correlation)));
    if (opened.sessionId === 0) throw new Error('the broker opened no fetch session');
    let epoch = 0;
    const incremental = await loop(() => frame(ApiKey.Fetch, FETCH_VERSION, body(opened.sessionId, ++epoch, []), ++correlation));
    const last = decode(await send(frame(ApiKey.Fetch, FETCH_VERSION, body(opened.sessionId, ++epoch, []), ++correlation)));
    if (last.errorCode !== 0) throw new Error(`the session failed with error ${last.errorCode}`);
    socket.destroy();
    return { fullRequestsPerSec: full.perSec, incrementalRequestsPerSec: incremental.perSec, fullResponseBytes: full.lastBytes, incrementalResponseBytes: incremental.lastBytes };
  } finally {
    await engine.close();
    removeTempDir(dataDir);
  }
}

/** Whether kcat runs here. */
export function kcatAvailable(): boolean {
  const r = spawnSync('kcat', ['-V'], { stdio: 'ignore', timeout: 10_000 });
  return r.error === undefined && r.status === 0;
}

function timed(args: string[], input: Buffer | null, timeoutMs: number): Promise<{ ms: number; stdout: string; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('kcat', args, { stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let lines = 0;
    child.stdout!.on('data', (d: Buffer) => {
      // Count lines rather than keep 20 MB of output.
      for (const b of d) if (b === 10) lines++;
      if (stdout.length < 200) stdout += d.toString();
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ms: performance.now() - started, stdout: String(lines), code, stderr });
    });
    if (input) child.stdin!.end(input);
  });
}

export async function measureKcat(): Promise<KcatResult> {
  const dataDir = makeTempDir('replica-bench-kcat-');
  const engine = await startRemoteService({ dataDir, seed: 1, brokers: 3, kafkaPort: 0, logger: { error: () => {} } });
  try {
    if (!(await engine.ready())) throw new Error('the brokers did not start');
    const created = await engine.call('topics.create', { name: 'kcat', partitions: 1, replicationFactor: REPLICATION_FACTOR, configs: { 'min.insync.replicas': String(MIN_INSYNC_REPLICAS) } });
    if (!created.ok) throw new Error(created.error.message);
    const view = (await engine.call('cluster.describe', {})) as { ok: true; value: ClusterView };
    const bootstrap = view.value.bootstrapServers;
    const line = Buffer.alloc(KCAT_VALUE_BYTES + 1, 'x');
    line[KCAT_VALUE_BYTES] = 10;
    const input = Buffer.concat(Array.from({ length: KCAT_RECORDS }, () => line));
    const produced = await timed(['-P', '-b', bootstrap, '-t', 'kcat', '-p', '0', '-z', 'lz4', '-X', 'acks=all', '-X', 'queue.buffering.max.messages=1000000'], input, 300_000);
    if (produced.code !== 0) throw new Error(`kcat -P exited with ${produced.code}: ${produced.stderr.slice(0, 300)}`);
    const hw = await engine.call('topics.describe', { name: 'kcat' });
    const acked = hw.ok ? hw.value.partitions[0]!.highWatermark : -1;
    if (acked !== KCAT_RECORDS) throw new Error(`kcat -P acknowledged ${acked} of ${KCAT_RECORDS} records`);
    const consumed = await timed(['-C', '-b', bootstrap, '-t', 'kcat', '-p', '0', '-o', 'beginning', '-e', '-q', '-c', String(KCAT_RECORDS)], null, 300_000);
    if (consumed.code !== 0 || Number(consumed.stdout) !== KCAT_RECORDS) throw new Error(`kcat -C read ${consumed.stdout} records (exit ${consumed.code}): ${consumed.stderr.slice(0, 300)}`);
    return { produceRecordsPerSec: (KCAT_RECORDS * 1000) / produced.ms, consumeRecordsPerSec: (KCAT_RECORDS * 1000) / consumed.ms, records: KCAT_RECORDS };
  } finally {
    await engine.close();
    removeTempDir(dataDir);
  }
}

/**
 * The figures: `fetch.idle-1000p.incremental.requests` (requests/s in a session, against the same
 * consumer without one: goal ≥ 1) and, with kcat, `wire.kcat.produce.rf3.acks-all.lz4.100B.records`
 * beside the engine's in-process 100 B produce of the same run (goal ≥ 0.5) and
 * `wire.kcat.consume.lz4.100B.records` against kcat's own produce of the same records just before
 * (goal ≥ 1: issue 36 asks that librdkafka consume at least as fast as it produces).
 */
export async function clientFigures(inProcess100B: number, window: WindowOptions): Promise<Figure[]> {
  const out: Figure[] = [];
  console.log(
    `fetch sessions: one consumer of ${fmt(FETCH_PARTITIONS)} idle partitions on one broker, Fetch v${FETCH_VERSION} back to back with max.wait.ms 0, ` +
      `${window.warmupMs} ms warm-up and ${window.windowMs} ms window each: without a session, then incremental in one`,
  );
  try {
    const f = await measureFetchSessions(window);
    console.log(
      `  without a session ${fmt(Math.round(f.fullRequestsPerSec))} requests/s (${fmt(f.fullResponseBytes)} B answers); ` +
        `in a session ${fmt(Math.round(f.incrementalRequestsPerSec))} requests/s (${fmt(f.incrementalResponseBytes)} B answers)`,
    );
    out.push({
      ...atLeastFigure('fetch.idle-1000p.incremental.requests', f.incrementalRequestsPerSec, 'requests/s', f.fullRequestsPerSec),
      context: { fullResponseBytes: f.fullResponseBytes, incrementalResponseBytes: f.incrementalResponseBytes },
    });
  } catch (e) {
    console.warn(`fetch sessions failed, no figure: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!kcatAvailable()) {
    console.warn('skipping wire.kcat: kcat is not installed (Debian package kcat: apt-get install kcat)');
    return out;
  }
  console.log(
    `kcat (librdkafka): ${fmt(KCAT_RECORDS)} records of ${KCAT_VALUE_BYTES} B to 1 partition, RF=${REPLICATION_FACTOR}, min.insync.replicas=${MIN_INSYNC_REPLICAS}, acks=all, lz4 ` +
      '(kcat -P), then read back from the beginning (kcat -C -e); each timed from start to exit',
  );
  if (inProcess100B <= 0) console.warn("  no in-process 100 B figure in this run: kcat's produce figure has no limit to be compared with");
  try {
    const k = await measureKcat();
    console.log(
      `  produce ${fmt(Math.round(k.produceRecordsPerSec))} records/s (in-process produce ${fmt(Math.round(inProcess100B))} records/s), ` +
        `consume ${fmt(Math.round(k.consumeRecordsPerSec))} records/s (${(k.consumeRecordsPerSec / k.produceRecordsPerSec).toFixed(3)} of kcat's produce)`,
    );
    if (inProcess100B > 0) out.push(figure('wire.kcat.produce.rf3.acks-all.lz4.100B.records', k.produceRecordsPerSec, 'records/s', inProcess100B));
    out.push(atLeastFigure('wire.kcat.consume.lz4.100B.records', k.consumeRecordsPerSec, 'records/s', Math.round(k.produceRecordsPerSec)));
  } catch (e) {
    console.warn(`wire.kcat failed, no figures: ${e instanceof Error ? e.message : String(e)}`);
  }
  return out;
}
