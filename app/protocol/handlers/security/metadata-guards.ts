/**
 * Metadata and DescribeTopicPartitions as KafkaApis authorizes them (handleTopicMetadataRequest):
 *
 * - every topic needs DESCRIBE; a request for all topics leaves the others out (it does not
 *   disclose that they exist), a request naming them gets TOPIC_AUTHORIZATION_FAILED for each,
 *   existing or not;
 * - a named topic that does not exist, which the request would auto-create, needs CREATE on the
 *   cluster or on the topic, else TOPIC_AUTHORIZATION_FAILED (and it is not created);
 * - authorized operations are computed when asked (v8+): the topic's for each topic, the
 *   cluster's (v8–10) when the principal may DESCRIBE the cluster, else 0.
 */
import type { ApiHandler } from '../../api-handler.js';
import { errorCode } from '../../error-codes.js';
import type { ApiKey, DescribeTopicPartitionsRequest, MetadataRequest } from '../../generated/index.js';
import type { Init } from '../../runtime/index.js';
import type { DescribeTopicPartitionsResponse, MetadataResponse } from '../../generated/index.js';
import type { BrokerGateway } from '../broker-gateway.js';
import { authorizeCluster, authorizedNames, authorizedOperations, authorizerOf } from './authz.js';
import type { Handle } from './guard-kit.js';

const TOPIC_AUTHORIZATION_FAILED = errorCode('TOPIC_AUTHORIZATION_FAILED');
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** Whether a Metadata request would create a missing topic it names (allow_auto_topic_creation from v4, always before). */
function autoCreates(gateway: BrokerGateway, request: MetadataRequest, version: number): boolean {
  return (version < 4 || request.allowAutoTopicCreation) && gateway.engine.clusterConfig().autoCreateTopicsEnable === true;
}

export function guardMetadata(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.Metadata>): Handle<MetadataRequest, Init<MetadataResponse>> {
  return async (request, ctx) => {
    const a = authorizerOf(gateway);
    const v = ctx.apiVersion;
    const all = request.topics === null || (v === 0 && request.topics.length === 0);
    let response: Init<MetadataResponse> | null;
    if (!a.enabled || all) {
      response = (await inner.handle(request, ctx)) as Init<MetadataResponse> | null;
      if (response && a.enabled) {
        const names = (response.topics ?? []).map((t) => t.name ?? '');
        const ok = authorizedNames(gateway, ctx, 'DESCRIBE', 'TOPIC', names);
        response.topics = (response.topics ?? []).filter((t) => ok.has(t.name ?? ''));
      }
    } else {
      const named = request.topics!.map((t) => t.name ?? '');
      const describable = authorizedNames(gateway, ctx, 'DESCRIBE', 'TOPIC', named);
      const creatable = new Set(describable);
      if (autoCreates(gateway, request, v) && !authorizeCluster(gateway, ctx, 'CREATE')) {
        const missing = [...describable].filter((n) => !gateway.engine.metadata.topicsByName.has(n));
        const mayCreate = authorizedNames(gateway, ctx, 'CREATE', 'TOPIC', missing);
        for (const n of missing) if (!mayCreate.has(n)) creatable.delete(n);
      }
      const allowed = request.topics!.filter((t) => creatable.has(t.name ?? ''));
      // v0 reads an empty list as "every topic": with nothing allowed, ask for every topic and keep none of them.
      response = (await inner.handle({ ...request, topics: allowed }, ctx)) as Init<MetadataResponse> | null;
      if (response) {
        if (allowed.length === 0) response.topics = [];
        const seen = new Set<string>();
        for (const name of named) {
          if (creatable.has(name) || seen.has(name)) continue;
          seen.add(name);
          (response.topics ??= []).push({ errorCode: TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_UUID, isInternal: false, partitions: [] });
        }
      }
    }
    if (response && v >= 8) {
      if (request.includeTopicAuthorizedOperations) {
        for (const t of response.topics ?? []) if (t.errorCode !== TOPIC_AUTHORIZATION_FAILED) t.topicAuthorizedOperations = authorizedOperations(gateway, ctx, 'TOPIC', t.name ?? '');
      }
      if (request.includeClusterAuthorizedOperations && v <= 10) {
        response.clusterAuthorizedOperations = authorizeCluster(gateway, ctx, 'DESCRIBE') ? authorizedOperations(gateway, ctx, 'CLUSTER', 'kafka-cluster') : 0;
      }
    }
    return response;
  };
}

export function guardDescribeTopicPartitions(
  gateway: BrokerGateway,
  inner: ApiHandler<typeof ApiKey.DescribeTopicPartitions>,
): Handle<DescribeTopicPartitionsRequest, Init<DescribeTopicPartitionsResponse>> {
  return async (request, ctx) => {
    if (!authorizerOf(gateway).enabled) return inner.handle(request, ctx) as Promise<Init<DescribeTopicPartitionsResponse> | null>;
    const named = request.topics.map((t) => t.name);
    const ok = authorizedNames(gateway, ctx, 'DESCRIBE', 'TOPIC', named);
    if (named.length === 0) {
      // Every topic: the undescribable ones are left out, and the cursor may name only describable ones.
      const response = (await inner.handle(request, ctx)) as Init<DescribeTopicPartitionsResponse> | null;
      if (response) {
        response.topics = (response.topics ?? []).filter((t) => authorizedNames(gateway, ctx, 'DESCRIBE', 'TOPIC', [t.name ?? '']).size === 1);
        for (const t of response.topics) t.topicAuthorizedOperations = authorizedOperations(gateway, ctx, 'TOPIC', t.name ?? '');
      }
      return response;
    }
    const allowed = request.topics.filter((t) => ok.has(t.name));
    const response: Init<DescribeTopicPartitionsResponse> | null =
      allowed.length > 0 ? ((await inner.handle({ ...request, topics: allowed }, ctx)) as Init<DescribeTopicPartitionsResponse> | null) : { throttleTimeMs: 0, topics: [], nextCursor: null };
    if (!response) return null;
    for (const t of response.topics ?? []) t.topicAuthorizedOperations = authorizedOperations(gateway, ctx, 'TOPIC', t.name ?? '');
    for (const name of new Set(named)) {
      if (!ok.has(name)) (response.topics ??= []).push({ errorCode: TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_UUID, isInternal: false, partitions: [] });
    }
    return response;
  };
}
