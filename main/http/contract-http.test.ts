/**
 * Issue 5: every contract method over real HTTP against a real data directory. One host on
 * 127.0.0.1 (port 0) over a fresh temp dir with 3 brokers; each method is called with a realistic
 * input through `POST /api/<method>` and its answer checked for what a user would recognise. The
 * last test checks that the methods called are exactly `methodNames`, so a new method without an
 * HTTP test fails here.
 *
 * The tests run in order and share the cluster (later steps build on earlier ones). The clock runs
 * at scale 60 so asynchronous effects (a stopped broker, a finished reassignment) settle quickly;
 * every wait is bounded in real time.
 *
 * Over 500 lines on purpose: one cluster walked through every method in order, and the last test
 * needs every call made in this file to say none is missing (the security and connections
 * methods have files of their own, each with the same check).
 */
/* eslint max-lines: off */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methodNames, targetsCluster, type BrokerView, type MethodInput, type MethodName, type MethodResult, type Result, type TopicView } from '../../app/api/contract.js';
import { securityMethods } from '../../app/api/security-contract.js';
import { transactionsMethods } from '../../app/api/transactions-contract.js';
import { clientTxnMethods } from '../../app/api/client-txn-contract.js';
import { startHttpHost, type HttpHost } from './http-host.js';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { loadOrCreateToken } from './token.js';

let dir: string;
let cluster: OpenCluster;
let host: HttpHost;
let token: string;
const quiet = { error: () => {} };
/** Every method this file has called over HTTP. */
const called = new Set<string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-contract-http-'));
  cluster = openCluster({ dataDir: dir, brokers: 3, logger: quiet, kafkaPort: 0 });
  token = loadOrCreateToken(dir);
  expect(await cluster.ready(15_000)).toBe(true);
  host = await startHttpHost({ service: cluster.service, port: 0, host: '127.0.0.1', token, logger: quiet });
}, 30_000);

afterAll(async () => {
  await host?.close();
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

/** `POST /api/<method>` with the Bearer token; the HTTP status and the parsed envelope. */
async function post<M extends MethodName>(method: M, input: MethodInput<M>): Promise<{ status: number; body: Result<MethodResult<M>> }> {
  called.add(method);
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(15_000),
  });
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  return { status: res.status, body: (await res.json()) as Result<MethodResult<M>> };
}

/** A call that must succeed: 200 and `ok: true`; its value. */
async function ok<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const { status, body } = await post(method, input);
  if (!body.ok) throw new Error(`${method} ${JSON.stringify(input)} failed (${status}): ${JSON.stringify(body.error)}`);
  expect(status).toBe(200);
  return body.value;
}

/** Poll `probe` until it returns a value that is not undefined (bounded in real time). */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() >= deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function broker(id: number): Promise<BrokerView | undefined> {
  return (await ok('brokers.list', {})).find((b) => b.id === id);
}

function brokerIn(id: number, state: BrokerView['state']): Promise<BrokerView> {
  return until(`broker ${id} ${state}`, async () => {
    const b = await broker(id);
    return b?.state === state ? b : undefined;
  });
}

/** The topic once every partition has a leader and a full ISR. */
function settled(name: string): Promise<TopicView> {
  return until(`${name} settled`, async () => {
    const t = await ok('topics.describe', { name });
    return t.partitions.every((p) => p.leader >= 0 && p.isr.length === p.replicas.length && p.addingReplicas.length === 0 && p.removingReplicas.length === 0) ? t : undefined;
  });
}

/** A broker other than the active controller among `ids`. */
async function nonController(ids: number[]): Promise<number> {
  const c = await ok('cluster.describe', {});
  return ids.find((id) => id !== c.controllerId)!;
}

describe('every contract method over HTTP on a real data directory', () => {
  it('clock.get shows the real-time clock; clock.setScale speeds it to 60×', async () => {
    const clock = await ok('clock.get', {});
    expect(clock).toMatchObject({ mode: 'realtime', scale: 1 });
    expect(Math.abs(clock.nowMs - Date.now())).toBeLessThan(60_000);
    const fast = await ok('clock.setScale', { scale: 60 });
    expect(fast).toMatchObject({ mode: 'realtime', scale: 60 });
    expect((await ok('clock.get', {})).scale).toBe(60);
    // Out of range: a schema error, 400 INVALID_INPUT.
    const bad = await post('clock.setScale', { scale: 61 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('cluster.describe: 3 brokers and an active controller; brokers.list: all running', async () => {
    const c = await ok('cluster.describe', {});
    expect(c.clusterId).toEqual(expect.any(String));
    expect(c.clusterId.length).toBeGreaterThan(0);
    expect(c.brokers.map((b) => b.id)).toEqual([1, 2, 3]);
    expect([1, 2, 3]).toContain(c.controllerId);
    expect(c.brokers.filter((b) => b.isController).map((b) => b.id)).toEqual([c.controllerId]);
    expect(c).toMatchObject({ topicCount: 0, partitionCount: 0, offlinePartitions: 0 });
    // cluster.snapshot: the same view and every topic, from one read.
    const snapshot = await ok('cluster.snapshot', {});
    expect(snapshot).toEqual({ cluster: c, topics: [] });
    // Kafka clients: every broker's listener on 127.0.0.1, and the bootstrap string made of them.
    const listeners = c.brokers.map((b) => b.listener);
    expect(listeners.every((l) => l !== null && l.host === '127.0.0.1' && l.port > 0)).toBe(true);
    expect(new Set(listeners.map((l) => l!.port)).size).toBe(3);
    expect(c.bootstrapServers).toBe(listeners.map((l) => `127.0.0.1:${l!.port}`).join(','));
    const brokers = await ok('brokers.list', {});
    expect(brokers.map((b) => [b.id, b.state, b.isolated, b.fetcherStalled])).toEqual([
      [1, 'running', false, false],
      [2, 'running', false, false],
      [3, 'running', false, false],
    ]);
    expect(brokers.every((b) => b.brokerEpoch >= 0)).toBe(true);
  });

  it('topics.create then topics.describe / topics.list show the partitions', async () => {
    const created = await ok('topics.create', { name: 'orders', partitions: 3, replicationFactor: 3 });
    expect(created.name).toBe('orders');
    expect(created.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    expect(created.partitions.every((p) => [...p.replicas].sort().join() === '1,2,3')).toBe(true);
    // validateOnly shows the topic without creating it.
    const planned = await ok('topics.create', { name: 'not-created', partitions: 2, replicationFactor: 2, validateOnly: true });
    expect(planned.partitions).toHaveLength(2);

    const described = await settled('orders');
    expect(described.topicId).toBe(created.topicId);
    expect(described.partitions.map((p) => p.leader)).toEqual(described.partitions.map((p) => p.replicas[0]));
    const list = await ok('topics.list', {});
    expect(list.map((t) => t.name)).toEqual(['orders']);
    expect(list[0]).toMatchObject({ name: 'orders', partitionCount: 3, replicationFactor: 3, offlinePartitions: 0, underReplicatedPartitions: 0 });
    // An engine error keeps Kafka's code (200, ok: false).
    const dup = await post('topics.create', { name: 'orders', partitions: 1, replicationFactor: 1 });
    expect(dup.status).toBe(200);
    expect(dup.body).toMatchObject({ ok: false, error: { code: 'TOPIC_ALREADY_EXISTS' } });
  });

  it('records.produce answers NONE, then records.consume returns the values', async () => {
    const produced = await ok('records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ key: 'order-1', value: 'espresso' }, { value: 'croissant', headers: [{ key: 'src', value: 'till-2' }] }] });
    expect(produced).toMatchObject({ partition: 0, baseOffset: 0, errorCode: 'NONE' });
    const consumed = await ok('records.consume', { topic: 'orders', partition: 0, offset: 0 });
    expect(consumed.highWatermark).toBe(2);
    expect(consumed.records.map((r) => [r.offset, r.key, r.value])).toEqual([
      [0, 'order-1', 'espresso'],
      [1, null, 'croissant'],
    ]);
    expect(consumed.records[1]!.headers).toEqual([{ key: 'src', value: 'till-2' }]);
  });

  it('records.search filters on the server with CEL and says what it scanned and where to continue', async () => {
    const found = await ok('records.search', { topic: 'orders', from: { beginning: true }, filter: { cel: 'has(headers.src) && value == "croissant"' } });
    expect(found.records.map((r) => [r.partition, r.offset, r.value?.text])).toEqual([[0, 1, 'croissant']]);
    expect(found.scanned).toBe(2);
    expect(found.next.find((n) => n.partition === 0)).toMatchObject({ offset: 2, done: true, highWatermark: 2 });
    const { status, body } = await post('records.search', { topic: 'orders', from: { beginning: true }, filter: { cel: 'value ==' } });
    expect(status).toBe(400);
    expect(!body.ok && body.error.code).toBe('INVALID_INPUT');
  });

  it('metrics.get shows a sample per second and every broker\'s disk use; events.recent the timeline without HW moves', async () => {
    // Two records of orders-0 are on all three brokers (RF 3): each stores them.
    const sample = await until('a sample with the records on every disk', async () => {
      const m = await ok('metrics.get', {});
      return m.intervalMs === 1_000 && m.brokers.every((b) => b.logBytes > 0) ? m : undefined;
    });
    expect(sample.brokers.map((b) => b.brokerId)).toEqual([1, 2, 3]);
    expect(sample).toMatchObject({ produceRecordsPerSec: expect.any(Number), replicationBytesPerSec: expect.any(Number), consumeRecordsPerSec: expect.any(Number) });
    const brokers = await ok('brokers.list', {});
    expect(brokers.every((b) => b.logBytes > 0)).toBe(true);
    expect(new Set(brokers.map((b) => b.logBytes)).size).toBe(1); // the same batches on each replica

    const recent = await ok('events.recent', {});
    expect(recent.length).toBeGreaterThan(0);
    expect(recent.some((e) => e.type === 'topic.created' && e.topic === 'orders')).toBe(true);
    expect(recent.some((e) => e.type === 'highWatermark.advanced' || e.type === 'metrics.sampled')).toBe(false);
    expect(recent.map((e) => e.atMs)).toEqual([...recent.map((e) => e.atMs)].sort((a, b) => a - b));
    const created = await ok('events.recent', { types: ['topic.created'], limit: 1 });
    expect(created).toMatchObject([{ type: 'topic.created', topic: 'orders', partitions: 3, replicationFactor: 3 }]);
    const bad = await post('events.recent', { limit: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('configs.alter then configs.describe shows the value with source DYNAMIC_TOPIC_CONFIG', async () => {
    const altered = await ok('configs.alter', { resource: { type: 'topic', name: 'orders' }, set: { 'retention.ms': '3600000', 'min.insync.replicas': '2' } });
    expect(altered.find((e) => e.name === 'retention.ms')).toMatchObject({ value: '3600000', source: 'DYNAMIC_TOPIC_CONFIG' });
    const described = await ok('configs.describe', { resource: { type: 'topic', name: 'orders' } });
    expect(described.find((e) => e.name === 'retention.ms')).toMatchObject({ value: '3600000', source: 'DYNAMIC_TOPIC_CONFIG', type: 'long' });
    expect(described.find((e) => e.name === 'min.insync.replicas')).toMatchObject({ value: '2', source: 'DYNAMIC_TOPIC_CONFIG' });
    expect(described.find((e) => e.name === 'cleanup.policy')).toMatchObject({ value: 'delete', source: 'DEFAULT_CONFIG' });
    expect((await ok('topics.describe', { name: 'orders' })).configs).toEqual({ 'retention.ms': '3600000', 'min.insync.replicas': '2' });
    // An invalid value comes back with Kafka's code.
    const bad = await post('configs.alter', { resource: { type: 'topic', name: 'orders' }, set: { 'min.insync.replicas': '0' } });
    expect(bad.body).toMatchObject({ ok: false, error: { code: 'INVALID_CONFIG' } });
  });

  it('topics.stats counts the records consumers can read and the bytes of the leaders\' logs; an unknown topic is left out', async () => {
    const [orders, ...rest] = await ok('topics.stats', { names: ['orders', 'no-such-topic'] });
    expect(rest).toEqual([]);
    const described = await ok('topics.describe', { name: 'orders' });
    const readable = described.partitions.reduce((n, p) => n + p.highWatermark - p.logStartOffset, 0);
    expect(readable).toBeGreaterThan(0); // the produce test above wrote to orders
    expect(orders).toMatchObject({ name: 'orders', records: readable });
    expect(orders!.sizeBytes).toBeGreaterThan(0);
    expect(orders!.recordsPerSec).toBeGreaterThanOrEqual(0);
    const bad = await post('topics.stats', { names: Array.from({ length: 501 }, (_, i) => `t${i}`) });
    expect(bad.body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('topics.durability explains RF 3 with min.insync.replicas 2', async () => {
    const d = await ok('topics.durability', { name: 'orders' });
    expect(d).toMatchObject({ replicationFactor: 3, minInsyncReplicas: 2, acks: 'all', uncleanLeaderElectionEnable: false });
    expect(d.writes.brokerFailures).toBe(1);
    expect(d.summary.length).toBeGreaterThan(0);
    const acks1 = await ok('topics.durability', { name: 'orders', acks: 1 });
    expect(acks1.acks).toBe(1);
  });

  it('leaders.elect → ELECTION_NOT_NEEDED on a fresh topic; leaders.balance and leaders.preview agree', async () => {
    const elected = await ok('leaders.elect', { type: 'preferred', partitions: [{ topic: 'orders', partition: 0 }] });
    expect(elected).toEqual([expect.objectContaining({ topic: 'orders', partition: 0, errorCode: 'ELECTION_NOT_NEEDED' })]);

    const balance = await ok('leaders.balance', {});
    expect(balance.brokers.map((b) => b.brokerId)).toEqual([1, 2, 3]);
    expect(balance.brokers.reduce((n, b) => n + b.leaders, 0)).toBe(3);
    expect(balance.brokers.every((b) => b.replicas === 3)).toBe(true);
    expect(balance.notPreferred).toEqual([]);
    expect(balance.autoLeaderRebalanceEnable).toBe(true);
    expect(balance.leaderImbalanceCheckIntervalSeconds).toBe(300);

    const preview = await ok('leaders.preview', { type: 'preferred' });
    expect(preview.results.map((r) => [r.topic, r.partition, r.errorCode])).toEqual([
      ['orders', 0, 'ELECTION_NOT_NEEDED'],
      ['orders', 1, 'ELECTION_NOT_NEEDED'],
      ['orders', 2, 'ELECTION_NOT_NEEDED'],
    ]);
    expect(preview.leadersAfter).toEqual(preview.leadersBefore);
    expect(Object.values(preview.leadersBefore).reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('topics.createMany / topics.deleteMany / topics.delete report per topic', async () => {
    const created = await ok('topics.createMany', {
      topics: [
        { name: 'bulk-a', partitions: 1, replicationFactor: 1 },
        { name: 'bulk-b', partitions: 2, replicationFactor: 2, configs: { 'retention.ms': '86400000' } },
        { name: 'bulk-bad', partitions: 1, replicationFactor: 5 },
      ],
    });
    expect(created.map((r) => [r.name, r.errorCode])).toEqual([
      ['bulk-a', 'NONE'],
      ['bulk-b', 'NONE'],
      ['bulk-bad', 'INVALID_REPLICATION_FACTOR'],
    ]);
    expect((await ok('topics.list', {})).map((t) => t.name)).toEqual(['bulk-a', 'bulk-b', 'orders']);
    expect((await ok('topics.describe', { name: 'bulk-b' })).configs).toEqual({ 'retention.ms': '86400000' });

    const deleted = await ok('topics.deleteMany', { names: ['bulk-a', 'bulk-b', 'never-was'] });
    expect(deleted.map((r) => [r.name, r.errorCode])).toEqual([
      ['bulk-a', 'NONE'],
      ['bulk-b', 'NONE'],
      ['never-was', 'UNKNOWN_TOPIC_OR_PARTITION'],
    ]);
    await until('bulk topics gone', async () => {
      const names = (await ok('topics.list', {})).map((t) => t.name);
      return names.join() === 'orders' ? names : undefined;
    });

    const scratch = await ok('topics.create', { name: 'scratch', partitions: 1, replicationFactor: 1 });
    expect(await ok('topics.delete', { name: 'scratch' })).toEqual({ name: 'scratch', topicId: scratch.topicId });
    const gone = await post('topics.describe', { name: 'scratch' });
    expect(gone.body).toMatchObject({ ok: false, error: { code: 'UNKNOWN_TOPIC_OR_PARTITION' } });
  });

  it('partitions.add grows orders to 4 partitions; reassignments.export shows them as Kafka JSON', async () => {
    const dry = await ok('partitions.add', { topic: 'orders', totalCount: 4, validateOnly: true });
    expect(dry.partitions).toHaveLength(4);
    expect((await ok('topics.describe', { name: 'orders' })).partitions).toHaveLength(3);
    const grown = await ok('partitions.add', { topic: 'orders', totalCount: 4 });
    expect(grown.partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3]);
    expect(grown.partitions[3]!.replicas).toHaveLength(3);
    const shrink = await post('partitions.add', { topic: 'orders', totalCount: 2 });
    expect(shrink.body).toMatchObject({ ok: false, error: { code: 'INVALID_PARTITIONS' } });
    const orders = await settled('orders');

    const exported = await ok('reassignments.export', { topics: ['orders'] });
    expect(exported.version).toBe(1);
    expect(exported.partitions).toEqual(orders.partitions.map((p) => ({ topic: 'orders', partition: p.partition, replicas: p.replicas, log_dirs: ['any', 'any', 'any'] })));
  });

  it('brokers.add adds a 4th broker that registers and runs', async () => {
    const added = await ok('brokers.add', { rack: null });
    expect(added.id).toBe(4);
    const running = await brokerIn(4, 'running');
    expect(running).toMatchObject({ id: 4, partitionCount: 0, leaderCount: 0 });
    expect((await ok('cluster.describe', {})).brokers).toHaveLength(4);
  });

  it('balance.plan proposes moving replicas onto the empty broker 4 (and moves nothing)', async () => {
    const plan = await ok('balance.plan', {});
    expect(plan.before.brokers.map((b) => [b.id, b.replicas])).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 0],
    ]);
    expect(plan.goals.length).toBeGreaterThan(0);
    expect(plan.goals.map((g) => g.name)).toContain('ReplicaDistributionGoal');
    expect(plan.balancedness.after).toBeGreaterThanOrEqual(plan.balancedness.before);
    expect(plan.balancedness.after).toBeLessThanOrEqual(100);
    expect(plan.replicaMoves).toBeGreaterThan(0);
    expect(plan.partitions.some((p) => p.replicas.includes(4) && !p.currentReplicas.includes(4))).toBe(true);
    expect(plan.after.brokers.find((b) => b.id === 4)!.replicas).toBeGreaterThan(0);
    // A plan only: broker 4 still hosts nothing.
    expect((await broker(4))!.partitionCount).toBe(0);
    const leadersOnly = await ok('balance.plan', { leadersOnly: true });
    expect(leadersOnly.replicaMoves).toBe(0);
  });

  it('balance.plan with a planId reports balance.progress per goal; balance.cancel stops a running plan (CANCELLED) and says when none runs', async () => {
    const unnamed = await ok('balance.plan', {});
    const named = await ok('balance.plan', { planId: 'http-plan' });
    expect(named.partitions).toEqual(unnamed.partitions);
    const progress = (await ok('events.recent', { types: ['balance.progress'] })).flatMap((e) => (e.type === 'balance.progress' && e.planId === 'http-plan' ? [e] : []));
    expect(progress.map((e) => e.goal)).toEqual(named.goals.map((g) => g.name));
    expect(progress.map((e) => e.goalsDone)).toEqual(named.goals.map((_, i) => i + 1));
    // Nothing runs under that id any more.
    expect(await ok('balance.cancel', { planId: 'http-plan' })).toEqual({ cancelled: false });

    // A plan and its cancel race over two requests: either the cancel found it running and the
    // plan answers CANCELLED, or the plan had finished and answers its plan.
    const [plan, cancel] = await Promise.all([post('balance.plan', { planId: 'raced' }), post('balance.cancel', { planId: 'raced' })]);
    expect(plan.status).toBe(200);
    expect(cancel.body).toMatchObject({ ok: true });
    if (cancel.body.ok && cancel.body.value.cancelled) expect(plan.body).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    else expect(plan.body).toMatchObject({ ok: true, value: { partitions: unnamed.partitions } });
  });

  it('reassignments.execute / list / verify / cancel, with broker 4 stalled, then to completion', async () => {
    const orders = await settled('orders');
    const p0 = orders.partitions[0]!;
    const target = [...p0.replicas.slice(0, 2), 4];
    const move = [{ topic: 'orders', partition: 0, replicas: target }];

    // A stalled follower cannot catch up, so the reassignment stays in progress.
    expect(await ok('brokers.stallFollower', { brokerId: 4, stalled: true })).toMatchObject({ id: 4, fetcherStalled: true });
    expect(await ok('reassignments.execute', { version: 1, partitions: move })).toEqual([{ topic: 'orders', partition: 0, errorCode: 'NONE' }]);
    const listed = await ok('reassignments.list', {});
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ topic: 'orders', partition: 0, addingReplicas: [4], removingReplicas: [p0.replicas[2]] });
    expect(listed[0]!.progress.leaderLogEndOffset).toBe(2);
    expect(listed[0]!.progress.percent).toBeLessThan(100);
    const verifying = await ok('reassignments.verify', { partitions: move });
    expect(verifying).toEqual([expect.objectContaining({ topic: 'orders', partition: 0, status: 'in-progress' })]);

    expect(await ok('reassignments.cancel', { partitions: [{ topic: 'orders', partition: 0 }] })).toEqual([{ topic: 'orders', partition: 0, errorCode: 'NONE' }]);
    expect(await ok('reassignments.list', {})).toEqual([]);
    const afterCancel = await ok('reassignments.verify', { partitions: move });
    expect(afterCancel[0]).toMatchObject({ status: 'mismatch', replicas: p0.replicas });
    expect((await ok('brokers.stallFollower', { brokerId: 4, stalled: false })).fetcherStalled).toBe(false);

    // Again, unstalled: it completes.
    expect((await ok('reassignments.execute', { partitions: move, throttleBytesPerSec: 10_000_000 }))[0]!.errorCode).toBe('NONE');
    const done = await until('reassignment completed', async () => {
      const v = await ok('reassignments.verify', { partitions: move });
      return v[0]!.status === 'completed' ? v : undefined;
    });
    expect(done[0]!.replicas).toEqual(target);
    expect(await ok('reassignments.list', {})).toEqual([]);
    const moved = await settled('orders');
    expect(moved.partitions[0]!.replicas).toEqual(target);
    // The moved replica has the records.
    expect(moved.partitions[0]!.replicaStates.find((r) => r.brokerId === 4)!.logEndOffset).toBe(2);
  });

  it('topics.setReplicationFactor raises a topic from RF 1 to RF 2 through a reassignment', async () => {
    await ok('topics.create', { name: 'audit', partitions: 2, replicationFactor: 1 });
    await settled('audit');
    const plan = await ok('topics.setReplicationFactor', { topic: 'audit', replicationFactor: 2, validateOnly: true });
    expect(plan.results).toBeUndefined();
    expect(plan.partitions.map((p) => [p.partition, p.currentReplicas.length, p.replicas.length])).toEqual([
      [0, 1, 2],
      [1, 1, 2],
    ]);
    const changed = await ok('topics.setReplicationFactor', { topic: 'audit', replicationFactor: 2 });
    expect(changed.results!.map((r) => r.errorCode)).toEqual(['NONE', 'NONE']);
    const audit = await settled('audit');
    expect(audit.partitions.map((p) => p.replicas.length)).toEqual([2, 2]);
    expect((await ok('topics.list', {})).find((t) => t.name === 'audit')!.replicationFactor).toBe(2);
    const tooWide = await post('topics.setReplicationFactor', { topic: 'audit', replicationFactor: 9 });
    expect(tooWide.body).toMatchObject({ ok: false, error: { code: 'INVALID_REPLICATION_FACTOR' } });
  });

  it('profiles.list / get / export', async () => {
    const list = await ok('profiles.list', {});
    expect(list.filter((p) => p.builtIn).map((p) => p.name).sort()).toEqual(['balanced', 'durability', 'throughput']);
    expect(list.find((p) => p.name === 'balanced')).toMatchObject({ builtIn: true, brokers: 3, replicationFactor: 3 });
    expect(list.every((p) => p.durability.length > 0)).toBe(true);

    const balanced = await ok('profiles.get', { name: 'balanced' });
    expect(balanced).toMatchObject({ version: 1, name: 'balanced', topicDefaults: { replicationFactor: 3 }, brokerConfigs: { 'min.insync.replicas': '2' }, producer: { acks: 'all' } });

    const files = await ok('profiles.export', { name: 'balanced', formats: ['server-properties', 'client-properties'], bootstrapServers: 'localhost:9092' });
    expect(files.map((f) => f.filename)).toEqual(['server-1.properties', 'server-2.properties', 'server-3.properties', 'producer.properties', 'consumer.properties']);
    expect(files[0]!.contents).toMatch(/^min\.insync\.replicas=2$/m);
    expect(files.find((f) => f.filename === 'producer.properties')!.contents).toMatch(/^acks=all$/m);
    expect(files.find((f) => f.filename === 'producer.properties')!.contents).toContain('localhost:9092');

    const missing = await post('profiles.get', { name: 'no-such-profile' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });

  it('profiles.import keeps a profile in the data dir; profiles.diff and profiles.apply (dry run) compare it', async () => {
    const balanced = await ok('profiles.get', { name: 'balanced' });
    const mine = { ...balanced, name: 'team-orders', description: 'Orders team', brokerConfigs: { ...balanced.brokerConfigs, 'min.insync.replicas': '3' } };
    delete mine.$schema;
    const imported = await ok('profiles.import', { json: JSON.stringify(mine) });
    expect(imported.name).toBe('team-orders');
    expect(imported.warnings).toEqual(expect.any(Array));
    expect((await ok('profiles.list', {})).find((p) => p.name === 'team-orders')).toMatchObject({ builtIn: false, description: 'Orders team' });
    expect((await ok('profiles.get', { name: 'team-orders' })).brokerConfigs['min.insync.replicas']).toBe('3');
    // Importing it again without overwrite is refused; with overwrite it is replaced.
    expect((await post('profiles.import', { json: JSON.stringify(mine) })).body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect((await ok('profiles.import', { json: JSON.stringify(mine), overwrite: true })).name).toBe('team-orders');

    const between = await ok('profiles.diff', { from: 'balanced', to: 'team-orders' });
    expect(between).toContainEqual(expect.objectContaining({ section: 'brokerConfigs', key: 'min.insync.replicas', kind: 'changed', from: '2', to: '3' }));

    const fromLive = await ok('profiles.diff', { from: 'balanced' });
    expect(fromLive).toContainEqual(expect.objectContaining({ section: 'brokerConfigs', key: 'min.insync.replicas', to: '2' }));

    const plan = await ok('profiles.apply', { name: 'balanced' });
    expect(plan).toMatchObject({ profile: 'balanced', applied: false, upToDate: false });
    expect(plan.clusterConfigs?.set).toMatchObject({ 'min.insync.replicas': '2' });
    // A dry run changes nothing.
    const cluster = await ok('configs.describe', { resource: { type: 'broker', name: '' } });
    expect(cluster.find((e) => e.name === 'min.insync.replicas')).toMatchObject({ value: '1', source: 'DEFAULT_CONFIG' });
  });

  it('brokers.stop / start on a follower broker', async () => {
    const id = await nonController([1, 2, 3]);
    const stopping = await ok('brokers.stop', { brokerId: id });
    expect(stopping.id).toBe(id);
    expect(['controlled-shutdown', 'stopped']).toContain(stopping.state);
    const stopped = await brokerIn(id, 'stopped');
    expect(stopped.leaderCount).toBe(0);
    // Leadership moved away: every orders partition still has a leader.
    const orders = await ok('topics.describe', { name: 'orders' });
    expect(orders.partitions.every((p) => p.leader >= 0 && p.leader !== id)).toBe(true);
    await ok('brokers.start', { brokerId: id });
    await brokerIn(id, 'running');
    await settled('orders');
  });

  it('brokers.kill and brokers.powerLoss, each restarted with brokers.start', async () => {
    const id = await nonController([1, 2, 3]);
    expect(await ok('brokers.kill', { brokerId: id })).toMatchObject({ id, state: 'killed' });
    expect((await ok('brokers.start', { brokerId: id })).id).toBe(id);
    await brokerIn(id, 'running');
    await settled('orders');

    expect(await ok('brokers.powerLoss', { brokerId: id })).toMatchObject({ id, state: 'power-lost' });
    await ok('brokers.start', { brokerId: id });
    await brokerIn(id, 'running');
    const orders = await settled('orders');
    // The acknowledged records survive (acks=all, on every ISR member).
    expect(orders.partitions[0]!.highWatermark).toBe(2);
    const consumed = await ok('records.consume', { topic: 'orders', partition: 0, offset: 0 });
    expect(consumed.records.map((r) => r.value)).toEqual(['espresso', 'croissant']);
  });

  it('brokers.isolate / heal', async () => {
    const id = await nonController([1, 2, 3]);
    expect(await ok('brokers.isolate', { brokerId: id })).toMatchObject({ id, isolated: true });
    expect((await broker(id))!.isolated).toBe(true);
    expect(await ok('brokers.heal', { brokerId: id })).toMatchObject({ id, isolated: false });
    await brokerIn(id, 'running');
    await settled('orders');
  });

  it('brokers.cutLink cuts one link between two brokers and restores it; a broker named twice or unknown is refused', async () => {
    expect(await ok('brokers.cutLink', { brokerId: 2, peerId: 3, cut: true })).toEqual({ brokerId: 2, peerId: 3, cut: true });
    // Each keeps its other links: both stay running (their heartbeats reach the controller).
    expect((await broker(2))!.state).toBe('running');
    expect((await post('brokers.cutLink', { brokerId: 2, peerId: 2, cut: true })).body).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    expect((await post('brokers.cutLink', { brokerId: 2, peerId: 99, cut: true })).body).toMatchObject({ ok: false, error: { code: 'BROKER_NOT_FOUND' } });
    expect(await ok('brokers.cutLink', { brokerId: 3, peerId: 2, cut: false })).toEqual({ brokerId: 3, peerId: 2, cut: false });
    await settled('orders');
  });

  it('brokers.remove removes a stopped broker that hosts no replicas', async () => {
    const added = await ok('brokers.add', {});
    expect(added.id).toBe(5);
    await brokerIn(5, 'running');
    // A running broker cannot be removed.
    expect((await post('brokers.remove', { brokerId: 5 })).body).toMatchObject({ ok: false, error: { code: 'INVALID_STATE' } });
    await ok('brokers.stop', { brokerId: 5 });
    await brokerIn(5, 'stopped');
    expect(await ok('brokers.remove', { brokerId: 5 })).toEqual({ brokerId: 5 });
    expect((await ok('brokers.list', {})).map((b) => b.id)).toEqual([1, 2, 3, 4]);
    // Broker 4 hosts a replica now: it cannot be removed.
    await ok('brokers.stop', { brokerId: 4 });
    await brokerIn(4, 'stopped');
    expect((await post('brokers.remove', { brokerId: 4 })).body).toMatchObject({ ok: false, error: { code: 'INVALID_STATE' } });
    await ok('brokers.start', { brokerId: 4 });
    await brokerIn(4, 'running');
  });

  it('topics.describeMany shows every topic (or the named ones) as topics.describe does, in one call', async () => {
    await ok('topics.create', { name: 'alpha', partitions: 2, replicationFactor: 2 });
    const all = await ok('topics.describeMany', {});
    expect(all.map((t) => t.name)).toEqual((await ok('topics.list', {})).map((t) => t.name));
    expect(all.map((t) => t.name)).toContain('alpha');
    const orders = await ok('topics.describe', { name: 'orders' });
    const many = all.find((t) => t.name === 'orders')!;
    expect([many.topicId, many.configs, many.partitions.map((p) => [p.partition, p.replicas])]).toEqual([orders.topicId, orders.configs, orders.partitions.map((p) => [p.partition, p.replicas])]);
    expect(all.find((t) => t.name === 'alpha')!.partitions.map((p) => p.replicas.length)).toEqual([2, 2]);
    const named = await ok('topics.describeMany', { names: ['orders', 'alpha'] });
    expect(named.map((t) => [t.name, t.partitions.length])).toEqual([
      ['orders', 4],
      ['alpha', 2],
    ]);
    const unknown = await post('topics.describeMany', { names: ['alpha', 'nope', 'gone'] });
    expect(unknown.body).toMatchObject({ ok: false, error: { code: 'UNKNOWN_TOPIC_OR_PARTITION', details: { names: ['nope', 'gone'] } } });
  });

  it('records.produce names the leader epoch the batch was written in and when the leader appended it', async () => {
    const t = await settled('alpha');
    const before = (await ok('clock.get', {})).nowMs;
    const produced = await ok('records.produce', { topic: 'alpha', partition: 1, acks: 'all', records: [{ value: 'one' }, { value: 'two' }] });
    expect(produced).toMatchObject({ partition: 1, baseOffset: 0, errorCode: 'NONE', leaderEpoch: t.partitions[1]!.leaderEpoch });
    expect(produced.appendedAtMs).toBeGreaterThanOrEqual(before);
    expect(produced.appendedAtMs).toBeLessThanOrEqual((await ok('clock.get', {})).nowMs);
    const consumed = await ok('records.consume', { topic: 'alpha', partition: 1, offset: 0 });
    expect(consumed.records.map((r) => r.leaderEpoch)).toEqual([produced.leaderEpoch, produced.leaderEpoch]);
    // acks=0: the producer hears nothing back, so it learns no epoch either.
    expect(await ok('records.produce', { topic: 'alpha', partition: 1, acks: 0, records: [{ value: 'fire' }] })).toMatchObject({ baseOffset: -1, leaderEpoch: -1, appendedAtMs: -1 });
    // Refused before any append: no epoch.
    expect(await ok('records.produce', { topic: 'alpha', partition: 9, acks: 1, records: [{ value: 'x' }] })).toMatchObject({ errorCode: 'UNKNOWN_TOPIC_OR_PARTITION', leaderEpoch: -1 });
    // records.fill (a twin's synthetic records): acknowledged by the whole ISR, so the high watermark is past them; an unknown partition is said.
    const filled = await ok('records.fill', { partitions: [{ topic: 'alpha', partition: 0, records: 3, valueBytes: 10 }, { topic: 'alpha', partition: 9, records: 1, valueBytes: 1 }] });
    expect(filled.map((f) => [f.partition, f.errorCode, f.records, f.nextOffset])).toEqual(expect.arrayContaining([[0, 'NONE', 3, 3], [9, 'UNKNOWN_TOPIC_OR_PARTITION', 0, -1]]));
    expect((await ok('topics.describe', { name: 'alpha' })).partitions[0]!.highWatermark).toBe(3);
    await ok('topics.delete', { name: 'alpha' });
  });

  it('records.delete moves the log start of each partition (kafka-delete-records.sh JSON) and consumers start there; past the high watermark is OFFSET_OUT_OF_RANGE', async () => {
    await ok('topics.create', { name: 'trimmed', partitions: 1, replicationFactor: 3 });
    await settled('trimmed');
    await ok('records.produce', { topic: 'trimmed', partition: 0, acks: 'all', records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    const deleted = await ok('records.delete', { version: 1, partitions: [{ topic: 'trimmed', partition: 0, offset: 2 }, { topic: 'trimmed', partition: 3, offset: 0 }] });
    expect(deleted).toEqual([
      { topic: 'trimmed', partition: 0, lowWatermark: 2, errorCode: 'NONE' },
      { topic: 'trimmed', partition: 3, lowWatermark: -1, errorCode: 'UNKNOWN_TOPIC_OR_PARTITION' },
    ]);
    const consumed = await ok('records.consume', { topic: 'trimmed', partition: 0, offset: 2 });
    expect([consumed.logStartOffset, consumed.records.map((r) => r.value)]).toEqual([2, ['c']]);
    expect(await ok('records.delete', { partitions: [{ topic: 'trimmed', partition: 0, offset: 4 }] })).toEqual([{ topic: 'trimmed', partition: 0, lowWatermark: -1, errorCode: 'OFFSET_OUT_OF_RANGE' }]);
    await ok('topics.delete', { name: 'trimmed' });
  });

  it('consumers.start runs a group; groups.list / describe show it; resetOffsets and delete only once it is empty; consumers.list / stop', async () => {
    await ok('topics.create', { name: 'grouped', partitions: 2, replicationFactor: 3 });
    await settled('grouped');
    for (const partition of [0, 1]) await ok('records.produce', { topic: 'grouped', partition, acks: 'all', records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    const started = await ok('consumers.start', { groupId: 'http-group', topics: ['grouped'], members: 2 });
    expect(started.members).toHaveLength(2);
    const g = await until('the group to consume and commit everything', async () => {
      const d = await post('groups.describe', { groupId: 'http-group' });
      return d.body.ok && d.body.value.state === 'Stable' && d.body.value.partitions.length === 2 && d.body.value.partitions.every((p) => p.committedOffset === 3) ? d.body.value : undefined;
    });
    expect(g.members.map((m) => m.assignment.flatMap((a) => a.partitions)).flat().sort()).toEqual([0, 1]);
    expect(g.partitions.map((p) => [p.partition, p.logEndOffset, p.lag])).toEqual([
      [0, 3, 0],
      [1, 3, 0],
    ]);
    expect((await ok('groups.list', {})).find((l) => l.groupId === 'http-group')).toMatchObject({ state: 'Stable', members: 2, protocolType: 'consumer', totalLag: 0, coordinatorId: g.coordinatorId });
    expect((await ok('consumers.list', {}))[0]!.members.every((m) => m.state === 'stable')).toBe(true);

    const busy = await post('groups.resetOffsets', { groupId: 'http-group', to: { earliest: true } });
    expect(busy.body.ok ? null : busy.body.error.code).toBe('NON_EMPTY_GROUP');
    const undeletable = await post('groups.delete', { groupId: 'http-group' });
    expect(undeletable.body.ok ? null : undeletable.body.error.code).toBe('NON_EMPTY_GROUP');

    expect(await ok('consumers.stop', { groupId: 'http-group' })).toEqual({ groupId: 'http-group' });
    await until('the group to empty', async () => ((await ok('groups.describe', { groupId: 'http-group' })).state === 'Empty' ? true : undefined));
    const preview = await ok('groups.resetOffsets', { groupId: 'http-group', to: { shiftBy: -2 }, dryRun: true });
    expect(preview.partitions.map((p) => [p.partition, p.previousOffset, p.newOffset])).toEqual([
      [0, 3, 1],
      [1, 3, 1],
    ]);
    await ok('groups.resetOffsets', { groupId: 'http-group', to: { shiftBy: -2 }, dryRun: false });
    expect((await ok('groups.describe', { groupId: 'http-group' })).totalLag).toBe(4);
    expect(await ok('groups.delete', { groupId: 'http-group' })).toEqual({ groupId: 'http-group' });
    const gone = await post('groups.describe', { groupId: 'http-group' });
    expect(gone.body.ok ? null : gone.body.error.code).toBe('GROUP_ID_NOT_FOUND');
    await ok('topics.delete', { name: 'grouped' });
  });

  it('cluster.features lists eligible.leader.replicas.version off; cluster.updateFeatures upgrades it as kafka-features.sh does, and downgrades it safely', async () => {
    const ELR = 'eligible.leader.replicas.version';
    expect(await ok('cluster.features', {})).toEqual([
      expect.objectContaining({ name: ELR, minVersion: 0, maxVersion: 1, finalizedLevel: 0 }),
      expect.objectContaining({ name: 'metadata.version', minVersion: 25, maxVersion: 25, finalizedLevel: 25 }),
    ]);
    // Out of range or unknown: answered per feature with Kafka's error, nothing finalized.
    const refused = await ok('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 2 }, { feature: 'no.such.feature', maxVersionLevel: 1 }] });
    expect(refused.map((r) => r.errorCode)).toEqual(['INVALID_UPDATE_VERSION', 'INVALID_UPDATE_VERSION']);
    expect(await ok('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 1 }], validateOnly: true })).toEqual([{ feature: ELR, errorCode: 'NONE' }]);
    expect((await ok('cluster.features', {}))[0]!.finalizedLevel).toBe(0);
    expect(await ok('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 1 }] })).toEqual([{ feature: ELR, errorCode: 'NONE' }]);
    expect((await ok('cluster.features', {}))[0]!.finalizedLevel).toBe(1);
    // With the ISR full, no replica is eligible: the partition view shows empty sets.
    const orders = await settled('orders');
    expect(orders.partitions.every((p) => p.eligibleLeaderReplicas.length === 0 && p.lastKnownElr.length === 0)).toBe(true);
    // A per-broker min.insync.replicas is refused while ELR is on.
    const perBroker = await post('configs.alter', { resource: { type: 'broker', name: '1' }, set: { 'min.insync.replicas': '2' } });
    expect(perBroker.body).toMatchObject({ ok: false, error: { code: 'INVALID_CONFIG' } });
    // A downgrade must be asked as one.
    expect((await ok('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 0 }] }))[0]!.errorCode).toBe('INVALID_UPDATE_VERSION');
    expect(await ok('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 0, upgradeType: 'safe-downgrade' }] })).toEqual([{ feature: ELR, errorCode: 'NONE' }]);
    expect((await ok('cluster.features', {}))[0]!.finalizedLevel).toBe(0);
    // Schema: a level must be a non-negative integer.
    expect((await post('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: -1 }] })).status).toBe(400);
  });

  it("topics.compaction shows each replica's cleaner of __consumer_offsets, and none for a topic with cleanup.policy=delete", async () => {
    const offsets = await ok('topics.compaction', { name: '__consumer_offsets' });
    expect(offsets).toMatchObject({ topic: '__consumer_offsets', cleanupPolicy: ['compact'], compacted: true });
    const replicas = offsets.partitions.flatMap((p) => p.replicas);
    expect(replicas.length).toBeGreaterThan(0);
    expect(replicas.every((r) => r.reason.length > 0 && r.logEndOffset >= r.logStartOffset && r.uncleanableReason === null)).toBe(true);
    const orders = await ok('topics.compaction', { name: 'orders' });
    expect(orders).toMatchObject({ cleanupPolicy: ['delete'], compacted: false });
    expect(orders.partitions.every((p) => p.replicas.length === 0)).toBe(true);
    const unknown = await post('topics.compaction', { name: 'nope' });
    expect(unknown.body).toMatchObject({ ok: false, error: { code: 'UNKNOWN_TOPIC_OR_PARTITION' } });
  });

  it('impact.ofStop predicts what stopping a broker does (leaders, coordinators), impact.ofPlan what a move does, both change nothing and refuse what names no broker', async () => {
    const describedBefore = await ok('cluster.describe', {});
    await ok('consumers.start', { groupId: 'impact-group', topics: ['orders'], members: 1 });
    const groups = await until('impact-group listed', async () => {
      const listed = await ok('groups.list', {});
      return listed.some((g) => g.groupId === 'impact-group' && g.coordinatorId >= 0) ? listed : undefined;
    });
    const impact = await ok('impact.ofStop', { brokers: [1] });
    expect(impact.stopped).toEqual([1]);
    expect(impact.partitionCount).toBe(describedBefore.partitionCount);
    expect(impact.partitions.length).toBe(impact.touched);
    expect(impact.touched).toBeGreaterThan(0);
    // Every partition broker 1 is a replica of is listed, and none is led by it afterwards.
    expect(impact.partitions.every((p) => p.replicas.includes(1) && p.after.leader !== 1)).toBe(true);
    expect(impact.leaderMoves).toBe(impact.partitions.filter((p) => p.before.leader === 1).length);
    // Each group's coordinator now is the one groups.list reports.
    expect(impact.coordinators.map((c) => [c.groupId, c.before])).toEqual(groups.map((g) => [g.groupId, g.coordinatorId]).sort());
    expect(impact.racks.flatMap((r) => r.stopped)).toEqual([1]);
    // A question, not a drill: broker 1 still runs and leads what it led.
    expect((await broker(1))!.state).toBe('running');
    expect((await ok('cluster.describe', {})).offlinePartitions).toBe(describedBefore.offlinePartitions);
    expect((await post('impact.ofStop', {})).body).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    expect((await post('impact.ofStop', { brokers: [99] })).body).toMatchObject({ ok: false, error: { code: 'BROKER_NOT_FOUND' } });
    expect((await post('impact.ofStop', { racks: ['no-such-rack'] })).body).toMatchObject({ ok: false, error: { code: 'INVALID_REQUEST' } });
    // A plan's impact: one replica replaced, added before the old one is removed; nothing moves.
    const p = [...impact.partitions].sort((a, b) => a.replicas.length - b.replicas.length)[0]!;
    const spare = describedBefore.brokers.map((b) => b.id).find((id) => !p.replicas.includes(id))!;
    const target = [spare, ...p.replicas.slice(1)];
    const plan = await ok('impact.ofPlan', { partitions: [{ topic: p.topic, partition: p.partition, replicas: target }], throttleBytesPerSec: 1_000, brokers: [1] });
    expect(plan.moves).toHaveLength(1);
    expect(plan.moves[0]).toMatchObject({ during: { replicas: [...target, p.replicas[0]], addingReplicas: [spare], removingReplicas: [p.replicas[0]] }, after: { replicas: target, addingReplicas: [] } });
    expect(plan.stop?.after.stopped).toEqual([1]);
    expect(await ok('reassignments.list', {})).toEqual([]);
    expect((await post('impact.ofPlan', { partitions: [{ topic: p.topic, partition: p.partition, replicas: [99] }] })).body).toMatchObject({ ok: false, error: { code: 'INVALID_REPLICA_ASSIGNMENT' } });
    await ok('consumers.stop', { groupId: 'impact-group' });
  });

  it('schemas.register / check / list / usage: the Schemas page over the cluster\'s registry, refusals with its code', async () => {
    const schema = JSON.stringify({ type: 'record', name: 'Sale', fields: [{ name: 'item', type: 'string' }] });
    const { id } = await ok('schemas.register', { subject: 'sales-value', schema });
    const draft = JSON.stringify({ type: 'record', name: 'Sale', fields: [{ name: 'item', type: 'string' }, { name: 'qty', type: 'int' }] });
    expect(await ok('schemas.check', { subject: 'sales-value', schema: draft })).toMatchObject({ compatible: false, level: 'BACKWARD' });
    const refused = await post('schemas.register', { subject: 'sales-value', schema: draft });
    expect(!refused.body.ok && refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { registryErrorCode: 409 } });
    const list = await ok('schemas.list', {});
    expect(list.subjects).toEqual([expect.objectContaining({ subject: 'sales-value', versions: [expect.objectContaining({ version: 1, id, deleted: false })] })]);
    await ok('topics.create', { name: 'sales', partitions: 1, replicationFactor: 3 });
    await ok('records.produce', { topic: 'sales', partition: 0, acks: 'all', schemas: { value: { subject: 'sales-value' } }, records: [{ value: '{"item": "tart"}' }] });
    expect(await ok('schemas.usage', { topic: 'sales' })).toEqual({ topic: 'sales', scanned: 1, unframed: 0, complete: true, ids: [{ id, part: 'value', records: 1, subjects: ['sales-value'] }] });
  });

  it('the cluster ends healthy', async () => {
    const c = await ok('cluster.describe', {});
    expect(c.brokers.map((b) => b.id)).toEqual([1, 2, 3, 4]);
    expect(c.controllerId).not.toBeNull();
    expect(c.offlinePartitions).toBe(0);
    // The two topics left, __consumer_offsets (created by the consumer group), and sales with the registry's _schemas.
    expect(c.topicCount).toBe(5);
  });

  it('called every method in methodNames that targets a cluster over HTTP (connections-http.test.ts calls the connections.* ones, security-http.test.ts the security ones, transactions-http.test.ts the transactions ones, client-txn-http.test.ts the transactional clients)', () => {
    expect([...called].sort()).toEqual(methodNames.filter((m) => targetsCluster(m) && !(m in securityMethods) && !(m in transactionsMethods) && !(m in clientTxnMethods)).sort());
  });
});
