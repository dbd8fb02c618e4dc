/**
 * Test steps for consumer groups on a simulated cluster: one group request answered on the
 * virtual clock, a JoinGroup left parked while the clock runs, and a raw member that does only
 * what a test tells it (the in-app GroupConsumer is the well-behaved one).
 */
import type { GroupAnswer, GroupApiRequest, GroupResponseOf, JoinGroupRequest, JoinGroupResponse, OffsetCommitRequest } from '../core/engine.js';
import { OFFSETS_TOPIC } from '../core/engine.js';
import { offsetsPartitionFor } from '../core/group/partition-for.js';
import { groupRecordCodec } from '../protocol/group-records.js';
import type { Simulation } from './simulation.js';

/** Send one group request and run the clock until it is answered; throws if the broker is unreachable. */
export function groupCall<R extends GroupApiRequest>(sim: Simulation, brokerId: number, request: R): GroupResponseOf<R> {
  const a = sim.await<GroupAnswer<GroupResponseOf<R>>>((done) => sim.engine.groupRequest(brokerId, request, done));
  if (a.kind !== 'response') throw new Error(`broker ${brokerId} is unreachable (${a.reason})`);
  return a.response;
}

/** The broker FindCoordinator names for `groupId`, asking broker `via` until one is named. */
export function findCoordinator(sim: Simulation, groupId: string, via = 1, maxMs = 60_000): number {
  let found = -1;
  sim.waitFor(
    () => {
      const r = groupCall(sim, via, { api: 'findCoordinator', keyType: 0, keys: [groupId] }).coordinators[0]!;
      if (r.errorCode === 'NONE') found = r.nodeId;
      else sim.advance(100);
      return found >= 0;
    },
    maxMs,
    `a coordinator for ${groupId}`,
  );
  return found;
}

/** The `__consumer_offsets` partition of a group in this cluster. */
export function offsetsPartitionOf(sim: Simulation, groupId: string): number {
  return offsetsPartitionFor(groupId, sim.engine.metadata.topicsByName.get(OFFSETS_TOPIC)!.partitions.size);
}

export function joinRequest(groupId: string, memberId = '', overrides: Partial<JoinGroupRequest> = {}): JoinGroupRequest {
  return {
    api: 'joinGroup',
    groupId,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: groupRecordCodec.encodeSubscription(['t']) }],
    requireKnownMemberId: false,
    clientId: 'test-client',
    clientHost: '/127.0.0.1',
    reason: null,
    ...overrides,
  };
}

/** Send a JoinGroup without waiting: `answer()` is its response once it arrives (undefined before). */
export function parkJoin(sim: Simulation, brokerId: number, request: JoinGroupRequest): { answer: () => JoinGroupResponse | undefined } {
  let got: JoinGroupResponse | undefined;
  sim.engine.groupRequest(brokerId, request, (a) => {
    if (a.kind === 'response') got = a.response;
  });
  return { answer: () => got };
}

export function commitRequest(groupId: string, offsets: Record<string, number>, member: { generationId: number; memberId: string } = { generationId: -1, memberId: '' }): OffsetCommitRequest {
  const topics = new Map<string, { partition: number; offset: number; leaderEpoch: number; metadata: string | null; commitTimestampMs: number }[]>();
  for (const [tp, offset] of Object.entries(offsets)) {
    const i = tp.lastIndexOf('-');
    const name = tp.slice(0, i);
    topics.set(name, [...(topics.get(name) ?? []), { partition: Number(tp.slice(i + 1)), offset, leaderEpoch: -1, metadata: null, commitTimestampMs: -1 }]);
  }
  return { api: 'offsetCommit', groupId, ...member, groupInstanceId: null, retentionTimeMs: -1, topics: [...topics].map(([name, partitions]) => ({ name, partitions })) };
}

/** The group's committed offsets as `topic-partition` → offset, from its coordinator. */
export function committedOffsets(sim: Simulation, groupId: string, coordinator: number): Record<string, number> {
  const r = groupCall(sim, coordinator, { api: 'offsetFetch', groupId, topics: null, requireStable: false });
  if (r.errorCode !== 'NONE') throw new Error(`OffsetFetch: ${r.errorCode}`);
  const out: Record<string, number> = {};
  for (const t of r.topics) for (const p of t.partitions) out[`${t.name}-${p.partition}`] = p.offset;
  return out;
}
