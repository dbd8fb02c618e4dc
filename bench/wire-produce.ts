/**
 * Produce through the Kafka listener, as a client outside the engine's process sees it.
 *
 * The cluster runs as `npm run serve` runs it: the engine in a child process
 * (`startRemoteService`) on a temp data dir, with its Kafka listeners on free ports; one
 * partition, RF=3, min.insync.replicas=2, like the in-process produce figure it is compared to.
 * The load generator is ours, in this process: MAX_IN_FLIGHT connections to the partition's
 * leader (5, as Kafka's max.in.flight.requests.per.connection), each with one Produce v7 request
 * (the version librdkafka and kafkajs send) outstanding at a time — a Kafka broker handles one
 * request per connection at a time, so this is what 5 in flight can be — of RECORDS_PER_REQUEST
 * records of `valueBytes` each in one batch, uncompressed or lz4, acks=all. The values are text
 * as an application would send (JSON-like, random fields: lz4 takes them to about half), each
 * record its own. The batch is encoded once and sent again and again (the broker assigns
 * offsets; the client's record building is not what is measured). Latency = request written →
 * its response read.
 *
 * Catch-up: after the window, one consumer fetches (Fetch v11 with a Kafka consumer's defaults:
 * fetch.max.bytes 50 MiB, max.partition.fetch.bytes 1 MiB, so about 1 MiB per request)
 * from offset 0 until it has every acknowledged record: records/s over that time.
 */
import { type Socket, connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import type { ClusterView } from '../app/api/views.js';
import { ApiKey, apiDefinition, readFetchResponse, readProduceResponse, readResponseHeader, requestHeaderVersion, writeRequestHeader } from '../app/protocol/generated/index.js';
import { RECORD_BATCH_HEADER_SIZE, batchHeader, encodeRecordBatch } from '../app/protocol/records/record-batch.js';
import { createCompressionCodecs } from '../app/protocol/records/compression.js';
import { FrameReader } from '../app/protocol/framing/frame-reader.js';
import { Reader, Writer } from '../app/protocol/runtime/index.js';
import { startRemoteService } from '../main/engine/forked-engine.js';
import { MAX_IN_FLIGHT, MIN_INSYNC_REPLICAS, RECORDS_PER_REQUEST, REPLICATION_FACTOR, WARMUP_CPU_MS, WARMUP_MAX_MS, makeTempDir, removeTempDir, type WindowOptions } from './produce-throughput.js';

const TOPIC = 'wire';
const PRODUCE_VERSION = 7;
const FETCH_VERSION = 11;
/** A Kafka consumer's defaults (fetch.max.bytes, max.partition.fetch.bytes): what librdkafka and the Java client ask for. */
const FETCH_MAX_BYTES = 52_428_800;
const MAX_PARTITION_FETCH_BYTES = 1_048_576;
/** The largest response frame the load generator accepts (a 50 MiB fetch and its headers). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** What the load generator sends: value size and the batch's codec. */
export interface WireLoad {
  valueBytes: number;
  compression: 'none' | 'lz4';
}

export interface WireProduce {
  recordsPerSec: number;
  requests: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  catchUpRecordsPerSec: number;
  catchUpRecords: number;
  /** Records the consumer read per second of the engine process's CPU time in the catch-up. */
  catchUpRecordsPerEngineCpuSec: number;
  /** Bytes of one produce request's batch on the wire (after compression). */
  batchBytes: number;
  /**
   * Records acknowledged per second of the engine process's CPU time (user + system) in the
   * window: what the listener path costs, whatever share of the machine the run got. NaN where
   * /proc is not there.
   */
  recordsPerEngineCpuSec: number;
  /** The engine process's CPU time as a share of the window's wall time. */
  engineCpuShare: number;
}

/** CPU ms (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
function processCpuMs(pid: number): number {
  try {
    // Fields 14 and 15 of /proc/PID/stat, in clock ticks; the command name (field 2) may hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SEC;
  } catch {
    return NaN;
  }
}
/** USER_HZ: 100 on every Linux Node runs on. */
const CLOCK_TICKS_PER_SEC = 100;

function frame(apiKey: number, version: number, body: unknown, correlationId: number): Buffer {
  const def = apiDefinition(apiKey)!;
  const w = new Writer();
  const setSize = w.reserveInt32();
  writeRequestHeader(w, requestHeaderVersion(def, version), { requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId: 'wire-bench' });
  def.writeRequest(w, version, body as never);
  setSize(w.length - 4);
  return Buffer.from(w.toBytes());
}

/**
 * A socket that hands whole response frames (without their size) to `onFrame`. Chunks are joined
 * once a frame is complete (FrameReader), never chunk by chunk: a 50 MB Fetch response arrives
 * in hundreds of chunks, and joining as they come would make the client, not the broker, the
 * measure of the catch-up.
 */
function frames(socket: Socket, onFrame: (frame: Uint8Array) => void): void {
  const reader = new FrameReader(MAX_RESPONSE_BYTES);
  socket.on('data', (chunk: Buffer) => {
    const result = reader.push(chunk);
    for (const f of result.frames) onFrame(f);
    if ('error' in result) socket.destroy(new Error(result.error));
  });
}

const open = (port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', noDelay: true });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * RECORDS_PER_REQUEST values of `size` bytes: JSON-like text with random fields, padded with
 * random words — what lz4 has to work with in an application's records (about half its size),
 * where random bytes would not compress at all and one value repeated would vanish.
 */
function textValues(size: number): Uint8Array[] {
  const words = Array.from({ length: 64 }, () => randomBytes(3 + (randomBytes(1)[0]! % 6)).toString('base64url').replace(/[-_]/g, 'x'));
  const pick = (): string => words[randomBytes(1)[0]! % words.length]!;
  return Array.from({ length: RECORDS_PER_REQUEST }, (_, i) => {
    let text = `{"id":${1_000_000 + i},"user":"${pick()}","amount":${(randomBytes(2).readUInt16BE(0) / 100).toFixed(2)},"note":"`;
    while (text.length < size) text += `${pick()} `;
    return new Uint8Array(Buffer.from(text.slice(0, size - 2) + '"}'));
  });
}

/**
 * When the engine runs with extra flags (BENCH_ENGINE_NODE_ARGS, e.g. "--cpu-prof"), the window's start and end
 * on the monotonic clock (µs, as the profile's timestamps), so a reading can keep to the window.
 */
function markWindow(edge: 'start' | 'end' | 'catch-up start' | 'catch-up end'): void {
  if (process.env.BENCH_ENGINE_NODE_ARGS) console.log(`  profile window ${edge}: ${process.hrtime.bigint() / 1000n} µs`);
}

export async function measureWireProduce(load: WireLoad, window: WindowOptions): Promise<WireProduce> {
  const { valueBytes, compression } = load;
  const dataDir = makeTempDir('replica-bench-wire-');
  // BENCH_ENGINE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p" profiles the engine's process.
  const nodeArgs = process.env.BENCH_ENGINE_NODE_ARGS?.split(' ').filter((a) => a !== '') ?? [];
  const engine = await startRemoteService({ dataDir, seed: 1, brokers: 3, kafkaPort: 0, nodeArgs, logger: { error: () => {} } });
  try {
    if (!(await engine.ready())) throw new Error('the brokers did not start');
    const created = await engine.call('topics.create', { name: TOPIC, partitions: 1, replicationFactor: REPLICATION_FACTOR, configs: { 'min.insync.replicas': String(MIN_INSYNC_REPLICAS) } });
    if (!created.ok) throw new Error(created.error.message);
    const view = (await engine.call('cluster.describe', {})) as { ok: true; value: ClusterView };
    const leader = created.value.partitions[0]!.leader;
    const port = view.value.brokers.find((b) => b.id === leader)!.listener!.port;

    const now = Date.now();
    const records = textValues(valueBytes).map((value) => ({ key: null, value, headers: [], timestamp: now }));
    const batch = encodeRecordBatch({ baseOffset: 0, lastOffset: RECORDS_PER_REQUEST - 1, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0 }, { compression, codecs: createCompressionCodecs() });
    const template = frame(ApiKey.Produce, PRODUCE_VERSION, { acks: -1, timeoutMs: 30_000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }] }, 0);

    // One request outstanding on each of MAX_IN_FLIGHT connections: a Kafka broker handles one
    // request per connection at a time (it mutes the channel until it has answered), so five
    // requests pipelined on one connection would be one in flight; five producers are five.
    const sockets = await Promise.all(Array.from({ length: MAX_IN_FLIGHT }, () => open(port)));
    let correlation = 0;
    const latencies: number[] = [];
    let acked = 0;
    let requests = 0;
    let errors = 0;
    let counting = false;
    let stopped = false;
    let outstanding = 0;
    let drained: (() => void) | null = null;
    for (const socket of sockets) {
      let sentAt = 0;
      const request = Buffer.from(template);
      const send = (): void => {
        request.writeInt32BE(++correlation, 8);
        sentAt = performance.now();
        outstanding++;
        socket.write(request);
      };
      frames(socket, (f) => {
        outstanding--;
        const r = new Reader(f);
        readResponseHeader(r, 0);
        const body = readProduceResponse(r, PRODUCE_VERSION);
        const ms = performance.now() - sentAt;
        const ok = body.responses[0]?.partitionResponses[0]?.errorCode === 0;
        if (counting) {
          requests++;
          latencies.push(ms);
          if (ok) acked += RECORDS_PER_REQUEST;
          else errors++;
        }
        if (!stopped) send();
        else if (outstanding === 0) drained?.();
      });
      send();
    }
    // Warm-up: wall time, and CPU time of the engine's process (see WARMUP_CPU_MS).
    const warmStart = performance.now();
    const warmCpu = processCpuMs(engine.pid);
    await new Promise((r) => setTimeout(r, window.warmupMs));
    while (processCpuMs(engine.pid) - warmCpu < WARMUP_CPU_MS && performance.now() - warmStart < WARMUP_MAX_MS) await new Promise((r) => setTimeout(r, 100));
    counting = true;
    const started = performance.now();
    const engineCpu0 = processCpuMs(engine.pid);
    markWindow('start');
    await new Promise((r) => setTimeout(r, window.windowMs));
    const elapsed = performance.now() - started;
    const engineCpuMs = processCpuMs(engine.pid) - engineCpu0;
    markWindow('end');
    counting = false;
    const recordsPerSec = (acked * 1000) / elapsed;
    stopped = true;
    await new Promise<void>((resolve) => {
      drained = resolve;
      if (outstanding === 0) resolve();
      setTimeout(resolve, 30_000);
    });
    for (const socket of sockets) socket.destroy();

    // Catch-up: read the whole log from the start, as a consumer that was behind.
    const consumer = await open(port);
    let next = 0;
    let highWatermark = Infinity;
    let fetched = 0;
    const catchUpStart = performance.now();
    const catchUpCpu0 = processCpuMs(engine.pid);
    markWindow('catch-up start');
    await new Promise<void>((resolve, reject) => {
      const fetchNext = (): void => {
        consumer.write(
          frame(ApiKey.Fetch, FETCH_VERSION, { replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: FETCH_MAX_BYTES, isolationLevel: 0, topics: [{ topic: TOPIC, partitions: [{ partition: 0, fetchOffset: BigInt(next), partitionMaxBytes: MAX_PARTITION_FETCH_BYTES, currentLeaderEpoch: -1 }] }] }, 1),
        );
      };
      consumer.once('error', reject);
      consumer.once('close', () => reject(new Error('the broker closed the consumer connection')));
      frames(consumer, (f) => {
        const r = new Reader(f);
        readResponseHeader(r, 0);
        const p = readFetchResponse(r, FETCH_VERSION).responses[0]!.partitions[0]!;
        if (p.errorCode !== 0) return reject(new Error(`fetch error ${p.errorCode}`));
        highWatermark = Number(p.highWatermark);
        // Whole batches by their headers (a consumer's decoding of the records is the client's
        // cost, not the broker's); a batch cut at the byte limit ends the walk.
        let rest = p.records ?? new Uint8Array(0);
        while (rest.length >= RECORD_BATCH_HEADER_SIZE && new DataView(rest.buffer, rest.byteOffset + 8, 4).getInt32(0) + 12 <= rest.length) {
          const b = batchHeader(rest);
          for (let o = b.baseOffset; o <= b.lastOffset; o++) if (o >= next) fetched++;
          next = Math.max(next, b.lastOffset + 1);
          rest = rest.subarray(b.sizeBytes);
        }
        if (next >= highWatermark) resolve();
        else fetchNext();
      });
      fetchNext();
    });
    const catchUpMs = performance.now() - catchUpStart;
    const catchUpCpuMs = processCpuMs(engine.pid) - catchUpCpu0;
    markWindow('catch-up end');
    consumer.destroy();
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      recordsPerEngineCpuSec: (acked * 1000) / engineCpuMs,
      engineCpuShare: engineCpuMs / elapsed,
      recordsPerSec,
      requests,
      errors,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      catchUpRecordsPerSec: (fetched * 1000) / catchUpMs,
      catchUpRecords: fetched,
      catchUpRecordsPerEngineCpuSec: (fetched * 1000) / catchUpCpuMs,
      batchBytes: batch.length,
    };
  } finally {
    await engine.close();
    removeTempDir(dataDir);
  }
}
