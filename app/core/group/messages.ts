/**
 * The group APIs as a broker answers them: Kafka's FindCoordinator, JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, ListGroups, DescribeGroups, DeleteGroups,
 * OffsetDelete and TxnOffsetCommit, in one shape per API whatever the wire version (the wire handlers map versions
 * onto these; a field an old version lacks takes Kafka's default). Errors are Kafka's names.
 *
 * Every request travels to one broker over the in-process network as `{ type: 'group', api, … }`.
 */
import type { KafkaErrorName } from '../../api/errors.js';

/** FindCoordinator's key types (CoordinatorType): 0 group, 1 transaction, 2 share. */
export const COORDINATOR_TYPE_GROUP = 0;

export interface FindCoordinatorRequest {
  api: 'findCoordinator';
  keyType: number;
  keys: string[];
  /** The asking client's id (recorded on `__consumer_offsets` when this request creates it). */
  clientId?: string;
}
export interface FindCoordinatorResponse {
  coordinators: { key: string; nodeId: number; errorCode: KafkaErrorName; errorMessage: string | null }[];
}

export interface JoinProtocol {
  name: string;
  metadata: Uint8Array;
}

export interface JoinGroupRequest {
  api: 'joinGroup';
  groupId: string;
  sessionTimeoutMs: number;
  /** JoinGroup v0 has none: Kafka uses the session timeout. */
  rebalanceTimeoutMs: number;
  /** '' for a member that has none yet. */
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: JoinProtocol[];
  /** JoinGroup v4+: a dynamic member without an id is first answered MEMBER_ID_REQUIRED. */
  requireKnownMemberId: boolean;
  clientId: string;
  clientHost: string;
  reason: string | null;
}
export interface JoinGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Uint8Array;
}
export interface JoinGroupResponse {
  errorCode: KafkaErrorName;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  /** Only the leader gets the members and their metadata. */
  members: JoinGroupMember[];
}

export interface SyncGroupRequest {
  api: 'syncGroup';
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** SyncGroup v5+; null when the client did not send it. */
  protocolType: string | null;
  protocolName: string | null;
  assignments: { memberId: string; assignment: Uint8Array }[];
}
export interface SyncGroupResponse {
  errorCode: KafkaErrorName;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Uint8Array;
}

export interface HeartbeatRequest {
  api: 'heartbeat';
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}
export interface HeartbeatResponse {
  errorCode: KafkaErrorName;
}

export interface LeavingMember {
  memberId: string;
  groupInstanceId: string | null;
  reason: string | null;
}
export interface LeaveGroupRequest {
  api: 'leaveGroup';
  groupId: string;
  members: LeavingMember[];
}
export interface LeaveGroupResponse {
  errorCode: KafkaErrorName;
  members: { memberId: string; groupInstanceId: string | null; errorCode: KafkaErrorName }[];
}

export interface CommitPartition {
  partition: number;
  offset: number;
  leaderEpoch: number;
  metadata: string | null;
  /** OffsetCommit v1 only; -1 = now. */
  commitTimestampMs: number;
}
export interface OffsetCommitRequest {
  api: 'offsetCommit';
  groupId: string;
  /** -1 for a commit from outside group management (an admin, a simple consumer). */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** OffsetCommit v2–v4; -1 = the broker's offsets.retention.minutes. */
  retentionTimeMs: number;
  topics: { name: string; partitions: CommitPartition[] }[];
}
export interface OffsetCommitResponse {
  topics: { name: string; partitions: { partition: number; errorCode: KafkaErrorName }[] }[];
}

export interface OffsetFetchRequest {
  api: 'offsetFetch';
  groupId: string;
  /** null = every partition the group has an offset for (v2+). */
  topics: { name: string; partitions: number[] }[] | null;
  requireStable: boolean;
}
export interface FetchedOffset {
  partition: number;
  /** -1 when the group has no offset for the partition. */
  offset: number;
  leaderEpoch: number;
  metadata: string;
  errorCode: KafkaErrorName;
}
export interface OffsetFetchResponse {
  errorCode: KafkaErrorName;
  topics: { name: string; partitions: FetchedOffset[] }[];
}

export interface ListGroupsRequest {
  api: 'listGroups';
  /** ListGroups v4+; empty = every state. Compared case-insensitively, as Kafka does. */
  statesFilter: string[];
}
export interface GroupListing {
  groupId: string;
  protocolType: string;
  state: string;
}
export interface ListGroupsResponse {
  errorCode: KafkaErrorName;
  groups: GroupListing[];
}

export interface DescribeGroupsRequest {
  api: 'describeGroups';
  groups: string[];
}
export interface DescribedMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** The member's metadata for the group's protocol; empty unless the group is Stable. */
  metadata: Uint8Array;
  /** Empty unless the group is Stable. */
  assignment: Uint8Array;
}
export interface DescribedGroup {
  errorCode: KafkaErrorName;
  groupId: string;
  state: string;
  protocolType: string;
  protocol: string;
  members: DescribedMember[];
}
export interface DescribeGroupsResponse {
  groups: DescribedGroup[];
}

export interface DeleteGroupsRequest {
  api: 'deleteGroups';
  groups: string[];
}
export interface DeleteGroupsResponse {
  results: { groupId: string; errorCode: KafkaErrorName }[];
}

export interface OffsetDeleteRequest {
  api: 'offsetDelete';
  groupId: string;
  topics: { name: string; partitions: number[] }[];
}
export interface OffsetDeleteResponse {
  errorCode: KafkaErrorName;
  topics: { name: string; partitions: { partition: number; errorCode: KafkaErrorName }[] }[];
}

export interface TxnOffsetCommitRequest {
  api: 'txnOffsetCommit';
  /** The request's version: below 2 COORDINATOR_LOAD_IN_PROGRESS is answered COORDINATOR_NOT_AVAILABLE, as Kafka does. */
  apiVersion: number;
  transactionalId: string;
  groupId: string;
  producerId: number;
  producerEpoch: number;
  /** v3+ (KIP-447): the consumer's generation and member id, -1 and "" before. */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  topics: { name: string; partitions: { partition: number; offset: number; leaderEpoch: number; metadata: string | null }[] }[];
}

export interface TxnOffsetCommitResponse {
  topics: { name: string; partitions: { partition: number; errorCode: KafkaErrorName }[] }[];
}

/** Each group API's request and response, by name. */
export interface GroupApis {
  findCoordinator: { request: FindCoordinatorRequest; response: FindCoordinatorResponse };
  joinGroup: { request: JoinGroupRequest; response: JoinGroupResponse };
  syncGroup: { request: SyncGroupRequest; response: SyncGroupResponse };
  heartbeat: { request: HeartbeatRequest; response: HeartbeatResponse };
  leaveGroup: { request: LeaveGroupRequest; response: LeaveGroupResponse };
  offsetCommit: { request: OffsetCommitRequest; response: OffsetCommitResponse };
  offsetFetch: { request: OffsetFetchRequest; response: OffsetFetchResponse };
  listGroups: { request: ListGroupsRequest; response: ListGroupsResponse };
  describeGroups: { request: DescribeGroupsRequest; response: DescribeGroupsResponse };
  deleteGroups: { request: DeleteGroupsRequest; response: DeleteGroupsResponse };
  offsetDelete: { request: OffsetDeleteRequest; response: OffsetDeleteResponse };
  txnOffsetCommit: { request: TxnOffsetCommitRequest; response: TxnOffsetCommitResponse };
}

export type GroupApiName = keyof GroupApis;
export type GroupApiRequest = GroupApis[GroupApiName]['request'];
/** The response to a group request, by the request's `api`. */
export type GroupResponseOf<R extends GroupApiRequest> = GroupApis[R['api']]['response'];

/** A group request as it crosses the network to a broker. */
export type GroupNetworkRequest = { type: 'group' } & GroupApiRequest;
