/**
 * Kafka's client requests through the engine's door — Produce, Fetch, ListOffsets,
 * OffsetForLeaderEpoch and Metadata, each addressed to one broker as a wire-protocol listener
 * addresses them — with the answers Kafka gives (per-partition error codes, the long poll below
 * the high watermark, KIP-207, KIP-320, KIP-734).
 */
import { describe, expect, it } from 'vitest';
import {
  EARLIEST_TIMESTAMP,
  LATEST_TIMESTAMP,
  MAX_TIMESTAMP,
  type BrokerAnswer,
  type ClientFetchRequest,
  type ClientFetchResponse,
  type ClientListOffsetsPartitionResponse,
  type ClientMetadataResponse,
  type ClientOffsetForLeaderEpochPartitionResponse,
  type ProduceAnswer,
} from '../../core/engine.js';
import type { LogRecord } from '../../core/log/records.js';
import { recordText, Simulation, textRecord } from '../simulation.js';
import { values, waitForIsr } from './support.js';

function produce(sim: Simulation, brokerId: number, acks: number, partitions: { topic: string; partition: number; records: LogRecord[] }[], timeoutMs = 5_000): ProduceAnswer {
  return sim.await<ProduceAnswer>((done) => sim.engine.produceRequest(brokerId, { type: 'produce', acks, timeoutMs, partitions }, done));
}

function fetchRequest(partitions: { topic: string; partition: number; fetchOffset: number; currentLeaderEpoch?: number }[], wait: { maxWaitMs: number; minBytes: number }): ClientFetchRequest {
  return {
    type: 'clientFetch',
    ...wait,
    maxBytes: 1_048_576,
    isolationLevel: 'read_uncommitted',
    partitions: partitions.map((p) => ({ currentLeaderEpoch: -1, partitionMaxBytes: 1_048_576, ...p })),
  };
}

function response<T>(a: BrokerAnswer<T> | ProduceAnswer): T {
  if (a.kind !== 'response') throw new Error(`expected a response, got ${JSON.stringify(a)}`);
  return a.response as T;
}

function listOffsets(sim: Simulation, brokerId: number, topic: string, timestamp: number, currentLeaderEpoch = -1): ClientListOffsetsPartitionResponse {
  const a = sim.await<BrokerAnswer<{ partitions: ClientListOffsetsPartitionResponse[] }>>((done) =>
    sim.engine.listOffsetsRequest(brokerId, { type: 'listOffsets', isolationLevel: 'read_uncommitted', partitions: [{ topic, partition: 0, timestamp, currentLeaderEpoch }] }, done),
  );
  return response(a).partitions[0]!;
}

function offsetForEpoch(sim: Simulation, brokerId: number, topic: string, leaderEpoch: number): ClientOffsetForLeaderEpochPartitionResponse {
  const a = sim.await<BrokerAnswer<{ partitions: ClientOffsetForLeaderEpochPartitionResponse[] }>>((done) =>
    sim.engine.offsetForLeaderEpochRequest(brokerId, { type: 'offsetForLeaderEpoch', partitions: [{ topic, partition: 0, currentLeaderEpoch: -1, leaderEpoch }] }, done),
  );
  return response(a).partitions[0]!;
}

function metadata(sim: Simulation, brokerId: number, topics: string[] | null): BrokerAnswer<ClientMetadataResponse> {
  return sim.await((done) => sim.engine.metadataRequest(brokerId, { type: 'metadata', topics }, done));
}

const timed = (value: string, timestamp: number): LogRecord => ({ ...textRecord(value), timestamp });

describe('Produce through the engine', () => {
  it('answers every partition of one request on its own: appended where this broker leads, NOT_LEADER_OR_FOLLOWER elsewhere, UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist', () => {
    const sim = new Simulation({ seed: 31 });
    sim.createTopic('t', 2, 3, {}, [[1, 2, 3], [2, 3, 1]]);
    sim.produce('t', 0, ['a', 'b']);
    const r = response<{ partitions: { topic: string; partition: number; error: string; baseOffset: number; logStartOffset: number }[] }>(
      produce(sim, 1, -1, [
        { topic: 't', partition: 0, records: [textRecord('c')] },
        { topic: 't', partition: 1, records: [textRecord('x')] },
        { topic: 'nope', partition: 0, records: [textRecord('y')] },
      ]),
    );
    expect(r.partitions.map((p) => [p.topic, p.partition, p.error, p.baseOffset])).toEqual([
      ['t', 0, 'NONE', 2],
      ['t', 1, 'NOT_LEADER_OR_FOLLOWER', -1],
      ['nope', 0, 'UNKNOWN_TOPIC_OR_PARTITION', -1],
    ]);
    expect(r.partitions[0]!.logStartOffset).toBe(0);
    expect(sim.consumeAll('t', 0).map(recordText)).toEqual(['a', 'b', 'c']);
  });

  it('stamps the leader append time on LogAppendTime topics and reports -1 on CreateTime ones', () => {
    const sim = new Simulation({ seed: 32 });
    sim.createTopic('append', 1, 3, { 'message.timestamp.type': 'LogAppendTime' }, [[1, 2, 3]]);
    sim.createTopic('create', 1, 3, {}, [[1, 2, 3]]);
    sim.advance(1_234);
    const r = response<{ partitions: { logAppendTimeMs: number }[] }>(
      produce(sim, 1, 1, [
        { topic: 'append', partition: 0, records: [timed('a', 5)] },
        { topic: 'create', partition: 0, records: [timed('c', 5)] },
      ]),
    );
    expect(r.partitions[0]!.logAppendTimeMs).toBeGreaterThanOrEqual(1_234);
    expect(r.partitions[1]!.logAppendTimeMs).toBe(-1);
  });

  it('acks=0 gets no response, and a write the broker refuses closes the connection instead', () => {
    const sim = new Simulation({ seed: 33 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    expect(produce(sim, 1, 0, [{ topic: 't', partition: 0, records: [textRecord('a')] }])).toEqual({ kind: 'no-response' });
    expect(produce(sim, 2, 0, [{ topic: 't', partition: 0, records: [textRecord('b')] }])).toEqual({ kind: 'connection-closed', error: 'NOT_LEADER_OR_FOLLOWER' });
    sim.advance(500);
    expect(sim.consumeAll('t', 0).map(recordText)).toEqual(['a']);
  });

  it('refuses acks other than 0, 1 and -1 with INVALID_REQUIRED_ACKS, and acks=-1 below min.insync.replicas with NOT_ENOUGH_REPLICAS', () => {
    const sim = new Simulation({ seed: 34 });
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '3' }, [[1, 2, 3]]);
    const bad = response<{ partitions: { error: string }[] }>(produce(sim, 1, 2, [{ topic: 't', partition: 0, records: [textRecord('a')] }]));
    expect(bad.partitions[0]!.error).toBe('INVALID_REQUIRED_ACKS');
    sim.engine.killBroker(3);
    waitForIsr(sim, 't', 0, [1, 2], 30_000);
    const refused = response<{ partitions: { error: string }[] }>(produce(sim, 1, -1, [{ topic: 't', partition: 0, records: [textRecord('b')] }]));
    expect(refused.partitions[0]!.error).toBe('NOT_ENOUGH_REPLICAS');
  });

  it('a broker that is down is unreachable: disconnected when its process is gone, a timeout when it is cut off', () => {
    const sim = new Simulation({ seed: 35 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.engine.killBroker(2);
    expect(produce(sim, 2, 1, [{ topic: 't', partition: 0, records: [textRecord('a')] }])).toEqual({ kind: 'unreachable', reason: 'disconnected' });
    sim.engine.isolateBroker(1);
    expect(produce(sim, 1, 1, [{ topic: 't', partition: 0, records: [textRecord('a')] }], 2_000)).toEqual({ kind: 'unreachable', reason: 'timeout' });
  });
});

describe('Fetch through the engine (a consumer)', () => {
  it('long-polls at the high watermark and answers as soon as a write is committed, with only the records below the HW', () => {
    const sim = new Simulation({ seed: 41 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.produce('t', 0, values(0, 2));
    sim.advance(200);
    let answer: BrokerAnswer<ClientFetchResponse> | null = null;
    const sentAt = sim.now;
    sim.engine.fetchRequest(1, fetchRequest([{ topic: 't', partition: 0, fetchOffset: 3 }], { maxWaitMs: 10_000, minBytes: 1 }), (a) => (answer = a));
    sim.advance(1_000);
    expect(answer).toBeNull(); // nothing new below the HW: the fetch waits
    sim.produce('t', 0, ['m3']);
    sim.waitFor(() => answer !== null, 5_000, 'the parked fetch');
    expect(sim.now - sentAt).toBeLessThan(10_000);
    const p = response<ClientFetchResponse>(answer!).partitions[0]!;
    expect(p.error).toBe('NONE');
    expect(p.batches.flatMap((b) => b.records.map(recordText))).toEqual(['m3']);
    expect(p.highWatermark).toBe(4);
    expect(p.lastStableOffset).toBe(4);
  });

  it('answers empty after maxWaitMs when nothing is committed, even though the leader appended (a stalled ISR member holds the HW)', () => {
    const sim = new Simulation({ seed: 42 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.advance(200);
    sim.engine.stallFollower(3);
    sim.produce('t', 0, ['uncommitted'], 1);
    const sentAt = sim.now;
    const a = sim.await<BrokerAnswer<ClientFetchResponse>>((done) =>
      sim.engine.fetchRequest(1, fetchRequest([{ topic: 't', partition: 0, fetchOffset: 0 }], { maxWaitMs: 2_000, minBytes: 1 }), done),
    );
    expect(sim.now - sentAt).toBeGreaterThanOrEqual(2_000);
    const p = response<ClientFetchResponse>(a).partitions[0]!;
    expect([p.error, p.highWatermark, p.logEndOffset, p.batches.length]).toEqual(['NONE', 0, 1, 0]);
  });

  it('waits for minBytes across its partitions', () => {
    const sim = new Simulation({ seed: 43 });
    sim.createTopic('t', 2, 3, {}, [[1, 2, 3], [1, 3, 2]]);
    sim.advance(200);
    let answer: BrokerAnswer<ClientFetchResponse> | null = null;
    const request = fetchRequest(
      [
        { topic: 't', partition: 0, fetchOffset: 0 },
        { topic: 't', partition: 1, fetchOffset: 0 },
      ],
      { maxWaitMs: 30_000, minBytes: 300 },
    );
    sim.engine.fetchRequest(1, request, (a) => (answer = a));
    sim.produce('t', 0, ['x'.repeat(100)]);
    sim.advance(1_000);
    expect(answer).toBeNull(); // about 170 bytes readable: not yet
    sim.produce('t', 1, ['y'.repeat(200)]);
    sim.waitFor(() => answer !== null, 5_000, 'the parked fetch');
    const parts = response<ClientFetchResponse>(answer!).partitions;
    expect(parts.map((p) => p.batches.length)).toEqual([1, 1]);
  });

  it('refuses a stale or future leader epoch (KIP-320), an offset past the log end, and a broker that does not lead', () => {
    const sim = new Simulation({ seed: 44 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.produce('t', 0, ['a']);
    sim.engine.stopBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 30_000, 'broker 2 leading');
    sim.advance(500);
    const epoch = sim.partition('t', 0).leaderEpoch;
    const errorFor = (brokerId: number, fetchOffset: number, currentLeaderEpoch: number): string => {
      const a = sim.await<BrokerAnswer<ClientFetchResponse>>((done) =>
        sim.engine.fetchRequest(brokerId, fetchRequest([{ topic: 't', partition: 0, fetchOffset, currentLeaderEpoch }], { maxWaitMs: 0, minBytes: 1 }), done),
      );
      return response<ClientFetchResponse>(a).partitions[0]!.error;
    };
    expect(errorFor(2, 0, epoch)).toBe('NONE');
    expect(errorFor(2, 0, epoch - 1)).toBe('FENCED_LEADER_EPOCH');
    expect(errorFor(2, 0, epoch + 1)).toBe('UNKNOWN_LEADER_EPOCH');
    expect(errorFor(2, 5, -1)).toBe('OFFSET_OUT_OF_RANGE');
    expect(errorFor(3, 0, -1)).toBe('NOT_LEADER_OR_FOLLOWER');
  });

  it('a parked fetch answers NOT_LEADER_OR_FOLLOWER as soon as its broker learns it no longer leads', () => {
    const sim = new Simulation({ seed: 45 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.advance(200);
    let answer: BrokerAnswer<ClientFetchResponse> | null = null;
    const sentAt = sim.now;
    sim.engine.fetchRequest(1, fetchRequest([{ topic: 't', partition: 0, fetchOffset: 0 }], { maxWaitMs: 60_000, minBytes: 1 }), (a) => (answer = a));
    // A controlled shutdown moves leadership away while broker 1 still runs and applies metadata.
    sim.engine.stopBroker(1);
    sim.waitFor(() => answer !== null, 30_000, 'the parked fetch');
    expect(sim.now - sentAt).toBeLessThan(60_000);
    expect(response<ClientFetchResponse>(answer!).partitions[0]!.error).toBe('NOT_LEADER_OR_FOLLOWER');
  });
});

describe('ListOffsets and OffsetForLeaderEpoch through the engine', () => {
  it('names the earliest and latest offsets, the first record at or after a time, and the record with the largest timestamp (KIP-734)', () => {
    const sim = new Simulation({ seed: 51 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.await((done) => sim.engine.produce({ topic: 't', partition: 0, acks: 'all', records: [timed('a', 100), timed('b', 300), timed('c', 200)] }, done));
    sim.await((done) => sim.engine.produce({ topic: 't', partition: 0, acks: 'all', records: [timed('d', 250)] }, done));
    expect(listOffsets(sim, 1, 't', EARLIEST_TIMESTAMP)).toMatchObject({ error: 'NONE', offset: 0 });
    expect(listOffsets(sim, 1, 't', LATEST_TIMESTAMP)).toMatchObject({ error: 'NONE', offset: 4, timestamp: -1 });
    expect(listOffsets(sim, 1, 't', 150)).toMatchObject({ error: 'NONE', offset: 1, timestamp: 300 });
    expect(listOffsets(sim, 1, 't', 250)).toMatchObject({ error: 'NONE', offset: 1, timestamp: 300 });
    expect(listOffsets(sim, 1, 't', 301)).toMatchObject({ error: 'NONE', offset: -1, timestamp: -1 });
    expect(listOffsets(sim, 1, 't', MAX_TIMESTAMP)).toMatchObject({ error: 'NONE', offset: 1, timestamp: 300 });
    expect(listOffsets(sim, 2, 't', LATEST_TIMESTAMP).error).toBe('NOT_LEADER_OR_FOLLOWER');
  });

  it("a new leader whose high watermark is below its epoch's start answers latest with OFFSET_NOT_AVAILABLE until it catches up (KIP-207)", () => {
    const sim = new Simulation({ seed: 52 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.advance(200);
    sim.engine.stallFollower(3);
    sim.produce('t', 0, values(0, 4), 1);
    sim.advance(200); // broker 2 has the records; 3 (still in the ISR) holds the HW at 0
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 30_000, 'broker 2 leading');
    sim.advance(200);
    expect(listOffsets(sim, 2, 't', LATEST_TIMESTAMP).error).toBe('OFFSET_NOT_AVAILABLE');
    expect(listOffsets(sim, 2, 't', EARLIEST_TIMESTAMP)).toMatchObject({ error: 'NONE', offset: 0 });
    sim.engine.stallFollower(3, false);
    sim.waitFor(() => listOffsets(sim, 2, 't', LATEST_TIMESTAMP).error === 'NONE', 30_000, 'the HW reaching the epoch start');
    expect(listOffsets(sim, 2, 't', LATEST_TIMESTAMP).offset).toBe(5);
  });

  it('gives the end offset of an earlier leader epoch (where the next began) and the log end for the current one (KIP-320)', () => {
    const sim = new Simulation({ seed: 53 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.produce('t', 0, values(0, 2));
    sim.engine.stopBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === 2, 30_000, 'broker 2 leading');
    sim.produce('t', 0, values(3, 4));
    const epoch = sim.partition('t', 0).leaderEpoch;
    expect(offsetForEpoch(sim, 2, 't', 0)).toEqual({ topic: 't', partition: 0, error: 'NONE', leaderEpoch: 0, endOffset: 3 });
    expect(offsetForEpoch(sim, 2, 't', epoch)).toMatchObject({ error: 'NONE', leaderEpoch: epoch, endOffset: 5 });
    expect(offsetForEpoch(sim, 3, 't', 0).error).toBe('NOT_LEADER_OR_FOLLOWER');
  });
});

describe('Metadata through the engine', () => {
  it("lists the live brokers and each partition's leader, replicas and ISR as the answering broker knows them", () => {
    const sim = new Simulation({ seed: 61, brokers: [{ id: 1, rack: 'a' }, { id: 2, rack: 'b' }, { id: 3, rack: 'c' }] });
    sim.createTopic('t', 2, 3, {}, [[1, 2, 3], [2, 3, 1]]);
    sim.advance(500);
    const m = response<ClientMetadataResponse>(metadata(sim, 3, null));
    expect(m.brokers).toEqual([
      { id: 1, rack: 'a' },
      { id: 2, rack: 'b' },
      { id: 3, rack: 'c' },
    ]);
    expect(m.controllerId).toBe(1);
    expect(m.topics.map((t) => [t.name, t.error, t.isInternal])).toEqual([['t', 'NONE', false]]);
    expect(m.topics[0]!.partitions.map((p) => [p.partition, p.error, p.leader, p.replicas, p.isr, p.offlineReplicas])).toEqual([
      [0, 'NONE', 1, [1, 2, 3], [1, 2, 3], []],
      [1, 'NONE', 2, [2, 3, 1], [2, 3, 1], []],
    ]);
  });

  it('after a broker dies: it leaves the broker list, its replicas read as offline, and a partition it alone held has no leader', () => {
    const sim = new Simulation({ seed: 62 });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.createTopic('alone', 1, 1, {}, [[3]]);
    sim.engine.killBroker(3);
    sim.waitFor(() => sim.engine.brokerState(3) === 'killed' && sim.partition('alone', 0).leader < 0, 30_000, 'broker 3 fenced');
    sim.advance(2_500); // the other brokers apply the change at their next heartbeat
    const m = response<ClientMetadataResponse>(metadata(sim, 1, ['t', 'alone', 'missing', 'bad name']));
    expect(m.brokers.map((b) => b.id)).toEqual([1, 2]);
    const [t, alone, missing, bad] = m.topics;
    expect(t!.partitions[0]).toMatchObject({ error: 'NONE', leader: 1, isr: [1, 2], offlineReplicas: [3] });
    expect(alone!.partitions[0]).toMatchObject({ error: 'LEADER_NOT_AVAILABLE', leader: -1, offlineReplicas: [3] });
    expect([missing!.error, missing!.partitions]).toEqual(['UNKNOWN_TOPIC_OR_PARTITION', []]);
    expect(bad!.error).toBe('INVALID_TOPIC_EXCEPTION');
    expect(metadata(sim, 3, null)).toEqual({ kind: 'unreachable', reason: 'disconnected' });
  });

  /**
   * How long a client retries against a dead leader: Metadata names it until the controller
   * fences it, broker.session.timeout.ms (9 s) after its last heartbeat (one every 2 s); when it
   * also hosted the controller, the quorum first elects another (controller.quorum.fetch.timeout.ms
   * 2 s + one to two election timeouts of 1 s), which gives every unfenced broker a fresh session.
   */
  function killAndWatchLeader(seed: number, victim: number, afterMs: number): { movedAfterMs: number; failoverAfterMs: number | null } {
    const sim = new Simulation({ seed });
    sim.createTopic('t', 1, 3, {}, [[victim, ...[1, 2, 3].filter((b) => b !== victim)]]);
    sim.advance(afterMs);
    expect(sim.engine.controllerId).toBe(1);
    const witness = victim === 2 ? 3 : 2;
    const killedAt = sim.now;
    sim.engine.killBroker(victim);
    let failoverAfterMs: number | null = null;
    for (;;) {
      const m = response<ClientMetadataResponse>(metadata(sim, witness, ['t']));
      if (m.topics[0]!.partitions[0]!.leader !== victim) return { movedAfterMs: sim.now - killedAt, failoverAfterMs };
      expect(m.brokers.map((b) => b.id)).toContain(victim);
      if (sim.now - killedAt > 30_000) throw new Error(`broker ${victim} was never fenced`);
      sim.advance(50);
      if (failoverAfterMs === null && sim.engine.controllerId !== null && sim.engine.controllerId !== 1) failoverAfterMs = sim.now - killedAt;
    }
  }

  it('a killed leader stays the leader in Metadata until its session lapses: 7–9 s, or 12–13 s when it hosted the controller', () => {
    // Kills anywhere in a heartbeat interval, in the cluster's first seconds (while the election
    // armed at start-up would still be pending) and later.
    for (const [i, afterMs] of [0, 250, 500, 750, 1_000, 1_250, 1_500, 1_750, 5_000, 20_000].entries()) {
      const seed = 71 + i;
      const follower = killAndWatchLeader(seed, 3, afterMs);
      expect(follower.failoverAfterMs).toBeNull();
      expect(follower.movedAfterMs).toBeGreaterThan(7_000);
      expect(follower.movedAfterMs).toBeLessThanOrEqual(9_050);
      const controllerHost = killAndWatchLeader(seed, 1, afterMs);
      expect(controllerHost.failoverAfterMs).toBeGreaterThanOrEqual(3_000);
      expect(controllerHost.failoverAfterMs).toBeLessThanOrEqual(4_050);
      expect(controllerHost.movedAfterMs).toBeGreaterThan(12_000);
      expect(controllerHost.movedAfterMs).toBeLessThanOrEqual(13_050);
    }
  });
});
