/**
 * kafkajs 2.2.4 (npm) against `npm run serve`: an idempotent producer (acks=all) on a
 * 6-partition topic while one partition's leader is killed mid-run. Every acknowledged record is
 * in the log exactly once (the retries after the failover were recognised as duplicates or
 * written once), read back by a consumer over the wire: kcat where it is installed, else the
 * contract's records.consume.
 */
import { spawnSync } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsumeResultView } from '../app/api/views.js';
import { api } from './support/harness.js';
import { startKafkaServe, type KafkaServe } from './support/kafka-serve.js';
import { checkTool, OPTIONAL_TOOLS } from './support/optional-tools.js';

const PARTITIONS = 6;
const SENDS = 60;
const PER_SEND = 10;

/**
 * The producer's retry budget, spelled out in full as a kafkajs user facing a real cluster would.
 *
 * A killed leader stays the leader in Metadata (its port refusing connections) until the
 * controller fences it: broker.session.timeout.ms (9 s) after its last heartbeat, or, when the
 * killed broker also hosted the active controller, 9 s after the controller failover
 * (controller.quorum.fetch.timeout.ms 2 s + election 1–2 s), since a new KRaft controller gives
 * every unfenced broker a fresh session: up to ~13 s.
 *
 * kafkajs 2.2.4 retries a send in src/producer/sendMessages.js with the producer's retrier; each
 * attempt goes to the leader of the metadata refreshed after the previous failure, and once
 * `retries` are spent it throws KafkaJSNumberOfRetriesExceeded (ECONNREFUSED from
 * cluster/brokerPool.js connectBroker). Its documented idempotent default of MAX_SAFE_INTEGER
 * retries never applies through `kafka.producer()`: src/index.js always passes
 * `{ ...clientRetry, ...retry }`, an object, to the `retry || { retries: MAX_SAFE_INTEGER }` of
 * src/producer/index.js. And under vitest (NODE_ENV=test) src/retry/index.js starts from
 * defaults.test.js (50 ms × 1.5), so `{ retries: 12 }` gave ~9 s of backoff before the last
 * metadata refresh: short of a failover that also moved the controller (1 run in 3 kills the
 * controller's host). Hence the Java producer's budget: retry.backoff.ms 100 doubling to
 * retry.backoff.max.ms 1 s with 20 % jitter, for about its delivery.timeout.ms (120 s).
 */
const DELIVERY_RETRY = { initialRetryTime: 100, multiplier: 2, factor: 0.2, maxRetryTime: 1_000, retries: 120 };

describe('kafkajs against the local cluster', () => {
  let k: KafkaServe;
  beforeAll(async () => {
    k = await startKafkaServe();
    await api(k.host, 'topics.create', { name: 'events', partitions: PARTITIONS, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  /** Every record value of the topic, read over the wire (kcat) or through the contract. */
  async function everyValue(): Promise<string[]> {
    if (checkTool(OPTIONAL_TOOLS.kcat).available) {
      const r = spawnSync('kcat', ['-b', k.bootstrap, '-C', '-t', 'events', '-o', 'beginning', '-e', '-f', '%s\n'], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout.split('\n').filter((l) => l.length > 0);
    }
    const values: string[] = [];
    for (let p = 0; p < PARTITIONS; p++) {
      for (let offset = 0; ; ) {
        const r = await api<ConsumeResultView>(k.host, 'records.consume', { topic: 'events', partition: p, offset, maxRecords: 500 });
        if (r.records.length === 0) break;
        values.push(...r.records.map((x) => x.value ?? ''));
        offset = r.records[r.records.length - 1]!.offset + 1;
      }
    }
    return values;
  }

  it('an idempotent producer writes every acknowledged record exactly once across a leader failover', async () => {
    const kafka = new Kafka({ clientId: 'kafkajs-e2e', brokers: k.bootstrap.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 30_000 });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 5, retry: DELIVERY_RETRY });
    await producer.connect();
    const victim = (await k.topic('events')).partitions[0]!.leader;
    const acknowledged: string[] = [];
    const deadline = Date.now() + 150_000;
    try {
      for (let s = 0; s < SENDS && Date.now() < deadline; s++) {
        if (s === SENDS / 3) await api(k.host, 'brokers.kill', { brokerId: victim });
        const messages = Array.from({ length: PER_SEND }, (_, i) => {
          const n = s * PER_SEND + i;
          return { key: `k${n}`, value: `v${n}`, partition: n % PARTITIONS };
        });
        await producer.send({ topic: 'events', acks: -1, messages });
        acknowledged.push(...messages.map((m) => m.value));
      }
    } finally {
      await producer.disconnect();
    }
    expect(acknowledged).toHaveLength(SENDS * PER_SEND);
    const after = await k.topic('events');
    expect(after.partitions[0]!.leader).not.toBe(victim);
    const values = await everyValue();
    const seen = new Map<string, number>();
    for (const v of values) seen.set(v, (seen.get(v) ?? 0) + 1);
    expect(acknowledged.filter((v) => !seen.has(v))).toEqual([]);
    expect([...seen].filter(([, n]) => n > 1)).toEqual([]);
    const sent = k.versions('kafkajs-e2e');
    console.info(`kafkajs 2.2.4 sent: ${JSON.stringify(sent)}`);
    expect(sent['Produce']).toEqual([7]);
    expect(sent['InitProducerId']).toEqual([1]);
    await api(k.host, 'brokers.start', { brokerId: victim });
  }, 200_000);
});
