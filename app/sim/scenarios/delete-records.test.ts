/**
 * DeleteRecords (API key 21) through the engine's door, as Kafka's ReplicaManager answers it: the
 * leader moves its log start offset to the requested offset (-1: the high watermark), followers
 * follow through their fetches, and the answer's low watermark is the lowest log start offset over
 * the live replicas, once it reached the offset.
 */
import { describe, expect, it } from 'vitest';
import type { BrokerAnswer, ClientDeleteRecordsPartitionResponse, ClientDeleteRecordsResponse, ListOffsetsResult } from '../../core/engine.js';
import { recordText, Simulation } from '../simulation.js';
import { waitForIsr } from './support.js';

function deleteRecords(sim: Simulation, brokerId: number, partitions: { topic: string; partition: number; offset: number }[], timeoutMs = 30_000): BrokerAnswer<ClientDeleteRecordsResponse> {
  return sim.await((done) => sim.engine.deleteRecordsRequest(brokerId, { type: 'deleteRecords', timeoutMs, partitions }, done));
}

function answered(a: BrokerAnswer<ClientDeleteRecordsResponse>): ClientDeleteRecordsPartitionResponse[] {
  if (a.kind !== 'response') throw new Error(`expected a response, got ${JSON.stringify(a)}`);
  return a.response.partitions;
}

const logStarts = (sim: Simulation, topic: string): number[] => sim.partition(topic, 0).replicaStates.map((r) => r.logStartOffset);
const values = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `v${from + i}`);

describe('DeleteRecords', () => {
  it('moves the log start of the leader and every follower to the offset, answers the low watermark, and consumers start there', () => {
    const sim = new Simulation({ seed: 2101 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.produce('t', 0, values(10));
    const [r] = answered(deleteRecords(sim, 1, [{ topic: 't', partition: 0, offset: 4 }]));
    expect(r).toEqual({ topic: 't', partition: 0, error: 'NONE', lowWatermark: 4 });
    expect(logStarts(sim, 't')).toEqual([4, 4, 4]);
    expect(sim.consumeAll('t', 0, 4).map(recordText)).toEqual(values(6, 4));
    const earliest = sim.await<ListOffsetsResult>((done) => sim.engine.listOffsets({ topic: 't', partition: 0, timestamp: -2 }, done));
    expect(earliest).toMatchObject({ error: 'NONE', offset: 4 });
    // Below the log start is gone: a read there is OFFSET_OUT_OF_RANGE.
    expect(sim.consume('t', 0, 2).errorCode).toBe('OFFSET_OUT_OF_RANGE');
  });

  it('-1 deletes up to the high watermark; an offset past the high watermark or below -1 is OFFSET_OUT_OF_RANGE and changes nothing', () => {
    const sim = new Simulation({ seed: 2102 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.produce('t', 0, values(5));
    const [past, negative] = answered(
      deleteRecords(sim, 1, [
        { topic: 't', partition: 0, offset: 6 },
        { topic: 't', partition: 0, offset: -2 },
      ]),
    );
    expect(past).toMatchObject({ error: 'OFFSET_OUT_OF_RANGE', lowWatermark: -1 });
    expect(negative).toMatchObject({ error: 'OFFSET_OUT_OF_RANGE', lowWatermark: -1 });
    expect(logStarts(sim, 't')).toEqual([0, 0, 0]);
    const [all] = answered(deleteRecords(sim, 1, [{ topic: 't', partition: 0, offset: -1 }]));
    expect(all).toMatchObject({ error: 'NONE', lowWatermark: 5 });
    expect(logStarts(sim, 't')).toEqual([5, 5, 5]);
    // An offset at or below the log start changes nothing and answers the low watermark.
    expect(answered(deleteRecords(sim, 1, [{ topic: 't', partition: 0, offset: 2 }]))[0]).toMatchObject({ error: 'NONE', lowWatermark: 5 });
    // New records still get the next offsets.
    expect(sim.produce('t', 0, ['after']).baseOffset).toBe(5);
  });

  it('answers NOT_LEADER_OR_FOLLOWER on a follower, UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist, INVALID_TOPIC_EXCEPTION for an internal topic and POLICY_VIOLATION for a topic whose cleanup.policy lacks delete', () => {
    const sim = new Simulation({ seed: 2103 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.createTopic('kept', 1, 3, { 'cleanup.policy': '' }, [[2, 3, 1]]);
    sim.produce('t', 0, values(3));
    const onFollower = answered(deleteRecords(sim, 2, [{ topic: 't', partition: 0, offset: 1 }]));
    expect(onFollower[0]).toMatchObject({ error: 'NOT_LEADER_OR_FOLLOWER', lowWatermark: -1 });
    const mixed = answered(
      deleteRecords(sim, 2, [
        { topic: 'nope', partition: 0, offset: 1 },
        { topic: '__consumer_offsets', partition: 0, offset: 0 },
        { topic: 'kept', partition: 0, offset: 0 },
      ]),
    );
    expect(mixed.map((p) => p.error)).toEqual(['UNKNOWN_TOPIC_OR_PARTITION', 'INVALID_TOPIC_EXCEPTION', 'POLICY_VIOLATION']);
    expect(logStarts(sim, 't')).toEqual([0, 0, 0]);
  });

  it('waits for a stalled follower until the request times out (REQUEST_TIMED_OUT, the leader has deleted all the same), and counts a fenced broker out of the low watermark', () => {
    const sim = new Simulation({ seed: 2104 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.produce('t', 0, values(8));
    sim.engine.isolateBroker(3);
    const [timedOut] = answered(deleteRecords(sim, 1, [{ topic: 't', partition: 0, offset: 3 }], 2_000));
    expect(timedOut).toMatchObject({ error: 'REQUEST_TIMED_OUT', lowWatermark: -1 });
    expect(logStarts(sim, 't').slice(0, 2)).toEqual([3, 3]);
    // Once the controller fences the cut-off broker, its replica no longer holds the low watermark back.
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    sim.waitFor(() => sim.engine.brokerState(3) === 'fenced', 60_000, 'broker 3 fenced');
    const [r] = answered(deleteRecords(sim, 1, [{ topic: 't', partition: 0, offset: 5 }], 2_000));
    expect(r).toMatchObject({ error: 'NONE', lowWatermark: 5 });
    // Healed, the follower catches up and follows the leader's log start.
    sim.engine.healBroker(3);
    sim.waitFor(() => logStarts(sim, 't')[2] === 5, 60_000, 'broker 3 follows the log start');
  });

  it('survives a leader failover: the new leader keeps the log start the old one set', () => {
    const sim = new Simulation({ seed: 2105 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.produce('t', 0, values(6));
    expect(answered(deleteRecords(sim, 1, [{ topic: 't', partition: 0, offset: 4 }]))[0]!.error).toBe('NONE');
    sim.engine.killBroker(1);
    sim.waitFor(() => [2, 3].includes(sim.partition('t').leader), 60_000, 'a new leader');
    expect(sim.partition('t').logStartOffset).toBe(4);
    expect(sim.consumeAll('t', 0, 4).map(recordText)).toEqual(values(2, 4));
  });
});
