/**
 * Fetch, ListOffsets and OffsetForLeaderEpoch in Kafka's bytes against a simulated cluster: what
 * a consumer sees — up to the high watermark, long polls woken by a produce, byte limits with the
 * first batch always sent, leader epochs checked, offsets by time.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../generated/index.js';
import { decodeRecordBatches } from '../records/record-batch.js';
import { clientBatch, clientRecord, codecs, WireSim } from '../test-support/wire-sim.js';

type FetchPartition = { partition: number; fetchOffset: bigint; partitionMaxBytes: number; currentLeaderEpoch: number };

function fetchBody(partitions: Partial<FetchPartition>[], options: { maxWaitMs?: number; minBytes?: number; maxBytes?: number; topic?: string } = {}) {
  return {
    replicaId: -1,
    maxWaitMs: options.maxWaitMs ?? 0,
    minBytes: options.minBytes ?? 1,
    maxBytes: options.maxBytes ?? 50_000_000,
    topics: [{ topic: options.topic ?? 't', partitions: partitions.map((p) => ({ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1_048_576, currentLeaderEpoch: -1, ...p })) }],
  };
}

const texts = (records: Uint8Array | null, from = 0): string[] =>
  records === null ? [] : decodeRecordBatches(records, { codecs }).flatMap((b) => b.records.map((r, i) => ({ offset: b.baseOffset + i, v: new TextDecoder().decode(r.value!) }))).filter((r) => r.offset >= from).map((r) => r.v);

async function produce(w: WireSim, values: string[], acks = -1, brokerId = 1): Promise<void> {
  const r = await w.respond(brokerId, ApiKey.Produce, 7, { acks, timeoutMs: 5_000, topicData: [{ name: 't', partitionData: [{ index: 0, records: clientBatch(values.map((v) => clientRecord(v))) }] }] });
  expect(r.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
}

function cluster(): WireSim {
  const w = new WireSim({ seed: 21 });
  w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
  return w;
}

describe('Fetch (key 1) as a consumer', () => {
  it('parks a fetch at the high watermark for max.wait.ms and answers it as soon as a produce commits records', async () => {
    const w = cluster();
    await produce(w, ['a']);
    let answeredAt = -1;
    const parked = w.request(1, ApiKey.Fetch, 11, fetchBody([{ fetchOffset: 1n }], { maxWaitMs: 10_000 }), {
      meanwhile: () => {
        w.sim.advance(300);
        void produce(w, ['b']).then(() => (answeredAt = w.sim.now));
      },
    });
    const a = await parked;
    if (a.kind !== 'respond') throw new Error(a.kind);
    const p = a.body.responses[0]!.partitions[0]!;
    expect(texts(p.records, 1)).toEqual(['b']);
    expect(p.highWatermark).toBe(2n);
    expect(answeredAt).toBeGreaterThan(0);
    expect(w.sim.now).toBeLessThan(5_000);
  });

  it('answers an empty fetch after max.wait.ms when nothing arrives, and waits for min.bytes', async () => {
    const w = cluster();
    await produce(w, ['a']);
    const start = w.sim.now;
    const empty = await w.respond(1, ApiKey.Fetch, 11, fetchBody([{ fetchOffset: 1n }], { maxWaitMs: 700 }));
    // An empty record set, never null: librdkafka refuses a null one.
    expect(empty.responses[0]!.partitions[0]!.records).toEqual(new Uint8Array(0));
    expect(w.sim.now - start).toBeGreaterThanOrEqual(700);
    // 1 record is readable, but the consumer asked for a megabyte: it waits the whole max.wait.ms.
    const before = w.sim.now;
    const small = await w.respond(1, ApiKey.Fetch, 11, fetchBody([{ fetchOffset: 0n }], { maxWaitMs: 500, minBytes: 1_000_000 }));
    expect(texts(small.responses[0]!.partitions[0]!.records)).toEqual(['a']);
    expect(w.sim.now - before).toBeGreaterThanOrEqual(500);
  });

  it('serves only below the high watermark (read_uncommitted and read_committed alike)', async () => {
    const w = cluster();
    await produce(w, ['committed']);
    w.sim.engine.stallFollower(2);
    w.sim.engine.stallFollower(3);
    await produce(w, ['pending'], 1);
    for (const isolationLevel of [0, 1]) {
      const p = (await w.respond(1, ApiKey.Fetch, 11, { ...fetchBody([{}]), isolationLevel })).responses[0]!.partitions[0]!;
      expect(p.highWatermark).toBe(1n);
      expect(p.lastStableOffset).toBe(1n);
      expect(texts(p.records)).toEqual(['committed']);
    }
  });

  it('sends the first batch whole even when larger than partition_max_bytes, then nothing more; a read from inside a batch gets the whole batch', async () => {
    const w = cluster();
    await produce(w, ['x'.repeat(400), 'y'.repeat(400)]);
    await produce(w, ['z'.repeat(400)]);
    const p = (await w.respond(1, ApiKey.Fetch, 11, fetchBody([{ partitionMaxBytes: 100 }]))).responses[0]!.partitions[0]!;
    const batches = decodeRecordBatches(p.records!, { codecs });
    expect(batches.map((b) => b.baseOffset)).toEqual([0]);
    const inside = (await w.respond(1, ApiKey.Fetch, 11, fetchBody([{ fetchOffset: 1n }]))).responses[0]!.partitions[0]!;
    expect(decodeRecordBatches(inside.records!, { codecs }).map((b) => b.baseOffset)).toEqual([0, 2]);
    expect(texts(inside.records, 1)).toEqual(['y'.repeat(400), 'z'.repeat(400)]);
  });

  it('lets only the first partition with data exceed its limit: a later partition whose first batch is too large gets nothing this time', async () => {
    const w = new WireSim({ seed: 22 });
    w.sim.createTopic('t', 2, 3, {}, [[1, 2, 3], [1, 2, 3]]);
    for (const index of [0, 1]) {
      await w.respond(1, ApiKey.Produce, 7, { acks: -1, timeoutMs: 5_000, topicData: [{ name: 't', partitionData: [{ index, records: clientBatch([clientRecord('v'.repeat(400))]) }] }] });
    }
    const r = await w.respond(1, ApiKey.Fetch, 11, fetchBody([{ partition: 0, partitionMaxBytes: 100 }, { partition: 1, partitionMaxBytes: 100 }]));
    expect(r.responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, texts(p.records).length])).toEqual([
      [0, 0, 1],
      [1, 0, 0],
    ]);
  });

  it("stops at the request's max_bytes across partitions: the first batch of the first partition always, then only what fits (KIP-74)", async () => {
    const w = new WireSim({ seed: 23 });
    w.sim.createTopic('t', 2, 3, {}, [[1, 2, 3], [1, 2, 3]]);
    for (const index of [0, 1]) {
      for (const v of ['a', 'b']) {
        const r = await w.respond(1, ApiKey.Produce, 7, { acks: -1, timeoutMs: 5_000, topicData: [{ name: 't', partitionData: [{ index, records: clientBatch([clientRecord(v.repeat(400))]) }] }] });
        expect(r.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
      }
    }
    const both = [{ partition: 0 }, { partition: 1 }];
    const batchesPer = async (maxBytes: number) =>
      (await w.respond(1, ApiKey.Fetch, 11, fetchBody(both, { maxBytes }))).responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.records === null ? 0 : decodeRecordBatches(p.records, { codecs }).length]);
    // Far below one batch: the first partition's first batch still goes, whole, so the consumer progresses.
    expect(await batchesPer(100)).toEqual([
      [0, 0, 1],
      [1, 0, 0],
    ]);
    const one = (await w.respond(1, ApiKey.Fetch, 11, fetchBody([{ partition: 0, partitionMaxBytes: 1 }]))).responses[0]!.partitions[0]!.records!.length;
    // Room for three batches: both of partition 0, then one of partition 1.
    expect(await batchesPer(3 * one)).toEqual([
      [0, 0, 2],
      [1, 0, 1],
    ]);
    // Without a response limit, everything below the high watermark.
    expect(await batchesPer(50_000_000)).toEqual([
      [0, 0, 2],
      [1, 0, 2],
    ]);
  });

  it('answers OFFSET_OUT_OF_RANGE past the log end, NOT_LEADER_OR_FOLLOWER on a follower, FENCED/UNKNOWN_LEADER_EPOCH for a stale or future epoch', async () => {
    const w = cluster();
    await produce(w, ['a']);
    const at = async (brokerId: number, p: Partial<FetchPartition>) => (await w.respond(brokerId, ApiKey.Fetch, 11, fetchBody([p]))).responses[0]!.partitions[0]!.errorCode;
    expect(await at(1, { fetchOffset: 5n })).toBe(1);
    expect(await at(2, {})).toBe(6);
    w.sim.engine.electLeaders('preferred');
    w.sim.engine.killBroker(1);
    w.sim.waitFor(() => w.sim.partition('t').leader > 1, 60_000, 'failover');
    const leader = w.sim.partition('t').leader;
    const epoch = w.sim.partition('t').leaderEpoch;
    w.sim.waitFor(() => w.sim.internals.brokers.get(leader)!.partitionFor('t', 0)?.leaderEpoch === epoch, 10_000, 'the leader applied its epoch');
    expect(await at(leader, { currentLeaderEpoch: epoch - 1 })).toBe(74);
    expect(await at(leader, { currentLeaderEpoch: epoch + 1 })).toBe(75);
    expect(await at(leader, { currentLeaderEpoch: epoch })).toBe(0);
  });

  it('answers v0 to v3 with UNSUPPORTED_VERSION and every version from 4 to 11 with the records', async () => {
    const w = cluster();
    await produce(w, ['a']);
    expect((await w.respond(1, ApiKey.Fetch, 3, fetchBody([{}]))).responses[0]!.partitions[0]!.errorCode).toBe(35);
    for (let v = 4; v <= 11; v++) expect(texts((await w.respond(1, ApiKey.Fetch, v, fetchBody([{}]))).responses[0]!.partitions[0]!.records)).toEqual(['a']);
  });

  it('closes the connection of a killed broker and stays silent on an isolated one', async () => {
    const w = cluster();
    w.sim.engine.killBroker(2);
    expect((await w.request(2, ApiKey.Fetch, 11, fetchBody([{}]))).kind).toBe('close');
    w.sim.engine.isolateBroker(3);
    expect((await w.request(3, ApiKey.Fetch, 11, fetchBody([{}]), { maxMs: 45_000 })).kind).toBe('pending');
  });
});

describe('ListOffsets (key 2) and OffsetForLeaderEpoch (key 23)', () => {
  it('names the earliest, the latest and the first offset at or after a time', async () => {
    const w = cluster();
    const batch = clientBatch([clientRecord('a', null, 100), clientRecord('b', null, 200), clientRecord('c', null, 300)]);
    await w.respond(1, ApiKey.Produce, 7, { acks: -1, timeoutMs: 5_000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch }] }] });
    const ask = async (timestamp: bigint, version = 5) =>
      (await w.respond(1, ApiKey.ListOffsets, version, { replicaId: -1, topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp, currentLeaderEpoch: -1 }] }] })).topics[0]!.partitions[0]!;
    expect(await ask(-2n)).toMatchObject({ errorCode: 0, offset: 0n });
    expect(await ask(-1n)).toMatchObject({ errorCode: 0, offset: 3n, leaderEpoch: 0 });
    expect(await ask(150n)).toMatchObject({ errorCode: 0, offset: 1n, timestamp: 200n });
    expect(await ask(999n)).toMatchObject({ errorCode: 0, offset: -1n });
    expect(await ask(-1n, 1)).toMatchObject({ errorCode: 0, offset: 3n });
    expect((await ask(-1n, 0)).errorCode).toBe(35);
  });

  it('tells a consumer where its epoch ended after a leader change, so it can detect truncation', async () => {
    const w = cluster();
    await produce(w, ['a', 'b']);
    w.sim.engine.killBroker(1);
    w.sim.waitFor(() => w.sim.partition('t').leader > 1, 60_000, 'failover');
    const leader = w.sim.partition('t').leader;
    await produce(w, ['c'], -1, leader);
    const r = await w.respond(leader, ApiKey.OffsetForLeaderEpoch, 3, { replicaId: -1, topics: [{ topic: 't', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] });
    expect(r.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, leaderEpoch: 0, endOffset: 2n });
  });
});
