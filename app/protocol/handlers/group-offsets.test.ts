/**
 * Committed offsets in Kafka's bytes: OffsetCommit and OffsetFetch in the versions kafka-python
 * (2 / 1), kafkajs (5 / 4) and librdkafka (7 / 5) send, OffsetDelete, the group-level errors as
 * each version carries them, and offsets that survive their coordinator.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../generated/index.js';
import { coordinatorOf, send, settle, stableGroup } from '../test-support/group-wire.js';
import { WireSim } from '../test-support/wire-sim.js';

function cluster(): WireSim {
  const w = new WireSim({ seed: 21 });
  w.sim.createTopic('orders', 3, 3);
  return w;
}

const commit = (offsets: [number, number][], extra: { generationIdOrMemberEpoch?: number; memberId?: string; groupId?: string; topic?: string; leaderEpoch?: number; metadata?: string | null } = {}) => ({
  groupId: extra.groupId ?? 'g',
  generationIdOrMemberEpoch: extra.generationIdOrMemberEpoch ?? -1,
  memberId: extra.memberId ?? '',
  topics: [{ name: extra.topic ?? 'orders', partitions: offsets.map(([partitionIndex, offset]) => ({ partitionIndex, committedOffset: BigInt(offset), committedLeaderEpoch: extra.leaderEpoch ?? -1, committedMetadata: extra.metadata ?? null })) }],
});

const fetchOf = (partitions: number[] | null, groupId = 'g') => ({ groupId, topics: partitions === null ? null : [{ name: 'orders', partitionIndexes: partitions }] });

describe('OffsetCommit (key 8) and OffsetFetch (key 9) through the coordinator\'s listener', () => {
  it('stores kafka-python\'s commits (v2) and returns them to its fetch (v1), -1 for a partition never committed', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const c = await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 2, { ...commit([[0, 5], [1, 7]], { metadata: 'py' }), retentionTimeMs: -1n }));
    expect(c.topics[0]!.partitions).toEqual([{ partitionIndex: 0, errorCode: 0 }, { partitionIndex: 1, errorCode: 0 }]);
    const f = await settle(w, send(w, nodeId, ApiKey.OffsetFetch, 1, fetchOf([0, 1, 2])));
    const byPartition = Object.fromEntries(f.topics[0]!.partitions.map((p) => [p.partitionIndex, [p.committedOffset, p.metadata, p.errorCode]]));
    expect(byPartition).toEqual({ 0: [5n, 'py', 0], 1: [7n, 'py', 0], 2: [-1n, '', 0] });
  });

  it('acknowledges a commit only once it is in __consumer_offsets on every in-sync replica', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 7, commit([[2, 42]], { leaderEpoch: 0 })));
    const partition = w.sim.engine.offsetsPartitionFor('g');
    const state = w.sim.partition('__consumer_offsets', partition);
    for (const replica of state.isr) expect(w.sim.replicaLog(replica, '__consumer_offsets', partition).length).toBeGreaterThan(0);
    const f = await settle(w, send(w, nodeId, ApiKey.OffsetFetch, 5, fetchOf([2])));
    expect(f).toMatchObject({ errorCode: 0, topics: [{ name: 'orders', partitions: [{ partitionIndex: 2, committedOffset: 42n, committedLeaderEpoch: 0 }] }] });
  });

  it('lists every committed partition for a v2+ fetch without topics (null), as the admin client asks', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 5, commit([[0, 1], [2, 3]])));
    const f = await settle(w, send(w, nodeId, ApiKey.OffsetFetch, 4, fetchOf(null)));
    expect(f.errorCode).toBe(0);
    expect(f.topics.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, p.committedOffset])).sort()).toEqual([['orders', 0, 1n], ['orders', 2, 3n]]);
  });

  it('refuses a commit for a partition that does not exist (UNKNOWN_TOPIC_OR_PARTITION) and one from outside a group that has members (UNKNOWN_MEMBER_ID)', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const missing = await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 2, { ...commit([[0, 1]], { topic: 'nope' }), retentionTimeMs: -1n }));
    expect(missing.topics[0]!.partitions[0]!.errorCode).toBe(3);
    const [m] = await stableGroup(w, nodeId, 'g', 'orders', 3, ['c1']);
    const outsider = await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 5, commit([[0, 1]])));
    expect(outsider.topics[0]!.partitions[0]!.errorCode).toBe(25);
    const stale = await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 5, commit([[0, 1]], { generationIdOrMemberEpoch: 0, memberId: m!.memberId })));
    expect(stale.topics[0]!.partitions[0]!.errorCode).toBe(22);
    const member = await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 5, commit([[0, 9]], { generationIdOrMemberEpoch: m!.generationId, memberId: m!.memberId })));
    expect(member.topics[0]!.partitions[0]!.errorCode).toBe(0);
  });

  it('carries NOT_COORDINATOR on every partition for OffsetFetch v1 and at the top from v2 on', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const other = [1, 2, 3].find((b) => b !== nodeId)!;
    const v1 = await settle(w, send(w, other, ApiKey.OffsetFetch, 1, fetchOf([0, 1])));
    expect(v1.topics[0]!.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode])).toEqual([[0, -1n, 16], [1, -1n, 16]]);
    const v4 = await settle(w, send(w, other, ApiKey.OffsetFetch, 4, fetchOf([0, 1])));
    expect(v4.errorCode).toBe(16);
    const commitElsewhere = await settle(w, send(w, other, ApiKey.OffsetCommit, 7, commit([[0, 1]])));
    expect(commitElsewhere.topics[0]!.partitions[0]!.errorCode).toBe(16);
  });

  it('keeps committed offsets when the coordinator\'s broker dies: the new leader of the offsets partition serves them', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 5, commit([[0, 11], [1, 12], [2, 13]])));
    w.sim.engine.killBroker(nodeId);
    const via = [1, 2, 3].find((b) => b !== nodeId)!;
    const next = await coordinatorOf(w, 'g', via, nodeId);
    expect(next.nodeId).not.toBe(nodeId);
    let f = await settle(w, send(w, next.nodeId, ApiKey.OffsetFetch, 4, fetchOf([0, 1, 2])));
    for (let i = 0; f.errorCode === 14 && i < 100; i++) {
      w.sim.advance(100); // COORDINATOR_LOAD_IN_PROGRESS while it replays the partition
      f = await settle(w, send(w, next.nodeId, ApiKey.OffsetFetch, 4, fetchOf([0, 1, 2])));
    }
    expect(f.errorCode).toBe(0);
    expect(f.topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([11n, 12n, 13n]);
  });
});

describe('OffsetDelete (key 47)', () => {
  it('deletes an empty group\'s offsets and refuses those of a topic its members consume (GROUP_SUBSCRIBED_TO_TOPIC)', async () => {
    const w = cluster();
    w.sim.createTopic('audit', 1, 3);
    const { nodeId } = await coordinatorOf(w, 'g');
    await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 5, { groupId: 'g', topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 4n }] }, { name: 'audit', partitions: [{ partitionIndex: 0, committedOffset: 2n }] }] }));
    await stableGroup(w, nodeId, 'g', 'orders', 3, ['c1']);
    const r = await settle(w, send(w, nodeId, ApiKey.OffsetDelete, 0, { groupId: 'g', topics: [{ name: 'orders', partitions: [{ partitionIndex: 0 }] }, { name: 'audit', partitions: [{ partitionIndex: 0 }] }] }));
    expect(r.errorCode).toBe(0);
    expect(r.topics.map((t) => [t.name, t.partitions[0]!.errorCode])).toEqual([['orders', 86], ['audit', 0]]);
    const f = await settle(w, send(w, nodeId, ApiKey.OffsetFetch, 4, { groupId: 'g', topics: null }));
    expect(f.topics.map((t) => t.name)).toEqual(['orders']);
    // Asked of its own coordinator (another broker answers NOT_COORDINATOR, whatever the placement).
    const nobody = await coordinatorOf(w, 'nobody');
    const unknown = await settle(w, send(w, nobody.nodeId, ApiKey.OffsetDelete, 0, { groupId: 'nobody', topics: [] }));
    expect(unknown.errorCode).toBe(69); // GROUP_ID_NOT_FOUND
  });
});
