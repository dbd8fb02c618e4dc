/**
 * The profile validator: checks a parsed JSON value against format version 1 and every config
 * key and value against the config catalogue, collecting all problems instead of stopping at the
 * first, each at the path of the offending field.
 *
 * Guarantees:
 * - `ok: true` only with no errors; the profile returned has every optional section present.
 * - Broker configs are checked with `validateConfigs('broker', …, { static: true })`: they are
 *   written to server.properties, so read-only configs are allowed. Topic configs with
 *   `validateConfigs('topic', …)`. Client settings with the same value parser and the checks of
 *   Kafka's ProducerConfig (idempotence needs acks=all, at most 5 in flight and retries > 0;
 *   delivery.timeout.ms >= linger.ms + request.timeout.ms).
 * - Errors are what Kafka or the CLI would refuse; warnings are legal but risky choices (the
 *   durability explainer's warnings among them). The JSON Schema in resources/profiles checks the
 *   structure, the key names and the value formats; ranges and cross-field rules are only here.
 */
import { KafkaError } from '../../api/errors.js';
import { validateConfigs } from '../configs/resolve.js';
import { parseConfigValue } from '../configs/values.js';
import { clientConfigDef, asConfigDef } from './client-configs.js';
import type { ClientKind } from './client-configs.js';
import { normalizeValue, profileDurability, settingPath } from './settings.js';
import type { DurabilityWarningCode } from '../durability.js';
import { SUPPORTED_FEATURES } from '../controller/features.js';
import { checkSecurity } from './security-section.js';
import { PROFILE_FORMAT_VERSION } from './types.js';
import type { ConfigStrings, Profile, ProfileCluster, ProfileIssue, ProfileValidation } from './types.js';

/** Profile names double as file names in exports. */
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Paths a note may be keyed by (the setting must also be present in the profile). */
export const NOTE_KEY_PATTERN =
  /^(cluster\.(brokers|racks)|topicDefaults\.(partitions|replicationFactor)|topicDefaults\.configs\..+|brokerConfigs\..+|features\..+|producer\..+|consumer\..+)$/;

/** Kafka's largest replication factor (an int16 on the wire). */
export const MAX_REPLICATION_FACTOR = 32767;

const ROOT_FIELDS = ['$schema', 'version', 'name', 'description', 'cluster', 'brokerConfigs', 'features', 'topicDefaults', 'producer', 'consumer', 'notes', 'security'];
const CLUSTER_FIELDS = ['brokers', 'racks'];
const TOPIC_DEFAULT_FIELDS = ['partitions', 'replicationFactor', 'configs'];

type Json = Record<string, unknown>;

class Collector {
  readonly errors: ProfileIssue[] = [];
  readonly warnings: ProfileIssue[] = [];
  error(path: string, message: string): void {
    this.errors.push({ path, message });
  }
  warn(path: string, message: string): void {
    this.warnings.push({ path, message });
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${JSON.stringify(v)}`;
}

function unknownFields(c: Collector, obj: Json, allowed: readonly string[], base: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) c.error(settingPath(base, key), `unknown field; expected one of ${allowed.join(', ')}`);
  }
}

function integerField(c: Collector, obj: Json, key: string, base: string, min: number, max?: number): number | undefined {
  const path = settingPath(base, key);
  const v = obj[key];
  if (v === undefined) {
    c.error(path, 'required');
    return undefined;
  }
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    c.error(path, `must be an integer, got ${describe(v)}`);
    return undefined;
  }
  if (v < min) c.error(path, `must be at least ${min}, got ${v}`);
  else if (max !== undefined && v > max) c.error(path, `must be at most ${max}, got ${v}`);
  else return v;
  return undefined;
}

function errorMessage(e: unknown): string {
  return e instanceof KafkaError ? e.message : e instanceof Error ? e.message : String(e);
}

/** The string entries of a config map; non-string values are reported. Undefined if not an object. */
function stringMap(c: Collector, value: unknown, base: string): ConfigStrings | undefined {
  if (value === undefined) return {};
  if (!isObject(value)) {
    c.error(base, `must be an object of config keys to string values, got ${describe(value)}`);
    return undefined;
  }
  const out: ConfigStrings = {};
  for (const [key, v] of Object.entries(value)) {
    // defineProperty, not `out[key] =`: a "__proto__" key must stay a key (and be reported unknown).
    if (typeof v === 'string') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else {
      const hint = typeof v === 'number' || typeof v === 'boolean' ? ` (write "${String(v)}")` : '';
      c.error(settingPath(base, key), `must be a string, as in a .properties file${hint}, got ${describe(v)}`);
    }
  }
  return out;
}

/** Broker settings a profile holds elsewhere, with where (the JSON schema leaves them out too). */
export const PLACED_ELSEWHERE: Readonly<Record<string, string>> = {
  'broker.rack': 'racks are set per broker in cluster.racks',
  'node.id': 'node ids are 1..cluster.brokers',
  'broker.id': 'node ids are 1..cluster.brokers',
  'eligible.leader.replicas.enable':
    'Kafka 4.x has no such broker config (it was a 3.9 controller config): eligible leader replicas are the feature eligible.leader.replicas.version, set in features and exported as kafka-features.sh upgrade --feature eligible.leader.replicas.version=1',
};

function checkCatalogueConfigs(c: Collector, scope: 'broker' | 'topic', map: ConfigStrings, base: string): void {
  let keyErrors = 0;
  for (const [key, value] of Object.entries(map)) {
    if (scope === 'broker' && Object.hasOwn(PLACED_ELSEWHERE, key)) {
      keyErrors++;
      c.error(settingPath(base, key), `${key} does not belong in brokerConfigs: ${PLACED_ELSEWHERE[key]}`);
      continue;
    }
    try {
      validateConfigs(scope, { [key]: value }, { static: true });
    } catch (e) {
      keyErrors++;
      c.error(settingPath(base, key), errorMessage(e));
    }
  }
  if (keyErrors > 0) return;
  try {
    validateConfigs(scope, map, { static: true }); // cross-key rules (e.g. compaction lags)
  } catch (e) {
    c.error(base, errorMessage(e));
  }
}

function checkClientConfigs(c: Collector, client: ClientKind, map: ConfigStrings): boolean {
  let ok = true;
  for (const [key, value] of Object.entries(map)) {
    const path = settingPath(client, key);
    const def = clientConfigDef(client, key);
    if (def === undefined) {
      c.error(path, `Unknown ${client} config name: ${key} (a profile holds the ${client} settings listed in its JSON Schema)`);
      ok = false;
      continue;
    }
    if (def.alsoMatches?.test(value.trim())) continue;
    try {
      parseConfigValue(asConfigDef(def), value);
    } catch (e) {
      ok = false;
      c.error(path, key === 'acks' ? `must be 0, 1, -1 or "all", got ${JSON.stringify(value)}` : errorMessage(e));
    }
  }
  return ok;
}

/** ProducerConfig's cross-checks, with Kafka's messages where Kafka refuses. */
function checkProducer(c: Collector, producer: ConfigStrings): void {
  const get = (k: string): string => normalizeValue(asConfigDef(clientConfigDef('producer', k)!), producer[k] ?? clientConfigDef('producer', k)!.default);
  const acksAll = get('acks') === 'all' || get('acks') === '-1';
  const inFlight = Number(get('max.in.flight.requests.per.connection'));
  const retries = Number(get('retries'));
  const idempotence = producer['enable.idempotence'];
  const conflicts: [string, string][] = [];
  if (!acksAll) conflicts.push(['acks', 'Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.']);
  if (inFlight > 5) {
    conflicts.push(['max.in.flight.requests.per.connection', 'Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer.']);
  }
  if (retries === 0) conflicts.push(['retries', 'Must set retries to non-zero when using the idempotent producer.']);
  if (idempotence !== undefined && get('enable.idempotence') === 'true') {
    for (const [, message] of conflicts) c.error(settingPath('producer', 'enable.idempotence'), message);
  } else if (idempotence === undefined && conflicts.length > 0) {
    const [key] = conflicts[0]!;
    c.warn(
      settingPath('producer', key),
      `enable.idempotence is not set, so the producer quietly turns idempotence off because of ${key}=${get(key)}: retries may duplicate records.`,
    );
  }
  const linger = Number(get('linger.ms'));
  const request = Number(get('request.timeout.ms'));
  const delivery = Number(get('delivery.timeout.ms'));
  if (delivery < linger + request) {
    if (producer['delivery.timeout.ms'] !== undefined) {
      c.error(settingPath('producer', 'delivery.timeout.ms'), 'delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms');
    } else {
      c.warn(settingPath('producer', 'delivery.timeout.ms'), `the producer raises delivery.timeout.ms to linger.ms + request.timeout.ms = ${linger + request}.`);
    }
  }
}

function checkCluster(c: Collector, value: unknown): ProfileCluster | undefined {
  if (!isObject(value)) {
    c.error('cluster', value === undefined ? 'required' : `must be an object, got ${describe(value)}`);
    return undefined;
  }
  unknownFields(c, value, CLUSTER_FIELDS, 'cluster');
  const brokers = integerField(c, value, 'brokers', 'cluster', 1);
  const racks = value['racks'];
  if (racks === undefined) return brokers === undefined ? undefined : { brokers };
  if (typeof racks === 'number') {
    if (!Number.isInteger(racks) || racks < 1) c.error('cluster.racks', `a rack count must be an integer of at least 1, got ${racks}`);
    else if (brokers !== undefined && racks > brokers) c.error('cluster.racks', `${racks} racks for ${brokers} brokers would leave a rack empty`);
    else if (brokers !== undefined) return { brokers, racks };
    return undefined;
  }
  if (!Array.isArray(racks)) {
    c.error('cluster.racks', `must be a rack count or a list of rack names, one per broker, got ${describe(racks)}`);
    return undefined;
  }
  let ok = true;
  racks.forEach((r, i) => {
    if (typeof r !== 'string' || r.trim() === '') {
      ok = false;
      c.error(settingPath('cluster.racks', i), `must be a non-empty rack name, got ${describe(r)}`);
    }
  });
  if (brokers !== undefined && racks.length !== brokers) {
    ok = false;
    c.error('cluster.racks', `lists ${racks.length} rack(s) for ${brokers} broker(s); give one rack name per broker, or a rack count`);
  }
  return ok && brokers !== undefined ? { brokers, racks: racks as string[] } : undefined;
}

/** Feature levels, as `kafka-features.sh upgrade --feature name=level` takes them (KIP-584). */
function checkFeatures(c: Collector, value: unknown): Record<string, number> | undefined {
  if (value === undefined) return {};
  if (!isObject(value)) {
    c.error('features', `must be an object of feature names to levels, got ${describe(value)}`);
    return undefined;
  }
  const out: Record<string, number> = {};
  for (const [name, level] of Object.entries(value)) {
    const path = settingPath('features', name);
    const spec = SUPPORTED_FEATURES.find((f) => f.name === name);
    if (!spec) c.error(path, `Unknown feature ${name} (supported: ${SUPPORTED_FEATURES.map((f) => f.name).join(', ')})`);
    else if (typeof level !== 'number' || !Number.isInteger(level) || level < spec.minVersion || level > spec.maxVersion) {
      c.error(path, `must be a level from ${spec.minVersion} to ${spec.maxVersion}, got ${describe(level)}`);
    } else out[name] = level;
  }
  return out;
}

function checkNotes(c: Collector, value: unknown, present: (key: string) => boolean): Record<string, string> {
  const notes: Record<string, string> = {};
  if (value === undefined) return notes;
  if (!isObject(value)) {
    c.error('notes', `must be an object of setting paths to one-line rationales, got ${describe(value)}`);
    return notes;
  }
  for (const [key, v] of Object.entries(value)) {
    const path = settingPath('notes', key);
    if (typeof v !== 'string' || v.trim() === '') c.error(path, `must be a non-empty string, got ${describe(v)}`);
    else if (!NOTE_KEY_PATTERN.test(key)) {
      c.error(path, 'must name a setting: cluster.brokers, cluster.racks, topicDefaults.<field>, topicDefaults.configs.<key>, brokerConfigs.<key>, features.<name>, producer.<key> or consumer.<key>');
    } else if (!present(key)) c.error(path, `explains ${key}, which this profile does not set`);
    else notes[key] = v;
  }
  return notes;
}

const DURABILITY_PATHS: Record<DurabilityWarningCode, 'minIsr' | 'unclean' | 'acks' | 'rf'> = {
  SINGLE_REPLICA: 'rf',
  MIN_ISR_AT_LEAST_RF: 'minIsr',
  MIN_ISR_ABOVE_RF: 'minIsr',
  JEPSEN_MIN_ISR_ONE: 'minIsr',
  ACKS_NOT_ALL: 'acks',
  UNCLEAN_ELECTION_ENABLED: 'unclean',
};

/** Warnings about a structurally valid profile: durability, rack spread, duplicated defaults. */
function profileWarnings(c: Collector, profile: Profile): void {
  const where = (key: string): string =>
    Object.hasOwn(profile.topicDefaults.configs, key) || !Object.hasOwn(profile.brokerConfigs, key)
      ? settingPath('topicDefaults.configs', key)
      : settingPath('brokerConfigs', key);
  const paths = {
    minIsr: where('min.insync.replicas'),
    unclean: where('unclean.leader.election.enable'),
    acks: settingPath('producer', 'acks'),
    rf: 'topicDefaults.replicationFactor',
  };
  for (const w of profileDurability(profile).warnings) c.warn(paths[DURABILITY_PATHS[w.code]], w.message);

  const rf = profile.topicDefaults.replicationFactor;
  const racks = profile.cluster.racks;
  const rackCount = racks === undefined ? 0 : typeof racks === 'number' ? racks : new Set(racks).size;
  if (rackCount > 1 && rackCount < rf) {
    c.warn('cluster.racks', `${rackCount} racks for replication factor ${rf}: some rack holds two replicas of a partition, so one rack failure takes both.`);
  }
  const derived: [string, string][] = [
    ['num.partitions', String(profile.topicDefaults.partitions)],
    ['default.replication.factor', String(rf)],
  ];
  for (const [key, value] of derived) {
    const set = profile.brokerConfigs[key];
    if (set !== undefined && set.trim() !== value) {
      c.warn(settingPath('brokerConfigs', key), `${set.trim()} differs from the topic defaults (${value}); topics created without explicit settings get ${set.trim()}.`);
    }
  }
}

/** Validate a parsed JSON value as a version-1 profile. */
export function validateProfile(input: unknown): ProfileValidation {
  const c = new Collector();
  if (!isObject(input)) {
    c.error('(root)', `a profile must be a JSON object, got ${describe(input)}`);
    return { ok: false, errors: c.errors, warnings: c.warnings };
  }
  unknownFields(c, input, ROOT_FIELDS, '');

  const version = input['version'];
  if (version === undefined) c.error('version', 'required');
  else if (version !== PROFILE_FORMAT_VERSION) c.error('version', `must be ${PROFILE_FORMAT_VERSION} (the only profile format version), got ${describe(version)}`);

  const schema = input['$schema'];
  if (schema !== undefined && typeof schema !== 'string') c.error('$schema', `must be a string, got ${describe(schema)}`);

  const name = input['name'];
  if (name === undefined) c.error('name', 'required');
  else if (typeof name !== 'string' || !PROFILE_NAME_PATTERN.test(name)) {
    c.error('name', `must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit, got ${describe(name)}`);
  }
  const description = input['description'];
  if (description !== undefined && typeof description !== 'string') c.error('description', `must be a string, got ${describe(description)}`);

  const cluster = checkCluster(c, input['cluster']);

  const brokerConfigs = stringMap(c, input['brokerConfigs'], 'brokerConfigs');
  if (brokerConfigs) checkCatalogueConfigs(c, 'broker', brokerConfigs, 'brokerConfigs');
  const features = checkFeatures(c, input['features']);

  let topicDefaults: Profile['topicDefaults'] | undefined;
  let topicConfigs: ConfigStrings | undefined;
  const td = input['topicDefaults'];
  if (!isObject(td)) c.error('topicDefaults', td === undefined ? 'required' : `must be an object, got ${describe(td)}`);
  else {
    unknownFields(c, td, TOPIC_DEFAULT_FIELDS, 'topicDefaults');
    const partitions = integerField(c, td, 'partitions', 'topicDefaults', 1, 2147483647);
    const replicationFactor = integerField(c, td, 'replicationFactor', 'topicDefaults', 1, MAX_REPLICATION_FACTOR);
    if (replicationFactor !== undefined && cluster !== undefined && replicationFactor > cluster.brokers) {
      c.error(
        'topicDefaults.replicationFactor',
        `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} ` +
          `cannot be reached because only ${cluster.brokers} broker(s) are registered.`,
      );
    }
    topicConfigs = stringMap(c, td['configs'], 'topicDefaults.configs');
    if (topicConfigs) checkCatalogueConfigs(c, 'topic', topicConfigs, 'topicDefaults.configs');
    if (partitions !== undefined && replicationFactor !== undefined && topicConfigs) {
      topicDefaults = { partitions, replicationFactor, configs: topicConfigs };
    }
  }

  const producer = stringMap(c, input['producer'], 'producer');
  if (producer && checkClientConfigs(c, 'producer', producer)) checkProducer(c, producer);
  const consumer = stringMap(c, input['consumer'], 'consumer');
  if (consumer) checkClientConfigs(c, 'consumer', consumer);

  const has = (map: ConfigStrings | undefined, key: string): boolean => map !== undefined && Object.hasOwn(map, key);
  const notes = checkNotes(c, input['notes'], (key) => {
    if (key === 'cluster.brokers' || key === 'topicDefaults.partitions' || key === 'topicDefaults.replicationFactor') return true;
    if (key === 'cluster.racks') return isObject(input['cluster']) && input['cluster']['racks'] !== undefined;
    const prefixes: [string, ConfigStrings | undefined][] = [
      ['topicDefaults.configs.', topicConfigs],
      ['brokerConfigs.', brokerConfigs],
      ['features.', features ? Object.fromEntries(Object.keys(features).map((k) => [k, ''])) : undefined],
      ['producer.', producer],
      ['consumer.', consumer],
    ];
    for (const [prefix, map] of prefixes) if (key.startsWith(prefix)) return has(map, key.slice(prefix.length));
    return false;
  });

  const security = checkSecurity(input['security'], (path, message) => c.error(path, message));

  if (c.errors.length > 0 || !cluster || !brokerConfigs || !features || !topicDefaults || !producer || !consumer || !security || typeof name !== 'string') {
    return { ok: false, errors: c.errors, warnings: c.warnings };
  }
  const profile: Profile = {
    ...(typeof schema === 'string' ? { $schema: schema } : {}),
    version: PROFILE_FORMAT_VERSION,
    name,
    ...(typeof description === 'string' ? { description } : {}),
    cluster,
    brokerConfigs,
    features,
    topicDefaults,
    producer,
    consumer,
    notes,
    security,
  };
  profileWarnings(c, profile);
  return { ok: true, profile, warnings: c.warnings };
}

/** Parse profile JSON text and validate it; a syntax error is reported at `(root)`. */
export function parseProfileJson(text: string): ProfileValidation {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [{ path: '(root)', message: `not valid JSON: ${errorMessage(e)}` }], warnings: [] };
  }
  return validateProfile(value);
}

/** `path: message`, the way issues are shown to a user. */
export function formatProfileIssue(issue: ProfileIssue): string {
  return `${issue.path}: ${issue.message}`;
}
