/**
 * DeleteRecords (21) in Kafka's bytes against a simulated cluster: a request frame written out
 * byte by byte as the admin client sends it, and answers decoded as a client reads them.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../../generated/index.js';
import { concat } from '../../test-support/frames.js';
import { clientBatch, clientRecord, WireSim } from '../../test-support/wire-sim.js';

function cluster() {
  const w = new WireSim({ seed: 21 });
  w.sim.createTopic('t', 2, 3, {}, [[1, 2, 3], [2, 3, 1]]);
  return w;
}

async function produce(w: WireSim, partition: number, leader: number, n: number): Promise<void> {
  const batch = clientBatch(Array.from({ length: n }, (_, i) => clientRecord(`v${i}`)));
  await w.respond(leader, ApiKey.Produce, 7, { acks: -1, timeoutMs: 5_000, topicData: [{ name: 't', partitionData: [{ index: partition, records: batch }] }] });
}

const hex = (s: string): Uint8Array => Uint8Array.from(s.replace(/\s+/g, '').match(/../g)!.map((b) => parseInt(b, 16)));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('DeleteRecords on the wire', () => {
  it('answers a v1 request written byte by byte with the low watermark, byte by byte', async () => {
    const w = cluster();
    await produce(w, 0, 1, 5);
    // header v1: api key 21, version 1, correlation id 7, client id "adm"; body: [topic "t" [partition 0, offset 3]], timeout 5000
    const request = hex(`
      0015 0001 00000007 0003 61646d
      00000001 0001 74 00000001 00000000 0000000000000003
      00001388`);
    const outcome = await w.drive(w.dispatcher(1).dispatch(request), 10_000);
    if (outcome === 'pending' || outcome.kind !== 'respond') throw new Error(`no response: ${JSON.stringify(outcome)}`);
    // size 33; correlation id 7; throttle 0; [topic "t" [partition 0, low watermark 3, error 0]]
    expect(toHex(concat(outcome.parts))).toBe(['00000021', '00000007', '00000000', '00000001', '0001', '74', '00000001', '00000000', '0000000000000003', '0000'].join(''));
    expect(w.sim.partition('t', 0).replicaStates.map((r) => r.logStartOffset)).toEqual([3, 3, 3]);
  });

  it('deletes to the high watermark for -1, answers OFFSET_OUT_OF_RANGE past it, NOT_LEADER_OR_FOLLOWER where this broker does not lead and UNKNOWN_TOPIC_OR_PARTITION for no such topic', async () => {
    const w = cluster();
    await produce(w, 0, 1, 4);
    await produce(w, 1, 2, 2);
    const r = await w.respond(1, ApiKey.DeleteRecords, 1, {
      timeoutMs: 5_000,
      topics: [
        { name: 't', partitions: [{ partitionIndex: 0, offset: -1n }, { partitionIndex: 1, offset: 1n }] },
        { name: 'nope', partitions: [{ partitionIndex: 0, offset: 0n }] },
      ],
    });
    expect(r.topics).toEqual([
      { name: 't', partitions: [{ partitionIndex: 0, lowWatermark: 4n, errorCode: 0 }, { partitionIndex: 1, lowWatermark: -1n, errorCode: 6 }] },
      { name: 'nope', partitions: [{ partitionIndex: 0, lowWatermark: -1n, errorCode: 3 }] },
    ]);
    const past = await w.respond(2, ApiKey.DeleteRecords, 0, { timeoutMs: 5_000, topics: [{ name: 't', partitions: [{ partitionIndex: 1, offset: 3n }] }] });
    expect(past.topics[0]!.partitions[0]).toEqual({ partitionIndex: 1, lowWatermark: -1n, errorCode: 1 });
    expect(w.sim.partition('t', 1).logStartOffset).toBe(0);
    // A consumer asking for the earliest offset now gets the new log start.
    const earliest = await w.respond(1, ApiKey.ListOffsets, 1, { replicaId: -1, topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp: -2n, currentLeaderEpoch: -1 }] }] });
    expect(earliest.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, offset: 4n });
  });

  it('answers a partition named twice once, with the last offset, and REQUEST_TIMED_OUT when a follower cannot follow in time', async () => {
    const w = cluster();
    await produce(w, 0, 1, 6);
    const twice = await w.respond(1, ApiKey.DeleteRecords, 1, { timeoutMs: 5_000, topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: 1n }, { partitionIndex: 0, offset: 2n }] }] });
    expect(twice.topics).toEqual([{ name: 't', partitions: [{ partitionIndex: 0, lowWatermark: 2n, errorCode: 0 }] }]);
    w.sim.engine.isolateBroker(3);
    const slow = await w.respond(1, ApiKey.DeleteRecords, 1, { timeoutMs: 1_000, topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: 5n }] }] });
    expect(slow.topics[0]!.partitions[0]).toEqual({ partitionIndex: 0, lowWatermark: -1n, errorCode: 7 });
    expect(w.handlerErrors).toEqual([]);
  });

  it('is advertised in ApiVersions as versions 0 to 1', async () => {
    const w = cluster();
    const keys = (await w.respond(1, ApiKey.ApiVersions, 2, {})).apiKeys;
    expect(keys.find((k) => k.apiKey === 21)).toEqual({ apiKey: 21, minVersion: 0, maxVersion: 1 });
  });
});
