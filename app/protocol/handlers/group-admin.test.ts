/**
 * ListGroups, DescribeGroups and DeleteGroups in Kafka's bytes, as an admin client (kafkajs,
 * kafka-python's KafkaAdminClient, librdkafka's admin API) sends them, plus what ApiVersions
 * advertises for groups.
 */
import { describe, expect, it } from 'vitest';
import { groupRecordCodec } from '../group-records.js';
import { ApiKey } from '../generated/index.js';
import { coordinatorOf, send, settle, stableGroup } from '../test-support/group-wire.js';
import { WireSim } from '../test-support/wire-sim.js';

function cluster(): WireSim {
  const w = new WireSim({ seed: 5 });
  w.sim.createTopic('orders', 4, 3);
  return w;
}

describe('the group admin APIs through a broker listener', () => {
  it('lists the groups a broker coordinates (ListGroups v2), each broker its own', async () => {
    const w = cluster();
    const groups = ['a', 'b', 'c', 'd', 'e'];
    const coordinators = new Map<string, number>();
    for (const g of groups) {
      const { nodeId } = await coordinatorOf(w, g);
      coordinators.set(g, nodeId);
      await settle(w, send(w, nodeId, ApiKey.OffsetCommit, 2, { groupId: g, retentionTimeMs: -1n, topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1n }] }] }));
    }
    const listed = new Map<string, number>();
    for (const b of [1, 2, 3]) {
      const r = await settle(w, send(w, b, ApiKey.ListGroups, 2, {}));
      expect(r.errorCode).toBe(0);
      for (const g of r.groups) {
        expect(g.protocolType).toBe('');
        listed.set(g.groupId, b);
      }
    }
    expect(listed).toEqual(coordinators);
  });

  it('describes a stable group (DescribeGroups v4): state, protocol, members with client id, host, subscription and assignment', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const members = await stableGroup(w, nodeId, 'g', 'orders', 4, ['billing-1', 'billing-2']);
    const r = await settle(w, send(w, nodeId, ApiKey.DescribeGroups, 4, { groups: ['g'], includeAuthorizedOperations: false }));
    const [g] = r.groups;
    expect(g).toMatchObject({ errorCode: 0, groupId: 'g', groupState: 'Stable', protocolType: 'consumer', protocolData: 'roundrobin', authorizedOperations: -2147483648 });
    const described = g!.members.map((m) => ({
      memberId: m.memberId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      topics: groupRecordCodec.subscribedTopics(m.memberMetadata),
      partitions: groupRecordCodec.assignedPartitions(m.memberAssignment)!.flatMap((t) => t.partitions),
    }));
    expect(described.sort((x, y) => x.clientId.localeCompare(y.clientId))).toEqual(
      members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, clientHost: '/127.0.0.1', topics: ['orders'], partitions: m.partitions })).sort((x, y) => x.clientId.localeCompare(y.clientId)),
    );
    // A group its coordinator does not know is described as Dead, without an error; another broker says NOT_COORDINATOR.
    const ghostCoordinator = (await coordinatorOf(w, 'ghost')).nodeId;
    const ghost = await settle(w, send(w, ghostCoordinator, ApiKey.DescribeGroups, 4, { groups: ['ghost'] }));
    expect(ghost.groups[0]).toMatchObject({ errorCode: 0, groupId: 'ghost', groupState: 'Dead', members: [] });
    const elsewhere = await settle(w, send(w, [1, 2, 3].find((b) => b !== ghostCoordinator)!, ApiKey.DescribeGroups, 4, { groups: ['ghost'] }));
    expect(elsewhere.groups[0]).toMatchObject({ errorCode: 16, groupId: 'ghost', groupState: '' });
    // kafkajs's v2 lists the same.
    const v2 = await settle(w, send(w, nodeId, ApiKey.DescribeGroups, 2, { groups: ['g'] }));
    expect(v2.groups[0]!.members).toHaveLength(2);
  });

  it('deletes only an empty group (DeleteGroups v1): NON_EMPTY_GROUP while it has members, GROUP_ID_NOT_FOUND once gone', async () => {
    const w = cluster();
    const { nodeId } = await coordinatorOf(w, 'g');
    const [m] = await stableGroup(w, nodeId, 'g', 'orders', 4, ['c1']);
    const busy = await settle(w, send(w, nodeId, ApiKey.DeleteGroups, 1, { groupsNames: ['g'] }));
    expect(busy.results).toEqual([{ groupId: 'g', errorCode: 68 }]);
    await settle(w, send(w, nodeId, ApiKey.LeaveGroup, 1, { groupId: 'g', memberId: m!.memberId }));
    const gone = await settle(w, send(w, nodeId, ApiKey.DeleteGroups, 0, { groupsNames: ['g'] }));
    expect(gone.results).toEqual([{ groupId: 'g', errorCode: 0 }]);
    const again = await settle(w, send(w, nodeId, ApiKey.DeleteGroups, 1, { groupsNames: ['g'] }));
    expect(again.results).toEqual([{ groupId: 'g', errorCode: 69 }]);
    const listed = await settle(w, send(w, nodeId, ApiKey.ListGroups, 0, {}));
    expect(listed.groups.map((g) => g.groupId)).not.toContain('g');
  });

  it('advertises every classic group API in ApiVersions, and neither KIP-848 API', async () => {
    const w = cluster();
    const r = await settle(w, send(w, 1, ApiKey.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' }));
    const ranges = Object.fromEntries(r.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
    expect(ranges).toMatchObject({ 8: [0, 7], 9: [0, 5], 10: [0, 2], 11: [0, 5], 12: [0, 3], 13: [0, 3], 14: [0, 3], 15: [0, 4], 16: [0, 2], 42: [0, 1], 47: [0, 0] });
    expect(ranges[68]).toBeUndefined();
    expect(ranges[69]).toBeUndefined();
  });
});
