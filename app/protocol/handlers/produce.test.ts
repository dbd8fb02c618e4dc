/**
 * Produce in Kafka's bytes against a simulated cluster: what a producer sends is what the log
 * stores and a consumer fetches, with Kafka's answers for every refusal.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../generated/index.js';
import { batchHeader, crc32c, decodeRecordBatches } from '../records/record-batch.js';
import { clientBatch, clientRecord, codecs, WireSim } from '../test-support/wire-sim.js';

function produceBody(records: Uint8Array | null, acks = -1, topic = 't', partition = 0) {
  return { acks, timeoutMs: 5_000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

async function fetchAll(w: WireSim, brokerId: number, offset = 0, topic = 't') {
  const r = await w.respond(brokerId, ApiKey.Fetch, 11, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 10_000_000,
    topics: [{ topic, partitions: [{ partition: 0, fetchOffset: BigInt(offset), partitionMaxBytes: 10_000_000, currentLeaderEpoch: -1 }] }],
  });
  return r.responses[0]!.partitions[0]!;
}

function cluster(configs: Record<string, string> = {}): WireSim {
  const w = new WireSim({ seed: 7 });
  w.sim.createTopic('t', 1, 3, configs, [[1, 2, 3]]);
  return w;
}

describe('Produce (key 0) through a broker listener', () => {
  it('stores a compressed batch as the client sent it and serves those bytes back in Fetch', async () => {
    const w = cluster();
    const sent = clientBatch([clientRecord('a', 'k1', 1_000, [{ key: 'trace', value: 'x' }]), clientRecord('b', 'k2', 1_001)], { compression: 'lz4' });
    const r = await w.respond(1, ApiKey.Produce, 7, produceBody(sent));
    expect(r.responses[0]!.partitionResponses[0]).toMatchObject({ index: 0, errorCode: 0, baseOffset: 0n, logAppendTimeMs: -1n, logStartOffset: 0n });
    await w.respond(1, ApiKey.Produce, 7, produceBody(clientBatch([clientRecord('c')], { compression: 'lz4' })));
    const p = await fetchAll(w, 1);
    expect(p.errorCode).toBe(0);
    expect(p.highWatermark).toBe(3n);
    const first = p.records!.subarray(0, batchHeader(p.records!).sizeBytes);
    // From the magic byte on, byte for byte as produced: codec, CRC, producer fields, records.
    expect([...first.subarray(16)]).toEqual([...sent.subarray(16)]);
    const batches = decodeRecordBatches(p.records!, { codecs });
    expect(batches.map((b) => [b.baseOffset, b.leaderEpoch, b.records.map((x) => new TextDecoder().decode(x.value!))])).toEqual([
      [0, 0, ['a', 'b']],
      [2, 0, ['c']],
    ]);
    expect(batches[0]!.records[0]!.headers[0]!.key).toBe('trace');
  });

  it('recompresses when the topic names a codec (compression.type=gzip) and stamps LogAppendTime topics', async () => {
    const w = cluster({ 'compression.type': 'gzip', 'message.timestamp.type': 'LogAppendTime' });
    w.sim.advance(5_000);
    const r = await w.respond(1, ApiKey.Produce, 8, produceBody(clientBatch([clientRecord('x'.repeat(100), null, 42)], { compression: 'snappy' })));
    const answer = r.responses[0]!.partitionResponses[0]!;
    expect(answer.errorCode).toBe(0);
    expect(answer.logAppendTimeMs).toBeGreaterThanOrEqual(5_000n);
    const stored = (await fetchAll(w, 1)).records!;
    const h = batchHeader(stored);
    expect(h.compression).toBe('gzip');
    expect(h.timestampType).toBe('LogAppendTime');
    expect(BigInt(h.maxTimestamp)).toBe(answer.logAppendTimeMs);
    expect(crc32c(stored, 21, h.sizeBytes)).toBe(h.crc);
  });

  it('refuses what Kafka refuses and writes nothing: INVALID_TIMESTAMP with record errors, MESSAGE_TOO_LARGE, CORRUPT_MESSAGE, two batches', async () => {
    const w = cluster({ 'message.timestamp.after.max.ms': '1000', 'max.message.bytes': '2000' });
    w.sim.advance(10_000);
    const future = await w.respond(1, ApiKey.Produce, 8, produceBody(clientBatch([clientRecord('ok', null, 9_000), clientRecord('late', null, 60_000)])));
    expect(future.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 32, baseOffset: -1n, recordErrors: [{ batchIndex: 1 }] });
    expect(future.responses[0]!.partitionResponses[0]!.errorMessage).toMatch(/invalid timestamp/);

    const big = await w.respond(1, ApiKey.Produce, 8, produceBody(clientBatch([clientRecord('x'.repeat(3_000))])));
    expect(big.responses[0]!.partitionResponses[0]!.errorCode).toBe(10);

    const corrupt = clientBatch([clientRecord('a')]);
    corrupt[corrupt.length - 1]! ^= 0xff;
    expect((await w.respond(1, ApiKey.Produce, 8, produceBody(corrupt))).responses[0]!.partitionResponses[0]!.errorCode).toBe(2);

    const one = clientBatch([clientRecord('a')]);
    const two = new Uint8Array(one.length * 2);
    two.set(one);
    two.set(one, one.length);
    expect((await w.respond(1, ApiKey.Produce, 8, produceBody(two))).responses[0]!.partitionResponses[0]!.errorCode).toBe(87);

    expect(w.sim.engine.describePartition('t', 0)!.replicaStates.map((r) => r.logEndOffset)).toEqual([0, 0, 0]);
  });

  it('acks=0 gets no response frame; a write the broker refuses closes the connection instead', async () => {
    const w = cluster();
    expect(await w.request(1, ApiKey.Produce, 7, produceBody(clientBatch([clientRecord('a')]), 0))).toEqual({ kind: 'none' });
    const refused = await w.request(2, ApiKey.Produce, 7, produceBody(clientBatch([clientRecord('b')]), 0));
    expect(refused.kind).toBe('close');
    w.sim.advance(1_000);
    expect((await fetchAll(w, 1)).highWatermark).toBe(1n);
  });

  it('answers per partition: NOT_LEADER_OR_FOLLOWER off the leader, UNKNOWN_TOPIC_OR_PARTITION for a missing topic', async () => {
    const w = cluster();
    const r = await w.respond(2, ApiKey.Produce, 8, {
      acks: 1,
      timeoutMs: 1_000,
      topicData: [
        { name: 't', partitionData: [{ index: 0, records: clientBatch([clientRecord('a')]) }] },
        { name: 'nope', partitionData: [{ index: 0, records: clientBatch([clientRecord('a')]) }] },
      ],
    });
    expect(r.responses.map((t) => [t.name, t.partitionResponses[0]!.errorCode])).toEqual([
      ['t', 6],
      ['nope', 3],
    ]);
  });

  it('acks=all: NOT_ENOUGH_REPLICAS below min.insync.replicas, REQUEST_TIMED_OUT when the ISR does not catch up in time', async () => {
    const w = cluster({ 'min.insync.replicas': '2' });
    w.sim.engine.stallFollower(2);
    w.sim.engine.stallFollower(3);
    const slow = await w.respond(1, ApiKey.Produce, 8, { ...produceBody(clientBatch([clientRecord('a')])), timeoutMs: 500 });
    expect(slow.responses[0]!.partitionResponses[0]!.errorCode).toBe(7);
    w.sim.waitFor(() => w.sim.partition('t').isr.length === 1, 120_000, 'ISR shrinks to the leader');
    const refused = await w.respond(1, ApiKey.Produce, 8, produceBody(clientBatch([clientRecord('b')])));
    expect(refused.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 19, baseOffset: -1n });
  });

  it('serves Produce v3 to v8 and answers v0 to v2 with UNSUPPORTED_VERSION (magic 2 only)', async () => {
    const w = cluster();
    for (let v = 3; v <= 8; v++) {
      const r = await w.respond(1, ApiKey.Produce, v, produceBody(clientBatch([clientRecord(`v${v}`)])));
      expect(r.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
    const old = await w.respond(1, ApiKey.Produce, 2, produceBody(clientBatch([clientRecord('old')])));
    expect(old.responses[0]!.partitionResponses[0]!.errorCode).toBe(35);
    expect((await fetchAll(w, 1)).highWatermark).toBe(6n);
  });

  it('a transactional produce needs acks=-1 (INVALID_REQUIRED_ACKS), and its batch waits for the coordinator to confirm the partition (KIP-890)', async () => {
    const w = cluster();
    const batch = clientBatch([clientRecord('a')], { producer: { id: 5, epoch: 0, baseSequence: 0 } });
    const view = new DataView(batch.buffer);
    view.setInt16(21, view.getInt16(21) | 0x10);
    view.setUint32(17, crc32c(batch, 21, batch.length));
    const r = await w.respond(1, ApiKey.Produce, 8, { ...produceBody(batch), acks: 1, transactionalId: 'tx-1' });
    expect(r.responses[0]!.partitionResponses[0]!.errorCode).toBe(21);
    // No coordinator for tx-1 (no __transaction_state): NOT_ENOUGH_REPLICAS, which clients retry.
    const t = await w.respond(1, ApiKey.Produce, 8, { ...produceBody(batch), transactionalId: 'tx-1' });
    expect(t.responses[0]!.partitionResponses[0]!.errorCode).toBe(19);
    expect((await fetchAll(w, 1)).highWatermark).toBe(0n);
  });
});
