/**
 * The transactional clients of the contract over real HTTP against a real data directory whose
 * brokers serve Kafka listeners: a kafkajs transactional producer kept open between calls (its
 * records held behind the last stable offset until it commits), an abort read_committed skips, a
 * second producer of the same transactional.id fencing the first, and a producer that crashes
 * with its transaction open. The last test checks that this file called every such method.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodInput, MethodName, MethodResult, Result } from '../../app/api/contract.js';
import { clientTxnMethods } from '../../app/api/client-txn-contract.js';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { startHttpHost, type HttpHost } from './http-host.js';
import { loadOrCreateToken } from './token.js';

let dir: string;
let cluster: OpenCluster;
let host: HttpHost;
let token: string;
const called = new Set<string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-client-txn-http-'));
  token = loadOrCreateToken(dir);
  cluster = openCluster({ dataDir: dir, brokers: 3, logger: { error: () => {} }, kafkaPort: 0 });
  expect(await cluster.ready(15_000)).toBe(true);
  host = await startHttpHost({ service: cluster.service, port: 0, host: '127.0.0.1', token, logger: { error: () => {} } });
  await ok('topics.create', { name: 'payments', partitions: 2, replicationFactor: 3 });
}, 30_000);

afterAll(async () => {
  await host?.close();
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

async function post<M extends MethodName>(method: M, input: MethodInput<M>): Promise<Result<MethodResult<M>>> {
  called.add(method);
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(45_000),
  });
  return (await res.json()) as Result<MethodResult<M>>;
}

async function ok<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const body = await post(method, input);
  if (!body.ok) throw new Error(`${method} failed: ${JSON.stringify(body.error)}`);
  return body.value;
}

const committed = (partition: number) => ok('clients.fetch', { topic: 'payments', partition, offset: 0, isolation: 'read_committed' });
const uncommitted = (partition: number) => ok('clients.fetch', { topic: 'payments', partition, offset: 0, isolation: 'read_uncommitted' });

async function until<T>(check: () => Promise<T | null>, what: string): Promise<T> {
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const v = await check();
    if (v !== null) return v;
  }
  throw new Error(`not within 20 s: ${what}`);
}

describe('transactional clients over HTTP', () => {
  it('an open transaction is held behind the LSO; committed, read_committed reads it; aborted, read_committed skips it', async () => {
    const open = await ok('clients.beginTransaction', {
      name: 'writer',
      transactionalId: 'payments-tx',
      records: [
        { topic: 'payments', partition: 0, value: 'p0-a' },
        { topic: 'payments', partition: 0, value: 'p0-b' },
        { topic: 'payments', partition: 1, key: 'k', value: 'p1-a' },
      ],
    });
    expect(open).toMatchObject({ name: 'writer', transactionalId: 'payments-tx', errorCode: 'NONE', open: true });
    expect(open.sent).toEqual([
      { topic: 'payments', partition: 0, baseOffset: 0, count: 2 },
      { topic: 'payments', partition: 1, baseOffset: 0, count: 1 },
    ]);
    expect([1, 2, 3]).toContain(open.coordinatorId);
    // HW 2, LSO 0: read_committed gets nothing, read_uncommitted both records.
    expect(await committed(0)).toMatchObject({ errorCode: 'NONE', highWatermark: 2, lastStableOffset: 0, records: [] });
    expect((await uncommitted(0)).records.map((r) => r.value)).toEqual(['p0-a', 'p0-b']);

    expect(await ok('clients.endTransaction', { name: 'writer', commit: true })).toMatchObject({ errorCode: 'NONE', open: false, sent: [] });
    const after = await until(async () => {
      const f = await committed(0);
      return f.lastStableOffset === 3 ? f : null;
    }, 'the COMMIT marker at offset 2');
    expect(after).toMatchObject({ highWatermark: 3, abortedTransactions: [] });
    expect(after.records.map((r) => [r.offset, r.value])).toEqual([
      [0, 'p0-a'],
      [1, 'p0-b'],
    ]);
    expect((await until(async () => ((await committed(1)).lastStableOffset === 2 ? committed(1) : null), 'partition 1 committed')).records).toEqual([{ offset: 0, key: 'k', value: 'p1-a' }]);

    // The producer closed with its commit; a new one (the same transactional.id) aborts its transaction.
    await ok('clients.beginTransaction', { name: 'writer', transactionalId: 'payments-tx', records: [{ topic: 'payments', partition: 0, value: 'p0-aborted' }] });
    expect(await ok('clients.endTransaction', { name: 'writer', commit: false })).toMatchObject({ errorCode: 'NONE', open: false });
    const skipped = await until(async () => {
      const f = await committed(0);
      return f.lastStableOffset === 5 ? f : null;
    }, 'the ABORT marker at offset 4');
    expect(skipped.abortedTransactions).toHaveLength(1);
    expect(skipped.abortedTransactions[0]!.firstOffset).toBe(3);
    expect(skipped.records.map((r) => r.value)).toEqual(['p0-a', 'p0-b']);
    expect((await uncommitted(0)).records.map((r) => r.value)).toEqual(['p0-a', 'p0-b', 'p0-aborted']);
  }, 60_000);

  it('a second producer with the same transactional.id fences the first: its open transaction is aborted and its commit refused', async () => {
    const old = await ok('clients.beginTransaction', { name: 'zombie', transactionalId: 'fenced-tx', records: [{ topic: 'payments', partition: 1, value: 'zombie-write' }] });
    expect(old.open).toBe(true);
    const successor = await ok('clients.beginTransaction', { name: 'successor', transactionalId: 'fenced-tx', records: [{ topic: 'payments', partition: 1, value: 'successor-write' }] });
    expect(successor).toMatchObject({ errorCode: 'NONE', open: true });
    // kafkajs sends EndTxn v1, so the coordinator answers INVALID_PRODUCER_EPOCH (PRODUCER_FENCED from v2).
    expect(await ok('clients.endTransaction', { name: 'zombie', commit: true })).toMatchObject({ errorCode: 'INVALID_PRODUCER_EPOCH', open: false });
    expect(await ok('clients.endTransaction', { name: 'successor', commit: true })).toMatchObject({ errorCode: 'NONE' });
    const read = await until(async () => {
      const f = await committed(1);
      return f.records.some((r) => r.value === 'successor-write') ? f : null;
    }, 'the successor commit');
    expect(read.records.map((r) => r.value)).not.toContain('zombie-write');
  }, 60_000);

  it('a crashed producer leaves its transaction open; the name is free again; a name keeps its transactional.id', async () => {
    await ok('clients.beginTransaction', { name: 'doomed', transactionalId: 'doomed-tx', records: [{ topic: 'payments', partition: 0, value: 'left-open' }] });
    expect(await post('clients.beginTransaction', { name: 'doomed', transactionalId: 'other-tx', records: [{ topic: 'payments', partition: 0, value: 'x' }] })).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect(await ok('clients.crash', { name: 'doomed' })).toMatchObject({ name: 'doomed', open: true });
    expect(await post('clients.endTransaction', { name: 'doomed', commit: true })).toMatchObject({ ok: false, error: { code: 'INVALID_STATE' } });
    const f = await committed(0);
    expect(f.lastStableOffset).toBeLessThan(f.highWatermark);
    expect(f.records.map((r) => r.value)).not.toContain('left-open');
  }, 60_000);

  it('called every transactional client method over HTTP', () => {
    expect(Object.keys(clientTxnMethods).filter((m) => !called.has(m))).toEqual([]);
  });
});
