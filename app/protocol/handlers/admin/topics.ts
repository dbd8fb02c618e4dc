/**
 * CreateTopics (19), DeleteTopics (20) and CreatePartitions (37), as a KRaft broker forwards them
 * to the controller (here: the engine's controller operations, with their validation and errors).
 *
 *   CreateTopics     => [name num_partitions replication_factor [assignment] [config]] timeout_ms
 *                       validate_only(v1+)
 *   CreateTopicsResp => throttle(v2+) [name topic_id(v7+) error_code error_message(v1+)
 *                       num_partitions(v5+) replication_factor(v5+) [configs](v5+)]
 *   DeleteTopics     => [topic_names] (v0-5) | [name topic_id] (v6+) timeout_ms
 *   CreatePartitions => [name count [assignment]] timeout_ms validate_only
 *
 * Kafka's request-level rules kept here: a name given twice gets INVALID_REQUEST on every entry
 * (ControllerApis.createTopics); a config with a null value is INVALID_REQUEST; -1 counts take the
 * broker defaults (v4+). The timeout is not waited on: the controller answers once it committed.
 */
import { describeTopicConfigs } from '../../../core/configs/resolve.js';
import { KafkaError } from '../../../api/errors.js';
import type { ApiHandler } from '../../api-handler.js';
import { ApiKey } from '../../generated/index.js';
import { ADVERTISED_VERSIONS } from '../api-versions.js';
import { CONFIG_SOURCE } from './config-source.js';
import { type AdminGateway, outcome, run } from './gateway.js';

const ZERO_ID = '00000000-0000-0000-0000-000000000000';

function duplicates(names: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const n of names) (seen.has(n) ? dup : seen).add(n);
  return dup;
}

export function createTopicsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.CreateTopics> {
  const { engine } = gateway;
  return {
    apiKey: ApiKey.CreateTopics,
    advertised: ADVERTISED_VERSIONS[ApiKey.CreateTopics]!,
    async handle(request) {
      const dup = duplicates(request.topics.map((t) => t.name));
      const topics = await Promise.all(
        request.topics.map(async (t) => {
          const base = { name: t.name, topicId: ZERO_ID, numPartitions: -1, replicationFactor: -1, configs: null, topicConfigErrorCode: 0 };
          if (dup.has(t.name)) return { ...base, errorCode: 42, errorMessage: `Create topics request contains multiple entries for the following topics: ${t.name}` };
          const r = await outcome(() =>
            run(gateway, () => {
              const nulls = t.configs.filter((c) => c.value === null).map((c) => c.name);
              if (nulls.length > 0) throw new KafkaError('INVALID_REQUEST', `Null value not supported for topic configs: ${nulls.join(',')}`);
              const configs = Object.fromEntries(t.configs.map((c) => [c.name, c.value!]));
              const assignments = t.assignments.length > 0 ? [...t.assignments].sort((a, b) => a.partitionIndex - b.partitionIndex).map((a) => a.brokerIds) : undefined;
              if (assignments && (t.numPartitions !== -1 || t.replicationFactor !== -1)) {
                throw new KafkaError('INVALID_REQUEST', 'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.');
              }
              const created = engine.createTopic({
                name: t.name,
                ...(assignments ? { assignments } : { partitions: t.numPartitions, replicationFactor: t.replicationFactor }),
                configs,
                validateOnly: request.validateOnly,
              });
              return { created, configs };
            }),
          );
          if (!r.value) return { ...base, errorCode: r.errorCode, errorMessage: r.errorMessage };
          const { created, configs } = r.value;
          const described = describeTopicConfigs(configs, engine.metadata.clusterConfigs(), engine.staticConfigs);
          return {
            ...base,
            topicId: created.topicId,
            errorCode: 0,
            errorMessage: null,
            numPartitions: created.partitions.length,
            replicationFactor: created.partitions[0]?.replicas.length ?? -1,
            configs: described.map((c) => ({ name: c.name, value: c.value, readOnly: c.readOnly, configSource: CONFIG_SOURCE[c.source], isSensitive: c.sensitive })),
          };
        }),
      );
      return { throttleTimeMs: 0, topics };
    },
    errorResponse: (request, code) => ({ throttleTimeMs: 0, topics: request.topics.map((t) => ({ name: t.name, errorCode: code, errorMessage: null })) }),
  };
}

export function deleteTopicsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.DeleteTopics> {
  const { engine } = gateway;
  const names = (request: { topics: { name: string | null; topicId: string }[]; topicNames: string[] }): { name: string | null; topicId: string }[] =>
    request.topicNames.length > 0 ? request.topicNames.map((name) => ({ name, topicId: ZERO_ID })) : request.topics;
  return {
    apiKey: ApiKey.DeleteTopics,
    advertised: ADVERTISED_VERSIONS[ApiKey.DeleteTopics]!,
    async handle(request) {
      const responses = await Promise.all(
        names(request).map(async (t) => {
          const name = t.name ?? [...engine.metadata.topicsByName.values()].find((x) => x.topicId === t.topicId)?.name ?? null;
          const topicId = name !== null ? (engine.metadata.topicsByName.get(name)?.topicId ?? t.topicId) : t.topicId;
          if (name === null) return { name: null, topicId, errorCode: 100, errorMessage: 'This server does not host this topic ID.' };
          const r = await outcome(() => run(gateway, () => engine.deleteTopic(name)));
          return { name, topicId, errorCode: r.errorCode, errorMessage: r.errorMessage };
        }),
      );
      return { throttleTimeMs: 0, responses };
    },
    errorResponse: (request, code) => ({ throttleTimeMs: 0, responses: names(request).map((t) => ({ name: t.name, topicId: t.topicId, errorCode: code, errorMessage: null })) }),
  };
}

export function createPartitionsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.CreatePartitions> {
  const { engine } = gateway;
  return {
    apiKey: ApiKey.CreatePartitions,
    advertised: ADVERTISED_VERSIONS[ApiKey.CreatePartitions]!,
    async handle(request) {
      const dup = duplicates(request.topics.map((t) => t.name));
      const results = await Promise.all(
        request.topics.map(async (t) => {
          if (dup.has(t.name)) return { name: t.name, errorCode: 42, errorMessage: 'Duplicate topic in request.' };
          const r = await outcome(() => run(gateway, () => engine.createPartitions(t.name, t.count, t.assignments?.map((a) => a.brokerIds), request.validateOnly)));
          return { name: t.name, errorCode: r.errorCode, errorMessage: r.errorMessage };
        }),
      );
      return { throttleTimeMs: 0, results };
    },
    errorResponse: (request, code) => ({ throttleTimeMs: 0, results: request.topics.map((t) => ({ name: t.name, errorCode: code, errorMessage: null })) }),
  };
}
