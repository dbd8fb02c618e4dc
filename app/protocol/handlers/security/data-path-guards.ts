/**
 * The checks KafkaApis makes on the data path, in front of our handlers:
 *
 * - Produce: WRITE on each topic (TOPIC_AUTHORIZATION_FAILED per partition; with acks=0 an
 *   unauthorized partition closes the connection, as any acks=0 error does); then the request's
 *   size is recorded against producer_byte_rate.
 * - Fetch (a consumer's): READ on each topic; then the records' bytes against consumer_byte_rate —
 *   a throttled fetch answers no partitions at all (and its bytes are taken back), as Kafka's
 *   handleFetchRequest does.
 * - ListOffsets, OffsetForLeaderEpoch: DESCRIBE on each topic.
 * - DeleteRecords: DELETE on each topic.
 * - InitProducerId: a transactional id needs WRITE on it (TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
 *   an idempotent producer IDEMPOTENT_WRITE on the cluster or WRITE on some topic
 *   (authorizeByResourceType), else CLUSTER_AUTHORIZATION_FAILED.
 *
 * A quota's throttle goes to `ctx.throttleMs`; the dispatcher writes it into the response and
 * mutes the connection.
 */
import type { FetchRequest, FetchResponse, ProduceRequest, ProduceResponse } from '../../generated/index.js';
import type { Init } from '../../runtime/index.js';
import { ApiKey } from '../../generated/index.js';
import { CloseConnection, type ApiHandler } from '../../api-handler.js';
import { errorCode } from '../../error-codes.js';
import type { BrokerGateway } from '../broker-gateway.js';
import { authorizeCluster, authorize, authorizerOf } from './authz.js';
import { nowMs, quotaClient, splitByTopic, type Handle } from './guard-kit.js';

const TOPIC_AUTHORIZATION_FAILED = errorCode('TOPIC_AUTHORIZATION_FAILED');


export function guardProduce(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.Produce>): Handle<ProduceRequest, Init<ProduceResponse>> {
  return async (request, ctx) => {
    const denied: string[] = [];
    const response = await splitByTopic(gateway, ctx, 'WRITE', {
      topics: request.topicData,
      name: (t) => t.name,
      serve: (allowed) => inner.handle(allowed.length === request.topicData.length ? request : { ...request, topicData: allowed }, ctx) as Promise<Init<ProduceResponse> | null>,
      empty: (): Init<ProduceResponse> => ({ responses: [], throttleTimeMs: 0 }),
      denied: (t) => {
        denied.push(t.name);
        return { name: t.name, partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode: TOPIC_AUTHORIZATION_FAILED, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n })) };
      },
      entries: (res) => (res.responses ??= []),
    });
    if (request.acks === 0 && denied.length > 0) throw new CloseConnection(`acks=0 produce to ${denied.join(', ')} refused with TOPIC_AUTHORIZATION_FAILED`);
    ctx.throttleMs = Math.max(ctx.throttleMs, gateway.engine.security.quotas(gateway.brokerId).record('producer_byte_rate', quotaClient(ctx), ctx.requestBytes, nowMs(gateway)));
    return response;
  };
}

export function guardFetch(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.Fetch>): Handle<FetchRequest, Init<FetchResponse>> {
  return async (request, ctx) => {
    const response = await splitByTopic(gateway, ctx, 'READ', {
      topics: request.topics,
      name: (t) => t.topic,
      serve: (allowed) => inner.handle(allowed.length === request.topics.length ? request : { ...request, topics: allowed }, ctx) as Promise<Init<FetchResponse> | null>,
      empty: (): Init<FetchResponse> => ({ throttleTimeMs: 0, errorCode: 0, sessionId: request.sessionId, responses: [] }),
      denied: (t) => ({
        topic: t.topic,
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: TOPIC_AUTHORIZATION_FAILED, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n, records: null })),
      }),
      entries: (res) => (res.responses ??= []),
    });
    if (response === null) return null;
    let bytes = 0;
    for (const t of response.responses ?? []) for (const p of t.partitions ?? []) bytes += p.records?.length ?? 0;
    const quotas = gateway.engine.security.quotas(gateway.brokerId);
    const client = quotaClient(ctx);
    const now = nowMs(gateway);
    const throttle = quotas.record('consumer_byte_rate', client, bytes, now);
    if (throttle <= 0) return response;
    ctx.throttleMs = Math.max(ctx.throttleMs, throttle);
    // Throttled: no data this time, and the bytes not sent are not counted (KafkaApis, unrecordQuotaSensor).
    quotas.unrecord('consumer_byte_rate', client, bytes, now);
    return { throttleTimeMs: throttle, errorCode: 0, sessionId: 0, responses: [] };
  };
}

/** A guard that answers the topics a principal may not `operation` with `deniedPartition` entries (list offsets, epochs, delete records). */
export function guardTopics<Req extends { topics: T[] }, Res extends { topics?: unknown[] }, T>(
  gateway: BrokerGateway,
  inner: ApiHandler,
  operation: 'DESCRIBE' | 'DELETE',
  name: (t: T) => string,
  denied: (t: T) => unknown,
  empty: () => Res,
): Handle<Req, Res> {
  return (request, ctx) =>
    splitByTopic(gateway, ctx, operation, {
      topics: request.topics,
      name,
      serve: (allowed) => inner.handle((allowed.length === request.topics.length ? request : { ...request, topics: allowed }) as never, ctx) as Promise<Res | null>,
      empty,
      denied,
      entries: (res) => (res.topics ??= []) as unknown[],
    });
}

export const listOffsetsGuard = (gateway: BrokerGateway, inner: ApiHandler) =>
  guardTopics<{ topics: { name: string; partitions: { partitionIndex: number }[] }[] }, { throttleTimeMs: number; topics: unknown[] }, { name: string; partitions: { partitionIndex: number }[] }>(
    gateway,
    inner,
    'DESCRIBE',
    (t) => t.name,
    (t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: TOPIC_AUTHORIZATION_FAILED, timestamp: -1n, offset: -1n, leaderEpoch: -1 })) }),
    () => ({ throttleTimeMs: 0, topics: [] }),
  );

export const offsetForLeaderEpochGuard = (gateway: BrokerGateway, inner: ApiHandler) =>
  guardTopics<{ topics: { topic: string; partitions: { partition: number }[] }[] }, { throttleTimeMs: number; topics: unknown[] }, { topic: string; partitions: { partition: number }[] }>(
    gateway,
    inner,
    'DESCRIBE',
    (t) => t.topic,
    (t) => ({ topic: t.topic, partitions: t.partitions.map((p) => ({ errorCode: TOPIC_AUTHORIZATION_FAILED, partition: p.partition, leaderEpoch: -1, endOffset: -1n })) }),
    () => ({ throttleTimeMs: 0, topics: [] }),
  );

export const deleteRecordsGuard = (gateway: BrokerGateway, inner: ApiHandler) =>
  guardTopics<{ topics: { name: string; partitions: { partitionIndex: number }[] }[] }, { throttleTimeMs: number; topics: unknown[] }, { name: string; partitions: { partitionIndex: number }[] }>(
    gateway,
    inner,
    'DELETE',
    (t) => t.name,
    (t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: TOPIC_AUTHORIZATION_FAILED })) }),
    () => ({ throttleTimeMs: 0, topics: [] }),
  );

export function guardInitProducerId(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.InitProducerId>): Handle<Parameters<ApiHandler<typeof ApiKey.InitProducerId>['handle']>[0], unknown> {
  return (request, ctx) => {
    const a = authorizerOf(gateway);
    if (a.enabled) {
      if (request.transactionalId !== null) {
        if (!authorize(gateway, ctx, 'WRITE', 'TRANSACTIONAL_ID', request.transactionalId)) return inner.errorResponse(request, errorCode('TRANSACTIONAL_ID_AUTHORIZATION_FAILED'), ctx);
      } else if (!authorizeCluster(gateway, ctx, 'IDEMPOTENT_WRITE') && !a.authorizeByResourceType(ctx.session, 'WRITE', 'TOPIC')) {
        return inner.errorResponse(request, errorCode('CLUSTER_AUTHORIZATION_FAILED'), ctx);
      }
    }
    return inner.handle(request, ctx);
  };
}
