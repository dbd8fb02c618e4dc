/**
 * What making and refreshing a twin costs its source, counted in the Kafka requests the source's
 * listeners receive: the console host (the connections service behind real HTTP) reaches a
 * second cluster only over the Kafka protocol, and a twin reads that cluster's whole state once —
 * one Metadata of every topic, one DescribeConfigs of every topic, one DescribeLogDirs per
 * broker, ListOffsets per leader — not once per view it builds. Real SQLite files, real listeners
 * on free ports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodInput, MethodName, MethodResult, Result, TopicView } from '../../app/api/contract.js';
import type { MetadataRequest } from '../../app/protocol/generated/index.js';
import type { DescribeConfigsRequest } from '../../app/protocol/generated/index.js';
import { createHostConnections } from '../../app/service/connections/host-connections.js';
import type { ConnectionsService } from '../../app/service/connections/connections-service.js';
import { embeddedDriver } from '../../app/service/embedded-driver/embedded-driver.js';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { tapRequests, type RequestTap, type TappedRequest } from '../kafka/test-support/request-tap.js';
import { startHttpHost, type HttpHost } from './http-host.js';
import { loadOrCreateToken } from './token.js';

const quiet = { error: () => {} };
const TOPICS = ['orders', 'payments', 'audit'];
let dir: string;
let source: OpenCluster;
let served: OpenCluster;
let connections: ConnectionsService;
let host: HttpHost;
let token: string;
let tap: RequestTap;
const opened: OpenCluster[] = [];

async function ok<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const res = await fetch(`${host.origin}/api/${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await res.json()) as Result<MethodResult<M>>;
  if (!body.ok) throw new Error(`${method} failed: ${JSON.stringify(body.error)}`);
  return body.value;
}

async function onSource<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodResult<M>> {
  const r = await source.service.call(method, input);
  if (!r.ok) throw new Error(`${method} on the source failed: ${JSON.stringify(r.error)}`);
  return r.value;
}

/** Requests that read something of every topic of the source: Metadata of all (null) or of each, DescribeConfigs naming each. */
function wholeClusterReads(requests: readonly TappedRequest[]): Record<string, number> {
  const everyTopic = (names: string[]): boolean => TOPICS.every((t) => names.includes(t));
  const count: Record<string, number> = { Metadata: 0, DescribeConfigs: 0, DescribeLogDirs: 0, ListOffsets: 0 };
  for (const r of requests) {
    if (r.api === 'Metadata') {
      const topics = (r.body as MetadataRequest).topics;
      if (topics === null || everyTopic(topics.map((t) => t.name ?? ''))) count.Metadata! += 1;
    } else if (r.api === 'DescribeConfigs') {
      if (everyTopic((r.body as DescribeConfigsRequest).resources.map((x) => x.resourceName))) count.DescribeConfigs! += 1;
    } else if (r.api === 'DescribeLogDirs' || r.api === 'ListOffsets') count[r.api]! += 1;
  }
  return count;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-twin-source-read-'));
  source = openCluster({ dataDir: join(dir, 'source'), brokers: 3, logger: quiet, kafkaPort: 0 });
  served = openCluster({ dataDir: join(dir, 'served'), brokers: 1, logger: quiet });
  expect(await source.ready(15_000)).toBe(true);
  expect(await served.ready(15_000)).toBe(true);
  token = loadOrCreateToken(join(dir, 'served'));
  connections = createHostConnections({
    configDir: join(dir, 'config'),
    host: () => ({ dataDir: join(dir, 'served'), driver: served.service }),
    async openLocal(dataDir, how) {
      const local = openCluster({ dataDir, logger: quiet, ...(how.brokers !== undefined ? { brokers: how.brokers } : {}), ...(how.staticConfigs ? { staticConfigs: how.staticConfigs } : {}) });
      opened.push(local);
      await local.ready(15_000);
      return embeddedDriver(local.service, async () => local.close());
    },
    logger: quiet,
  });
  host = await startHttpHost({ service: connections, port: 0, host: '127.0.0.1', token, logger: quiet });
  for (const [i, name] of TOPICS.entries()) await onSource('topics.create', { name, partitions: 2 + i, replicationFactor: 3 });
  for (const name of TOPICS) await onSource('records.produce', { topic: name, partition: 0, acks: 'all', records: [{ value: 'a' }, { value: 'b' }] });
  const ports = (await onSource('cluster.describe', {})).brokers.map((b) => b.listener!.port);
  tap = tapRequests(ports);
}, 60_000);

afterAll(async () => {
  tap?.close();
  await host?.close();
  await connections?.close();
  for (const c of opened) c.close();
  served?.close();
  source?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe("a twin's read of its source", () => {
  let sourceId = '';

  it('createTwin reads the whole source once: one Metadata and one DescribeConfigs of every topic, one DescribeLogDirs per broker', async () => {
    const bootstrap = (await onSource('cluster.describe', {})).bootstrapServers;
    sourceId = (await ok('connections.addExternal', { name: 'production', settings: { bootstrapServers: bootstrap.split(',') } })).id;
    // Connected first: the Kafka client's own connect reads Metadata of every topic (kafkajs asks for all when it follows none).
    await ok('cluster.features', { connection: sourceId });
    tap.clear();
    const twin = await ok('connections.createTwin', { name: 'production twin', source: sourceId });
    const reads = wholeClusterReads(tap.requests);
    expect(reads).toEqual({ Metadata: 1, DescribeConfigs: 1, DescribeLogDirs: 3, ListOffsets: expect.any(Number) as number });
    // Earliest and latest, one request each per leader.
    expect(reads.ListOffsets).toBeLessThanOrEqual(2 * 3);
    // What was read is what the twin got: the source's replicas, leaders and offsets.
    const shape = (topics: TopicView[]) => topics.filter((t) => !t.name.startsWith('__')).map((t) => [t.name, t.partitions.map((p) => [p.replicas, p.leader, p.logStartOffset, p.highWatermark])]);
    expect(shape(await ok('topics.describeMany', { connection: twin.connection.id }))).toEqual(shape(await onSource('topics.describeMany', {})));
  }, 120_000);

  it('refreshTwin (the drift shown) reads it once too', async () => {
    tap.clear();
    const twinId = (await ok('connections.list', {})).find((c) => c.name === 'production twin')!.id;
    const drift = await ok('connections.refreshTwin', { id: twinId });
    expect(drift.changes).toEqual([]);
    expect(wholeClusterReads(tap.requests)).toMatchObject({ Metadata: 1, DescribeConfigs: 1, DescribeLogDirs: 3 });
  }, 60_000);
});
