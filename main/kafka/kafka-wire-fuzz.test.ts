/**
 * Random and mutated frames thrown at the live Kafka listeners of a real cluster (in-process
 * engine, real sockets, SQLite): whatever arrives, the process keeps serving every broker, no
 * handler fails (no UNKNOWN_SERVER_ERROR from a bug of ours), and the cluster's state is exactly
 * what it was. Requests that may legitimately change state (Produce with a batch that passes its
 * CRC, InitProducerId) are left out of the generated ones; random bodies reach every API.
 * Bounded: a fixed number of frames, spread over a few connections, each answer waited for at
 * most a short while (a long poll or a silent answer simply ends the connection).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TopicView } from '../../app/api/views.js';
import { apiDefinition, ApiKey, requestHeaderVersion, writeRequestHeader } from '../../app/protocol/generated/index.js';
import { Writer } from '../../app/protocol/runtime/index.js';
import { messages, struct } from '../../app/protocol/test-support/schema-arbitrary.js';
import { openCluster, type OpenCluster } from '../engine/open-cluster.js';
import { RawKafkaClient } from './test-support/raw-kafka-client.js';

/** APIs whose requests never change the cluster's state. */
const READ_ONLY = [ApiKey.ApiVersions, ApiKey.Metadata, ApiKey.Fetch, ApiKey.ListOffsets, ApiKey.OffsetForLeaderEpoch];
const FRAMES = 240;
const CONNECTIONS = 8;

const failures: unknown[] = [];
let dir: string;
let cluster: OpenCluster;
let ports: number[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rs-wire-fuzz-'));
  cluster = openCluster({ dataDir: dir, brokers: 3, kafkaPort: 0, logger: { error: (message, error) => failures.push({ message, error }) } });
  expect(await cluster.ready(30_000)).toBe(true);
  expect(await cluster.service.call('topics.create', { name: 'fuzz', partitions: 2, replicationFactor: 3 })).toMatchObject({ ok: true });
  for (let i = 0; i < 100; i++) {
    const r = await cluster.service.call('records.produce', { topic: 'fuzz', partition: 0, acks: 'all', records: [{ key: 'k', value: 'before the fuzz' }] });
    if (r.ok && r.value.errorCode === 'NONE') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const view = await cluster.service.call('cluster.describe', {});
  if (!view.ok) throw new Error(view.error.message);
  ports = view.value.brokers.map((b) => b.listener!.port);
}, 60_000);

afterAll(() => {
  cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function frame(apiKey: number, version: number, body: unknown, correlationId: number): Uint8Array {
  const def = apiDefinition(apiKey)!;
  const w = new Writer();
  const setSize = w.reserveInt32();
  writeRequestHeader(w, requestHeaderVersion(def, version), { requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId: 'fuzz' });
  def.writeRequest(w, version, body as never);
  setSize(w.length - 4);
  return w.toBytes();
}

const readOnlyFrame = fc
  .constantFrom(...messages.filter((m) => m.type === 'request' && READ_ONLY.includes(m.apiKey as never)))
  .chain((m) => fc.integer({ min: m.valid.lo, max: m.valid.hi }).chain((v) => fc.tuple(fc.constant(m.apiKey!), fc.constant(v), struct(m.fields, v), fc.integer())))
  .map(([apiKey, v, body, correlationId]) => frame(apiKey, v, body, correlationId));

/** Flip, cut and insert bytes, keeping a read-only API key in the header when it is still there. */
const mutatedFrame = fc
  .tuple(readOnlyFrame, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'cut', 'insert')), { minLength: 1, maxLength: 4 }))
  .map(([f, edits]) => {
    const key = new DataView(f.buffer).getInt16(4);
    let bytes = [...f];
    for (const [at, value, kind] of edits) {
      const i = bytes.length ? at % bytes.length : 0;
      if (kind === 'set') bytes[i] = value;
      else if (kind === 'cut') bytes = bytes.slice(0, i);
      else bytes.splice(i, 0, value);
    }
    const out = Uint8Array.from(bytes);
    if (out.length >= 6) new DataView(out.buffer).setInt16(4, key);
    return out;
  });

/** A size prefix that matches, then a random body behind a random API key and version. */
const framedRandom = fc.tuple(fc.integer({ min: 0, max: 70 }), fc.integer({ min: -2, max: 20 }), fc.uint8Array({ maxLength: 300 })).map(([apiKey, version, body]) => {
  const out = new Uint8Array(body.length + 8);
  const view = new DataView(out.buffer);
  view.setInt32(0, body.length + 4);
  view.setInt16(4, apiKey === ApiKey.InitProducerId ? ApiKey.Metadata : apiKey);
  view.setInt16(6, version);
  out.set(body, 8);
  return out;
});

const anything = fc.oneof(readOnlyFrame, mutatedFrame, framedRandom, fc.uint8Array({ maxLength: 200 }));

async function describeTopic(): Promise<TopicView> {
  const r = await cluster.service.call('topics.describe', { name: 'fuzz' });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const stateOf = (t: TopicView) => t.partitions.map((p) => ({ leader: p.leader, epoch: p.leaderEpoch, hw: p.highWatermark, leo: p.replicaStates.map((r) => r.logEndOffset) }));

describe('the live Kafka listeners under random and mutated frames', () => {
  it('never crash, never fail a handler, never change the cluster', async () => {
    const before = stateOf(await describeTopic());
    const topicsBefore = await cluster.service.call('topics.list', {});
    const frames = fc.sample(anything, { numRuns: FRAMES, seed: 20_261_202 });
    let answered = 0;
    let closedByBroker = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, c) => {
        const mine = frames.filter((_, i) => i % CONNECTIONS === c);
        let client: RawKafkaClient | null = null;
        for (const bytes of mine) {
          client ??= await RawKafkaClient.connect(ports[c % ports.length]!);
          client.write(bytes);
          const reply = await client.nextFrame(150);
          if (reply) answered++;
          else {
            if (client.isClosed) closedByBroker++;
            client.close();
            client = null;
          }
        }
        client?.close();
      }),
    );
    // Both of Kafka's answers to what it cannot serve were exercised: a response and a close.
    expect(answered).toBeGreaterThan(FRAMES / 10);
    expect(closedByBroker).toBeGreaterThan(FRAMES / 10);
    expect(failures).toEqual([]);
    for (const port of ports) {
      const probe = await RawKafkaClient.connect(port);
      expect(await probe.request(ApiKey.ApiVersions, 2, {})).toMatchObject({ errorCode: 0 });
      probe.close();
    }
    expect(stateOf(await describeTopic())).toEqual(before);
    expect(await cluster.service.call('topics.list', {})).toEqual(topicsBefore);
  }, 120_000);
});
