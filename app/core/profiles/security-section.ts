/**
 * A profile's `security` section: ACL bindings, SCRAM users (name, mechanism and iterations, never
 * a password) and client quotas, validated as Kafka's APIs would take them, written out as Kafka's
 * own commands (`kafka-acls.sh --add`, `kafka-configs.sh --alter --add-config 'SCRAM-SHA-512=…'
 * --entity-type users`, `--entity-type users/clients` for quotas) and planned against a live
 * cluster: the bindings and quota values it lacks, and the users to create by hand (a profile
 * carries no password, so the commands hold a placeholder for each).
 */
import { validateNewBinding, type AclBinding, sameBinding } from '../security/acl.js';
import { CLIENT_QUOTA_KEYS, entityKey, type QuotaEntity } from '../security/client-quotas.js';
import { SCRAM_MAX_ITERATIONS, SCRAM_MIN_ITERATIONS } from '../security/scram.js';
import type { ScramMechanism } from '../security/types.js';

export interface ProfileScramUser {
  name: string;
  mechanism: ScramMechanism;
  iterations: number;
}

export interface ProfileQuota {
  entity: QuotaEntity;
  values: Record<string, number>;
}

export interface ProfileSecurity {
  acls: AclBinding[];
  scramUsers: ProfileScramUser[];
  quotas: ProfileQuota[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The section, or undefined after reporting each problem at its path (`security.acls[2].principal`, …). */
export function checkSecurity(value: unknown, error: (path: string, message: string) => void): ProfileSecurity | undefined {
  if (value === undefined) return { acls: [], scramUsers: [], quotas: [] };
  if (!isObject(value)) {
    error('security', 'must be an object with acls, scramUsers and quotas');
    return undefined;
  }
  let ok = true;
  const fail = (path: string, message: string): void => {
    ok = false;
    error(path, message);
  };
  for (const key of Object.keys(value)) if (!['acls', 'scramUsers', 'quotas'].includes(key)) fail(`security.${key}`, 'unknown field; expected one of acls, scramUsers, quotas');
  const list = (key: string): unknown[] => {
    const v = value[key];
    if (v === undefined) return [];
    if (!Array.isArray(v)) fail(`security.${key}`, 'must be an array');
    return Array.isArray(v) ? v : [];
  };
  const acls: AclBinding[] = [];
  list('acls').forEach((raw, i) => {
    const path = `security.acls[${i}]`;
    if (!isObject(raw)) return fail(path, 'must be an ACL binding object');
    const fields = ['resourceType', 'resourceName', 'patternType', 'principal', 'host', 'operation', 'permissionType'];
    for (const f of fields) if (typeof raw[f] !== 'string') return fail(`${path}.${f}`, 'required, a string');
    try {
      const b = validateNewBinding(raw as never);
      if (!['TOPIC', 'GROUP', 'CLUSTER', 'TRANSACTIONAL_ID', 'DELEGATION_TOKEN', 'USER'].includes(b.resourceType)) return fail(`${path}.resourceType`, `unknown resource type ${b.resourceType}`);
      acls.push({ ...b });
    } catch (e) {
      fail(path, (e as Error).message);
    }
  });
  const scramUsers: ProfileScramUser[] = [];
  list('scramUsers').forEach((raw, i) => {
    const path = `security.scramUsers[${i}]`;
    if (!isObject(raw)) return fail(path, 'must be an object with name, mechanism and iterations');
    if ('password' in raw) return fail(`${path}.password`, 'a profile carries no password: set it on the Security page or with kafka-configs.sh');
    const { name, mechanism, iterations } = raw;
    if (typeof name !== 'string' || name === '') return fail(`${path}.name`, 'Username must not be empty');
    if (mechanism !== 'SCRAM-SHA-256' && mechanism !== 'SCRAM-SHA-512') return fail(`${path}.mechanism`, 'Unknown SCRAM mechanism: SCRAM-SHA-256 or SCRAM-SHA-512');
    if (typeof iterations !== 'number' || !Number.isInteger(iterations) || iterations < SCRAM_MIN_ITERATIONS || iterations > SCRAM_MAX_ITERATIONS) {
      return fail(`${path}.iterations`, `must be an integer from ${SCRAM_MIN_ITERATIONS} to ${SCRAM_MAX_ITERATIONS}`);
    }
    scramUsers.push({ name, mechanism, iterations });
  });
  const quotas: ProfileQuota[] = [];
  list('quotas').forEach((raw, i) => {
    const path = `security.quotas[${i}]`;
    if (!isObject(raw) || !isObject(raw['entity']) || !isObject(raw['values'])) return fail(path, 'must be an object with entity and values');
    const entity = raw['entity'];
    const types = Object.keys(entity);
    if (types.length === 0 || types.some((t) => t !== 'user' && t !== 'client-id')) return fail(`${path}.entity`, 'names user and/or client-id (a name, or null for the default)');
    if (types.some((t) => entity[t] !== null && (typeof entity[t] !== 'string' || entity[t] === ''))) return fail(`${path}.entity`, 'each entity name is a non-empty string, or null for the default');
    const values: Record<string, number> = {};
    for (const [k, v] of Object.entries(raw['values'])) {
      if (!(k in CLIENT_QUOTA_KEYS)) return fail(`${path}.values.${k}`, `unknown quota; expected one of ${Object.keys(CLIENT_QUOTA_KEYS).join(', ')}`);
      if (typeof v !== 'number' || !(v > 0)) return fail(`${path}.values.${k}`, `Quota ${k} must be greater than 0`);
      if (CLIENT_QUOTA_KEYS[k as keyof typeof CLIENT_QUOTA_KEYS] === 'long' && !Number.isInteger(v)) return fail(`${path}.values.${k}`, `${k} cannot be a fractional value.`);
      values[k] = v;
    }
    quotas.push({ entity: entity as QuotaEntity, values });
  });
  return ok ? { acls, scramUsers, quotas } : undefined;
}

export function isEmptySecurity(s: ProfileSecurity | undefined): boolean {
  return !s || (s.acls.length === 0 && s.scramUsers.length === 0 && s.quotas.length === 0);
}

const quote = (s: string): string => (/^[A-Za-z0-9_.,:=/@+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

const OPERATION_NAMES: Record<string, string> = { IDEMPOTENT_WRITE: 'IdempotentWrite', CLUSTER_ACTION: 'ClusterAction', DESCRIBE_CONFIGS: 'DescribeConfigs', ALTER_CONFIGS: 'AlterConfigs', CREATE_TOKENS: 'CreateTokens', DESCRIBE_TOKENS: 'DescribeTokens' };
const RESOURCE_FLAGS: Record<string, string> = { TOPIC: '--topic', GROUP: '--group', TRANSACTIONAL_ID: '--transactional-id', DELEGATION_TOKEN: '--delegation-token', USER: '--user-principal' };

function aclCommand(b: AclBinding, bootstrap: string): string {
  const kind = b.permissionType === 'ALLOW' ? 'allow' : 'deny';
  const op = OPERATION_NAMES[b.operation] ?? b.operation[0] + b.operation.slice(1).toLowerCase();
  const resource = b.resourceType === 'CLUSTER' ? '--cluster' : `${RESOURCE_FLAGS[b.resourceType]} ${quote(b.resourceName)}`;
  const pattern = b.patternType === 'PREFIXED' ? ' --resource-pattern-type prefixed' : '';
  return `kafka-acls.sh --bootstrap-server ${bootstrap} --add --${kind}-principal ${quote(b.principal)} --${kind}-host ${quote(b.host)} --operation ${op} ${resource}${pattern}`;
}

function entityFlags(entity: QuotaEntity): string {
  const part = (type: 'users' | 'clients', name: string | null | undefined): string => (name === undefined ? '' : name === null ? ` --entity-type ${type} --entity-default` : ` --entity-type ${type} --entity-name ${quote(name)}`);
  return `${part('users', entity.user)}${part('clients', entity['client-id'])}`;
}

/**
 * The section as a shell script of Kafka's commands, in the order they can run: SCRAM users
 * (each password a placeholder to fill in), quotas, then ACL bindings.
 */
export function securityCommands(s: ProfileSecurity, bootstrap: string): string {
  const lines = ['#!/bin/sh', '# ACLs, SCRAM users and client quotas, as Kafka\'s own commands.', 'set -e', ''];
  if (s.scramUsers.length > 0) {
    lines.push('# SCRAM users: a profile carries no password; put each one in before running.');
    for (const u of s.scramUsers) {
      lines.push(`kafka-configs.sh --bootstrap-server ${bootstrap} --alter --add-config ${quote(`${u.mechanism}=[iterations=${u.iterations},password=<password of ${u.name}>]`)} --entity-type users --entity-name ${quote(u.name)}`);
    }
    lines.push('');
  }
  if (s.quotas.length > 0) {
    lines.push('# Client quotas.');
    for (const q of s.quotas) {
      const values = Object.keys(q.values).sort().map((k) => `${k}=${q.values[k]}`).join(',');
      lines.push(`kafka-configs.sh --bootstrap-server ${bootstrap} --alter --add-config ${quote(values)}${entityFlags(q.entity)}`);
    }
    lines.push('');
  }
  if (s.acls.length > 0) {
    lines.push('# ACL bindings (the brokers need authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer).');
    for (const b of s.acls) lines.push(aclCommand(b, bootstrap));
    lines.push('');
  }
  return lines.join('\n');
}

/** What applying the section to a live cluster does: the bindings and quota values it lacks, and the users it has not. */
export function planSecurity(
  s: ProfileSecurity,
  live: { acls: readonly AclBinding[]; users: readonly { name: string; mechanism: string }[]; quotas: readonly ProfileQuota[] },
): { acls: AclBinding[]; quotas: { entity: QuotaEntity; set: Record<string, number> }[]; users: ProfileScramUser[] } {
  const acls = s.acls.filter((b) => !live.acls.some((l) => sameBinding(l, b)));
  const quotas = s.quotas.flatMap((q) => {
    const now = live.quotas.find((l) => entityKey(l.entity) === entityKey(q.entity))?.values ?? {};
    const set = Object.fromEntries(Object.entries(q.values).filter(([k, v]) => now[k] !== v));
    return Object.keys(set).length > 0 ? [{ entity: { ...q.entity }, set }] : [];
  });
  const users = s.scramUsers.filter((u) => !live.users.some((l) => l.name === u.name && l.mechanism === u.mechanism));
  return { acls, quotas, users };
}
