/**
 * The cluster's Kafka listeners on a real data directory (in-process engine, real sockets): one
 * port per broker, advertised exactly as `cluster.describe` reports them, kept with the cluster,
 * and following each broker's process as a real broker's socket does.
 */
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClusterView } from '../../app/api/views.js';
import { ApiKey } from '../../app/protocol/generated/index.js';
import { parseServeArgs } from '../cli/cli.js';
import { DEFAULT_KAFKA_PORT } from './kafka-listeners.js';
import { openCluster, type OpenCluster, type OpenClusterOptions } from '../engine/open-cluster.js';
import { RawKafkaClient } from './test-support/raw-kafka-client.js';

const quiet = { error: () => {} };
const open: OpenCluster[] = [];
const dirs: string[] = [];
const clients: RawKafkaClient[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const c of open.splice(0)) c.close();
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function start(options: Partial<OpenClusterOptions> = {}, dir?: string): Promise<OpenCluster> {
  const dataDir = dir ?? mkdtempSync(join(tmpdir(), 'rs-kafka-'));
  if (!dir) dirs.push(dataDir);
  const c = openCluster({ dataDir, brokers: 3, kafkaPort: 0, logger: quiet, ...options });
  open.push(c);
  expect(await c.ready(30_000)).toBe(true);
  return c;
}

async function describeCluster(c: OpenCluster): Promise<ClusterView> {
  const r = await c.service.call('cluster.describe', {});
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

async function client(port: number): Promise<RawKafkaClient> {
  const c = await RawKafkaClient.connect(port);
  clients.push(c);
  return c;
}

const portOf = async (c: OpenCluster, id: number): Promise<number> => (await describeCluster(c)).brokers.find((b) => b.id === id)!.listener!.port;

/** Polls (real time) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function refuses(port: number): Promise<boolean> {
  try {
    const c = await RawKafkaClient.connect(port, 2_000);
    c.close();
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ECONNREFUSED';
  }
}

describe('Kafka listeners (main/kafka/kafka-listeners.ts)', () => {
  it('gives every broker its own port on 127.0.0.1, reported by cluster.describe and advertised by Metadata exactly so', async () => {
    const c = await start();
    const view = await describeCluster(c);
    const ports = view.brokers.map((b) => b.listener!.port);
    expect(new Set(ports).size).toBe(3);
    expect(view.brokers.every((b) => b.listener!.host === '127.0.0.1')).toBe(true);
    expect(view.bootstrapServers).toBe(ports.map((p) => `127.0.0.1:${p}`).join(','));
    for (const port of ports) {
      const m = await (await client(port)).request(ApiKey.Metadata, 8, { topics: null });
      expect(m!.brokers.map((b) => `${b.nodeId}@${b.host}:${b.port}`)).toEqual(view.brokers.map((b) => `${b.id}@127.0.0.1:${b.listener!.port}`));
      expect(m!.clusterId).toBe(view.clusterId);
      expect(m!.controllerId).toBe(view.controllerId);
    }
  });

  it.each([
    ['killed', 'brokers.kill'],
    ['stopped (controlled shutdown)', 'brokers.stop'],
    ['powered-off', 'brokers.powerLoss'],
  ] as const)('a %s broker drops its connections and refuses new ones, then listens again on the same port once started', async (_, fault) => {
    const c = await start();
    const port = await portOf(c, 2);
    const before = await client(port);
    expect(await before.request(ApiKey.ApiVersions, 2, {})).toMatchObject({ errorCode: 0 });
    expect(await c.service.call(fault, { brokerId: 2 })).toMatchObject({ ok: true });
    await before.closed;
    await until(() => refuses(port));
    expect(await c.service.call('brokers.start', { brokerId: 2 })).toMatchObject({ ok: true });
    await until(async () => !(await refuses(port)));
    expect(await (await client(port)).request(ApiKey.ApiVersions, 2, {})).toMatchObject({ errorCode: 0 });
    expect(await portOf(c, 2)).toBe(port);
  });

  it('an isolated broker accepts connections and never answers; healed, it answers again', async () => {
    const c = await start();
    const port = await portOf(c, 3);
    expect(await c.service.call('brokers.isolate', { brokerId: 3 })).toMatchObject({ ok: true });
    const silent = await client(port);
    expect(await silent.request(ApiKey.ApiVersions, 2, {}, 1_500)).toBeNull();
    const other = await client(port);
    expect(await other.request(ApiKey.Metadata, 1, { topics: null }, 1_000)).toBeNull();
    expect(silent.isClosed).toBe(false);
    expect(await c.service.call('brokers.heal', { brokerId: 3 })).toMatchObject({ ok: true });
    expect(await (await client(port)).request(ApiKey.Metadata, 1, { topics: null })).toMatchObject({ controllerId: expect.any(Number) });
  });

  it('keeps the ports with the cluster: reopened, it listens where it did; a port taken meanwhile falls back to a free one, said on one line', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'rs-kafka-'));
    dirs.push(dataDir);
    const first = await start({}, dataDir);
    const ports = (await describeCluster(first)).brokers.map((b) => b.listener!.port);
    first.close();
    open.pop();
    const second = await start({ kafkaPort: 'default' }, dataDir);
    expect((await describeCluster(second)).brokers.map((b) => b.listener!.port)).toEqual(ports);
    second.close();
    open.pop();

    const squatter = createServer();
    servers.push(squatter);
    await new Promise<void>((r) => squatter.listen(ports[0], '127.0.0.1', r));
    const notices: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (notices.push(String(chunk)), true)) as typeof process.stderr.write;
    let third: OpenCluster;
    try {
      third = await start({ kafkaPort: 'default' }, dataDir);
    } finally {
      process.stderr.write = write;
    }
    const now = (await describeCluster(third)).brokers.map((b) => b.listener!.port);
    expect(now[0]).not.toBe(ports[0]);
    expect(now.slice(1)).toEqual(ports.slice(1));
    expect(notices.filter((n) => n.includes('Kafka listeners'))).toHaveLength(1);
    expect(notices.join('')).toContain(`port ${ports[0]} taken`);
  });

  it('without --kafka-port a new cluster puts broker k on 9091 + k (9092 first), each taken one falling back to a free port said on one line', async () => {
    expect(parseServeArgs([]).kafkaPort).toBe('default');
    expect(parseServeArgs(['--kafka-port', '0']).kafkaPort).toBe(0);
    expect(parseServeArgs(['--kafka-port', '19092']).kafkaPort).toBe(19092);
    const notices: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (notices.push(String(chunk)), true)) as typeof process.stderr.write;
    let c: OpenCluster;
    try {
      c = await start({ kafkaPort: 'default' });
    } finally {
      process.stderr.write = write;
    }
    const ports = (await describeCluster(c)).brokers.map((b) => [b.id, b.listener!.port] as const);
    // Another Kafka (or cluster) on this machine may hold some of 9092–9094: those are said, the rest used.
    const said = notices.filter((n) => n.includes('Kafka listeners'));
    const taken = said.length === 0 ? [] : said[0]!.match(/port ([\d, ]+) taken/)![1]!.split(', ').map(Number);
    expect(said.length).toBeLessThanOrEqual(1);
    for (const [id, port] of ports) {
      if (taken.includes(DEFAULT_KAFKA_PORT + id - 1)) expect(port).not.toBe(DEFAULT_KAFKA_PORT + id - 1);
      else expect(port, `broker ${id}`).toBe(DEFAULT_KAFKA_PORT + id - 1);
    }
    expect(DEFAULT_KAFKA_PORT).toBe(9092);
  });

  it('an explicit base port puts broker k on N + k - 1; a taken one falls back to a free port', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const base = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    let c: OpenCluster;
    try {
      c = await start({ kafkaPort: base });
    } catch {
      return; // another process took the probed port in between: nothing to check this time
    }
    const ports = (await describeCluster(c)).brokers.map((b) => b.listener!.port);
    if (ports[0] !== base) return; // likewise
    expect(ports).toEqual([base, base + 1, base + 2]);
    const write = process.stderr.write.bind(process.stderr);
    const notices: string[] = [];
    process.stderr.write = ((chunk: string) => (notices.push(String(chunk)), true)) as typeof process.stderr.write;
    let clash: OpenCluster;
    try {
      clash = await start({ kafkaPort: base, brokers: 1 });
    } finally {
      process.stderr.write = write;
    }
    const port = await portOf(clash, 1);
    expect(port).not.toBe(base);
    expect(notices.join('')).toContain(`port ${base} taken`);
    expect(await (await client(port)).request(ApiKey.ApiVersions, 2, {})).toMatchObject({ errorCode: 0 });
  });

  it('bounds connections by max.connections and requests by socket.request.max.bytes', async () => {
    const c = await start({ staticConfigs: { 'socket.request.max.bytes': '4096', 'max.connections': '2' } });
    const port = await portOf(c, 1);
    const big = await client(port);
    const frame = Buffer.alloc(8);
    frame.writeInt32BE(10_000, 0);
    big.write(frame);
    await big.closed;
    const a = await client(port);
    const b = await client(port);
    expect(await a.request(ApiKey.ApiVersions, 2, {})).toMatchObject({ errorCode: 0 });
    expect(await b.request(ApiKey.ApiVersions, 2, {})).toMatchObject({ errorCode: 0 });
    const third = await client(port);
    await third.closed;
    expect(third.isClosed).toBe(true);
  });
});
