/**
 * The group APIs an admin needs (FindCoordinator, ListGroups, DescribeGroups, OffsetFetch,
 * OffsetCommit, DeleteGroups), sent to one broker of an external cluster in our generated codecs,
 * and answered in the engine's shapes (core/group/messages.ts), so the service's group logic
 * (app/service/embedded-driver/group-methods.ts) runs unchanged over the embedded cluster and over a real one.
 *
 * Versions, the highest both sides support within: FindCoordinator 1–3 (one key; v4+ batches),
 * ListGroups 0–4 (the state from v4; below it '' and the caller reads DescribeGroups' state),
 * DescribeGroups 0–5, OffsetFetch 2–7 (v2+: null topics = all; v8+ batches groups), OffsetCommit
 * 2–8 (an admin commit: generation -1, no member), DeleteGroups 0–2. Kafka 4 removed the versions
 * below these.
 */
import { ApiKey } from '../protocol/generated/index.js';
import { groupRecordCodec } from '../protocol/group-records.js';
import type { KafkaAdminClient } from './admin-client.js';
import { errorName } from './errors.js';

type Sender = Pick<KafkaAdminClient, 'send'>;

/** The admin group requests, in the engine's shapes (core/group/messages.ts, which this layer may not import). */
export type GroupRequestData =
  | { api: 'findCoordinator'; keyType: number; keys: string[] }
  | { api: 'listGroups'; statesFilter: string[] }
  | { api: 'describeGroups'; groups: string[] }
  | { api: 'offsetFetch'; groupId: string; topics: { name: string; partitions: number[] }[] | null; requireStable: boolean }
  | {
      api: 'offsetCommit';
      groupId: string;
      generationId: number;
      memberId: string;
      groupInstanceId: string | null;
      retentionTimeMs: number;
      topics: { name: string; partitions: { partition: number; offset: number; leaderEpoch: number; metadata: string | null; commitTimestampMs: number }[] }[];
    }
  | { api: 'deleteGroups'; groups: string[] };

export const ADMIN_GROUP_APIS: ReadonlySet<string> = new Set(['findCoordinator', 'listGroups', 'describeGroups', 'offsetFetch', 'offsetCommit', 'deleteGroups']);

/** A consumer-protocol assignment's partitions (null when it cannot be read). */
export const assignedPartitions = (assignment: Uint8Array): { topic: string; partitions: number[] }[] | null => groupRecordCodec.assignedPartitions(assignment);

/** Send one group request to `brokerId`; the answer in the shape the embedded broker gives. */
export async function kafkaGroupRequest(client: Sender, brokerId: number, req: GroupRequestData): Promise<unknown> {
  switch (req.api) {
    case 'findCoordinator': {
      const coordinators = [];
      for (const key of req.keys) {
        const r = await client.send(brokerId, ApiKey.FindCoordinator, [1, 3], { key, keyType: req.keyType }, 'FindCoordinator');
        coordinators.push({ key, nodeId: r.nodeId, errorCode: errorName(r.errorCode), errorMessage: r.errorMessage });
      }
      return { coordinators };
    }
    case 'listGroups': {
      const r = await client.send(brokerId, ApiKey.ListGroups, [0, 4], { statesFilter: req.statesFilter }, 'ListGroups');
      return { errorCode: errorName(r.errorCode), groups: r.groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, state: g.groupState })) };
    }
    case 'describeGroups': {
      const r = await client.send(brokerId, ApiKey.DescribeGroups, [0, 5], { groups: req.groups, includeAuthorizedOperations: false }, 'DescribeGroups');
      return {
        groups: r.groups.map((g) => ({
          errorCode: errorName(g.errorCode),
          groupId: g.groupId,
          state: g.groupState,
          protocolType: g.protocolType,
          protocol: g.protocolData,
          members: g.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost, metadata: m.memberMetadata, assignment: m.memberAssignment })),
        })),
      };
    }
    case 'offsetFetch': {
      const topics = req.topics === null ? null : req.topics.map((t) => ({ name: t.name, partitionIndexes: t.partitions }));
      const r = await client.send(brokerId, ApiKey.OffsetFetch, [2, 7], { groupId: req.groupId, topics, requireStable: req.requireStable }, 'OffsetFetch');
      return {
        errorCode: errorName(r.errorCode),
        topics: r.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, offset: Number(p.committedOffset), leaderEpoch: p.committedLeaderEpoch, metadata: p.metadata ?? '', errorCode: errorName(p.errorCode) })),
        })),
      };
    }
    case 'offsetCommit': {
      const r = await client.send(
        brokerId,
        ApiKey.OffsetCommit,
        [2, 8],
        {
          groupId: req.groupId,
          generationIdOrMemberEpoch: req.generationId,
          memberId: req.memberId,
          groupInstanceId: req.groupInstanceId,
          retentionTimeMs: BigInt(req.retentionTimeMs),
          topics: req.topics.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, committedOffset: BigInt(p.offset), committedLeaderEpoch: p.leaderEpoch, commitTimestamp: BigInt(p.commitTimestampMs), committedMetadata: p.metadata })),
          })),
        },
        'OffsetCommit',
      );
      return { topics: r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, errorCode: errorName(p.errorCode) })) })) };
    }
    case 'deleteGroups': {
      const r = await client.send(brokerId, ApiKey.DeleteGroups, [0, 2], { groupsNames: req.groups }, 'DeleteGroups');
      return { results: r.results.map((x) => ({ groupId: x.groupId, errorCode: errorName(x.errorCode) })) };
    }
  }
}
