/**
 * The JSON Schema (draft-07) of profile format version 1, built from the config catalogue so
 * that the key names, docs, defaults and value formats it offers an editor are the ones the
 * validator enforces. `resources/profiles/profile.schema.json` is `profileJsonSchemaText()`; a
 * test keeps the file and this generator equal.
 *
 * What the schema checks: structure, required fields, known config keys per section, value
 * formats (integer, boolean, enum, list). What only `validateProfile` checks: numeric ranges of
 * config values (`min.insync.replicas` >= 1), cross-field rules (racks per broker, replication
 * factor <= brokers, idempotence needs acks=all, notes name present settings) and warnings.
 */
import { SUPPORTED_FEATURES } from '../controller/features.js';
import { BROKER_CONFIGS, TOPIC_CONFIGS } from '../configs/catalogue.js';
import { PLACED_ELSEWHERE } from './validate.js';
import type { ConfigRule, ConfigType } from '../configs/catalogue.js';
import { CONSUMER_CONFIGS, PRODUCER_CONFIGS } from './client-configs.js';
import { MAX_REPLICATION_FACTOR, NOTE_KEY_PATTERN, PROFILE_NAME_PATTERN } from './validate.js';

type Schema = Record<string, unknown>;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The regex body (unanchored, untrimmed) of a value of this type and rule; undefined = any string. */
function valueBody(type: ConfigType, rule: ConfigRule): string | undefined {
  const alternatives = (values: readonly string[]): string => values.map(escape).join('|');
  switch (type) {
    case 'boolean':
      return '[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]';
    case 'int':
    case 'long':
      return '[+-]?[0-9]+';
    case 'double':
      return '[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?';
    case 'string':
      return rule.kind === 'enum' ? alternatives(rule.values) : undefined;
    case 'list':
      if (rule.kind === 'list-subset') {
        const item = `(?:${alternatives(rule.values)})`;
        return `(?:${item}(?:\\s*,\\s*${item})*)?`;
      }
      if (rule.kind === 'throttled-replicas') return '(?:\\*|[0-9]+:[0-9]+(?:\\s*,\\s*[0-9]+:[0-9]+)*)?';
      return undefined;
  }
}

interface KeyDef {
  name: string;
  type: ConfigType;
  rule: ConfigRule;
  default: string | null;
  doc: string;
  alsoMatches?: RegExp;
}

function valueSchema(d: KeyDef): Schema {
  const schema: Schema = { type: 'string', description: d.doc };
  if (d.default !== null) schema['default'] = d.default;
  const body = valueBody(d.type, d.rule);
  if (body !== undefined) {
    const extra = d.alsoMatches === undefined ? '' : `|${d.alsoMatches.source.replace(/^\^/, '').replace(/\$$/, '')}`;
    schema['pattern'] = `^\\s*(?:${body}${extra})\\s*$`;
  }
  return schema;
}

function configMap(description: string, defs: readonly KeyDef[]): Schema {
  const sorted = [...defs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    type: 'object',
    description,
    properties: Object.fromEntries(sorted.map((d) => [d.name, valueSchema(d)])),
    additionalProperties: false,
  };
}

const entityName = { oneOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] };

/** The `security` section (security-section.ts): ACL bindings, SCRAM users without passwords, client quotas. */
const SECURITY_SCHEMA: Schema = {
  type: 'object',
  description: "ACL bindings, SCRAM users and client quotas; exported as kafka-acls.sh and kafka-configs.sh commands. A profile carries no password.",
  additionalProperties: false,
  properties: {
    acls: {
      type: 'array',
      items: {
        type: 'object',
        required: ['resourceType', 'resourceName', 'patternType', 'principal', 'host', 'operation', 'permissionType'],
        additionalProperties: false,
        properties: {
          resourceType: { enum: ['TOPIC', 'GROUP', 'CLUSTER', 'TRANSACTIONAL_ID', 'DELEGATION_TOKEN', 'USER'] },
          resourceName: { type: 'string', minLength: 1 },
          patternType: { enum: ['LITERAL', 'PREFIXED'] },
          principal: { type: 'string', pattern: '^[^:]+:.+$' },
          host: { type: 'string', minLength: 1 },
          operation: { enum: ['ALL', 'READ', 'WRITE', 'CREATE', 'DELETE', 'ALTER', 'DESCRIBE', 'CLUSTER_ACTION', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'CREATE_TOKENS', 'DESCRIBE_TOKENS'] },
          permissionType: { enum: ['ALLOW', 'DENY'] },
        },
      },
    },
    scramUsers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'mechanism', 'iterations'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1 },
          mechanism: { enum: ['SCRAM-SHA-256', 'SCRAM-SHA-512'] },
          iterations: { type: 'integer', minimum: 4096, maximum: 16384 },
        },
      },
    },
    quotas: {
      type: 'array',
      items: {
        type: 'object',
        required: ['entity', 'values'],
        additionalProperties: false,
        properties: {
          entity: { type: 'object', minProperties: 1, additionalProperties: false, properties: { user: entityName, 'client-id': entityName } },
          values: {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(['producer_byte_rate', 'consumer_byte_rate', 'request_percentage', 'controller_mutation_rate'].map((k) => [k, { type: 'number', exclusiveMinimum: 0 }])),
          },
        },
      },
    },
  },
};

/** The schema as a plain object. */
export function profileJsonSchema(): Schema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $comment:
      'Generated from the config catalogue by app/core/profiles/json-schema.ts. Ranges and cross-field rules ' +
      '(replication factor <= brokers, one rack per broker, idempotence needs acks=all, notes name present settings) ' +
      'are checked by the validator in app/core/profiles/validate.ts.',
    title: 'Replica Studio config profile, format version 1',
    type: 'object',
    required: ['version', 'name', 'cluster', 'topicDefaults'],
    additionalProperties: false,
    properties: {
      $schema: { type: 'string', description: 'Where an editor finds this schema.' },
      version: { const: 1, description: 'Profile format version.' },
      name: { type: 'string', pattern: PROFILE_NAME_PATTERN.source, description: 'Profile name; also used in exported file names.' },
      description: { type: 'string' },
      cluster: {
        type: 'object',
        required: ['brokers'],
        additionalProperties: false,
        properties: {
          brokers: { type: 'integer', minimum: 1, description: 'Number of brokers, node ids 1..brokers.' },
          racks: {
            description: 'broker.rack of each broker in node-id order, or a rack count n (node i goes to rack-((i-1) mod n + 1)).',
            oneOf: [
              { type: 'integer', minimum: 1 },
              { type: 'array', minItems: 1, items: { type: 'string', pattern: '\\S' } },
            ],
          },
        },
      },
      // broker.rack is in the catalogue (configs.describe shows it) but a profile sets racks in cluster.racks.
      brokerConfigs: configMap('Broker configs (Kafka keys, string values), read-only ones included: they go to server.properties.', BROKER_CONFIGS.filter((d) => !Object.hasOwn(PLACED_ELSEWHERE, d.name))),
      features: {
        type: 'object',
        description: 'Finalized feature levels, set with kafka-features.sh upgrade --feature name=level (KIP-584), e.g. eligible.leader.replicas.version: 1 turns on eligible leader replicas (KIP-966).',
        additionalProperties: false,
        properties: Object.fromEntries(SUPPORTED_FEATURES.map((f) => [f.name, { type: 'integer', minimum: f.minVersion, maximum: f.maxVersion, description: f.description }])),
      },
      topicDefaults: {
        type: 'object',
        required: ['partitions', 'replicationFactor'],
        additionalProperties: false,
        properties: {
          partitions: { type: 'integer', minimum: 1, maximum: 2147483647 },
          replicationFactor: { type: 'integer', minimum: 1, maximum: MAX_REPLICATION_FACTOR },
          configs: configMap('Topic configs given to every topic created with the profile.', TOPIC_CONFIGS),
        },
      },
      producer: configMap('Java producer settings.', PRODUCER_CONFIGS),
      consumer: configMap('Java consumer settings.', CONSUMER_CONFIGS),
      security: SECURITY_SCHEMA,
      notes: {
        type: 'object',
        description: 'One-line rationale per setting, keyed by its path, e.g. "brokerConfigs.min.insync.replicas", "features.eligible.leader.replicas.version" or "producer.acks".',
        propertyNames: { pattern: NOTE_KEY_PATTERN.source },
        additionalProperties: { type: 'string', pattern: '\\S' },
      },
    },
  };
}

/** The schema file's exact text. */
export function profileJsonSchemaText(): string {
  return `${JSON.stringify(profileJsonSchema(), null, 2)}\n`;
}
