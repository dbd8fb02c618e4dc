/**
 * The workbench's record view through the Kafka driver shows what each record's batch says —
 * compression, timestamp type, producer id/epoch/sequence, leader epoch, transactional — exactly
 * as the embedded driver shows the same records. One `npm run serve` with Kafka listeners; the
 * console reaches that very cluster twice: through its own engine and as an external connection
 * to its bootstrap servers (Fetch over the Kafka protocol, decoded by the driver). The batches are
 * written by clients no one here wrote: kcat (librdkafka, idempotent) in every codec, a kafkajs
 * transactional producer (a committed and an aborted transaction, with their markers), and the
 * console's own produce into a LogAppendTime topic.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionView } from '../app/api/connections.js';
import type { RecordsSearchView } from '../app/api/records-search-contract.js';
import { api, removeDir } from './support/harness.js';
import { startKafkaServe, type KafkaServe } from './support/kafka-serve.js';
import { checkTool, OPTIONAL_TOOLS } from './support/optional-tools.js';

const kcatTool = checkTool(OPTIONAL_TOOLS.kcat);
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

/** Run kcat with `args` (stdin `input`), bounded in time. */
function kcat(args: string[], input: string, ms = 30_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
    child.stdin.end(input);
  });
}

describe.skipIf(!kcatTool.available)('record batches through the Kafka driver and the embedded driver', () => {
  let k: KafkaServe;
  let connection: string;
  let producer: Producer | undefined;
  // The connection list of this host alone, not the user's (the default configuration directory).
  const configDir = mkdtempSync(join(tmpdir(), 'rs-batches-config-'));
  beforeAll(async () => {
    k = await startKafkaServe({ extraArgs: ['--config', configDir] });
    await api(k.host, 'topics.create', { name: 'batches', partitions: 2, replicationFactor: 3 });
    await api(k.host, 'topics.create', { name: 'appended', partitions: 1, replicationFactor: 2, configs: { 'message.timestamp.type': 'LogAppendTime' } });
    connection = (await api<ConnectionView>(k.host, 'connections.addExternal', { name: 'itself over Kafka', settings: { bootstrapServers: k.bootstrap.split(',') } })).id;
  }, 120_000);
  afterAll(async () => {
    await producer?.disconnect().catch(() => {});
    await k?.stop();
    removeDir(configDir);
  });

  it('shows each record’s codec, producer fields, leader epoch and timestamp type as the embedded driver does, both orders', async () => {
    // One idempotent batch per codec from librdkafka (a producer id, epoch 0, sequences from 0 on).
    for (const codec of CODECS) {
      const r = await kcat(['-b', k.bootstrap, '-P', '-t', 'batches', '-p', '0', '-K:', '-H', `codec=${codec}`, '-X', 'enable.idempotence=true', '-X', 'linger.ms=50', '-z', codec], [1, 2, 3].map((i) => `${codec}-k${i}:${codec}-v${i}`).join('\n') + '\n');
      expect(r.code, r.stderr).toBe(0);
    }
    // kafkajs inside transactions: a committed gzip batch, an aborted one, each followed by its marker.
    const kafka = new Kafka({ clientId: 'batches-txn', brokers: k.bootstrap.split(','), logLevel: logLevel.NOTHING });
    producer = kafka.producer({ transactionalId: 'batches-txn', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (const outcome of ['commit', 'abort'] as const) {
      const t = await producer.transaction();
      await t.send({ topic: 'batches', compression: 1, messages: [{ partition: 1, key: `t-${outcome}`, value: `in a transaction to ${outcome}` }, { partition: 1, key: `t-${outcome}-2`, value: 'second' }] });
      await (outcome === 'commit' ? t.commit() : t.abort());
    }
    // The console's produce, zstd, into a LogAppendTime topic (no producer id).
    await api(k.host, 'records.produce', { topic: 'appended', partition: 0, acks: 'all', compression: 'zstd', records: [{ key: 'a', value: 'appended-1' }, { key: 'b', value: 'appended-2' }] });

    const read = async (topic: string, order: 'oldest-first' | 'newest-first', viaKafka: boolean) => {
      const view = await api<RecordsSearchView>(k.host, 'records.search', { topic, from: { beginning: true }, order, limit: 100, ...(viaKafka ? { connection } : {}) });
      return view.records.map((r) => ({
        at: [r.partition, r.offset],
        key: r.key?.text ?? null,
        value: r.value?.text ?? null,
        headers: r.headers.map((h) => [h.key, h.value?.text ?? null]),
        batch: [r.compression, r.timestampType, r.transactional, r.leaderEpoch],
        producer: [r.producerId, r.producerEpoch, r.sequence],
        timestamp: r.timestamp,
        size: r.sizeBytes,
      }));
    };
    for (const order of ['oldest-first', 'newest-first'] as const) {
      const local = await read('batches', order, false);
      expect(await read('batches', order, true)).toEqual(local);
      const appendedLocal = await read('appended', order, false);
      expect(await read('appended', order, true)).toEqual(appendedLocal);
    }

    // And what both show is what the clients wrote.
    const records = await read('batches', 'oldest-first', true);
    const p0 = records.filter((r) => r.at[0] === 0);
    expect(p0.map((r) => [r.value, r.batch[0]])).toEqual(CODECS.flatMap((c) => [1, 2, 3].map((i) => [`${c}-v${i}`, c])));
    expect(p0.map((r) => r.headers)).toEqual(CODECS.flatMap((c) => [1, 2, 3].map(() => [['codec', c]])));
    const kcatProducer = p0[0]!.producer[0]!;
    expect(kcatProducer).toBeGreaterThanOrEqual(0);
    // librdkafka numbers each idempotent producer's records from sequence 0; each kcat run is one producer.
    expect(p0.map((r) => r.producer.slice(1))).toEqual(CODECS.flatMap(() => [[0, 0], [0, 1], [0, 2]]));
    expect(p0.every((r) => r.batch[1] === 'CreateTime' && r.batch[2] === false && (r.batch[3] as number) >= 0)).toBe(true);
    const p1 = records.filter((r) => r.at[0] === 1);
    // Committed pair, its marker, aborted pair, its marker: the markers are records of a control batch.
    expect(p1.filter((r) => r.key?.startsWith('t-')).map((r) => [r.key, r.batch[0], r.batch[2], r.producer[2]])).toEqual([
      ['t-commit', 'gzip', true, 0],
      ['t-commit-2', 'gzip', true, 1],
      ['t-abort', 'gzip', true, 2],
      ['t-abort-2', 'gzip', true, 3],
    ]);
    expect(new Set(p1.map((r) => r.producer[0])).size).toBe(1);
    const appended = await read('appended', 'oldest-first', true);
    expect(appended.map((r) => [r.value, r.batch[0], r.batch[1], r.producer[0]])).toEqual([
      ['appended-1', 'zstd', 'LogAppendTime', -1],
      ['appended-2', 'zstd', 'LogAppendTime', -1],
    ]);
    expect(appended[0]!.timestamp).toBe(appended[1]!.timestamp);
  });
});
