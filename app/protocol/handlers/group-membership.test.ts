/**
 * The classic group protocol in Kafka's bytes against a simulated cluster: FindCoordinator, the
 * JoinGroup / SyncGroup / Heartbeat / LeaveGroup rounds in the versions kcat, kafka-python and
 * kafkajs send, long-polled joins, and a coordinator that dies.
 */
import { describe, expect, it } from 'vitest';
import { groupRecordCodec } from '../group-records.js';
import { ApiKey } from '../generated/index.js';
import { coordinatorOf, send, settle, stableGroup, subscription } from '../test-support/group-wire.js';
import { WireSim } from '../test-support/wire-sim.js';

function cluster(): WireSim {
  const w = new WireSim({ seed: 13 });
  w.sim.createTopic('orders', 6, 3);
  return w;
}

const joinBody = (groupId: string, memberId = '', protocols = [{ name: 'range', metadata: subscription(['orders']) }]) => ({
  groupId,
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 30_000,
  memberId,
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols,
});

describe('FindCoordinator (key 10) through a broker listener', () => {
  it('creates __consumer_offsets on first use, then names the leader of the group\'s partition with its listener address', async () => {
    const w = cluster();
    const first = await settle(w, send(w, 2, ApiKey.FindCoordinator, 1, { key: 'g', keyType: 0 }));
    expect(first).toMatchObject({ errorCode: 15, nodeId: -1, host: '', port: -1 });
    const found = await coordinatorOf(w, 'g', 2);
    const partition = w.sim.engine.offsetsPartitionFor('g');
    expect(found.nodeId).toBe(w.sim.partition('__consumer_offsets', partition).leader);
    expect(found).toMatchObject({ host: '127.0.0.1', port: 19_090 + found.nodeId });
    // kafka-python's v0 and any other broker give the same answer.
    const v0 = await settle(w, send(w, 3, ApiKey.FindCoordinator, 0, { key: 'g' }));
    expect(v0).toMatchObject({ errorCode: 0, nodeId: found.nodeId, port: found.port });
  });

  it('refuses a transaction coordinator lookup (no transactions here)', async () => {
    const w = cluster();
    const r = await settle(w, send(w, 1, ApiKey.FindCoordinator, 2, { key: 'tx-1', keyType: 1 }));
    expect(r.errorCode).not.toBe(0);
    expect(r.nodeId).toBe(-1);
  });
});

describe('JoinGroup, SyncGroup, Heartbeat and LeaveGroup through the coordinator\'s listener', () => {
  it('runs a kafkajs-style first generation: MEMBER_ID_REQUIRED, parked joins answered together, the leader\'s assignment delivered', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const members = await stableGroup(w, nodeId, 'g', 'orders', 6, ['c1', 'c2', 'c3']);
    expect(members.filter((m) => m.leader)).toHaveLength(1);
    expect(new Set(members.map((m) => m.generationId))).toEqual(new Set([1]));
    expect(members.flatMap((m) => m.partitions).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    for (const m of members) expect(m.partitions).toHaveLength(2);

    const beats = await settle(w, Promise.all(members.map((m) => send(w, nodeId, ApiKey.Heartbeat, 3, { groupId: 'g', generationId: 1, memberId: m.memberId, groupInstanceId: null }))));
    expect(beats.map((b) => b.errorCode)).toEqual([0, 0, 0]);
    const stale = await settle(w, send(w, nodeId, ApiKey.Heartbeat, 1, { groupId: 'g', generationId: 0, memberId: members[0]!.memberId }));
    expect(stale.errorCode).toBe(22); // ILLEGAL_GENERATION
    const stranger = await settle(w, send(w, nodeId, ApiKey.Heartbeat, 1, { groupId: 'g', generationId: 1, memberId: 'nobody' }));
    expect(stranger.errorCode).toBe(25); // UNKNOWN_MEMBER_ID
  });

  it('gives only the leader the members\' metadata, and a v5 answer names no protocol type while v7 would', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'solo');
    const id = await settle(w, send(w, nodeId, ApiKey.JoinGroup, 5, joinBody('solo')));
    expect(id).toMatchObject({ errorCode: 79, generationId: -1, protocolName: '', leader: '' });
    expect(id.memberId).toMatch(/^test-/); // Kafka's member ids start with the client id
    const joined = await settle(w, send(w, nodeId, ApiKey.JoinGroup, 5, joinBody('solo', id.memberId)));
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, protocolName: 'range', protocolType: null, leader: id.memberId, memberId: id.memberId });
    expect(joined.members.map((m) => groupRecordCodec.subscribedTopics(m.metadata))).toEqual([['orders']]);
  });

  it('lets a kafka-python member (JoinGroup v2, no MEMBER_ID_REQUIRED) join a stable group: the others learn of the rebalance by heartbeat and rejoin', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const [a, b] = await stableGroup(w, nodeId, 'g', 'orders', 6, ['c1', 'c2']);
    // kafka-python: JoinGroup v2 with an empty member id is parked straight away, as before KIP-394.
    // kafka-python offers its two assignors; the group's common one is roundrobin.
    const pythonProtocols = ['range', 'roundrobin'].map((name) => ({ name, metadata: subscription(['orders']) }));
    const newcomer = send(w, nodeId, ApiKey.JoinGroup, 2, joinBody('g', '', pythonProtocols), 'kafka-python');
    w.sim.advance(100); // the JoinGroup reaches the coordinator, which parks it
    const beat = await settle(w, send(w, nodeId, ApiKey.Heartbeat, 1, { groupId: 'g', generationId: 1, memberId: a!.memberId }));
    expect(beat.errorCode).toBe(27); // REBALANCE_IN_PROGRESS
    const rejoins = [a!, b!].map((m) => send(w, nodeId, ApiKey.JoinGroup, 5, joinBody('g', m.memberId, [{ name: 'roundrobin', metadata: subscription(['orders']) }]), m.clientId));
    const answers = await settle(w, Promise.all([newcomer, ...rejoins]));
    expect(answers.map((r) => [r.errorCode, r.generationId])).toEqual([[0, 2], [0, 2], [0, 2]]);
    expect(answers[0]!.memberId).toMatch(/^kafka-python-/);
    expect(answers.filter((r) => r.members.length === 3)).toHaveLength(1);
  });

  it('answers JoinGroup v0 with the session timeout as the rebalance timeout: a member that never rejoins is dropped after it', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'old');
    const first = await settle(w, send(w, nodeId, ApiKey.JoinGroup, 0, { ...joinBody('old'), sessionTimeoutMs: 6_000 }));
    expect(first).toMatchObject({ errorCode: 0, generationId: 1 });
    await settle(w, send(w, nodeId, ApiKey.SyncGroup, 0, { groupId: 'old', generationId: 1, memberId: first.memberId, assignments: [] }));
    const second = send(w, nodeId, ApiKey.JoinGroup, 0, { ...joinBody('old'), sessionTimeoutMs: 6_000 });
    const started = w.sim.now;
    const r = await settle(w, second);
    // The first member never rejoined: the new generation waits at most its 6 s, then goes on without it.
    expect(r).toMatchObject({ errorCode: 0, generationId: 2 });
    expect(r.members).toHaveLength(1);
    expect(w.sim.now - started).toBeGreaterThanOrEqual(5_000);
    expect(w.sim.now - started).toBeLessThan(12_000);
  });

  it('refuses members without a common protocol (INCONSISTENT_GROUP_PROTOCOL) and group ids that are empty (INVALID_GROUP_ID)', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    await stableGroup(w, nodeId, 'g', 'orders', 6, ['c1']);
    const other = await settle(w, send(w, nodeId, ApiKey.JoinGroup, 2, joinBody('g', '', [{ name: 'RoundRobinAssigner', metadata: subscription(['orders']) }])));
    expect(other.errorCode).toBe(23);
    const empty = await settle(w, send(w, nodeId, ApiKey.JoinGroup, 5, joinBody('')));
    expect(empty.errorCode).toBe(24);
  });

  it('leaves a group with LeaveGroup v1 (one member, one error) and v3 (a batch, an error per member)', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const [a, b, c] = await stableGroup(w, nodeId, 'g', 'orders', 6, ['c1', 'c2', 'c3']);
    const v1 = await settle(w, send(w, nodeId, ApiKey.LeaveGroup, 1, { groupId: 'g', memberId: a!.memberId }));
    expect(v1.errorCode).toBe(0);
    const again = await settle(w, send(w, nodeId, ApiKey.LeaveGroup, 1, { groupId: 'g', memberId: a!.memberId }));
    expect(again.errorCode).toBe(25); // the member's UNKNOWN_MEMBER_ID, as v0-2 carry it
    const v3 = await settle(w, send(w, nodeId, ApiKey.LeaveGroup, 3, { groupId: 'g', members: [b!, c!, a!].map((m) => ({ memberId: m.memberId, groupInstanceId: null })) }));
    expect(v3.errorCode).toBe(0);
    expect(v3.members.map((m) => [m.memberId, m.errorCode])).toEqual([[b!.memberId, 0], [c!.memberId, 0], [a!.memberId, 25]]);
    const described = await settle(w, send(w, nodeId, ApiKey.DescribeGroups, 4, { groups: ['g'] }));
    expect(described.groups[0]).toMatchObject({ groupState: 'Empty', members: [] });
  });

  it('sends group requests to the wrong broker back with NOT_COORDINATOR', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const other = [1, 2, 3].find((b) => b !== nodeId)!;
    const join = await settle(w, send(w, other, ApiKey.JoinGroup, 5, joinBody('g')));
    expect(join.errorCode).toBe(16);
    const beat = await settle(w, send(w, other, ApiKey.Heartbeat, 3, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null }));
    expect(beat.errorCode).toBe(16);
  });

  it('closes the connection of a coordinator whose broker was killed; FindCoordinator elsewhere names the new one, which knows the group', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const [a] = await stableGroup(w, nodeId, 'g', 'orders', 6, ['c1']);
    w.sim.engine.killBroker(nodeId);
    const dead = await w.request(nodeId, ApiKey.Heartbeat, 3, { groupId: 'g', generationId: 1, memberId: a!.memberId, groupInstanceId: null });
    expect(dead.kind).toBe('close');
    const via = [1, 2, 3].find((b) => b !== nodeId)!;
    const next = await coordinatorOf(w, 'g', via, nodeId);
    expect(next.nodeId).not.toBe(nodeId);
    const described = await settle(w, send(w, next.nodeId, ApiKey.DescribeGroups, 2, { groups: ['g'] }));
    // The group was loaded from __consumer_offsets with its generation and member.
    expect(described.groups[0]!.errorCode).toBe(0);
    expect(described.groups[0]!.members.map((m) => m.memberId)).toEqual([a!.memberId]);
    const beat = await settle(w, send(w, next.nodeId, ApiKey.Heartbeat, 3, { groupId: 'g', generationId: 1, memberId: a!.memberId, groupInstanceId: null }));
    expect(beat.errorCode).toBe(0);
  });
});
