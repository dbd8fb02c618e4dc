/**
 * DescribeConfigs (32), AlterConfigs (33) and IncrementalAlterConfigs (44) for topics (type 2)
 * and brokers (type 4), over the engine's config resolution and its controller's config changes.
 *
 *   DescribeConfigs  => [resource_type resource_name [configuration_keys]] include_synonyms(v1+)
 *                       include_documentation(v3+)
 *   Resp             => [error_code error_message resource_type resource_name [name value read_only
 *                       is_default(v0) config_source(v1+) is_sensitive [synonyms](v1+)
 *                       config_type(v3+) documentation(v3+)]]
 *   AlterConfigs     => [resource_type resource_name [name value]] validate_only
 *   IncrementalAlterConfigs => [resource_type resource_name [name op value]] validate_only
 *                       (op: 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT)
 *
 * Kafka's rules kept: a broker resource is '' (the cluster-wide default) or the receiving
 * broker's id, for describing ("Unexpected broker id, expected N or empty string, but received M")
 * and altering ("… expected N, but received M"), else INVALID_REQUEST; '' describes only the
 * dynamic defaults that are set; a broker resource's alter keeps names Kafka does not know and
 * answers INVALID_REQUEST for what its dynamic config refuses; legacy AlterConfigs refuses a
 * resource named twice, a key given twice and a null value; AlterConfigs replaces every dynamic config of the resource (what
 * it omits is deleted); APPEND and SUBTRACT apply to list configs only, starting from the
 * resource's own value or the config's default. Other resource types are INVALID_REQUEST.
 */
import { KafkaError } from '../../../api/errors.js';
import { configDef } from '../../../core/configs/catalogue.js';
import { brokerStaticConfigs, describeBrokerConfigs, describeTopicConfigs, type ResolvedConfig } from '../../../core/configs/resolve.js';
import { brokerConfigSynonyms, topicConfigSynonyms } from '../../../core/configs/synonyms.js';
import { CLUSTER_DEFAULT } from '../../../core/metadata/image.js';
import type { ApiHandler } from '../../api-handler.js';
import { ApiKey } from '../../generated/index.js';
import { ADVERTISED_VERSIONS } from '../api-versions.js';
import { CONFIG_SOURCE, CONFIG_TYPE, RESOURCE_TYPE } from './config-source.js';
import { type AdminGateway, outcome, resultError, run } from './gateway.js';

type Scope = 'topic' | 'broker';

function scopeOf(resourceType: number): Scope {
  if (resourceType === RESOURCE_TYPE.topic) return 'topic';
  if (resourceType === RESOURCE_TYPE.broker) return 'broker';
  throw new KafkaError('INVALID_REQUEST', `Unsupported resource type ${resourceType} (this broker serves topic and broker configs).`);
}

/** The resource's own dynamic configs, checking it exists (and, for a broker, that it is this one or ''). */
function ownConfigs(gateway: AdminGateway, scope: Scope, name: string, forDescribe: boolean): Record<string, string> {
  const image = gateway.engine.metadata;
  if (scope === 'topic') {
    const topic = image.topicsByName.get(name);
    if (!topic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${name} does not exist.`);
    return { ...topic.configs };
  }
  if (name === CLUSTER_DEFAULT) return { ...image.clusterConfigs() };
  // Describe: ConfigHelper's words; alter: ConfigAdminManager.validateResourceNameIsCurrentNodeId's.
  if (!/^-?\d+$/.test(name)) throw new KafkaError('INVALID_REQUEST', `${forDescribe ? 'Broker' : 'Node'} id must be an integer, but it is: ${name}`);
  if (Number(name) !== gateway.brokerId) {
    throw new KafkaError('INVALID_REQUEST', `Unexpected broker id, expected ${gateway.brokerId}${forDescribe ? ' or empty string' : ''}, but received ${name}`);
  }
  return { ...(image.brokerConfigs.get(name) ?? {}) };
}

/** The static configs this broker reports: the cluster's, plus its own node.id, broker.id and broker.rack. */
function ownStatics(gateway: AdminGateway): Record<string, string> {
  const rack = gateway.engine.members().find((m) => m.id === gateway.brokerId)?.rack ?? null;
  return brokerStaticConfigs(gateway.engine.staticConfigs, gateway.brokerId, rack);
}

function described(gateway: AdminGateway, scope: Scope, name: string): ResolvedConfig[] {
  const image = gateway.engine.metadata;
  const statics = ownStatics(gateway);
  const own = ownConfigs(gateway, scope, name, true);
  if (scope === 'topic') return describeTopicConfigs(own, image.clusterConfigs(), statics);
  if (name === CLUSTER_DEFAULT) return describeBrokerConfigs({}, own, statics).filter((c) => c.source === 'DYNAMIC_DEFAULT_BROKER_CONFIG');
  return describeBrokerConfigs(own, image.clusterConfigs(), statics);
}

export function describeConfigsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.DescribeConfigs> {
  return {
    apiKey: ApiKey.DescribeConfigs,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeConfigs]!,
    async handle(request, ctx) {
      const image = gateway.engine.metadata;
      const statics = ownStatics(gateway);
      const results = await Promise.all(
        request.resources.map(async (r) => {
          const base = { resourceType: r.resourceType, resourceName: r.resourceName };
          try {
            const scope = scopeOf(r.resourceType);
            const configs = await run(gateway, () => described(gateway, scope, r.resourceName));
            const own = ownConfigs(gateway, scope, r.resourceName, true);
            const keys = r.configurationKeys === null ? null : new Set(r.configurationKeys);
            return {
              ...base,
              errorCode: 0,
              errorMessage: null,
              configs: configs
                .filter((c) => keys === null || keys.has(c.name))
                .map((c) => {
                  const clusterDefault = scope === 'broker' && r.resourceName === CLUSTER_DEFAULT;
                  const all = (
                    scope === 'topic'
                      ? topicConfigSynonyms(c.name, own, image.clusterConfigs(), statics)
                      : brokerConfigSynonyms(c.name, clusterDefault ? undefined : own, image.clusterConfigs(), statics)
                  ).filter((s) => !clusterDefault || s.source === 'DYNAMIC_DEFAULT_BROKER_CONFIG');
                  const synonyms = request.includeSynonyms && ctx.apiVersion >= 1 ? all.map((s) => ({ name: s.name, value: s.value, source: CONFIG_SOURCE[s.source] })) : [];
                  // Kafka's source is its first synonym's, or DEFAULT_CONFIG when it lists none.
                  const source = all[0]?.source ?? 'DEFAULT_CONFIG';
                  return {
                    name: c.name,
                    // Kafka reports null only for a config with no value at all (a broker config with no default
                    // that nothing sets, e.g. log.retention.ms); an empty list is "".
                    value: c.source === 'DEFAULT_CONFIG' && configDef(scope, c.name)?.default === null ? null : c.value,
                    readOnly: c.readOnly,
                    isDefault: ctx.apiVersion === 0 && source === 'DEFAULT_CONFIG', // a v0 field: later versions have config_source
                    configSource: CONFIG_SOURCE[source],
                    isSensitive: c.sensitive,
                    synonyms,
                    configType: CONFIG_TYPE[configDef(scope, c.name)?.type ?? 'string'],
                    documentation: request.includeDocumentation ? c.doc : null,
                  };
                }),
            };
          } catch (e) {
            return { ...base, ...resultError(e), configs: [] };
          }
        }),
      );
      return { throttleTimeMs: 0, results };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      results: request.resources.map((r) => ({ errorCode: code, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName, configs: [] })),
    }),
  };
}

/**
 * Apply `set` (null deletes) to one resource through the controller, or only validate it. A
 * broker resource is checked as Kafka's ConfigAdminManager checks it before forwarding: names it
 * does not know are kept (a custom key has no effect), and a change its dynamic config refuses is
 * INVALID_REQUEST, not INVALID_CONFIG (KAFKA-13609 keeps it so for compatibility).
 */
function alter(gateway: AdminGateway, scope: Scope, name: string, set: Record<string, string | null>, validateOnly: boolean): Promise<void> {
  return run(gateway, () => {
    ownConfigs(gateway, scope, name, false);
    try {
      gateway.engine.alterConfigs(scope, name, set, validateOnly, { customBrokerKeys: scope === 'broker' });
    } catch (e) {
      if (scope === 'broker' && e instanceof KafkaError && e.code === 'INVALID_CONFIG') throw new KafkaError('INVALID_REQUEST', e.message);
      throw e;
    }
  });
}

/** Legacy AlterConfigs' checks before anything is applied (ConfigAdminManager.preprocess). */
function checkLegacyResource(configs: readonly { name: string; value: string | null }[]): Record<string, string> {
  const names = configs.map((c) => c.name);
  if (new Set(names).size !== names.length) throw new KafkaError('INVALID_REQUEST', 'Error due to duplicate config keys');
  const nulls = configs.filter((c) => c.value === null).map((c) => c.name);
  if (nulls.length > 0) throw new KafkaError('INVALID_REQUEST', `Null value not supported for : ${nulls.join(', ')}`);
  return Object.fromEntries(configs.map((c) => [c.name, c.value as string]));
}

const listOf = (value: string | undefined): string[] => (value ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');

/** An IncrementalAlterConfigs resource's operations as one `set`. */
function incrementalSet(gateway: AdminGateway, scope: Scope, name: string, ops: { name: string; configOperation: number; value: string | null }[]): Record<string, string | null> {
  const own = ownConfigs(gateway, scope, name, false);
  const set: Record<string, string | null> = {};
  const seen = new Set<string>();
  for (const op of ops) {
    if (seen.has(op.name)) throw new KafkaError('INVALID_REQUEST', `Error due to duplicate config keys: ${op.name}`);
    seen.add(op.name);
    if (op.configOperation === 0) set[op.name] = op.value;
    else if (op.configOperation === 1) set[op.name] = null;
    else if (op.configOperation === 2 || op.configOperation === 3) {
      const def = configDef(scope, op.name);
      if (def?.type !== 'list') throw new KafkaError('INVALID_CONFIG', `Config value ${op.configOperation === 2 ? 'append' : 'subtract'} is not allowed for config key: ${op.name}`);
      const current = listOf(own[op.name] ?? def.default ?? '');
      const given = listOf(op.value ?? '');
      set[op.name] = (op.configOperation === 2 ? [...current, ...given.filter((v) => !current.includes(v))] : current.filter((v) => !given.includes(v))).join(',');
    } else throw new KafkaError('INVALID_REQUEST', `Unknown config operation ${op.configOperation} for ${op.name}.`);
  }
  return set;
}

export function incrementalAlterConfigsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.IncrementalAlterConfigs> {
  return {
    apiKey: ApiKey.IncrementalAlterConfigs,
    advertised: ADVERTISED_VERSIONS[ApiKey.IncrementalAlterConfigs]!,
    async handle(request) {
      const responses = await Promise.all(
        request.resources.map(async (r) => {
          const res = await outcome(async () => {
            const scope = scopeOf(r.resourceType);
            const set = await run(gateway, () => incrementalSet(gateway, scope, r.resourceName, r.configs));
            await alter(gateway, scope, r.resourceName, set, request.validateOnly);
          });
          return { errorCode: res.errorCode, errorMessage: res.errorMessage, resourceType: r.resourceType, resourceName: r.resourceName };
        }),
      );
      return { throttleTimeMs: 0, responses };
    },
    errorResponse: (request, code) => ({ throttleTimeMs: 0, responses: request.resources.map((r) => ({ errorCode: code, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })) }),
  };
}

export function alterConfigsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.AlterConfigs> {
  return {
    apiKey: ApiKey.AlterConfigs,
    advertised: ADVERTISED_VERSIONS[ApiKey.AlterConfigs]!,
    async handle(request) {
      const seen = new Map<string, number>();
      for (const r of request.resources) seen.set(`${r.resourceType}:${r.resourceName}`, (seen.get(`${r.resourceType}:${r.resourceName}`) ?? 0) + 1);
      const responses = await Promise.all(
        request.resources.map(async (r) => {
          const res = await outcome(async () => {
            if (seen.get(`${r.resourceType}:${r.resourceName}`)! > 1) throw new KafkaError('INVALID_REQUEST', 'Each resource must appear at most once.');
            const scope = scopeOf(r.resourceType);
            const given = checkLegacyResource(r.configs);
            // The legacy API replaces the resource's dynamic configs: what it omits is deleted.
            const set = await run(gateway, () => {
              const own = ownConfigs(gateway, scope, r.resourceName, false);
              return { ...Object.fromEntries(Object.keys(own).map((k) => [k, null])), ...given };
            });
            await alter(gateway, scope, r.resourceName, set, request.validateOnly);
          });
          return { errorCode: res.errorCode, errorMessage: res.errorMessage, resourceType: r.resourceType, resourceName: r.resourceName };
        }),
      );
      return { throttleTimeMs: 0, responses };
    },
    errorResponse: (request, code) => ({ throttleTimeMs: 0, responses: request.resources.map((r) => ({ errorCode: code, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })) }),
  };
}
