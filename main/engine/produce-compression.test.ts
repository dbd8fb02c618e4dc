/**
 * The produce batch's codec on both drivers, read back from the stored batch: the console's own
 * service (the engine's door) and the Kafka driver (kafkajs with our snappy, lz4 and zstd codecs)
 * against a real cluster's Kafka listeners. On a topic whose compression.type is `producer` the
 * batch keeps the codec it was produced with; on a `gzip` topic the leader recompresses, as
 * Kafka's LogValidator does. The Kafka driver reads every codec back, too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordsSearchView } from '../../app/api/records-search-contract.js';
import { useZstdCompressor } from '../../app/kafka-client/kafkajs-codecs.js';
import { createKafkaDriver, type KafkaDriver } from '../../app/service/kafka-driver/kafka-driver.js';
import { openCluster, type OpenCluster } from './open-cluster.js';
import { loadZstdCompressor } from './zstd-compressor.js';

const quiet = { error: () => {} };
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
let dir: string;
let cluster: OpenCluster;
let driver: KafkaDriver;

async function ok<T>(p: Promise<{ ok: true; value: T } | { ok: false; error: { code: string; message: string } }>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}

/** Each record's key → the codec of the batch it is stored in, read by the cluster's own service. */
async function storedCodecs(topic: string): Promise<Record<string, string | null>> {
  const page: RecordsSearchView = await ok(cluster.service.call('records.search', { topic, from: { beginning: true } }));
  return Object.fromEntries(page.records.map((r) => [r.key!.text!, r.compression]));
}

// Compressible values: a codec that silently wrote them plain would still be told apart by the attributes.
const value = (codec: string) => `${codec}:` + 'the same words again and again, '.repeat(20);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-produce-compression-'));
  cluster = openCluster({ dataDir: dir, brokers: 3, logger: quiet, kafkaPort: 0 });
  expect(await cluster.ready(15_000)).toBe(true);
  await loadZstdCompressor(); // the engine's zstd is loaded before the first zstd batch
  useZstdCompressor(() => loadZstdCompressor());
  const described = await ok(cluster.service.call('cluster.describe', {}));
  driver = createKafkaDriver({ bootstrapServers: described.bootstrapServers!.split(','), security: 'PLAINTEXT' }, { connection: 'ext', logger: quiet });
}, 30_000);

afterAll(async () => {
  await driver?.close();
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe('the produce batch’s compression', () => {
  it('on the local cluster: each batch stored with the codec asked for; a gzip topic recompresses', async () => {
    await ok(cluster.service.call('topics.create', { name: 'local-codecs', partitions: 1, replicationFactor: 3 }));
    for (const codec of CODECS) {
      const r = await ok(cluster.service.call('records.produce', { topic: 'local-codecs', partition: 0, acks: 'all', compression: codec, records: [{ key: codec, value: value(codec) }, { key: `${codec}-2`, value: value(codec) }] }));
      expect([codec, r.errorCode]).toEqual([codec, 'NONE']);
    }
    const stored = await storedCodecs('local-codecs');
    for (const codec of CODECS) expect([codec, stored[codec], stored[`${codec}-2`]]).toEqual([codec, codec, codec]);

    await ok(cluster.service.call('topics.create', { name: 'local-gzip', partitions: 1, replicationFactor: 3, configs: { 'compression.type': 'gzip' } }));
    await ok(cluster.service.call('records.produce', { topic: 'local-gzip', partition: 0, acks: 'all', compression: 'snappy', records: [{ key: 'k', value: value('snappy') }] }));
    expect(await storedCodecs('local-gzip')).toEqual({ k: 'gzip' });
    const bad = await cluster.service.call('records.produce', { topic: 'local-codecs', acks: 'all', compression: 'brotli', records: [{ value: 'x' }] } as never);
    expect(bad.ok ? null : bad.error.code).toBe('INVALID_INPUT');
  }, 60_000);

  it('through the Kafka driver: kafkajs sends each codec, the cluster stores it, and the driver reads every one back', async () => {
    await ok(driver.call('topics.create', { name: 'driver-codecs', partitions: 1, replicationFactor: 3 }));
    for (const codec of CODECS) {
      const r = await ok(driver.call('records.produce', { topic: 'driver-codecs', partition: 0, acks: 'all', compression: codec, records: [{ key: codec, value: value(codec) }] }));
      expect([codec, r.errorCode]).toEqual([codec, 'NONE']);
    }
    const stored = await storedCodecs('driver-codecs');
    expect(stored).toEqual(Object.fromEntries(CODECS.map((c) => [c, c])));
    // kafkajs alone decompresses gzip only: the driver's read of snappy, lz4 and zstd batches needs ours.
    const read: RecordsSearchView = await ok(driver.call('records.search', { topic: 'driver-codecs', from: { beginning: true } }));
    expect(read.records.map((r) => [r.key?.text, r.value?.text])).toEqual(CODECS.map((c) => [c, value(c)]));
  }, 60_000);
});
