/**
 * Client quotas in the metadata log (KIP-546's DescribeClientQuotas and AlterClientQuotas over
 * KIP-13/KIP-55/KIP-124/KIP-599 quotas): an entity is a user, a client id or both (each a name or
 * the default), or an IP; each holds quota values by key. Validation as KRaft's
 * ClientQuotaControlManager, the describe filter as ClientQuotasImage, and which entity's quota a
 * client gets as ClientQuotaManager's default callback (quotaMetricTags, then quotaLimit):
 *
 *   1 user=U, client-id=C     2 user=U, client-id=<default>     3 user=U
 *   4 user=<default>, client-id=C     5 user=<default>, client-id=<default>     6 user=<default>
 *   7 client-id=C     8 client-id=<default>
 *
 * per quota key, the first level that sets it. Clients that resolve to the same metric tags share
 * one rate (a quota on user=<default> is each user's own; one on client-id=C all C's).
 */
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import type { MetadataRecord } from '../metadata/records.js';
import type { QuotaEntity, QuotaEntityType } from './types.js';

export type { QuotaEntity, QuotaEntityType } from './types.js';

/** The quota keys of user and client-id entities (QuotaConfig.userAndClientQuotaConfigs) and their types. */
export const CLIENT_QUOTA_KEYS = {
  producer_byte_rate: 'long',
  consumer_byte_rate: 'long',
  request_percentage: 'double',
  controller_mutation_rate: 'double',
} as const;
export type ClientQuotaKey = keyof typeof CLIENT_QUOTA_KEYS;
/** IP entities have one key (QuotaConfig.ipConfigs), enforced by each broker's listener (connection-quotas.ts). */
export const IP_QUOTA_KEYS = { connection_creation_rate: 'int' } as const;

const ORDER: readonly QuotaEntityType[] = ['user', 'client-id', 'ip'];

/** A canonical key of an entity (types in a fixed order, default as <default>). */
export function entityKey(entity: QuotaEntity): string {
  return ORDER.filter((t) => t in entity)
    .map((t) => `${t}=${entity[t] === null ? '<default>' : JSON.stringify(entity[t])}`)
    .join(',');
}

/** Kafka's rendering of an entity in messages (ClientQuotaEntity.toString). */
export function entityText(entity: QuotaEntity): string {
  return `ClientQuotaEntity(entries={${ORDER.filter((t) => t in entity)
    .map((t) => `${t}=${entity[t]}`)
    .join(', ')}})`;
}

/** An entity in words, as kafka-configs.sh names it: `user alice, client-id <default>`. */
export function quotaEntityWords(entity: QuotaEntity): string {
  return ORDER.filter((t) => t in entity)
    .map((t) => `${t} ${entity[t] === null ? '<default>' : entity[t]}`)
    .join(', ');
}

export interface QuotaAlteration {
  entity: QuotaEntity;
  /** A value sets the key, null removes it. */
  ops: { key: string; value: number | null }[];
}

export interface QuotaAlterResult {
  entity: QuotaEntity;
  errorCode: KafkaErrorName;
  errorMessage: string | null;
}

type Failure = { code: KafkaErrorName; message: string };
const invalid = (message: string): Failure => ({ code: 'INVALID_REQUEST', message });

function validateEntity(entity: QuotaEntity): Failure | null {
  const types = Object.keys(entity);
  if (types.length === 0) return invalid('Invalid empty client quota entity');
  for (const t of types) {
    if (!(ORDER as readonly string[]).includes(t)) return invalid(`Unhandled client quota entity type: ${t}`);
    if (entity[t as QuotaEntityType] === '') return invalid(`Empty ${t} not supported`);
  }
  if ('ip' in entity && ('user' in entity || 'client-id' in entity)) return invalid('Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId');
  return null;
}

/** An IP entity names an address (IPv4 or IPv6 literal) or the default; host names are not resolved here. */
function validIp(ip: string | null | undefined): boolean {
  if (ip === null || ip === undefined) return true;
  return /^(\d{1,3})(\.\d{1,3}){3}$/.test(ip) ? ip.split('.').every((o) => Number(o) <= 255) : /^[0-9a-fA-F:]+$/.test(ip) && ip.includes(':');
}

function validateValue(types: Record<string, string>, key: string, value: number): Failure | null {
  const type = types[key];
  if (type === undefined) return invalid(`Invalid configuration key ${key}`);
  if (!(value > 0)) return invalid(`Quota ${key} must be greater than 0`);
  if (type === 'double') return null;
  if (type === 'int' && value > 2147483647) return invalid(`Proposed value for ${key} is too large for an INT.`);
  if (type === 'long' && value > 2 ** 63) return invalid(`Proposed value for ${key} is too large for a LONG.`);
  if (Math.abs(value % 1) > 1e-6) return invalid(`${key} cannot be a fractional value.`);
  return null;
}

/**
 * ClientQuotaControlManager.alterClientQuotas: per entity, a key twice or the entity twice is
 * INVALID_REQUEST ("Ignoring duplicate entity …"), an invalid entity, key or value INVALID_REQUEST
 * with nothing of that entity changed; only keys whose value changes become records.
 */
export function alterClientQuotas(
  current: (entity: QuotaEntity) => Readonly<Record<string, number>> | undefined,
  alterations: readonly QuotaAlteration[],
): { records: MetadataRecord[]; results: QuotaAlterResult[] } {
  const records: MetadataRecord[] = [];
  const results = new Map<string, QuotaAlterResult>();
  const fail = (entity: QuotaEntity, f: Failure): void => void results.set(entityKey(entity), { entity, errorCode: f.code, errorMessage: f.message });
  for (const { entity, ops } of alterations) {
    const key = entityKey(entity);
    const changes = new Map<string, number | null>();
    for (const op of ops) {
      if (changes.has(op.key)) fail(entity, invalid(`Duplicate quota key ${op.key} not updating quota for this entity ${entityText(entity)}`));
      else changes.set(op.key, op.value);
    }
    if (results.has(key)) {
      fail(entity, invalid(`Ignoring duplicate entity ${entityText(entity)}`));
      continue;
    }
    const bad = validateEntity(entity);
    if (bad) {
      fail(entity, bad);
      continue;
    }
    if ('ip' in entity && !validIp(entity.ip)) {
      fail(entity, invalid(`${entity.ip} is not a valid IP or resolvable host.`));
      continue;
    }
    const types: Record<string, string> = 'ip' in entity ? IP_QUOTA_KEYS : CLIENT_QUOTA_KEYS;
    const now = current(entity) ?? {};
    const mine: MetadataRecord[] = [];
    let failure: Failure | null = null;
    for (const [k, value] of changes) {
      if (value === null) {
        if (k in now) mine.push({ type: 'ClientQuota', entity: { ...entity }, key: k, value: null });
        continue;
      }
      failure = validateValue(types, k, value);
      if (failure) break;
      if (now[k] !== value) mine.push({ type: 'ClientQuota', entity: { ...entity }, key: k, value });
    }
    if (failure) {
      fail(entity, failure);
      continue;
    }
    records.push(...mine);
    results.set(key, { entity, errorCode: 'NONE', errorMessage: null });
  }
  return { records, results: [...results.values()] };
}

export interface QuotaFilterComponent {
  entityType: string;
  /** 0 EXACT (match names the entity), 1 DEFAULT (the default entity), 2 SPECIFIED (any named one). */
  matchType: number;
  match: string | null;
}

export interface QuotaEntry {
  entity: QuotaEntity;
  values: Record<string, number>;
}

/**
 * ClientQuotasImage.describe: INVALID_REQUEST for an empty or repeated entity type, a match type
 * whose match string is wrong or an IP component beside user or client-id; UNSUPPORTED_VERSION
 * for an unknown entity type. `strict` keeps only entities with exactly the filtered types.
 */
export function describeClientQuotas(entries: Iterable<QuotaEntry>, components: readonly QuotaFilterComponent[], strict: boolean): QuotaEntry[] {
  const exact = new Map<string, string | null>();
  const typed = new Set<string>();
  for (const c of components) {
    if (c.entityType === '') throw new KafkaError('INVALID_REQUEST', 'Invalid empty entity type.');
    if (exact.has(c.entityType) || typed.has(c.entityType)) throw new KafkaError('INVALID_REQUEST', `Entity type ${c.entityType} cannot appear more than once in the filter.`);
    if (!(ORDER as readonly string[]).includes(c.entityType)) throw new KafkaError('UNSUPPORTED_VERSION', `Unsupported entity type ${c.entityType}`);
    if (c.matchType === 0) {
      if (c.match === null) throw new KafkaError('INVALID_REQUEST', 'Request specified MATCH_TYPE_EXACT, but set match string to null.');
      exact.set(c.entityType, c.match);
    } else if (c.matchType === 1) {
      if (c.match !== null) throw new KafkaError('INVALID_REQUEST', 'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.');
      exact.set(c.entityType, null);
    } else if (c.matchType === 2) {
      if (c.match !== null) throw new KafkaError('INVALID_REQUEST', 'Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.');
      typed.add(c.entityType);
    } else throw new KafkaError('INVALID_REQUEST', `Unknown match type ${c.matchType}`);
  }
  const has = (t: string): boolean => exact.has(t) || typed.has(t);
  if (has('ip') && (has('user') || has('client-id'))) {
    throw new KafkaError('INVALID_REQUEST', 'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.');
  }
  const out: QuotaEntry[] = [];
  for (const e of entries) {
    const types = Object.keys(e.entity);
    if (strict && types.length !== exact.size + typed.size) continue;
    let ok = true;
    for (const [t, name] of exact) if (!(t in e.entity) || e.entity[t as QuotaEntityType] !== name) ok = false;
    for (const t of typed) if (!(t in e.entity)) ok = false;
    if (ok) out.push({ entity: { ...e.entity }, values: { ...e.values } });
  }
  return out;
}

/** Which entity's quota applies to a client, and the tags of the rate it shares with others. */
export interface ResolvedQuota {
  /** The quota in the key's unit (bytes/s, percent, mutations/s); null: unlimited. */
  limit: number | null;
  entity: QuotaEntity | null;
  /** The metric tags (user, client id): clients with the same tags share one rate. */
  user: string;
  clientId: string;
}

/**
 * ClientQuotaManager's default callback for one quota key: `lookup(entity)` is that entity's value
 * of the key (undefined when it sets none), `user` the principal's name.
 */
export function resolveQuota(lookup: (entity: QuotaEntity) => number | undefined, user: string, clientId: string): ResolvedQuota {
  const has = (entity: QuotaEntity): boolean => lookup(entity) !== undefined;
  const U = { user };
  const C = { 'client-id': clientId };
  const DU = { user: null };
  const DC = { 'client-id': null };
  // quotaMetricTags: the most specific level that exists decides which tags the rate is kept under.
  let tags: [string, string];
  if (has({ ...U, ...C }) || has({ ...U, ...DC })) tags = [user, clientId];
  else if (has(U)) tags = [user, ''];
  else if (has({ ...DU, ...C }) || has({ ...DU, ...DC })) tags = [user, clientId];
  else if (has(DU)) tags = [user, ''];
  else tags = ['', clientId];
  // quotaLimit: the entity the tags resolve to.
  const [u, c] = tags;
  const candidates: QuotaEntity[] =
    u !== '' && c !== ''
      ? [{ user: u, 'client-id': c }, { user: u, 'client-id': null }, { user: null, 'client-id': c }, { user: null, 'client-id': null }]
      : u !== ''
        ? [{ user: u }, { user: null }]
        : c !== ''
          ? [{ 'client-id': c }, { 'client-id': null }]
          : [];
  for (const entity of candidates) {
    const limit = lookup(entity);
    if (limit !== undefined) return { limit, entity, user: u, clientId: c };
  }
  return { limit: null, entity: null, user: u, clientId: c };
}
