/**
 * The transaction APIs as KafkaApis authorizes them:
 *
 * - Produce with a transactional id: WRITE on the id, else every partition
 *   TRANSACTIONAL_ID_AUTHORIZATION_FAILED (then the topics' own check, guardProduce);
 * - AddPartitionsToTxn: WRITE on the transactional id (every partition
 *   TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then WRITE on each topic: when one is denied, its
 *   partitions are TOPIC_AUTHORIZATION_FAILED and the others OPERATION_NOT_ATTEMPTED;
 * - AddOffsetsToTxn: WRITE on the transactional id, then READ on the group;
 * - EndTxn: WRITE on the transactional id;
 * - TxnOffsetCommit: WRITE on the transactional id, READ on the group, READ on each topic;
 * - DescribeProducers: READ on each topic (TOPIC_AUTHORIZATION_FAILED per partition);
 * - DescribeTransactions: DESCRIBE per transactional id; ListTransactions lists only the ids the
 *   principal may DESCRIBE.
 */
import type { ApiHandler, RequestContext } from '../../api-handler.js';
import { errorCode } from '../../error-codes.js';
import type {
  AddPartitionsToTxnRequest,
  ApiKey,
  DescribeProducersRequest,
  DescribeProducersResponse,
  DescribeTransactionsRequest,
  DescribeTransactionsResponse,
  ListTransactionsResponse,
  ProduceRequest,
  TxnOffsetCommitRequest,
} from '../../generated/index.js';
import type { Init } from '../../runtime/index.js';
import type { BrokerGateway } from '../broker-gateway.js';
import { authorize, authorizedNames, authorizerOf } from './authz.js';
import type { Handle } from './guard-kit.js';

const TXN_DENIED = errorCode('TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
const TOPIC_DENIED = errorCode('TOPIC_AUTHORIZATION_FAILED');

const mayWrite = (gateway: BrokerGateway, ctx: RequestContext, transactionalId: string): boolean => authorize(gateway, ctx, 'WRITE', 'TRANSACTIONAL_ID', transactionalId);

/** A transactional Produce also needs WRITE on its transactional id; `topicsGuard` is the topics' own check. */
export function guardTransactionalProduce(gateway: BrokerGateway, inner: ApiHandler, topicsGuard: Handle<ProduceRequest, unknown>): Handle<ProduceRequest, unknown> {
  return (request, ctx) => (request.transactionalId !== null && !mayWrite(gateway, ctx, request.transactionalId) ? inner.errorResponse(request as never, TXN_DENIED, ctx) : topicsGuard(request, ctx));
}

export function guardAddPartitionsToTxn(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.AddPartitionsToTxn>): Handle<AddPartitionsToTxnRequest, unknown> {
  return (request, ctx) => {
    if (!mayWrite(gateway, ctx, request.v3AndBelowTransactionalId)) return inner.errorResponse(request, TXN_DENIED, ctx);
    if (!authorizerOf(gateway).enabled) return inner.handle(request, ctx);
    const ok = authorizedNames(gateway, ctx, 'WRITE', 'TOPIC', request.v3AndBelowTopics.map((t) => t.name));
    if (request.v3AndBelowTopics.every((t) => ok.has(t.name))) return inner.handle(request, ctx);
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      resultsByTransaction: [],
      resultsByTopicV3AndBelow: request.v3AndBelowTopics.map((t) => ({
        name: t.name,
        resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: ok.has(t.name) ? errorCode('OPERATION_NOT_ATTEMPTED') : TOPIC_DENIED })),
      })),
    };
  };
}

export function guardAddOffsetsToTxn(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.AddOffsetsToTxn>): Handle<{ transactionalId: string; groupId: string }, unknown> {
  return (request, ctx) => {
    if (!mayWrite(gateway, ctx, request.transactionalId)) return inner.errorResponse(request as never, TXN_DENIED, ctx);
    if (!authorize(gateway, ctx, 'READ', 'GROUP', request.groupId)) return inner.errorResponse(request as never, errorCode('GROUP_AUTHORIZATION_FAILED'), ctx);
    return inner.handle(request as never, ctx);
  };
}

export function guardEndTxn(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.EndTxn>): Handle<{ transactionalId: string }, unknown> {
  return (request, ctx) => (mayWrite(gateway, ctx, request.transactionalId) ? inner.handle(request as never, ctx) : inner.errorResponse(request as never, TXN_DENIED, ctx));
}

export function guardTxnOffsetCommit(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.TxnOffsetCommit>): Handle<TxnOffsetCommitRequest, unknown> {
  return (request, ctx) => {
    if (!mayWrite(gateway, ctx, request.transactionalId)) return inner.errorResponse(request, TXN_DENIED, ctx);
    if (!authorize(gateway, ctx, 'READ', 'GROUP', request.groupId)) return inner.errorResponse(request, errorCode('GROUP_AUTHORIZATION_FAILED'), ctx);
    if (!authorizerOf(gateway).enabled) return inner.handle(request, ctx);
    const ok = authorizedNames(gateway, ctx, 'READ', 'TOPIC', request.topics.map((t) => t.name));
    if (request.topics.every((t) => ok.has(t.name))) return inner.handle(request, ctx);
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ok.has(t.name) ? errorCode('OPERATION_NOT_ATTEMPTED') : TOPIC_DENIED })) })),
    };
  };
}

export function guardDescribeProducers(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.DescribeProducers>): Handle<DescribeProducersRequest, Init<DescribeProducersResponse>> {
  return async (request, ctx) => {
    if (!authorizerOf(gateway).enabled) return inner.handle(request, ctx) as Promise<Init<DescribeProducersResponse>>;
    const ok = authorizedNames(gateway, ctx, 'READ', 'TOPIC', request.topics.map((t) => t.name));
    const allowed = request.topics.filter((t) => ok.has(t.name));
    const served = allowed.length > 0 ? ((await inner.handle({ ...request, topics: allowed }, ctx)) as Init<DescribeProducersResponse>) : { throttleTimeMs: 0, topics: [] };
    const denied = request.topics
      .filter((t) => !ok.has(t.name))
      .map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, errorCode: TOPIC_DENIED, errorMessage: null, activeProducers: [] })) }));
    return { ...served, topics: [...(served.topics ?? []), ...denied] };
  };
}

export function guardDescribeTransactions(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.DescribeTransactions>): Handle<DescribeTransactionsRequest, Init<DescribeTransactionsResponse>> {
  return async (request, ctx) => {
    if (!authorizerOf(gateway).enabled) return inner.handle(request, ctx) as Promise<Init<DescribeTransactionsResponse>>;
    const ok = authorizedNames(gateway, ctx, 'DESCRIBE', 'TRANSACTIONAL_ID', request.transactionalIds);
    const allowed = request.transactionalIds.filter((id) => ok.has(id));
    const served = allowed.length > 0 ? ((await inner.handle({ transactionalIds: allowed }, ctx)) as Init<DescribeTransactionsResponse>) : { throttleTimeMs: 0, transactionStates: [] };
    const denied = inner.errorResponse({ transactionalIds: request.transactionalIds.filter((id) => !ok.has(id)) }, TXN_DENIED, ctx).transactionStates ?? [];
    return { ...served, transactionStates: [...(served.transactionStates ?? []), ...denied] };
  };
}

export function guardListTransactions(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.ListTransactions>): Handle<Parameters<ApiHandler<typeof ApiKey.ListTransactions>['handle']>[0], Init<ListTransactionsResponse>> {
  return async (request, ctx) => {
    const r = (await inner.handle(request, ctx)) as Init<ListTransactionsResponse>;
    if (!authorizerOf(gateway).enabled) return r;
    const states = r.transactionStates ?? [];
    const ok = authorizedNames(gateway, ctx, 'DESCRIBE', 'TRANSACTIONAL_ID', states.map((t) => t.transactionalId ?? ''));
    return { ...r, transactionStates: states.filter((t) => ok.has(t.transactionalId ?? '')) };
  };
}
