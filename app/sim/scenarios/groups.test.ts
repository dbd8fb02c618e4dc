/**
 * Consumer groups on the simulated cluster: the classic group protocol as Kafka's coordinator
 * runs it, with its state in the replicated `__consumer_offsets` topic.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OFFSETS_TOPIC } from '../../core/engine.js';
import { GroupConsumer } from '../../service/embedded-driver/group-consumer.js';
import { commitRequest, committedOffsets, findCoordinator, groupCall, joinRequest, offsetsPartitionOf, parkJoin } from '../group-support.js';
import { Simulation } from '../simulation.js';
import { cleanUpStorages, STORAGES } from './support.js';

afterEach(cleanUpStorages);

function consumers(sim: Simulation, groupId: string, n: number, topics = ['t'], sessionTimeoutMs = 10_000): GroupConsumer[] {
  const members = Array.from({ length: n }, (_, i) => new GroupConsumer(sim.engine, { groupId, clientId: `client-${i + 1}`, topics, sessionTimeoutMs }));
  for (const m of members) m.start();
  return members;
}

const allStable = (ms: GroupConsumer[]): boolean => ms.every((m) => m.state === 'stable' && m.generationId === ms[0]!.generationId);

describe('finding the coordinator', () => {
  it('creates __consumer_offsets on first use (50 partitions, RF 3) and names the leader of the group partition', () => {
    const sim = new Simulation({ seed: 1 });
    const first = groupCall(sim, 2, { api: 'findCoordinator', keyType: 0, keys: ['orders-service'] }).coordinators[0]!;
    expect(first.errorCode).toBe('COORDINATOR_NOT_AVAILABLE');
    const coordinator = findCoordinator(sim, 'orders-service', 2);
    const topic = sim.engine.metadata.topicsByName.get(OFFSETS_TOPIC)!;
    expect(topic.partitions.size).toBe(50);
    expect([...topic.partitions.values()].every((p) => p.replicas.length === 3)).toBe(true);
    // Kafka's partitionFor: abs("orders-service".hashCode) % 50 = 17.
    expect(offsetsPartitionOf(sim, 'orders-service')).toBe(17);
    expect(coordinator).toBe(topic.partitions.get(17)!.leader);
    expect(topic.configs).toEqual({ 'cleanup.policy': 'compact', 'compression.type': 'producer', 'segment.bytes': '104857600' });
  });

  it('follows offsets.topic.num.partitions and refuses until enough brokers exist for offsets.topic.replication.factor', () => {
    const sim = new Simulation({ seed: 2, brokers: 2, staticConfigs: { 'offsets.topic.num.partitions': '5' } });
    for (let i = 0; i < 3; i++) {
      expect(groupCall(sim, 1, { api: 'findCoordinator', keyType: 0, keys: ['g'] }).coordinators[0]!.errorCode).toBe('COORDINATOR_NOT_AVAILABLE');
      sim.advance(1_000);
    }
    expect(sim.engine.metadata.topicsByName.has(OFFSETS_TOPIC)).toBe(false); // RF 3 > 2 brokers
    const small = new Simulation({ seed: 2, brokers: 2, staticConfigs: { 'offsets.topic.num.partitions': '5', 'offsets.topic.replication.factor': '2' } });
    findCoordinator(small, 'g');
    expect(small.engine.metadata.topicsByName.get(OFFSETS_TOPIC)!.partitions.size).toBe(5);
  });

  it('answers NOT_COORDINATOR on a broker that does not lead the group partition; key type 1 is a transactional id, an unknown type INVALID_REQUEST', () => {
    const sim = new Simulation({ seed: 3 });
    const coordinator = findCoordinator(sim, 'g');
    const other = [1, 2, 3].find((b) => b !== coordinator)!;
    expect(groupCall(sim, other, joinRequest('g')).errorCode).toBe('NOT_COORDINATOR');
    expect(groupCall(sim, other, { api: 'heartbeat', groupId: 'g', generationId: 1, memberId: 'x', groupInstanceId: null }).errorCode).toBe('NOT_COORDINATOR');
    // The first lookup of a transactional id asks for __transaction_state, which does not exist yet.
    expect(groupCall(sim, 1, { api: 'findCoordinator', keyType: 1, keys: ['tx'] }).coordinators[0]!.errorCode).toBe('COORDINATOR_NOT_AVAILABLE');
    expect(groupCall(sim, 1, { api: 'findCoordinator', keyType: 2, keys: ['x'] }).coordinators[0]!.errorCode).toBe('INVALID_REQUEST');
  });
});

describe('joining and syncing', () => {
  it('a v4+ member without an id first gets MEMBER_ID_REQUIRED and an id to rejoin with', () => {
    const sim = new Simulation({ seed: 4 });
    const c = findCoordinator(sim, 'g');
    const first = groupCall(sim, c, joinRequest('g', '', { requireKnownMemberId: true, clientId: 'app' }));
    expect(first.errorCode).toBe('MEMBER_ID_REQUIRED');
    expect(first.memberId).toMatch(/^app-[0-9a-f-]{36}$/);
    const joined = groupCall(sim, c, joinRequest('g', first.memberId, { requireKnownMemberId: true }));
    expect(joined.errorCode).toBe('NONE');
    expect(joined.memberId).toBe(first.memberId);
    expect(joined.generationId).toBe(1);
    expect(joined.leader).toBe(first.memberId);
  });

  it('a new group waits group.initial.rebalance.delay.ms for members; only the leader gets the member list', () => {
    const sim = new Simulation({ seed: 5 });
    const c = findCoordinator(sim, 'g');
    const start = sim.now;
    const joins = [1, 2, 3].map((i) => parkJoin(sim, c, joinRequest('g', '', { clientId: `m${i}` })));
    sim.advance(2_900);
    expect(joins.every((j) => j.answer() === undefined)).toBe(true);
    sim.waitFor(() => joins.every((j) => j.answer() !== undefined), 10_000, 'join answers');
    expect(sim.now - start).toBeGreaterThanOrEqual(3_000);
    const answers = joins.map((j) => j.answer()!);
    expect(new Set(answers.map((a) => a.generationId))).toEqual(new Set([1]));
    const leader = answers.find((a) => a.memberId === a.leader)!;
    expect(leader.members.map((m) => m.memberId).sort()).toEqual(answers.map((a) => a.memberId).sort());
    expect(answers.filter((a) => a !== leader).every((a) => a.members.length === 0)).toBe(true);
    expect(answers.every((a) => a.protocolName === 'range' && a.protocolType === 'consumer')).toBe(true);
  });

  it('followers wait in SyncGroup for the leader, whose assignment is stored before anyone gets it', () => {
    const sim = new Simulation({ seed: 6 });
    const c = findCoordinator(sim, 'g');
    const joins = [1, 2].map((i) => parkJoin(sim, c, joinRequest('g', '', { clientId: `m${i}` })));
    sim.waitFor(() => joins.every((j) => j.answer()), 10_000, 'joins');
    const [a, b] = joins.map((j) => j.answer()!);
    const leader = a!.leader === a!.memberId ? a! : b!;
    const follower = leader === a ? b! : a!;
    let followerSync: { errorCode: string; assignment: Uint8Array } | undefined;
    sim.engine.groupRequest(c, { api: 'syncGroup', groupId: 'g', generationId: 1, memberId: follower.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] }, (r) => {
      if (r.kind === 'response') followerSync = r.response;
    });
    sim.advance(1_000);
    expect(followerSync).toBeUndefined();
    const offsetsPartition = offsetsPartitionOf(sim, 'g');
    const logEnd = sim.partition(OFFSETS_TOPIC, offsetsPartition).highWatermark;
    const mine = new Uint8Array([1, 2, 3]);
    const theirs = new Uint8Array([4, 5]);
    const leaderSync = groupCall(sim, c, {
      api: 'syncGroup', groupId: 'g', generationId: 1, memberId: leader.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range',
      assignments: [{ memberId: leader.memberId, assignment: mine }, { memberId: follower.memberId, assignment: theirs }],
    });
    expect(leaderSync.errorCode).toBe('NONE');
    expect([...leaderSync.assignment]).toEqual([...mine]);
    sim.waitFor(() => followerSync !== undefined, 1_000, 'the follower sync');
    expect([...followerSync!.assignment]).toEqual([...theirs]);
    expect(sim.partition(OFFSETS_TOPIC, offsetsPartition).highWatermark).toBeGreaterThan(logEnd); // the group record, replicated
    const described = groupCall(sim, c, { api: 'describeGroups', groups: ['g'] }).groups[0]!;
    expect(described).toMatchObject({ errorCode: 'NONE', state: 'Stable', protocolType: 'consumer', protocol: 'range' });
    expect(described.members).toHaveLength(2);
  });

  it('answers SyncGroup and Heartbeat with Kafka\'s errors for a stale generation, an unknown member and a rebalance', () => {
    const sim = new Simulation({ seed: 7 });
    const c = findCoordinator(sim, 'g');
    const [m1] = consumers(sim, 'g', 1);
    sim.waitFor(() => m1!.state === 'stable', 30_000, 'stable');
    const hb = (generationId: number, memberId: string) => groupCall(sim, c, { api: 'heartbeat', groupId: 'g', generationId, memberId, groupInstanceId: null }).errorCode;
    expect(hb(m1!.generationId, m1!.memberId)).toBe('NONE');
    expect(hb(m1!.generationId - 1, m1!.memberId)).toBe('ILLEGAL_GENERATION');
    expect(hb(m1!.generationId, 'nobody')).toBe('UNKNOWN_MEMBER_ID');
    const newcomer = parkJoin(sim, c, joinRequest('g', '', { clientId: 'late' }));
    sim.advance(10);
    expect(newcomer.answer()).toBeUndefined();
    expect(hb(m1!.generationId, m1!.memberId)).toBe('REBALANCE_IN_PROGRESS');
    const sync = groupCall(sim, c, { api: 'syncGroup', groupId: 'g', generationId: m1!.generationId, memberId: m1!.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] });
    expect(sync.errorCode).toBe('REBALANCE_IN_PROGRESS');
    expect(groupCall(sim, c, joinRequest('g', '', { sessionTimeoutMs: 1_000 })).errorCode).toBe('INVALID_SESSION_TIMEOUT');
    expect(groupCall(sim, c, joinRequest('g', '', { protocolType: 'connect' })).errorCode).toBe('INCONSISTENT_GROUP_PROTOCOL');
  });

  it('a member that stops heartbeating is removed after its session timeout and the rest rebalance', () => {
    const sim = new Simulation({ seed: 8 });
    sim.createTopic('t', 6, 3);
    const members = consumers(sim, 'g', 3);
    sim.waitFor(() => allStable(members), 60_000, 'a stable group');
    const generation = members[0]!.generationId;
    members[2]!.stop(false); // a crash: no LeaveGroup
    const stoppedAt = sim.now;
    const rest = members.slice(0, 2);
    sim.waitFor(() => allStable(rest) && rest[0]!.generationId > generation, 60_000, 'the next generation');
    const rebalanced = sim.eventsOf('group.stateChanged').find((e) => e.state === 'PreparingRebalance' && e.atMs >= stoppedAt)!;
    expect(rebalanced.reason).toContain('session timeout');
    expect(rebalanced.atMs - stoppedAt).toBeGreaterThanOrEqual(10_000 - 3_000);
    expect(rest.flatMap((m) => m.assignment.flatMap((a) => a.partitions)).sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('LeaveGroup rebalances the group at once', () => {
    const sim = new Simulation({ seed: 9 });
    sim.createTopic('t', 4, 3);
    const members = consumers(sim, 'g', 2);
    sim.waitFor(() => allStable(members), 60_000, 'stable');
    const generation = members[0]!.generationId;
    const leftAt = sim.now;
    members[1]!.stop(true);
    sim.waitFor(() => members[0]!.state === 'stable' && members[0]!.generationId > generation, 30_000, 'rebalanced');
    expect(sim.now - leftAt).toBeLessThan(10_000);
    expect(members[0]!.assignment[0]!.partitions).toEqual([0, 1, 2, 3]);
  });
});

describe('committed offsets', () => {
  it('acknowledges a commit once replicated and answers it from OffsetFetch; unknown partitions are refused', () => {
    const sim = new Simulation({ seed: 10 });
    sim.createTopic('t', 2, 3);
    const c = findCoordinator(sim, 'simple');
    const r = groupCall(sim, c, commitRequest('simple', { 't-0': 42, 't-1': 7, 'nope-0': 1 }));
    expect(r.topics.flatMap((t) => t.partitions.map((p) => `${t.name}-${p.partition}:${p.errorCode}`)).sort()).toEqual(['nope-0:UNKNOWN_TOPIC_OR_PARTITION', 't-0:NONE', 't-1:NONE']);
    expect(committedOffsets(sim, 'simple', c)).toEqual({ 't-0': 42, 't-1': 7 });
    const unknown = groupCall(sim, c, { api: 'offsetFetch', groupId: 'simple', topics: [{ name: 't', partitions: [5] }], requireStable: false });
    expect(unknown.topics[0]!.partitions[0]!.offset).toBe(-1);
  });

  it('refuses a commit from outside the group while it has members, and one of an old generation', () => {
    const sim = new Simulation({ seed: 11 });
    sim.createTopic('t', 1, 3);
    const [m] = consumers(sim, 'g', 1);
    sim.waitFor(() => m!.state === 'stable', 30_000, 'stable');
    const c = m!.coordinatorId!;
    const code = (req: ReturnType<typeof commitRequest>) => groupCall(sim, c, req).topics[0]!.partitions[0]!.errorCode;
    expect(code(commitRequest('g', { 't-0': 5 }))).toBe('UNKNOWN_MEMBER_ID');
    expect(code(commitRequest('g', { 't-0': 5 }, { generationId: m!.generationId + 1, memberId: m!.memberId }))).toBe('ILLEGAL_GENERATION');
    expect(code(commitRequest('g', { 't-0': 5 }, { generationId: m!.generationId, memberId: m!.memberId }))).toBe('NONE');
  });

  it('a commit waits for the offsets partition ISR: with too few replicas it fails as COORDINATOR_NOT_AVAILABLE', () => {
    const sim = new Simulation({ seed: 12, staticConfigs: { 'min.insync.replicas': '3' } });
    sim.createTopic('t', 1, 3);
    const c = findCoordinator(sim, 'g');
    expect(groupCall(sim, c, commitRequest('g', { 't-0': 1 })).topics[0]!.partitions[0]!.errorCode).toBe('NONE');
    const follower = sim.partition(OFFSETS_TOPIC, offsetsPartitionOf(sim, 'g')).replicas.find((b) => b !== c)!;
    sim.engine.killBroker(follower);
    sim.waitFor(() => sim.partition(OFFSETS_TOPIC, offsetsPartitionOf(sim, 'g')).isr.length === 2, 60_000, 'the ISR to shrink');
    expect(groupCall(sim, c, commitRequest('g', { 't-0': 2 })).topics[0]!.partitions[0]!.errorCode).toBe('COORDINATOR_NOT_AVAILABLE');
    expect(committedOffsets(sim, 'g', c)).toEqual({ 't-0': 1 });
  });

  it('deletes only an empty group (NON_EMPTY_GROUP otherwise), with its offsets', () => {
    const sim = new Simulation({ seed: 13 });
    sim.createTopic('t', 1, 3);
    const [m] = consumers(sim, 'g', 1);
    sim.waitFor(() => m!.state === 'stable', 30_000, 'stable');
    const c = m!.coordinatorId!;
    expect(groupCall(sim, c, { api: 'deleteGroups', groups: ['g'] }).results[0]!.errorCode).toBe('NON_EMPTY_GROUP');
    m!.stop(true);
    sim.waitFor(() => groupCall(sim, c, { api: 'describeGroups', groups: ['g'] }).groups[0]!.state === 'Empty', 30_000, 'empty');
    expect(Object.keys(committedOffsets(sim, 'g', c))).toEqual(['t-0']);
    expect(groupCall(sim, c, { api: 'deleteGroups', groups: ['g'] }).results[0]!.errorCode).toBe('NONE');
    expect(committedOffsets(sim, 'g', c)).toEqual({});
    expect(groupCall(sim, c, { api: 'deleteGroups', groups: ['g'] }).results[0]!.errorCode).toBe('GROUP_ID_NOT_FOUND');
    expect(groupCall(sim, c, { api: 'listGroups', statesFilter: [] }).groups.map((g) => g.groupId)).not.toContain('g');
  });

  it('expires the offsets of an empty group offsets.retention.minutes after it became empty', () => {
    const sim = new Simulation({ seed: 14, staticConfigs: { 'offsets.retention.minutes': '2', 'offsets.retention.check.interval.ms': '10000' } });
    sim.createTopic('t', 1, 3);
    const c = findCoordinator(sim, 'g');
    groupCall(sim, c, commitRequest('g', { 't-0': 3 }));
    sim.advance(60_000);
    expect(committedOffsets(sim, 'g', c)).toEqual({ 't-0': 3 });
    sim.advance(80_000);
    expect(committedOffsets(sim, 'g', c)).toEqual({});
  });

  it("a topic's deletion removes every group's offsets for it", () => {
    const sim = new Simulation({ seed: 15 });
    sim.createTopic('t', 1, 3);
    sim.createTopic('u', 1, 3);
    const c = findCoordinator(sim, 'g');
    groupCall(sim, c, commitRequest('g', { 't-0': 3, 'u-0': 4 }));
    sim.engine.deleteTopic('t');
    sim.waitFor(() => !('t-0' in committedOffsets(sim, 'g', c)), 10_000, 'the offsets of t to go');
    expect(committedOffsets(sim, 'g', c)).toEqual({ 'u-0': 4 });
  });
});

describe("the coordinator's broker dies", () => {
  for (const storage of STORAGES) {
    it(`the new leader of the offsets partition loads the group and it carries on, offsets intact (${storage.name})`, () => {
      const sim = new Simulation({ seed: 16, storage: storage.make() });
      sim.createTopic('t', 12, 3);
      const seen = new Map<string, number>();
      const members = [1, 2, 3].map(
        (i) =>
          new GroupConsumer(sim.engine, {
            groupId: 'orders',
            clientId: `c${i}`,
            topics: ['t'],
            sessionTimeoutMs: 30_000,
            onRecords: (topic, p, rs) => rs.forEach((r) => seen.set(`${topic}-${p}@${r.offset}`, (seen.get(`${topic}-${p}@${r.offset}`) ?? 0) + 1)),
          }),
      );
      members.forEach((m) => m.start());
      sim.waitFor(() => allStable(members), 60_000, 'a stable group');
      const generation = members[0]!.generationId;
      for (let p = 0; p < 12; p++) expect(sim.produce('t', p, ['a', 'b', 'c']).errorCode).toBe('NONE');
      sim.waitFor(() => members.every((m) => m.assignment.every((a) => a.partitions.every((p) => m.committed.get(`t\u0000${p}`) === 3))), 30_000, 'commits of every record');
      const coordinator = members[0]!.coordinatorId!;
      const partition = offsetsPartitionOf(sim, 'orders');
      sim.engine.killBroker(coordinator);
      sim.waitFor(() => sim.eventsOf('coordinator.loaded').some((e) => e.offsetsPartition === partition && e.groups.includes('orders')), 60_000, 'the new coordinator to load the group');
      const successor = sim.eventsOf('coordinator.loaded').find((e) => e.groups.includes('orders'))!.brokerId;
      expect(successor).not.toBe(coordinator);
      expect(committedOffsets(sim, 'orders', successor)).toEqual(Object.fromEntries(Array.from({ length: 12 }, (_, p) => [`t-${p}`, 3])));
      sim.waitFor(() => members.every((m) => m.coordinatorId === successor && m.state === 'stable'), 60_000, 'members to find the new coordinator');
      for (let p = 0; p < 12; p++) expect(sim.produce('t', p, ['d']).errorCode).toBe('NONE');
      sim.waitFor(() => seen.size === 12 * 4, 60_000, 'every record consumed');
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(members.every((m) => m.generationId === generation)).toBe(true); // no rebalance was needed
      sim.waitFor(() => Object.values(committedOffsets(sim, 'orders', successor)).every((o) => o === 4), 30_000, 'the new offsets committed');
    });
  }

  it('a controlled shutdown moves the group: parked JoinGroups get NOT_COORDINATOR, the old broker no longer serves it', () => {
    const sim = new Simulation({ seed: 17 });
    const c = findCoordinator(sim, 'g');
    const parked = parkJoin(sim, c, joinRequest('g'));
    sim.advance(10);
    expect(parked.answer()).toBeUndefined();
    sim.engine.stopBroker(c);
    sim.waitFor(() => parked.answer() !== undefined, 30_000, 'the parked join');
    expect(parked.answer()!.errorCode).toBe('NOT_COORDINATOR');
    const successor = findCoordinator(sim, 'g', [1, 2, 3].find((b) => b !== c)!);
    expect(successor).not.toBe(c);
    expect(groupCall(sim, successor, joinRequest('g')).errorCode).toBe('NONE');
  });

  it('answers COORDINATOR_LOAD_IN_PROGRESS to requests that arrive between the election and the end of the load', () => {
    const sim = new Simulation({ seed: 18 });
    const c = findCoordinator(sim, 'g');
    groupCall(sim, c, commitRequest('g', {}));
    const p = offsetsPartitionOf(sim, 'g');
    const others = [1, 2, 3].filter((b) => b !== c);
    const seen: string[] = [];
    // White-box: ask each other broker in the same step in which it applies new metadata.
    for (const id of others) {
      const broker = sim.internals.brokers.get(id)!;
      const apply = broker.applyMetadata.bind(broker);
      broker.applyMetadata = (records) => {
        apply(records);
        if (broker.partitionFor(OFFSETS_TOPIC, p)?.isLeader) {
          broker.handleGroupRequest({ type: 'group', api: 'offsetFetch', groupId: 'g', topics: null, requireStable: false }, (r) => seen.push((r as { errorCode: string }).errorCode));
        }
      };
    }
    sim.engine.killBroker(c);
    sim.waitFor(() => seen.length > 0, 60_000, 'a request to the new leader');
    expect(seen[0]).toBe('COORDINATOR_LOAD_IN_PROGRESS');
    const successor = findCoordinator(sim, 'g', others[0]);
    expect(groupCall(sim, successor, { api: 'offsetFetch', groupId: 'g', topics: null, requireStable: false }).errorCode).toBe('NONE');
  });
});
