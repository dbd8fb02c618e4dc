/**
 * The classic group protocol's membership APIs on the wire: JoinGroup (11), SyncGroup (14),
 * Heartbeat (12) and LeaveGroup (13). Each version is mapped onto the coordinator's one shape;
 * a field an old version lacks takes Kafka's default, and a response field an old version cannot
 * carry is left out (as KafkaApis does).
 *
 *   JoinGroup  => group_id session_timeout_ms rebalance_timeout_ms(v1+) member_id
 *                 group_instance_id(v5+) protocol_type [name metadata] reason(v8+)
 *              <= throttle_time_ms(v2+) error_code generation_id protocol_type(v7+) protocol_name
 *                 leader skip_assignment(v9+) member_id [member_id group_instance_id(v5+) metadata]
 *   SyncGroup  => group_id generation_id member_id group_instance_id(v3+) protocol_type(v5+)
 *                 protocol_name(v5+) [member_id assignment]
 *              <= throttle_time_ms(v1+) error_code protocol_type(v5+) protocol_name(v5+) assignment
 *   Heartbeat  => group_id generation_id member_id group_instance_id(v3+)
 *              <= throttle_time_ms(v1+) error_code
 *   LeaveGroup => group_id member_id(v0-2) | [member_id group_instance_id reason(v5+)](v3+)
 *              <= throttle_time_ms(v1+) error_code [member_id group_instance_id error_code](v3+)
 *
 * Rules: JoinGroup v0 has no rebalance timeout, so the session timeout is used; MEMBER_ID_REQUIRED
 * is only for v4+ (older clients cannot retry with the id); before v7 a JoinGroup response names
 * no protocol type and a protocol name of "" stands for none; LeaveGroup v0-2 carries one member
 * and answers with one error, the member's when the group itself had none. JoinGroup and
 * SyncGroup wait on the coordinator (group-call.ts).
 */
import type { LeaveGroupResponse as EngineLeave } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import type { BrokerGateway } from './broker-gateway.js';
import { askCoordinator, LOOPBACK_CLIENT_HOST } from './group-call.js';

const NONE = 0;
const EMPTY = new Uint8Array(0);
/** JoinGroup v4 introduced MEMBER_ID_REQUIRED; v7 the protocol type and a nullable name. */
const REQUIRE_KNOWN_MEMBER_ID_FROM = 4;
const NULLABLE_PROTOCOL_FROM = 7;
/** SyncGroup v5 names the protocol type and name. */
const SYNC_PROTOCOL_FROM = 5;
/** LeaveGroup v3 leaves a batch of members. */
const LEAVE_BATCH_FROM = 3;

function joinResponse(version: number, r: { errorCode: number; generationId: number; protocolType: string | null; protocolName: string | null; leader: string; memberId: string; members: { memberId: string; groupInstanceId: string | null; metadata: Uint8Array }[] }) {
  const named = version >= NULLABLE_PROTOCOL_FROM;
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    generationId: r.generationId,
    protocolType: named ? r.protocolType : null,
    protocolName: named ? r.protocolName : (r.protocolName ?? ''),
    leader: r.leader,
    skipAssignment: false,
    memberId: r.memberId,
    members: r.members,
  };
}

export function joinGroupHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.JoinGroup> {
  return {
    apiKey: ApiKey.JoinGroup,
    advertised: ADVERTISED_VERSIONS[ApiKey.JoinGroup]!,
    async handle(request, ctx) {
      const r = await askCoordinator(gateway, {
        api: 'joinGroup',
        groupId: request.groupId,
        sessionTimeoutMs: request.sessionTimeoutMs,
        rebalanceTimeoutMs: ctx.apiVersion === 0 ? request.sessionTimeoutMs : request.rebalanceTimeoutMs,
        memberId: request.memberId,
        groupInstanceId: request.groupInstanceId,
        protocolType: request.protocolType,
        protocols: request.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
        requireKnownMemberId: ctx.apiVersion >= REQUIRE_KNOWN_MEMBER_ID_FROM,
        clientId: ctx.header.clientId ?? '',
        clientHost: LOOPBACK_CLIENT_HOST,
        reason: request.reason,
      });
      return joinResponse(ctx.apiVersion, { ...r, errorCode: errorCode(r.errorCode) });
    },
    errorResponse: (_request, code, ctx) =>
      joinResponse(ctx.apiVersion, { errorCode: code, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId: '', members: [] }),
  };
}

export function syncGroupHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.SyncGroup> {
  const respond = (version: number, code: number, protocolType: string | null, protocolName: string | null, assignment: Uint8Array) => {
    const named = version >= SYNC_PROTOCOL_FROM;
    return { throttleTimeMs: 0, errorCode: code, protocolType: named ? protocolType : null, protocolName: named ? protocolName : null, assignment };
  };
  return {
    apiKey: ApiKey.SyncGroup,
    advertised: ADVERTISED_VERSIONS[ApiKey.SyncGroup]!,
    async handle(request, ctx) {
      const r = await askCoordinator(gateway, {
        api: 'syncGroup',
        groupId: request.groupId,
        generationId: request.generationId,
        memberId: request.memberId,
        groupInstanceId: request.groupInstanceId,
        protocolType: request.protocolType,
        protocolName: request.protocolName,
        assignments: request.assignments.map((a) => ({ memberId: a.memberId, assignment: a.assignment })),
      });
      return respond(ctx.apiVersion, errorCode(r.errorCode), r.protocolType, r.protocolName, r.assignment);
    },
    errorResponse: (_request, code, ctx) => respond(ctx.apiVersion, code, null, null, EMPTY),
  };
}

export function heartbeatHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.Heartbeat> {
  return {
    apiKey: ApiKey.Heartbeat,
    advertised: ADVERTISED_VERSIONS[ApiKey.Heartbeat]!,
    async handle(request) {
      const r = await askCoordinator(gateway, { api: 'heartbeat', groupId: request.groupId, generationId: request.generationId, memberId: request.memberId, groupInstanceId: request.groupInstanceId });
      return { throttleTimeMs: 0, errorCode: errorCode(r.errorCode) };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code }),
  };
}

/** LeaveGroup v0-2's one error: the group's, else the first member's (Kafka's LeaveGroupResponse). */
function singleLeaveError(r: EngineLeave): number {
  if (r.errorCode !== 'NONE') return errorCode(r.errorCode);
  const failed = r.members.find((m) => m.errorCode !== 'NONE');
  return failed ? errorCode(failed.errorCode) : NONE;
}

export function leaveGroupHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.LeaveGroup> {
  return {
    apiKey: ApiKey.LeaveGroup,
    advertised: ADVERTISED_VERSIONS[ApiKey.LeaveGroup]!,
    async handle(request, ctx) {
      const batched = ctx.apiVersion >= LEAVE_BATCH_FROM;
      const members = batched
        ? request.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, reason: m.reason }))
        : [{ memberId: request.memberId, groupInstanceId: null, reason: null }];
      const r = await askCoordinator(gateway, { api: 'leaveGroup', groupId: request.groupId, members });
      if (!batched) return { throttleTimeMs: 0, errorCode: singleLeaveError(r) };
      return {
        throttleTimeMs: 0,
        errorCode: errorCode(r.errorCode),
        members: r.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode: errorCode(m.errorCode) })),
      };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code }),
  };
}
