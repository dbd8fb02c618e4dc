/**
 * Reaching the cluster under another name or address (`npm run serve -- --advertised-host NAME
 * --bind ADDR`): Metadata advertises NAME for every broker, the listeners listen on ADDR only,
 * and a Kafka client (kafkajs) bootstrapped there produces and consumes; the Schema Registry
 * (`--schema-registry-port`) listens on ADDR with them. Only loopback addresses
 * are used (127.0.0.2 is this machine too), never one another machine could reach.
 */
import { connect } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './support/harness.js';
import { startKafkaServe, type KafkaServe } from './support/kafka-serve.js';

function refused(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('--bind 127.0.0.2 --advertised-host 127.0.0.2', () => {
  let k: KafkaServe;
  beforeAll(async () => {
    k = await startKafkaServe({ extraArgs: ['--bind', '127.0.0.2', '--advertised-host', '127.0.0.2', '--schema-registry-port', '0'] });
    await api(k.host, 'topics.create', { name: 'reach', partitions: 2, replicationFactor: 3 });
  }, 120_000);
  afterAll(async () => {
    await k?.stop();
  });

  it('advertises 127.0.0.2 in Metadata and cluster.describe; listens there and not on 127.0.0.1; a client produces and consumes', async () => {
    const brokers = k.bootstrap.split(',');
    expect(brokers).toHaveLength(3);
    for (const b of brokers) expect(b).toMatch(/^127\.0\.0\.2:\d+$/);
    const [, port] = brokers[0]!.split(':');
    expect(await refused('127.0.0.1', Number(port))).toBe(true);
    const kafka = new Kafka({ brokers: [brokers[0]!], clientId: 'reach-e2e', logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: ['reach'] });
    expect(meta.topics[0]!.partitions).toHaveLength(2);
    const cluster = await admin.describeCluster();
    expect(cluster.brokers.map((b) => b.host)).toEqual(['127.0.0.2', '127.0.0.2', '127.0.0.2']);
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'reach', acks: -1, messages: [{ partition: 0, value: 'over 127.0.0.2' }] });
    await producer.disconnect();
    const consumed = await api<{ records: { value: string | null }[] }>(k.host, 'records.consume', { topic: 'reach', partition: 0, offset: 0 });
    expect(consumed.records.map((r) => r.value)).toEqual(['over 127.0.0.2']);
  }, 120_000);

  it('serves the Schema Registry on 127.0.0.2 too, not on 127.0.0.1, and says so', async () => {
    const line = k.host.stderr().split('\n').find((l) => l.includes('Schema Registry on '));
    const url = /Schema Registry on (http:\/\/127\.0\.0\.2:(\d+))/.exec(line ?? '');
    expect(url, line).not.toBeNull();
    const res = await fetch(`${url![1]}/subjects`, { signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    expect(await refused('127.0.0.1', Number(url![2]))).toBe(true);
  });

  it('is said loudly at start: who can reach the brokers and the registry, what they could do, and what to turn on', () => {
    const warning = k.host.stderr().split('\n').find((l) => l.includes('WARNING: --bind 127.0.0.2'));
    expect(warning).toContain('any process on this machine that connects to 127.0.0.2');
    expect(warning).toContain('--kafka-sasl-users');
    expect(warning).toContain('The Schema Registry listens there too, with no authentication');
  });
});

describe('--advertised-host localhost (listeners on 127.0.0.1)', () => {
  let k: KafkaServe;
  beforeAll(async () => {
    k = await startKafkaServe({ extraArgs: ['--advertised-host', 'localhost'] });
  }, 120_000);
  afterAll(async () => {
    await k?.stop();
  });

  it('names every broker localhost in cluster.describe and Metadata', async () => {
    for (const b of k.bootstrap.split(',')) expect(b).toMatch(/^localhost:\d+$/);
    const port = Number(k.bootstrap.split(',')[0]!.split(':')[1]);
    const kafka = new Kafka({ brokers: [`127.0.0.1:${port}`], clientId: 'reach-e2e', logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const cluster = await admin.describeCluster();
    expect(cluster.brokers.map((b) => b.host)).toEqual(['localhost', 'localhost', 'localhost']);
    await admin.disconnect();
  }, 60_000);
});
