/**
 * Per-IP connection creation rate quotas on real sockets (Kafka's ConnectionQuotas, KIP-612):
 * an ip entity's connection_creation_rate, or the default ip entity's, bounds how many new
 * connections per second a broker accepts from one address. Over it, the connection is held
 * unanswered and closed after the throttle; under it, connections are served. Each broker counts
 * its own; loopback clients share 127.0.0.1 (their true address), and one from 127.0.0.2 is
 * another address.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey } from '../../app/protocol/generated/index.js';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { RawKafkaClient } from './test-support/raw-kafka-client.js';

const quiet = { error: () => {} };
let dir: string;
let cluster: OpenCluster;
let ports: Map<number, number>;

/** ApiVersions v0, correlation id 1, client id "probe". */
const API_VERSIONS = (() => {
  const body = Buffer.concat([Buffer.from([0, 18, 0, 0, 0, 0, 0, 1, 0, 5]), Buffer.from('probe')]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
})();

/** One new connection: whether the broker answered ApiVersions, or closed it unanswered and when. */
function probe(port: number, localAddress = '127.0.0.1'): Promise<{ answered: boolean; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => socket.write(API_VERSIONS));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answered: false, closedAfterMs: Infinity });
    }, 5_000);
    socket.once('data', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answered: true, closedAfterMs: -1 });
    });
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ answered: false, closedAfterMs: Date.now() - started });
    });
  });
}

async function probes(port: number, n: number, localAddress?: string): Promise<{ answered: boolean; closedAfterMs: number }[]> {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await probe(port, localAddress));
  return out;
}

async function setQuota(ip: string | null, rate: number | null): Promise<void> {
  const r = await cluster.service.call('quotas.alter', { entity: { ip }, set: { connection_creation_rate: rate } });
  if (!r.ok) throw new Error(r.error.message);
}

/**
 * Waits until the broker behind `raw` (a connection opened before any quota, so not counted)
 * answers DescribeClientQuotas with these ip quotas: a broker applies the metadata log after the
 * controller commits, and connections made before it knows a quota are not recorded.
 */
async function appliedOn(raw: RawKafkaClient, expected: [ip: string | null, rate: number | null][]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    let all = true;
    for (const [ip, rate] of expected) {
      const r = await raw.request(ApiKey.DescribeClientQuotas, 1, { components: [{ entityType: 'ip', matchType: ip === null ? 1 : 0, match: ip }], strict: true });
      const value = r?.entries?.[0]?.values.find((v) => v.key === 'connection_creation_rate')?.value ?? null;
      if (value !== rate) all = false;
    }
    if (all) return;
    if (Date.now() > deadline) throw new Error(`the broker did not apply the ip quotas ${JSON.stringify(expected)} within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-connection-quotas-'));
  cluster = openCluster({ dataDir: dir, brokers: 3, kafkaPort: 0, logger: quiet });
  expect(await cluster.ready(30_000)).toBe(true);
  const described = await cluster.service.call('cluster.describe', {});
  if (!described.ok) throw new Error(described.error.message);
  ports = new Map(described.value.brokers.map((b) => [b.id, b.listener!.port]));
}, 40_000);

afterAll(() => {
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('connection_creation_rate of ip entities, on real sockets', () => {
  it('an ip entity’s quota: 1/s over 11 one-second samples accepts 10 connections, holds the 11th unanswered and closes it after the throttle', async () => {
    // Without a quota every connection is served.
    expect((await probes(ports.get(1)!, 12)).every((p) => p.answered)).toBe(true);
    const raw2 = await RawKafkaClient.connect(ports.get(2)!);
    await setQuota('127.0.0.1', 1);
    await appliedOn(raw2, [['127.0.0.1', 1]]);
    // Broker 2 has recorded nothing yet: its rate counts from here (at least 10 s of window, Kafka's Rate).
    const seen = await probes(ports.get(2)!, 11);
    expect(seen.slice(0, 10).every((p) => p.answered)).toBe(true);
    const throttled = seen[10]!;
    expect(throttled.answered).toBe(false);
    // (1.1 − 1) / 1 × 10 s = 1 s, capped at one window (1 s): closed then, not before.
    expect(throttled.closedAfterMs).toBeGreaterThanOrEqual(900);
    expect(throttled.closedAfterMs).toBeLessThan(5_000);
    // The throttled connection was not counted; the address stays over its quota meanwhile.
    expect((await probe(ports.get(2)!)).answered).toBe(false);
    // Another loopback address is another client host: no quota of its own, no default.
    expect((await probes(ports.get(2)!, 3, '127.0.0.2')).every((p) => p.answered)).toBe(true);
    // Broker 3 counts its own connections.
    expect((await probe(ports.get(3)!)).answered).toBe(true);
    await setQuota('127.0.0.1', null);
    await appliedOn(raw2, [['127.0.0.1', null]]);
    raw2.close();
  }, 60_000);

  it('the default ip entity applies to every address without its own; an address’s own quota overrides it', async () => {
    const raw3 = await RawKafkaClient.connect(ports.get(3)!);
    await setQuota(null, 1);
    await setQuota('127.0.0.1', 1000);
    await appliedOn(raw3, [[null, 1], ['127.0.0.1', 1000]]);
    // 127.0.0.1's own quota (1000/s): served; 127.0.0.3 has only the default (1/s).
    expect((await probes(ports.get(3)!, 12)).every((p) => p.answered)).toBe(true);
    const seen = await probes(ports.get(3)!, 11, '127.0.0.3');
    expect(seen.slice(0, 10).every((p) => p.answered)).toBe(true);
    expect(seen[10]!.answered).toBe(false);
    // Removing the default lifts it at once.
    await setQuota(null, null);
    await appliedOn(raw3, [[null, null]]);
    expect((await probe(ports.get(3)!, '127.0.0.3')).answered).toBe(true);
    raw3.close();
  }, 60_000);
});
