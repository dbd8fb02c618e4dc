/**
 * The admin APIs as KafkaApis and ControllerApis authorize them, and the controller mutation quota
 * (KIP-599) of the three that create or delete partitions:
 *
 * - CreateTopics: CREATE on the cluster, or on each topic (TOPIC_AUTHORIZATION_FAILED);
 *   DeleteTopics: DELETE on the cluster or on each topic; CreatePartitions: ALTER on the cluster
 *   or on each topic. Each created or deleted partition is a mutation against
 *   controller_mutation_rate: versions before CreateTopics 6, DeleteTopics 5 and CreatePartitions
 *   3 are permissive (done, then throttled), later ones strict (THROTTLING_QUOTA_EXCEEDED once the
 *   bucket is in debt).
 * - DescribeConfigs: DESCRIBE_CONFIGS, AlterConfigs and IncrementalAlterConfigs: ALTER_CONFIGS,
 *   on the topic (TOPIC_AUTHORIZATION_FAILED) or, for a broker or broker logger, on the cluster
 *   (CLUSTER_AUTHORIZATION_FAILED), per resource.
 * - ElectLeaders, AlterPartitionReassignments, UpdateFeatures: ALTER on the cluster;
 *   ListPartitionReassignments: DESCRIBE on the cluster (the handler's own error response with
 *   CLUSTER_AUTHORIZATION_FAILED). DescribeLogDirs without DESCRIBE on the cluster lists no log
 *   dir; DescribeCluster's authorized operations are computed when asked.
 */
import type { ApiHandler, RequestContext } from '../../api-handler.js';
import { errorCode } from '../../error-codes.js';
import type { ApiKey } from '../../generated/index.js';
import type { BrokerGateway } from '../broker-gateway.js';
import { authorize, authorizeCluster, authorizedOperations, authorizerOf } from './authz.js';
import { nowMs, quotaClient, type Handle } from './guard-kit.js';

const TOPIC_AUTHORIZATION_FAILED = errorCode('TOPIC_AUTHORIZATION_FAILED');
const CLUSTER_AUTHORIZATION_FAILED = errorCode('CLUSTER_AUTHORIZATION_FAILED');
const THROTTLING_QUOTA_EXCEEDED = errorCode('THROTTLING_QUOTA_EXCEEDED');

/** The handler's own error response with CLUSTER_AUTHORIZATION_FAILED unless the principal may `operation` the cluster. */
export function guardCluster(gateway: BrokerGateway, inner: ApiHandler, operation: 'ALTER' | 'DESCRIBE' | 'CLUSTER_ACTION'): Handle<unknown, unknown> {
  return (request, ctx) => (authorizeCluster(gateway, ctx, operation) ? inner.handle(request as never, ctx) : inner.errorResponse(request as never, CLUSTER_AUTHORIZATION_FAILED, ctx));
}

interface MutationOptions<T> {
  operation: 'CREATE' | 'DELETE' | 'ALTER';
  strictSince: number;
  name: (t: T) => string;
  /** How many partitions the item creates or deletes. */
  partitions: (t: T) => number;
  items: (request: never) => T[];
  withItems: (request: never, items: T[]) => unknown;
  /** The response's per-item results and how to read a result's name and error. */
  results: (response: never) => { name?: string | null; errorCode?: number; errorMessage?: string | null }[];
  refused: (t: T, code: number, message: string) => { name?: string | null; errorCode?: number; errorMessage?: string | null };
  validateOnly: (request: never) => boolean;
}

/** Authorization per topic (or the cluster) and the controller mutation quota, for CreateTopics, DeleteTopics and CreatePartitions. */
function guardMutations<T>(gateway: BrokerGateway, inner: ApiHandler, o: MutationOptions<T>): Handle<unknown, unknown> {
  return async (request, ctx: RequestContext) => {
    const items = o.items(request as never);
    const clusterWide = authorizeCluster(gateway, ctx, o.operation);
    const quotas = gateway.engine.security.quotas(gateway.brokerId);
    const client = quotaClient(ctx);
    const strict = ctx.apiVersion >= o.strictSince;
    const validateOnly = o.validateOnly(request as never);
    const refusals = new Map<string, { code: number; message: string }>();
    for (const t of items) {
      if (!clusterWide && !authorize(gateway, ctx, o.operation, 'TOPIC', o.name(t))) refusals.set(o.name(t), { code: TOPIC_AUTHORIZATION_FAILED, message: 'Authorization failed.' });
      else if (strict && !validateOnly && quotas.recordMutations(client, 0, true, nowMs(gateway)).refused) {
        refusals.set(o.name(t), { code: THROTTLING_QUOTA_EXCEEDED, message: 'The throttling quota has been exceeded.' });
      }
    }
    const allowed = items.filter((t) => !refusals.has(o.name(t)));
    const sizes = new Map(allowed.map((t) => [o.name(t), o.partitions(t)]));
    const response = (allowed.length > 0 ? await inner.handle(o.withItems(request as never, allowed) as never, ctx) : inner.errorResponse(o.withItems(request as never, []) as never, 0, ctx)) as never;
    if (response === null) return null;
    const results = o.results(response);
    if (!validateOnly) {
      let done = 0;
      for (const r of results) if ((r.errorCode ?? 0) === 0) done += sizes.get(r.name ?? '') ?? 0;
      if (done > 0) {
        const { throttleMs } = quotas.recordMutations(client, done, false, nowMs(gateway));
        ctx.throttleMs = Math.max(ctx.throttleMs, throttleMs);
      }
    }
    for (const t of items) {
      const r = refusals.get(o.name(t));
      if (r) results.push(o.refused(t, r.code, r.message));
    }
    return response;
  };
}

type CreatableTopic = { name: string; numPartitions: number; assignments: unknown[] };

export function guardCreateTopics(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.CreateTopics>): Handle<unknown, unknown> {
  return guardMutations<CreatableTopic>(gateway, inner as ApiHandler, {
    operation: 'CREATE',
    strictSince: 6,
    name: (t) => t.name,
    partitions: (t) => (t.assignments.length > 0 ? t.assignments.length : t.numPartitions === -1 ? gateway.engine.clusterConfig().numPartitions : t.numPartitions),
    items: (r: { topics: CreatableTopic[] }) => r.topics,
    withItems: (r: object, topics) => ({ ...r, topics }),
    results: (res: { topics?: { name?: string; errorCode?: number }[] }) => (res.topics ??= []),
    refused: (t, code, message) => ({ name: t.name, errorCode: code, errorMessage: message, numPartitions: -1, replicationFactor: -1, configs: null }) as never,
    validateOnly: (r: { validateOnly: boolean }) => r.validateOnly,
  });
}

type DeletableTopic = { name: string | null };

export function guardDeleteTopics(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.DeleteTopics>): Handle<unknown, unknown> {
  const partitionsOf = (name: string): number => gateway.engine.metadata.topicsByName.get(name)?.partitions.size ?? 0;
  return async (request, ctx) => {
    // v0–5 name topics in topicNames, v6 in topics (by name or id): guard whichever the request uses.
    const r = request as { topicNames: string[]; topics: DeletableTopic[] };
    const byName = r.topics.length === 0;
    const items: DeletableTopic[] = byName ? r.topicNames.map((name) => ({ name })) : r.topics;
    return guardMutations<DeletableTopic>(gateway, inner as ApiHandler, {
      operation: 'DELETE',
      strictSince: 5,
      name: (t) => t.name ?? '',
      partitions: (t) => partitionsOf(t.name ?? ''),
      items: () => items,
      withItems: (req: object, kept) => (byName ? { ...req, topicNames: kept.map((t) => t.name) } : { ...req, topics: kept }),
      results: (res: { responses?: { name?: string | null; errorCode?: number }[] }) => (res.responses ??= []),
      refused: (t, code, message) => ({ name: t.name, errorCode: code, errorMessage: message }),
      validateOnly: () => false,
    })(request, ctx);
  };
}

type PartitionsTopic = { name: string; count: number };

export function guardCreatePartitions(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.CreatePartitions>): Handle<unknown, unknown> {
  return guardMutations<PartitionsTopic>(gateway, inner as ApiHandler, {
    operation: 'ALTER',
    strictSince: 3,
    name: (t) => t.name,
    partitions: (t) => Math.max(0, t.count - (gateway.engine.metadata.topicsByName.get(t.name)?.partitions.size ?? t.count)),
    items: (r: { topics: PartitionsTopic[] }) => r.topics,
    withItems: (r: object, topics) => ({ ...r, topics }),
    results: (res: { results?: { name?: string; errorCode?: number }[] }) => (res.results ??= []),
    refused: (t, code, message) => ({ name: t.name, errorCode: code, errorMessage: message }),
    validateOnly: (r: { validateOnly: boolean }) => r.validateOnly,
  });
}

const BROKER = 4;
const BROKER_LOGGER = 8;
const TOPIC = 2;

type ConfigResource = { resourceType: number; resourceName: string };

/**
 * DescribeConfigs (DESCRIBE_CONFIGS), AlterConfigs and IncrementalAlterConfigs (ALTER_CONFIGS):
 * the resources the principal may not touch are answered with the authorization error and the
 * handler sees only the others.
 */
export function guardConfigs(gateway: BrokerGateway, inner: ApiHandler, operation: 'DESCRIBE_CONFIGS' | 'ALTER_CONFIGS', resultsKey: 'results' | 'responses'): Handle<unknown, unknown> {
  return async (request, ctx) => {
    if (!authorizerOf(gateway).enabled) return inner.handle(request as never, ctx);
    const r = request as { resources: ConfigResource[] };
    const denied = (res: ConfigResource): number | null => {
      if (res.resourceType === TOPIC) return authorize(gateway, ctx, operation, 'TOPIC', res.resourceName) ? null : TOPIC_AUTHORIZATION_FAILED;
      if (res.resourceType === BROKER || res.resourceType === BROKER_LOGGER) return authorizeCluster(gateway, ctx, operation) ? null : CLUSTER_AUTHORIZATION_FAILED;
      return null;
    };
    const refused = r.resources.map((res) => ({ res, code: denied(res) })).filter((x) => x.code !== null);
    if (refused.length === 0) return inner.handle(request as never, ctx);
    const allowed = r.resources.filter((res) => denied(res) === null);
    const response = (allowed.length > 0 ? await inner.handle({ ...r, resources: allowed } as never, ctx) : { throttleTimeMs: 0, [resultsKey]: [] }) as Record<string, unknown[]> | null;
    if (!response) return null;
    const message = (code: number) => (code === TOPIC_AUTHORIZATION_FAILED ? 'Topic authorization failed.' : 'Cluster authorization failed.');
    for (const { res, code } of refused) {
      (response[resultsKey] ??= []).push({ errorCode: code, errorMessage: message(code!), resourceType: res.resourceType, resourceName: res.resourceName, ...(resultsKey === 'results' ? { configs: [] } : {}) });
    }
    return response;
  };
}

export function guardDescribeLogDirs(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.DescribeLogDirs>): Handle<unknown, unknown> {
  return (request, ctx) => (authorizeCluster(gateway, ctx, 'DESCRIBE') ? inner.handle(request as never, ctx) : { throttleTimeMs: 0, errorCode: CLUSTER_AUTHORIZATION_FAILED, results: [] });
}

export function guardDescribeCluster(gateway: BrokerGateway, inner: ApiHandler<typeof ApiKey.DescribeCluster>): Handle<unknown, unknown> {
  return async (request, ctx) => {
    const res = (await inner.handle(request as never, ctx)) as { clusterAuthorizedOperations?: number } | null;
    if (res && (request as { includeClusterAuthorizedOperations: boolean }).includeClusterAuthorizedOperations) {
      res.clusterAuthorizedOperations = authorizeCluster(gateway, ctx, 'DESCRIBE') ? authorizedOperations(gateway, ctx, 'CLUSTER', 'kafka-cluster') : 0;
    }
    return res;
  };
}
