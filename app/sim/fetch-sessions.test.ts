/**
 * Incremental fetch sessions (KIP-227) on a simulated cluster: once replication is idle, a
 * follower's fetches name no partition and the leader checks none; an append is the only
 * partition either side looks at; a leader that lost its sessions answers
 * FETCH_SESSION_ID_NOT_FOUND and the follower starts a new one; ISR rules hold as before.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReplicaPartition } from '../core/broker/partition.js';
import type { FetchRequest, FetchResponse } from '../core/broker/messages.js';
import { Simulation } from './simulation.js';

afterEach(() => vi.restoreAllMocks());

/** Every follower fetch request sent during `run`, with its answer. */
function fetchesDuring(sim: Simulation, run: () => void): { req: FetchRequest; res?: FetchResponse }[] {
  const network = sim.internals.network;
  const original = network.request.bind(network);
  const seen: { req: FetchRequest; res?: FetchResponse }[] = [];
  const spy = vi.spyOn(network, 'request').mockImplementation((from, to, msg, timeoutMs, onReply, onFail) => {
    const m = msg as { type?: string };
    if (m.type !== 'fetch') return original(from, to, msg, timeoutMs, onReply, onFail);
    const entry: { req: FetchRequest; res?: FetchResponse } = { req: msg as FetchRequest };
    seen.push(entry);
    return original(from, to, msg, timeoutMs, (res) => {
      entry.res = res as FetchResponse;
      onReply(res);
    }, onFail);
  });
  run();
  spy.mockRestore();
  return seen;
}

describe('incremental fetch sessions (KIP-227)', () => {
  it('an idle partition is not walked: idle fetches name no partition and the leader checks none', () => {
    const sim = new Simulation({ seed: 11, brokers: 3 });
    sim.createTopic('idle', 40, 3);
    sim.waitFor(() => [...Array(40).keys()].every((p) => sim.partition('idle', p).isr.length === 3), 30_000, 'all in sync');
    sim.advance(3_000);
    const checks = vi.spyOn(ReplicaPartition.prototype, 'checkFollowerFetch');
    const idle = fetchesDuring(sim, () => sim.advance(10_000));
    // Followers keep long-polling (1 per replica.fetch.wait.max.ms per fetcher), with empty requests and answers.
    expect(idle.length).toBeGreaterThanOrEqual(6 * 10);
    expect(idle.every((f) => f.req.partitions.length === 0 && (f.req.sessionEpoch ?? 0) > 0)).toBe(true);
    expect(idle.filter((f) => f.res).every((f) => f.res!.partitions.length === 0)).toBe(true);
    expect(checks).not.toHaveBeenCalled();
    for (const b of sim.internals.brokers.values()) for (const f of b.fetcherViews()) expect(f.lastExamined).toEqual([]);

    // One append: only that partition is looked at, on both sides, and replication goes on.
    checks.mockClear();
    let examined: string[] = [];
    const busy = fetchesDuring(sim, () => {
      expect(sim.produce('idle', 7, ['x']).errorCode).toBe('NONE');
      examined = [...sim.internals.brokers.values()].flatMap((b) => b.fetcherViews().flatMap((f) => [...f.lastExamined]));
    });
    const topicId = sim.engine.metadata.topicsByName.get('idle')!.topicId;
    const named = new Set(busy.flatMap((f) => f.req.partitions.map((p) => p.partition)));
    expect([...named]).toEqual([7]);
    expect(new Set(checks.mock.contexts.map((p) => (p as ReplicaPartition).partition))).toEqual(new Set([7]));
    expect(examined.every((k) => k === `${topicId}:7`)).toBe(true);
    expect(sim.partition('idle', 7).highWatermark).toBe(1);
  });

  it('a follower whose leader forgot its session starts a new one with a full fetch', () => {
    const sim = new Simulation({ seed: 12, brokers: 3 });
    sim.createTopic('t', 4, 3, {}, [[1, 2, 3], [1, 3, 2], [1, 2, 3], [1, 3, 2]]);
    sim.advance(3_000);
    // The leader's sessions are gone (as after a restart of its fetch-session cache).
    sim.internals.brokers.get(1)!.forgetFetchSessions();
    const after = fetchesDuring(sim, () => sim.advance(3_000));
    const toLeader = after.filter((f) => f.req.replicaId === 2);
    const refused = toLeader.findIndex((f) => f.res?.error === 'FETCH_SESSION_ID_NOT_FOUND');
    expect(refused).toBeGreaterThanOrEqual(0);
    expect(toLeader[refused + 1]!.req.sessionEpoch).toBe(0);
    expect(toLeader[refused + 1]!.req.partitions).toHaveLength(4);
    expect(toLeader.slice(refused + 2).every((f) => f.req.partitions.length === 0 && !f.res?.error)).toBe(true);
    expect(sim.produce('t', 2, ['y']).errorCode).toBe('NONE');
    expect(sim.partition('t', 2).highWatermark).toBe(1);
  });

  it('a follower that died while its partition was idle leaves the ISR after the next append, once replica.lag.time.max.ms passed', () => {
    const sim = new Simulation({ seed: 13, brokers: 3, staticConfigs: { 'replica.lag.time.max.ms': '10000' } });
    sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    sim.advance(3_000);
    sim.engine.stallFollower(3); // its fetches stop; its heartbeats go on
    sim.advance(20_000); // idle: nothing to shrink (it sits at the log end)
    expect(sim.partition('t', 0).isr).toEqual([1, 2, 3]);
    expect(sim.produce('t', 0, ['z'], 1).errorCode).toBe('NONE');
    sim.waitFor(() => !sim.partition('t', 0).isr.includes(3), 10_000, 'the stalled follower to leave the ISR');
    // It was caught up until it stalled: credited with its last fetch, not with the append.
    expect(sim.partition('t', 0).isr).toEqual([1, 2]);
  });

  it('a broker fenced and back re-checks only the partitions it is a replica of; it leaves and rejoins their ISRs', () => {
    const sim = new Simulation({ seed: 14, brokers: 4 });
    // Partitions 0–2 live on brokers 1–3 only; 3–5 have broker 4 as a replica.
    sim.createTopic('t', 6, 3, {}, [[1, 2, 3], [2, 3, 1], [3, 1, 2], [1, 2, 4], [2, 4, 1], [4, 1, 2]]);
    const all = [0, 1, 2, 3, 4, 5];
    sim.waitFor(() => all.every((p) => sim.partition('t', p).isr.length === 3), 30_000, 'all in sync');
    sim.advance(3_000);
    const checks = vi.spyOn(ReplicaPartition.prototype, 'checkFollowerFetch');
    sim.engine.killBroker(4);
    sim.waitFor(() => sim.engine.metadata.brokers.get(4)?.fenced === true, 60_000, 'broker 4 fenced');
    sim.waitFor(() => [3, 4, 5].every((p) => !sim.partition('t', p).isr.includes(4) && sim.partition('t', p).leader !== 4), 10_000, 'broker 4 out of every ISR');
    sim.engine.startBroker(4);
    sim.waitFor(() => all.every((p) => sim.partition('t', p).isr.length === 3), 60_000, 'broker 4 back in its ISRs');
    sim.advance(3_000);
    const checked = new Set(checks.mock.contexts.map((p) => (p as ReplicaPartition).partition));
    // Fencing and unfencing broker 4 changed nothing about partitions 0–2: no leader looked at them.
    expect([...checked].sort()).toEqual([3, 4, 5]);
    expect(sim.produce('t', 0, ['a']).errorCode).toBe('NONE');
    expect(sim.produce('t', 5, ['b']).errorCode).toBe('NONE');
  });
});
