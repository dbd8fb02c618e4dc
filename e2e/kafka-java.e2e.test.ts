/**
 * Apache Kafka's Java client (kafka-clients 3.8.0) against `npm run serve`, as applications use
 * it: Admin over topics, configs, partitions, a reassignment, an election, log dirs, deleteRecords
 * and features; the idempotent producer with Java's defaults and every codec; a consumer group
 * rebalancing; a leader killed during acks=all produce (nothing lost, nothing twice); topic
 * auto-creation (and a cluster whose profile turns it off); and a LogAppendTime topic written from
 * the console read by a Java consumer. The programs are in e2e/java/. Skipped with one line
 * without a JDK or the client (e2e/support/java-client.ts says where it is looked for).
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TopicSummaryView, TopicView } from '../app/api/views.js';
import { api } from './support/harness.js';
import { checkJavaClient, compilePrograms, runJava } from './support/java-client.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';

const client = checkJavaClient();

function okLines(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l.startsWith('OK ')).map((l) => l.slice(3));
}

async function run(cp: string, main: string, args: string[], ms = 120_000, onLine?: (line: string) => void): Promise<string[]> {
  const r = await runJava(cp, main, args, { ms, ...(onLine ? { onLine } : {}) });
  const failed = r.stdout.split('\n').find((l) => l.startsWith('FAILED '));
  expect(r.code, `${main}: ${failed ?? ''}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`).toBe(0);
  return okLines(r.stdout);
}

describe.skipIf(!client.available)('the Java client against the local cluster', () => {
  let k: KafkaServe;
  let cp = '';
  beforeAll(async () => {
    [k, cp] = await Promise.all([startKafkaServe(), Promise.resolve().then(() => compilePrograms(client))]);
  }, 240_000);
  afterAll(async () => {
    await k?.stop();
    if (cp) rmSync(cp.split(':')[0]!, { recursive: true, force: true });
  });

  it('Admin: cluster, topics, configs and synonyms, partitions, reassignment, election, log dirs, deleteRecords, features', async () => {
    const ok = await run(cp, 'AdminTour', [k.bootstrap]);
    expect(ok).toEqual(expect.arrayContaining(['topic configs', 'broker configs', 'log dirs with total and usable bytes', 'deleteRecords', 'deleteTopics']));
    console.info(`Java Admin sent: ${JSON.stringify(k.versions('java-admin'))}`);
  }, 180_000);

  it('the idempotent producer with Java\'s defaults and every codec: each acked record read back once at its offset', async () => {
    await api(k.host, 'topics.create', { name: 'java-codecs', partitions: 3, replicationFactor: 3 });
    const ok = await run(cp, 'ProduceCodecs', [k.bootstrap, 'java-codecs', '3', '200']);
    expect(ok.at(-1)).toBe('consumed 1000 records, each once');
    const sent = k.versions('java-codecs');
    expect(sent['Produce']).toEqual([8]);
    expect(sent['InitProducerId']).toBeDefined();
  }, 180_000);

  it('a consumer group rebalances as members join and leave, and commits every offset', async () => {
    await api(k.host, 'topics.create', { name: 'java-group', partitions: 4, replicationFactor: 3 });
    for (let i = 0; i < 40; i++) await api(k.host, 'records.produce', { topic: 'java-group', partition: i % 4, acks: 'all', records: [{ key: `k${i}`, value: `v${i}` }] });
    const ok = await run(cp, 'GroupRebalance', [k.bootstrap, 'java-group', '4', '40'], 180_000);
    expect(ok).toEqual(expect.arrayContaining(['a alone: 4', 'split: a 2, b 2', 'b left: a 4', 'read 40 distinct records']));
  }, 240_000);

  it('killing the leader during acks=all produce loses nothing and duplicates nothing (the kill sent by Java\'s HttpClient, which offers h2c)', async () => {
    await api(k.host, 'topics.create', { name: 'java-kill', partitions: 1, replicationFactor: 3 });
    const killed: number[] = [];
    const ok = await run(cp, 'LeaderKill', [k.bootstrap, k.host.origin, k.host.token, 'java-kill', '3000'], 180_000, (line) => {
      const m = /^OK killed leader (\d+)/.exec(line);
      if (m) killed.push(Number(m[1]));
    });
    expect(ok.at(-1)).toBe('nothing lost, nothing twice: 3000 in order');
    expect(killed).toHaveLength(1);
    const t = await k.topic('java-kill');
    expect(t.partitions[0]!.leader).not.toBe(killed[0]);
    await api(k.host, 'brokers.start', { brokerId: killed[0] });
    await until(async () => (await k.topic('java-kill')).partitions[0]!.isr.length === 3, 60_000, 'the killed broker back in the ISR');
  }, 240_000);

  it('auto-creation: a producer\'s send and a consumer\'s subscription create their topics, marked with the client that did; Admin creates nothing', async () => {
    const ok = await run(cp, 'AutoCreate', [k.bootstrap, 'create', 'java-auto-produced', 'java-auto-subscribed']);
    expect(ok).toEqual(expect.arrayContaining(['Admin does not create']));
    const produced = await api<TopicView>(k.host, 'topics.describe', { name: 'java-auto-produced' });
    expect(produced.createdBy).toMatchObject({ api: 'Metadata', clientId: 'java-auto-producer' });
    // The cluster's num.partitions and default.replication.factor: the balanced profile's 6 and 3.
    expect(produced.partitions).toHaveLength(6);
    expect(produced.partitions.every((p) => p.replicas.length === 3)).toBe(true);
    expect(produced.partitions.reduce((n, p) => n + p.highWatermark, 0)).toBe(5);
    const listed = await api<TopicSummaryView[]>(k.host, 'topics.list', {});
    expect(listed.find((t) => t.name === 'java-auto-subscribed')?.createdBy).toMatchObject({ api: 'Metadata', clientId: 'java-auto-consumer' });
    expect(listed.find((t) => t.name === 'java-codecs')?.createdBy).toBeUndefined();
  }, 180_000);

  it('records written from the console to a LogAppendTime topic reach a Java consumer as LogAppendTime records', async () => {
    await api(k.host, 'topics.create', { name: 'java-lat', partitions: 1, replicationFactor: 3, configs: { 'message.timestamp.type': 'LogAppendTime' } });
    await api(k.host, 'records.produce', { topic: 'java-lat', partition: 0, acks: 'all', records: [1, 2, 3].map((i) => ({ value: `v${i}`, timestamp: 1_000 + i })) });
    const ok = await run(cp, 'Timestamps', [k.bootstrap, 'java-lat', '3']);
    expect(ok[0]).toMatch(/^types LogAppendTime timestamps \[\d{13}\]$/);
  }, 120_000);
});

describe.skipIf(!client.available)('the Java client against a cluster made from the durability profile', () => {
  let k: KafkaServe;
  let cp = '';
  beforeAll(async () => {
    [k, cp] = await Promise.all([startKafkaServe({ profile: 'durability' }), Promise.resolve().then(() => compilePrograms(client))]);
  }, 240_000);
  afterAll(async () => {
    await k?.stop();
    if (cp) rmSync(cp.split(':')[0]!, { recursive: true, force: true });
  });

  it('auto.create.topics.enable=false: a send to a missing topic times out and nothing is created', async () => {
    const configs = await api<{ name: string; value: string }[]>(k.host, 'configs.describe', { resource: { type: 'broker', name: '1' } });
    expect(configs.find((c) => c.name === 'auto.create.topics.enable')?.value).toBe('false');
    const ok = await run(cp, 'AutoCreate', [k.bootstrap, 'refused', 'java-auto-refused']);
    expect(ok).toEqual(['not created: java-auto-refused']);
  }, 120_000);
});
