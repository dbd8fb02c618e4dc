/**
 * Incremental fetch sessions for consumers (KIP-227) in Kafka's bytes: a full fetch opens a
 * session, incremental fetches name only what changed and get only partitions with news, and the
 * session errors, closing and the cache bound are Kafka's.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../generated/index.js';
import { clientBatch, clientRecord, WireSim } from '../test-support/wire-sim.js';

const FETCH_SESSION_ID_NOT_FOUND = 70;
const INVALID_FETCH_SESSION_EPOCH = 71;
const NOT_LEADER_OR_FOLLOWER = 6;

type Part = { partition: number; offset?: number };

function cluster(staticConfigs: Record<string, string> = {}): WireSim {
  const w = new WireSim({ seed: 43, staticConfigs });
  w.sim.createTopic('t', 4, 2, {}, [[1, 2], [1, 3], [1, 2], [1, 3]]);
  return w;
}

function fetch(w: WireSim, sessionId: number, epoch: number, parts: Part[], forgotten: number[] = [], version = 11, wait: { maxWaitMs: number; minBytes: number; maxBytes?: number } = { maxWaitMs: 0, minBytes: 0 }) {
  return w.respond(1, ApiKey.Fetch, version, {
    replicaId: -1,
    maxWaitMs: wait.maxWaitMs,
    minBytes: wait.minBytes,
    maxBytes: wait.maxBytes ?? 1_000_000,
    isolationLevel: 0,
    sessionId,
    sessionEpoch: epoch,
    topics: parts.length === 0 ? [] : [{ topic: 't', partitions: parts.map((p) => ({ partition: p.partition, fetchOffset: BigInt(p.offset ?? 0), partitionMaxBytes: 100_000, currentLeaderEpoch: -1, logStartOffset: -1n })) }],
    forgottenTopicsData: forgotten.length === 0 ? [] : [{ topic: 't', partitions: forgotten }],
    rackId: '',
  });
}

const listed = (r: Awaited<ReturnType<typeof fetch>>): number[] => r.responses.flatMap((t) => t.partitions.map((p) => p.partitionIndex));
const all: Part[] = [0, 1, 2, 3].map((partition) => ({ partition }));

async function produce(w: WireSim, partition: number, value: string): Promise<void> {
  const r = await w.respond(1, ApiKey.Produce, 8, { acks: -1, timeoutMs: 5_000, topicData: [{ name: 't', partitionData: [{ index: partition, records: clientBatch([clientRecord(value)]) }] }] });
  expect(r.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
}

describe('fetch sessions for consumers (KIP-227)', () => {
  it('a full fetch opens a session; an idle incremental fetch gets no partitions; new records bring back that partition only', async () => {
    const w = cluster();
    const full = await fetch(w, 0, 0, all);
    expect(full.errorCode).toBe(0);
    expect(full.sessionId).toBeGreaterThan(0);
    expect(listed(full)).toEqual([0, 1, 2, 3]);
    const idle = await fetch(w, full.sessionId, 1, []);
    expect(idle).toMatchObject({ errorCode: 0, sessionId: full.sessionId });
    expect(listed(idle)).toEqual([]);
    await produce(w, 2, 'x');
    const news = await fetch(w, full.sessionId, 2, []);
    expect(listed(news)).toEqual([2]);
    const p2 = news.responses[0]!.partitions[0]!;
    expect(p2.highWatermark).toBe(1n);
    expect(p2.records!.length).toBeGreaterThan(0);
    // The consumer moves its position: named in the request, but nothing new to say about it.
    const moved = await fetch(w, full.sessionId, 3, [{ partition: 2, offset: 1 }]);
    expect(listed(moved)).toEqual([]);
  });

  it('a wrong epoch is INVALID_FETCH_SESSION_EPOCH, an unknown id FETCH_SESSION_ID_NOT_FOUND: no partitions, session id 0', async () => {
    const w = cluster();
    const { sessionId } = await fetch(w, 0, 0, all);
    const stale = await fetch(w, sessionId, 5, []);
    expect(stale).toMatchObject({ errorCode: INVALID_FETCH_SESSION_EPOCH, sessionId: 0, responses: [] });
    const unknown = await fetch(w, sessionId + 1, 1, []);
    expect(unknown).toMatchObject({ errorCode: FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [] });
    // The session itself is untouched by the refused fetches.
    expect((await fetch(w, sessionId, 1, [])).errorCode).toBe(0);
  });

  it('forgotten partitions leave the session; epoch -1 closes it; a session emptied by forgetting is closed too', async () => {
    const w = cluster();
    const { sessionId } = await fetch(w, 0, 0, all);
    expect(listed(await fetch(w, sessionId, 1, [], [0, 1]))).toEqual([]);
    await produce(w, 0, 'a');
    await produce(w, 3, 'b');
    expect(listed(await fetch(w, sessionId, 2, []))).toEqual([3]);
    const closing = await fetch(w, sessionId, -1, [{ partition: 0 }]);
    expect(closing.sessionId).toBe(0);
    expect(listed(closing)).toEqual([0]);
    expect((await fetch(w, sessionId, 3, [])).errorCode).toBe(FETCH_SESSION_ID_NOT_FOUND);
    const again = await fetch(w, 0, 0, [{ partition: 1 }]);
    const emptied = await fetch(w, again.sessionId, 1, [], [1]);
    expect(emptied.sessionId).toBe(0);
    expect((await fetch(w, again.sessionId, 2, [])).errorCode).toBe(FETCH_SESSION_ID_NOT_FOUND);
  });

  it('a partition with an error is always sent, and sent again once the error clears', async () => {
    const w = cluster();
    const { sessionId } = await fetch(w, 0, 0, all);
    w.sim.engine.electLeaders('preferred');
    w.sim.engine.alterPartitionReassignments([{ topic: 't', partition: 1, replicas: [3, 1] }]);
    w.sim.waitFor(() => w.sim.partition('t', 1).replicas[0] === 3, 30_000, 'reassigned');
    w.sim.engine.electLeaders('preferred', [{ topic: 't', partition: 1 }]);
    w.sim.waitFor(() => w.sim.partition('t', 1).leader === 3, 30_000, 'leader 3');
    w.sim.advance(1_000);
    const moved = await fetch(w, sessionId, 1, []);
    expect(moved.responses.flatMap((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode]))).toEqual([[1, NOT_LEADER_OR_FOLLOWER]]);
    const still = await fetch(w, sessionId, 2, []);
    expect(listed(still)).toEqual([1]);
    // The consumer forgets it here (it fetches it from broker 3 now): the rest stays quiet.
    expect(listed(await fetch(w, sessionId, 3, [], [1]))).toEqual([]);
  });

  it('max.incremental.fetch.session.cache.slots bounds the sessions: a full fetch beyond it gets none, until a session idles past 120 s', async () => {
    const w = cluster({ 'max.incremental.fetch.session.cache.slots': '1' });
    const first = await fetch(w, 0, 0, all);
    expect(first.sessionId).toBeGreaterThan(0);
    const second = await fetch(w, 0, 0, [{ partition: 0 }]);
    expect(second.sessionId).toBe(0);
    expect(listed(second)).toEqual([0]);
    w.sim.advance(121_000);
    const third = await fetch(w, 0, 0, [{ partition: 0 }]);
    expect(third.sessionId).toBeGreaterThan(0);
    expect((await fetch(w, first.sessionId, 1, [])).errorCode).toBe(FETCH_SESSION_ID_NOT_FOUND);
  });

  it('no session below v7 or with epoch -1: every partition in every answer', async () => {
    const w = cluster();
    const v6 = await w.respond(1, ApiKey.Fetch, 6, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1_000_000,
      isolationLevel: 0,
      topics: [{ topic: 't', partitions: all.map((p) => ({ partition: p.partition, fetchOffset: 0n, partitionMaxBytes: 100_000, logStartOffset: -1n })) }],
    });
    expect(v6.responses[0]!.partitions.map((p) => p.partitionIndex)).toEqual([0, 1, 2, 3]);
    const sessionless = await fetch(w, 0, -1, all);
    expect(sessionless.sessionId).toBe(0);
    expect(listed(sessionless)).toEqual([0, 1, 2, 3]);
  });

  it('a long-polling incremental fetch that names nothing is woken by records on any partition of its session', async () => {
    const w = cluster();
    const { sessionId } = await fetch(w, 0, 0, all);
    const waiting = w.request(1, ApiKey.Fetch, 11, {
      replicaId: -1, maxWaitMs: 10_000, minBytes: 1, maxBytes: 1_000_000, isolationLevel: 0, sessionId, sessionEpoch: 1, topics: [], forgottenTopicsData: [], rackId: '',
    }, { maxMs: 20_000, meanwhile: () => void produce(w, 3, 'wake') });
    const started = w.sim.now;
    const a = await waiting;
    if (a.kind !== 'respond') throw new Error(`no answer: ${a.kind}`);
    expect(a.body.responses.flatMap((t) => t.partitions.map((p) => p.partitionIndex))).toEqual([3]);
    expect(w.sim.now - started).toBeLessThan(5_000);
  });

  it('a consumer behind the HW gets the rest in its next fetches without naming the partition again, until it is caught up', async () => {
    const w = cluster();
    for (let i = 0; i < 3; i++) await produce(w, 0, 'x'.repeat(300));
    // The full fetch sees the records but a 1-byte budget sends only the first batch.
    const full = await fetch(w, 0, 0, [{ partition: 0 }], [], 11, { maxWaitMs: 0, minBytes: 0, maxBytes: 1 });
    expect(full.responses[0]!.partitions[0]!.highWatermark).toBe(3n);
    // The consumer does not move its position (it read nothing it keeps): still behind, so still read.
    const again = await fetch(w, full.sessionId, 1, []);
    expect(listed(again)).toEqual([0]);
    expect(again.responses[0]!.partitions[0]!.records!.length).toBeGreaterThan(0);
    // Caught up: named at the HW, then quiet.
    expect(listed(await fetch(w, full.sessionId, 2, [{ partition: 0, offset: 3 }]))).toEqual([]);
    expect(listed(await fetch(w, full.sessionId, 3, []))).toEqual([]);
  });
});
