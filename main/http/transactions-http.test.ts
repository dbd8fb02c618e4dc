/**
 * The transactions methods over real HTTP against a real data directory, and through the Kafka
 * driver against the same cluster's listeners (both drivers must answer the same), in a state
 * where each partition's offsets differ: kafkajs's transactional producer holds `payments-0` open
 * (LSO below the high watermark) and a hanging transaction holds `payments-1` — a transactional
 * batch whose producer id no coordinator knows, written as a producer whose AddPartitionsToTxn
 * was lost would have written it. The brokers run with KIP-890's verification off, which exists to
 * refuse exactly that write. The hanging transaction is found as `kafka-transactions.sh
 * find-hanging` finds it and aborted after a preview, by WriteTxnMarkers over the wire (the Kafka
 * driver) and by the engine (the local driver); a read_committed kafkajs consumer then reads past it.
 * The last test checks that this file called every transactions method.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Producer, type Transaction } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodInput, MethodName, MethodResult, Result } from '../../app/api/contract.js';
import { transactionsMethods } from '../../app/api/transactions-contract.js';
import { ApiKey } from '../../app/protocol/generated/index.js';
import { encodeRecordBatch } from '../../app/protocol/records/record-batch.js';
import { clientRecord, codecs } from '../../app/protocol/test-support/wire-sim.js';
import { createKafkaDriver, type KafkaDriver } from '../../app/service/kafka-driver/kafka-driver.js';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { startHttpHost, type HttpHost } from './http-host.js';
import { loadOrCreateToken } from './token.js';

const TOPIC = 'payments';
let dir: string;
let cluster: OpenCluster;
let host: HttpHost;
let token: string;
let bootstrap: string[];
let kafka: Kafka;
let external: KafkaDriver;
let txProducer: Producer;
let open: Transaction;
const quiet = { error: () => {} };
const called = new Set<string>();

async function post<M extends MethodName>(method: M, input: MethodInput<M>): Promise<{ status: number; body: Result<MethodResult<M>> }> {
  called.add(method);
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as Result<MethodResult<M>> };
}

async function ok<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const { status, body } = await post(method, input);
  if (!body.ok) throw new Error(`${method} failed (${status}): ${JSON.stringify(body.error)}`);
  return body.value;
}

/** The same call through the Kafka driver (an external cluster's path). */
async function viaKafka<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const r = await external.call(method, input as never);
  if (!r.ok) throw new Error(`${method} (Kafka driver) failed: ${r.error.code} ${r.error.message}`);
  return r.value as MethodResult<M>;
}

async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const offsetsOf = async (partition: number) => (await ok('transactions.producers', { topic: TOPIC, partitions: [partition] }))[0]!.offsets!;

/**
 * A transactional batch of `values` on `partition` from a new producer id (InitProducerId without
 * a transactional id), under a transactional id no coordinator has: nothing will ever end it.
 */
async function hangingTransaction(partition: number, values: string[]): Promise<number> {
  const init = await external.client.send(undefined, ApiKey.InitProducerId, [0, 4], { transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }, 'InitProducerId');
  expect(init.errorCode).toBe(0);
  const records = values.map((v) => clientRecord(v, null, Date.now()));
  const batch = encodeRecordBatch(
    { baseOffset: 0, lastOffset: records.length - 1, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0, transactional: true },
    { codecs, producer: { id: Number(init.producerId), epoch: init.producerEpoch, baseSequence: 0 } },
  );
  const leader = (await external.client.metadata([TOPIC])).topics[0]!.partitions.find((p) => p.partition === partition)!.leader;
  const res = await external.client.send(leader, ApiKey.Produce, [3, 8], { transactionalId: 'lost-add-partitions', acks: -1, timeoutMs: 10_000, topicData: [{ name: TOPIC, partitionData: [{ index: partition, records: batch }] }] }, 'Produce');
  expect(res.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
  return Number(init.producerId);
}

async function plain(partition: number, values: string[]): Promise<void> {
  const p = kafka.producer();
  await p.connect();
  await p.send({ topic: TOPIC, acks: -1, messages: values.map((value) => ({ value, partition })) });
  await p.disconnect();
}

/** What a read_committed consumer (kafkajs's default isolation) reads of `partition`, until it has `count` records. */
async function readCommitted(partition: number, count: number): Promise<string[]> {
  const consumer = kafka.consumer({ groupId: `reader-${partition}-${Date.now()}`, sessionTimeout: 10_000, heartbeatInterval: 500, maxWaitTimeInMs: 200 });
  const seen: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ partition: p, message }) => void (p === partition && seen.push(message.value!.toString())) });
  try {
    await until(async () => seen.length >= count, 30_000, `${count} records of ${TOPIC}-${partition}`);
    await new Promise((r) => setTimeout(r, 500));
    return seen;
  } finally {
    await consumer.disconnect();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-transactions-http-'));
  token = loadOrCreateToken(dir);
  cluster = openCluster({ dataDir: dir, brokers: 3, logger: quiet, kafkaPort: 0, staticConfigs: { 'transaction.partition.verification.enable': 'false' } });
  expect(await cluster.ready(15_000)).toBe(true);
  host = await startHttpHost({ service: cluster.service, port: 0, host: '127.0.0.1', token, logger: quiet });
  bootstrap = (await ok('cluster.describe', {})).bootstrapServers!.split(',');
  await ok('topics.create', { name: TOPIC, partitions: 2, replicationFactor: 3 });
  kafka = new Kafka({ clientId: 'txn-http', brokers: bootstrap, logLevel: logLevel.NOTHING });
  external = createKafkaDriver({ bootstrapServers: bootstrap, security: 'PLAINTEXT' }, { connection: 'ext', logger: quiet });
}, 60_000);

afterAll(async () => {
  await txProducer?.disconnect().catch(() => undefined);
  await external?.close();
  await host?.close();
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('the transactions methods over HTTP and through the Kafka driver', () => {
  let ghost: number;
  let txPid: number;

  it('lists an open transaction and shows the LSO held below the high watermark on both partitions', async () => {
    await plain(0, ['c1', 'c2']);
    await plain(1, ['p1', 'p2', 'p3']);
    txProducer = kafka.producer({ transactionalId: 'payments-tx', maxInFlightRequests: 1, idempotent: true, transactionTimeout: 60_000 });
    await txProducer.connect();
    open = await txProducer.transaction();
    await open.send({ topic: TOPIC, messages: ['o1', 'o2'].map((value) => ({ value, partition: 0 })) });
    ghost = await hangingTransaction(1, ['g1', 'g2']);
    await plain(1, ['after1', 'after2']);
    await until(async () => (await offsetsOf(0)).highWatermark === 4 && (await offsetsOf(1)).highWatermark === 7, 15_000, 'both partitions replicated');

    const list = await ok('transactions.list', {});
    expect(list.unanswered).toEqual([]);
    expect(list.transactions).toHaveLength(1);
    const tx = list.transactions[0]!;
    txPid = tx.producerId;
    expect(tx).toMatchObject({ transactionalId: 'payments-tx', state: 'Ongoing', timeoutMs: 60_000, pastTimeout: false, partitions: [{ topic: TOPIC, partition: 0 }] });
    expect(tx.durationMs).toBeGreaterThanOrEqual(0);
    expect(tx.durationMs).toBeLessThan(60_000);
    expect((await ok('transactions.list', { states: ['CompleteCommit'] })).transactions).toEqual([]);

    const parts = await ok('transactions.producers', { topic: TOPIC });
    // payments-0: two plain records, then the open transaction's two: the LSO is held at its start (2).
    expect(parts[0]).toMatchObject({ partition: 0, errorCode: 'NONE', offsets: { logStartOffset: 0, lastStableOffset: 2, highWatermark: 4, logEndOffset: 4 }, lsoHeldBy: txPid });
    expect(parts[0]!.producers.find((p) => p.producerId === txPid)).toMatchObject({ currentTxnStartOffset: 2, transactionalId: 'payments-tx', transaction: { state: 'Ongoing', timeoutMs: 60_000, includesPartition: true } });
    // payments-1: three plain records, the hanging transaction's two, two plain records after it.
    expect(parts[1]).toMatchObject({ partition: 1, offsets: { lastStableOffset: 3, highWatermark: 7, logEndOffset: 7 }, lsoHeldBy: ghost });
    expect(parts[1]!.producers.find((p) => p.producerId === ghost)).toMatchObject({ currentTxnStartOffset: 3, transactionalId: null, transaction: null, coordinatorEpoch: -1 });
    const missing = await post('transactions.producers', { topic: 'nope' });
    expect(missing.body).toMatchObject({ ok: false, error: { code: 'UNKNOWN_TOPIC_OR_PARTITION' } });
  }, 90_000);

  it('finds the hanging transaction as find-hanging does: only past the max timeout, and not the one its coordinator will end', async () => {
    // Both transactions wrote a moment ago: none is a candidate at the tool's default 15 minutes.
    expect(await ok('transactions.findHanging', { topic: TOPIC })).toMatchObject({ maxTransactionTimeoutMs: 900_000, partitionsSearched: 2, hanging: [] });
    const found = await ok('transactions.findHanging', { maxTransactionTimeoutMs: 0 });
    expect(found.hanging).toEqual([
      expect.objectContaining({ topic: TOPIC, partition: 1, producerId: ghost, startOffset: 3, transactionalId: null, coordinatorState: null, reason: expect.stringMatching(/^No coordinator lists producer/) }),
    ]);
    expect((await ok('transactions.findHanging', { topic: TOPIC, partitions: [0], maxTransactionTimeoutMs: 0 })).hanging).toEqual([]);
    const bad = await post('transactions.findHanging', { partitions: [0] });
    expect(bad.body).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: 'The partitions argument requires topic to be provided' } });
  }, 60_000);

  it('the Kafka driver answers the same over the wire (ListTransactions, DescribeTransactions, DescribeProducers, ListOffsets)', async () => {
    const list = await viaKafka('transactions.list', {});
    expect(list.transactions.map(({ durationMs: _d, ...t }) => t)).toEqual((await ok('transactions.list', {})).transactions.map(({ durationMs: _d, ...t }) => t));
    const parts = await viaKafka('transactions.producers', { topic: TOPIC });
    // Kafka tells clients no leader's log end offset.
    expect(parts.map((p) => ({ ...p, offsets: { ...p.offsets!, logEndOffset: 4 } }))[0]).toEqual((await ok('transactions.producers', { topic: TOPIC }))[0]);
    expect(parts[1]!.offsets).toEqual({ logStartOffset: 0, lastStableOffset: 3, highWatermark: 7, logEndOffset: null });
    expect((await viaKafka('transactions.findHanging', { maxTransactionTimeoutMs: 0 })).hanging.map((h) => [h.topic, h.partition, h.producerId])).toEqual([[TOPIC, 1, ghost]]);
  }, 60_000);

  it('previews the abort, refuses a start offset no transaction starts at, and aborts by WriteTxnMarkers from the Kafka driver', async () => {
    const wrong = await post('transactions.abort', { topic: TOPIC, partition: 1, startOffset: 4 });
    expect(wrong.body).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST', message: `Could not find any open transactions starting at offset 4 on partition ${TOPIC}-1` } });
    const unnamed = await post('transactions.abort', { topic: TOPIC, partition: 1 });
    expect(unnamed.status).toBe(400);
    expect(unnamed.body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });

    const preview = await ok('transactions.abort', { topic: TOPIC, partition: 1, startOffset: 3 });
    expect(preview).toMatchObject({
      dryRun: true,
      producerId: ghost,
      coordinatorEpoch: 0,
      startOffset: 3,
      before: { lastStableOffset: 3, highWatermark: 7, logEndOffset: 7 },
      // The marker goes at 7: the LSO moves to 8, the ghost's 2 records are aborted, after1 and after2 are released.
      lastStableOffsetAfter: 8,
      abortedRecords: 2,
      releasedRecords: 2,
      countsExact: true,
      stillOpen: [],
      after: null,
    });
    expect((await offsetsOf(1)).lastStableOffset).toBe(3);
    const external = await viaKafka('transactions.abort', { topic: TOPIC, partition: 1, startOffset: 3 });
    expect({ ...external, before: { ...external.before, logEndOffset: 7 }, leader: preview.leader }).toEqual(preview);

    const done = await viaKafka('transactions.abort', { topic: TOPIC, partition: 1, startOffset: 3, dryRun: false });
    expect(done.after).toEqual({ logStartOffset: 0, lastStableOffset: 8, highWatermark: 8, logEndOffset: null });
    expect((await ok('transactions.findHanging', { maxTransactionTimeoutMs: 0 })).hanging).toEqual([]);
    expect(await readCommitted(1, 5)).toEqual(['p1', 'p2', 'p3', 'after1', 'after2']);
  }, 90_000);

  it('aborts through the cluster the console runs: a second hanging transaction behind the open one keeps the LSO at the open one', async () => {
    const second = await hangingTransaction(0, ['h1']);
    await until(async () => (await offsetsOf(0)).highWatermark === 5, 15_000, 'the second hanging batch replicated');
    const preview = await ok('transactions.abort', { topic: TOPIC, partition: 0, startOffset: 4 });
    // payments-tx still holds the LSO at 2: aborting the later transaction releases nothing yet.
    expect(preview).toMatchObject({ producerId: second, before: { lastStableOffset: 2, highWatermark: 5 }, lastStableOffsetAfter: 2, abortedRecords: 1, releasedRecords: 0, stillOpen: [{ producerId: txPid, startOffset: 2 }] });
    const done = await ok('transactions.abort', { topic: TOPIC, partition: 0, producerId: second, producerEpoch: preview.producerEpoch, coordinatorEpoch: -1, dryRun: false });
    expect(done.after).toMatchObject({ lastStableOffset: 2, highWatermark: 6, logEndOffset: 6 });
    await open.commit();
    await until(async () => (await offsetsOf(0)).lastStableOffset === 7, 15_000, 'the LSO past the COMMIT marker');
    expect(await readCommitted(0, 4)).toEqual(['c1', 'c2', 'o1', 'o2']);
  }, 90_000);

  it('called every transactions method over HTTP', () => {
    expect([...called].filter((m) => m in transactionsMethods).sort()).toEqual(Object.keys(transactionsMethods).sort());
  });
});
