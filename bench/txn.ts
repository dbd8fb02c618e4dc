/**
 * Transactions through the Kafka listener, as an application sees them (issue 31): kafkajs 2.2.4
 * against an engine in a child process (`startRemoteService`, as `npm run serve` runs it), three
 * brokers, topics of one partition, RF 3, min.insync.replicas 2.
 *
 * `txn.produce.100B.1000-per-txn.records`: a transactional producer, each transaction one send of
 * TXN_RECORDS records of VALUE_BYTES (AddPartitionsToTxn, one Produce with acks=all, EndTxn
 * commit), records/s; its limit is the same client as an idempotent producer sending the same
 * TXN_RECORDS records per request with acks=all, one request at a time as the transactional one
 * sends them. The two take turns in ROUNDS windows of WINDOW_MS each, which goes first
 * alternating (so a machine getting busier weighs on both alike); goal ≥ 0.8.
 *
 * `txn.produce.100B.1000-per-txn.java.records`: the same pair with Apache Kafka's Java client
 * (bench/java/TxnBench.java), which keeps the coordinator it found and adds a partition once per
 * transaction, so a transaction asks for AddPartitionsToTxn, Produce and EndTxn only. Left out,
 * with a line saying why, when no JDK or no built client is found (as the e2e Java tests skip).
 *
 * `txn.consume.read-committed.records`: the transactional log read back from offset 0 to its end
 * with Fetch (1 MiB per partition, as a Kafka consumer asks; kafkajs decodes every batch and drops
 * markers, and read_committed aborted transactions), read_committed against read_uncommitted over
 * the same log after one read that is not measured (the first read of a log is the slower one),
 * taking turns ROUNDS times; records delivered per second; goal ≥ 0.8.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import Batch from 'kafkajs/src/consumer/batch.js';
import { createKafkajsCluster, quietLogger } from '../app/kafka-client/config.js';
import type { ClusterView } from '../app/api/views.js';
import { startRemoteService } from '../main/engine/forked-engine.js';
import { figure, fmt, machine, printTable, RESULTS_FILE, round, writeResults, type Figure, type Results } from './figures.js';
import { MIN_INSYNC_REPLICAS, REPLICATION_FACTOR, makeTempDir, removeTempDir } from './produce-throughput.js';
import { compileJavaPrograms, javaClient } from '../e2e/support/java-security.js';

export const TXN_RECORDS = 1_000;
export const VALUE_BYTES = 100;
const WINDOW_MS = 3_000;
const ROUNDS = 4;
const GOAL = 0.8;
const FETCH_BYTES = 1_048_576;
/** What `npm run bench` keeps free for these figures (the windows, the engine's start, the reads). */
export const TXN_BUDGET_MS = 130_000;

/** Text values as an application would send, each its own. */
function values(n: number): { value: string }[] {
  return Array.from({ length: n }, (_, i) => {
    const head = `{"order":${i},"customer":"c-${(i * 7919) % 10_007}","items":[`;
    return { value: (head + 'x'.repeat(Math.max(0, VALUE_BYTES - head.length - 2)) + ']}').slice(0, VALUE_BYTES) };
  });
}

interface Window {
  records: number;
  ms: number;
}

/** Send for `ms`, one request (or transaction) at a time; records acknowledged and the time taken. */
async function produceFor(ms: number, send: () => Promise<void>): Promise<Window> {
  const started = performance.now();
  let records = 0;
  while (performance.now() - started < ms) {
    await send();
    records += TXN_RECORDS;
  }
  return { records, ms: performance.now() - started };
}

interface FetchedPartition {
  partition: number;
  errorCode: number;
  highWatermark: string;
  lastStableOffset: string;
  abortedTransactions?: { producerId: string; firstOffset: string }[];
  messages: { offset: string }[];
}

/** A kafkajs cluster and the leader of `topic`-0 on it, for Fetch requests as its consumer sends them. */
async function leaderOf(bootstrap: string[], topic: string) {
  const { cluster, destroySockets } = createKafkajsCluster({ bootstrapServers: bootstrap, security: 'PLAINTEXT', requestTimeoutMs: 60_000 }, quietLogger());
  await cluster.connect();
  await cluster.addTargetTopic(topic);
  const broker = await cluster.findBroker({ nodeId: Object.keys(cluster.findLeaderForPartitions(topic, [0]))[0]! });
  const fetch = async (offset: number, readCommitted: boolean): Promise<FetchedPartition> => {
    const r = (await broker.fetch({
      replicaId: -1,
      isolationLevel: readCommitted ? 1 : 0,
      maxWaitTime: 0,
      minBytes: 1,
      maxBytes: 50 * FETCH_BYTES,
      topics: [{ topic, partitions: [{ partition: 0, fetchOffset: String(offset), maxBytes: FETCH_BYTES }] }],
    })) as { responses: { partitions: FetchedPartition[] }[] };
    return r.responses[0]!.partitions[0]!;
  };
  return { fetch, close: async () => (await cluster.disconnect().catch(() => {}), destroySockets()) };
}

/** Read `topic`-0 from offset 0 to `end` as a consumer of this isolation level; records delivered and the time taken. */
async function readAll(bootstrap: string[], topic: string, end: number, readCommitted: boolean): Promise<Window> {
  const leader = await leaderOf(bootstrap, topic);
  try {
    const started = performance.now();
    let offset = 0;
    let records = 0;
    while (offset < end) {
      const p = await leader.fetch(offset, readCommitted);
      if (p.messages.length === 0) throw new Error(`no records at offset ${offset} of ${topic}-0 (end ${end})`);
      records += new Batch(topic, String(offset), p).messages.length;
      offset = Number(p.messages[p.messages.length - 1]!.offset) + 1;
    }
    return { records, ms: performance.now() - started };
  } finally {
    await leader.close();
  }
}

/**
 * The produce pair with the Java client (bench/java/TxnBench.java) on topics `idempotent-java` and
 * `transactional-java`; null, after a line saying why, when the client cannot run here.
 */
async function javaProduceFigure(bootstrap: string): Promise<Figure | null> {
  const client = javaClient();
  if ('skipReason' in client) {
    console.log(`  Java client: ${client.skipReason}`);
    return null;
  }
  const cp = compileJavaPrograms(join(dirname(fileURLToPath(import.meta.url)), 'java'), client.classpath);
  try {
    const args = ['-cp', cp, 'TxnBench', bootstrap, 'idempotent-java', 'transactional-java', String(WINDOW_MS), String(ROUNDS), String(TXN_RECORDS), String(VALUE_BYTES)];
    // Not spawnSync: this process relays the engine's events, which would back up and hold its clock.
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('java', args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`TxnBench exited ${code}: ${stderr.slice(-2000)}`))));
    });
    const m = /^RESULT (\d+) ([\d.]+) (\d+) ([\d.]+)$/m.exec(out);
    if (!m) throw new Error(`TxnBench printed no RESULT line: ${out.slice(-500)}`);
    const [idemRecords, idemMs, txnRecords, txnMs] = m.slice(1).map(Number) as [number, number, number, number];
    const idemRate = (idemRecords / idemMs) * 1000;
    const txnRate = (txnRecords / txnMs) * 1000;
    console.log(`  Java client (kafka-clients 3.8.0), same pair: idempotent ${fmt(Math.round(idemRate))} records/s, transactional ${fmt(Math.round(txnRate))} records/s (${fmt(Math.round(txnRate / TXN_RECORDS))} transactions/s)`);
    return judged(figure('txn.produce.100B.1000-per-txn.java.records', txnRate, 'records/s', idemRate), { transactionsPerSec: round(txnRate / TXN_RECORDS) });
  } finally {
    rmSync(cp.split(':')[0]!, { recursive: true, force: true });
  }
}

/** A throughput figure with this file's goal, and the machine's load while it was measured (the results file's machine block is a full run's). */
function judged(f: Figure, context: Record<string, number>): Figure {
  return { ...f, goal: GOAL, pass: f.ratio >= GOAL, context: { ...context, loadAverage: Math.round(loadavg()[0]! * 100) / 100 } };
}

export async function txnFigures(): Promise<Figure[]> {
  const dataDir = makeTempDir('replica-bench-txn-');
  const engine = await startRemoteService({ dataDir, seed: 1, brokers: 3, kafkaPort: 0, logger: { error: () => {} } });
  const producers: Producer[] = [];
  try {
    if (!(await engine.ready())) throw new Error('the brokers did not start');
    for (const name of ['idempotent', 'transactional', 'idempotent-java', 'transactional-java']) {
      const created = await engine.call('topics.create', { name, partitions: 1, replicationFactor: REPLICATION_FACTOR, configs: { 'min.insync.replicas': String(MIN_INSYNC_REPLICAS) } });
      if (!created.ok) throw new Error(created.error.message);
    }
    const view = (await engine.call('cluster.describe', {})) as { ok: true; value: ClusterView };
    const kafka = new Kafka({ clientId: 'bench-txn', brokers: view.value.bootstrapServers.split(','), logLevel: logLevel.NOTHING, requestTimeout: 60_000 });
    const idempotent = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    const transactional = kafka.producer({ idempotent: true, maxInFlightRequests: 1, transactionalId: 'bench-tx' });
    producers.push(idempotent, transactional);
    await Promise.all(producers.map((p) => p.connect()));
    const messages = values(TXN_RECORDS);
    const sendIdempotent = async (): Promise<void> => void (await idempotent.send({ topic: 'idempotent', acks: -1, messages: messages.map((m) => ({ ...m, partition: 0 })) }));
    const sendTransaction = async (): Promise<void> => {
      const t = await transactional.transaction();
      await t.send({ topic: 'transactional', acks: -1, messages: messages.map((m) => ({ ...m, partition: 0 })) });
      await t.commit();
    };
    // Warm both paths (JIT, the coordinator's __transaction_state) before measuring.
    await produceFor(1_000, sendIdempotent);
    await produceFor(1_000, sendTransaction);
    // What each transaction asks of the cluster, counted from kafkajs's own request events while
    // measuring: a second AddPartitionsToTxn in one transaction is a retry after CONCURRENT_TRANSACTIONS.
    const asked = new Map<string, number>();
    let counting = false;
    transactional.on(transactional.events.REQUEST, (e: { payload: { apiName: string } }) => {
      if (counting) asked.set(e.payload.apiName, (asked.get(e.payload.apiName) ?? 0) + 1);
    });
    const idem: Window = { records: 0, ms: 0 };
    const txn: Window = { records: 0, ms: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const pair = [
        [idem, sendIdempotent],
        [txn, sendTransaction],
      ] as const;
      for (const [w, send] of round % 2 === 0 ? pair : [...pair].reverse()) {
        counting = w === txn;
        const r = await produceFor(WINDOW_MS, send);
        counting = false;
        w.records += r.records;
        w.ms += r.ms;
      }
    }
    const transactions = txn.records / TXN_RECORDS;
    const perTxn = (api: string): number => round((asked.get(api) ?? 0) / transactions);
    const idemRate = (idem.records / idem.ms) * 1000;
    const txnRate = (txn.records / txn.ms) * 1000;
    console.log(`  produce ${TXN_RECORDS} × ${VALUE_BYTES} B per request, acks=all: idempotent ${fmt(Math.round(idemRate))} records/s, transactional (one transaction per request) ${fmt(Math.round(txnRate))} records/s (${fmt(Math.round(txnRate / TXN_RECORDS))} transactions/s)`);
    console.log(`  requests per transaction (kafkajs): ${[...asked].map(([api, n]) => `${api} ${round(n / transactions)}`).join(', ')}`);
    const produce = judged(figure('txn.produce.100B.1000-per-txn.records', txnRate, 'records/s', idemRate), {
      transactionsPerSec: round(txnRate / TXN_RECORDS),
      findCoordinatorPerTxn: perTxn('GroupCoordinator'),
      addPartitionsToTxnPerTxn: perTxn('AddPartitionsToTxn'),
      endTxnPerTxn: perTxn('EndTxn'),
    });

    const bootstrap = view.value.bootstrapServers.split(',');
    const java = await javaProduceFigure(bootstrap.join(','));

    // The transactional log read back once every marker is in: LSO = HW, so both isolation levels read all of it.
    const probe = await leaderOf(bootstrap, 'transactional');
    let end = -1;
    for (let i = 0; i < 100 && end < 0; i++) {
      const p = await probe.fetch(0, true);
      if (p.lastStableOffset === p.highWatermark) end = Number(p.highWatermark);
      else await new Promise((r) => setTimeout(r, 100));
    }
    await probe.close();
    if (end < 0) throw new Error('the transactional log never became stable');
    const rc: Window = { records: 0, ms: 0 };
    const ru: Window = { records: 0, ms: 0 };
    await readAll(bootstrap, 'transactional', end, false); // the first read of a log is the slower one: not measured
    for (let round = 0; round < ROUNDS; round++) {
      const pair = [
        [rc, true],
        [ru, false],
      ] as const;
      for (const [w, committed] of round % 2 === 0 ? pair : [...pair].reverse()) {
        const r = await readAll(bootstrap, 'transactional', end, committed);
        w.records += r.records;
        w.ms += r.ms;
      }
    }
    const rcRate = (rc.records / rc.ms) * 1000;
    const ruRate = (ru.records / ru.ms) * 1000;
    console.log(`  consume ${fmt(end)} offsets (${fmt(rc.records / ROUNDS)} records, a marker per ${TXN_RECORDS}), 1 MiB per fetch: read_committed ${fmt(Math.round(rcRate))} records/s, read_uncommitted ${fmt(Math.round(ruRate))} records/s`);
    const consume = judged(figure('txn.consume.read-committed.records', rcRate, 'records/s', ruRate), { offsets: end, markers: end - rc.records / ROUNDS });
    return java ? [produce, java, consume] : [produce, consume];
  } finally {
    await Promise.all(producers.map((p) => p.disconnect().catch(() => {})));
    await engine.close();
    removeTempDir(dataDir);
  }
}

/** `npm run bench -- txn`: the transaction figures alone, merged into the results file. */
export async function txnMain(): Promise<void> {
  const m = machine();
  console.log(`machine: ${m.cpu}, ${m.cores} cores, node ${m.node}; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`transactions: kafkajs against an engine in a child process, 3 brokers, one partition RF 3, min.insync.replicas 2; ${ROUNDS} rounds of ${WINDOW_MS / 1000} s each way`);
  const figures = await txnFigures();
  console.log(`(load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')})\n`);
  printTable(figures);
  // The machine block stays the last full run's (its load average describes those figures); these carry their own.
  const previous = existsSync(RESULTS_FILE) ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Partial<Results>).machine : undefined;
  const same = previous && previous.cpu === m.cpu && previous.cores === m.cores && previous.node === m.node;
  const results = writeResults(same ? previous : m, figures);
  console.log(`\nwrote ${results.figures.length} figures to ${RESULTS_FILE}`);
}
