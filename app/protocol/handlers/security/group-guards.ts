/**
 * The group APIs as KafkaApis authorizes them:
 *
 * - FindCoordinator: DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED) or on the transactional
 *   id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
 * - JoinGroup, SyncGroup, Heartbeat, LeaveGroup: READ on the group;
 * - OffsetCommit: READ on the group (every partition GROUP_AUTHORIZATION_FAILED), then READ on
 *   each topic (TOPIC_AUTHORIZATION_FAILED);
 * - OffsetFetch: DESCRIBE on the group, then DESCRIBE on each topic: named partitions of other
 *   topics get TOPIC_AUTHORIZATION_FAILED, a fetch of every offset leaves those topics out;
 * - OffsetDelete: DELETE on the group, READ on each topic;
 * - ListGroups: every group with DESCRIBE on the cluster, else only groups the principal may
 *   DESCRIBE; DescribeGroups: DESCRIBE per group (and the authorized operations when asked);
 *   DeleteGroups: DELETE per group.
 */
import type { ApiHandler, RequestContext } from '../../api-handler.js';
import { errorCode } from '../../error-codes.js';
import type { ApiKey, OffsetCommitResponse, OffsetFetchResponse, OffsetDeleteResponse } from '../../generated/index.js';
import type { Init } from '../../runtime/index.js';
import type { BrokerGateway } from '../broker-gateway.js';
import { authorize, authorizeCluster, authorizedNames, authorizedOperations, authorizerOf } from './authz.js';
import { splitByTopic, type Handle } from './guard-kit.js';

const GROUP_AUTHORIZATION_FAILED = errorCode('GROUP_AUTHORIZATION_FAILED');
const TOPIC_AUTHORIZATION_FAILED = errorCode('TOPIC_AUTHORIZATION_FAILED');

/** READ (or `operation`) on the request's group, else the handler's own error response with GROUP_AUTHORIZATION_FAILED. */
export function guardGroup<Req extends { groupId: string }>(gateway: BrokerGateway, inner: ApiHandler, operation: 'READ' | 'DESCRIBE' | 'DELETE' = 'READ'): Handle<Req, unknown> {
  return (request, ctx) => (authorize(gateway, ctx, operation, 'GROUP', request.groupId) ? inner.handle(request as never, ctx) : inner.errorResponse(request as never, GROUP_AUTHORIZATION_FAILED, ctx));
}

export function guardFindCoordinator(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.FindCoordinator>): Handle<Parameters<ApiHandler<typeof ApiKey.FindCoordinator>['handle']>[0], unknown> {
  return (request, ctx) => {
    const transaction = request.keyType === 1;
    if (authorize(gateway, ctx, 'DESCRIBE', transaction ? 'TRANSACTIONAL_ID' : 'GROUP', request.key)) return inner.handle(request, ctx);
    return inner.errorResponse(request, errorCode(transaction ? 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED' : 'GROUP_AUTHORIZATION_FAILED'), ctx);
  };
}

type TopicsRequest = { groupId: string; topics: { name: string; partitions: { partitionIndex: number }[] }[] };

export function guardOffsetCommit(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.OffsetCommit>): Handle<TopicsRequest, Init<OffsetCommitResponse>> {
  return (request, ctx) => {
    if (!authorize(gateway, ctx, 'READ', 'GROUP', request.groupId)) return inner.errorResponse(request as never, GROUP_AUTHORIZATION_FAILED, ctx);
    return splitByTopic(gateway, ctx, 'READ', {
      topics: request.topics,
      name: (t) => t.name,
      serve: (allowed) => inner.handle({ ...request, topics: allowed } as never, ctx) as Promise<Init<OffsetCommitResponse> | null>,
      empty: (): Init<OffsetCommitResponse> => ({ throttleTimeMs: 0, topics: [] }),
      denied: (t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: TOPIC_AUTHORIZATION_FAILED })) }),
      entries: (res) => (res.topics ??= []),
    });
  };
}

export function guardOffsetDelete(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.OffsetDelete>): Handle<TopicsRequest, Init<OffsetDeleteResponse>> {
  return (request, ctx) => {
    if (!authorize(gateway, ctx, 'DELETE', 'GROUP', request.groupId)) return inner.errorResponse(request as never, GROUP_AUTHORIZATION_FAILED, ctx);
    return splitByTopic(gateway, ctx, 'READ', {
      topics: request.topics,
      name: (t) => t.name,
      serve: (allowed) => inner.handle({ ...request, topics: allowed } as never, ctx) as Promise<Init<OffsetDeleteResponse> | null>,
      empty: (): Init<OffsetDeleteResponse> => ({ errorCode: 0, throttleTimeMs: 0, topics: [] }),
      denied: (t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: TOPIC_AUTHORIZATION_FAILED })) }),
      entries: (res) => (res.topics ??= []),
    });
  };
}

type OffsetFetchRequestV = { groupId: string; topics: { name: string; partitionIndexes: number[] }[] | null };

export function guardOffsetFetch(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.OffsetFetch>): Handle<OffsetFetchRequestV, Init<OffsetFetchResponse>> {
  return async (request, ctx) => {
    if (!authorizerOf(gateway).enabled) return inner.handle(request as never, ctx) as Promise<Init<OffsetFetchResponse> | null>;
    if (!authorize(gateway, ctx, 'DESCRIBE', 'GROUP', request.groupId)) return inner.errorResponse(request as never, GROUP_AUTHORIZATION_FAILED, ctx);
    if (request.topics === null) {
      const res = (await inner.handle(request as never, ctx)) as Init<OffsetFetchResponse> | null;
      if (res) {
        const ok = authorizedNames(gateway, ctx, 'DESCRIBE', 'TOPIC', (res.topics ?? []).map((t) => t.name ?? ''));
        res.topics = (res.topics ?? []).filter((t) => ok.has(t.name ?? ''));
      }
      return res;
    }
    const topics = request.topics;
    return splitByTopic(gateway, ctx, 'DESCRIBE', {
      topics,
      name: (t) => t.name,
      serve: (allowed) => inner.handle({ ...request, topics: allowed } as never, ctx) as Promise<Init<OffsetFetchResponse> | null>,
      empty: (): Init<OffsetFetchResponse> => ({ throttleTimeMs: 0, errorCode: 0, topics: [] }),
      denied: (t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: TOPIC_AUTHORIZATION_FAILED })),
      }),
      entries: (res) => (res.topics ??= []),
    });
  };
}

export function guardListGroups(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.ListGroups>): Handle<unknown, { groups?: { groupId?: string }[] }> {
  return async (request, ctx: RequestContext) => {
    const res = (await inner.handle(request as never, ctx)) as { groups?: { groupId?: string }[] } | null;
    if (!res || !authorizerOf(gateway).enabled || authorizeCluster(gateway, ctx, 'DESCRIBE')) return res;
    const ok = authorizedNames(gateway, ctx, 'DESCRIBE', 'GROUP', (res.groups ?? []).map((g) => g.groupId ?? ''));
    res.groups = (res.groups ?? []).filter((g) => ok.has(g.groupId ?? ''));
    return res;
  };
}

export function guardDescribeGroups(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.DescribeGroups>): Handle<{ groups: string[]; includeAuthorizedOperations: boolean }, unknown> {
  return async (request, ctx) => {
    const ok = authorizedNames(gateway, ctx, 'DESCRIBE', 'GROUP', request.groups);
    const allowed = request.groups.filter((g) => ok.has(g));
    const res = (allowed.length > 0 ? await inner.handle({ ...request, groups: allowed } as never, ctx) : { throttleTimeMs: 0, groups: [] }) as {
      groups?: { groupId?: string; authorizedOperations?: number }[];
    } | null;
    if (!res) return null;
    if (request.includeAuthorizedOperations) for (const g of res.groups ?? []) g.authorizedOperations = authorizedOperations(gateway, ctx, 'GROUP', g.groupId ?? '');
    for (const g of request.groups) {
      if (!ok.has(g)) (res.groups ??= []).push({ errorCode: GROUP_AUTHORIZATION_FAILED, groupId: g, groupState: '', protocolType: '', protocolData: '', members: [] } as never);
    }
    return res;
  };
}

export function guardDeleteGroups(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.DeleteGroups>): Handle<{ groupsNames: string[] }, unknown> {
  return async (request, ctx) => {
    const ok = authorizedNames(gateway, ctx, 'DELETE', 'GROUP', request.groupsNames);
    if (ok.size === new Set(request.groupsNames).size) return inner.handle(request as never, ctx);
    const allowed = request.groupsNames.filter((g) => ok.has(g));
    const res = (allowed.length > 0 ? await inner.handle({ groupsNames: allowed } as never, ctx) : { throttleTimeMs: 0, results: [] }) as { results?: unknown[] } | null;
    if (!res) return null;
    for (const g of request.groupsNames) if (!ok.has(g)) (res.results ??= []).push({ groupId: g, errorCode: GROUP_AUTHORIZATION_FAILED });
    return res;
  };
}
