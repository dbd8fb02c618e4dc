/**
 * ACLs, SCRAM credentials and client quotas on a Kafka cluster, in our generated codecs over the
 * admin client's connections (kafkajs has the ACL calls in old versions only and lacks the rest):
 * DescribeAcls, CreateAcls, DeleteAcls (v3), Describe/AlterUserScramCredentials (v0),
 * Describe/AlterClientQuotas (v1), sent to the controller's broker (a KRaft broker forwards the
 * changes to the controller). Errors keep Kafka's names; a whole-request error throws.
 */
import type { AclBindingView, QuotaEntityView, ScramMechanismView } from '../api/contract.js';
import { KafkaError, kafkaErrorName, type KafkaErrorName } from '../api/errors.js';
import { ApiKey } from '../protocol/generated/index.js';
import { ACL_OPERATIONS, mechanismOfType, nameOfCode, PATTERN_TYPES, PERMISSION_TYPES, RESOURCE_TYPES, SCRAM_MECHANISM_TYPES } from '../protocol/security-codes.js';
import type { KafkaAdminClient } from './admin-client.js';

/** A filter with Kafka's names (ANY and MATCH where allowed; null names match anything). */
export interface AclFilterData {
  resourceType: string;
  resourceName: string | null;
  patternType: string;
  principal: string | null;
  host: string | null;
  operation: string;
  permissionType: string;
}

const errorName = (code: number): KafkaErrorName => kafkaErrorName(code) ?? 'UNKNOWN_SERVER_ERROR';

function failIf(code: number, message: string | null, doing: string): void {
  if (code !== 0) throw new KafkaError(errorName(code), message ?? `${doing} failed with ${errorName(code)}`);
}

function filterCodes(f: AclFilterData) {
  return {
    resourceTypeFilter: RESOURCE_TYPES[f.resourceType as keyof typeof RESOURCE_TYPES],
    resourceNameFilter: f.resourceName,
    patternTypeFilter: PATTERN_TYPES[f.patternType as keyof typeof PATTERN_TYPES],
    principalFilter: f.principal,
    hostFilter: f.host,
    operation: ACL_OPERATIONS[f.operation as keyof typeof ACL_OPERATIONS],
    permissionType: PERMISSION_TYPES[f.permissionType as keyof typeof PERMISSION_TYPES],
  };
}

function bindingOf(r: { resourceType: number; resourceName: string; patternType: number }, a: { principal: string; host: string; operation: number; permissionType: number }): AclBindingView {
  return {
    resourceType: nameOfCode(RESOURCE_TYPES, r.resourceType) as AclBindingView['resourceType'],
    resourceName: r.resourceName,
    patternType: nameOfCode(PATTERN_TYPES, r.patternType) as AclBindingView['patternType'],
    principal: a.principal,
    host: a.host,
    operation: nameOfCode(ACL_OPERATIONS, a.operation) as AclBindingView['operation'],
    permissionType: nameOfCode(PERMISSION_TYPES, a.permissionType) as AclBindingView['permissionType'],
  };
}

/** DescribeAcls: the bindings a filter matches, or null when the cluster has no authorizer (SECURITY_DISABLED). */
export async function describeAcls(client: KafkaAdminClient, filter: AclFilterData): Promise<AclBindingView[] | null> {
  const res = await client.send(undefined, ApiKey.DescribeAcls, [1, 3], filterCodes(filter), 'Describing ACLs');
  if (res.errorCode === 54) return null;
  failIf(res.errorCode, res.errorMessage, 'Describing ACLs');
  return res.resources.flatMap((r) => r.acls.map((a) => bindingOf(r, a)));
}

export async function createAcls(client: KafkaAdminClient, bindings: readonly AclBindingView[]): Promise<{ errorCode: KafkaErrorName; errorMessage: string | null }[]> {
  const res = await client.send(
    undefined,
    ApiKey.CreateAcls,
    [1, 3],
    {
      creations: bindings.map((b) => ({
        resourceType: RESOURCE_TYPES[b.resourceType],
        resourceName: b.resourceName,
        resourcePatternType: PATTERN_TYPES[b.patternType],
        principal: b.principal,
        host: b.host,
        operation: ACL_OPERATIONS[b.operation],
        permissionType: PERMISSION_TYPES[b.permissionType],
      })),
    },
    'Creating ACLs',
  );
  return res.results.map((r) => ({ errorCode: errorName(r.errorCode), errorMessage: r.errorMessage }));
}

export async function deleteAcls(client: KafkaAdminClient, filters: readonly AclFilterData[]): Promise<{ errorCode: KafkaErrorName; errorMessage: string | null; bindings: AclBindingView[] }[]> {
  const res = await client.send(undefined, ApiKey.DeleteAcls, [1, 3], { filters: filters.map(filterCodes) }, 'Deleting ACLs');
  return res.filterResults.map((f) => ({ errorCode: errorName(f.errorCode), errorMessage: f.errorMessage, bindings: f.matchingAcls.map((m) => bindingOf(m, m)) }));
}

export async function describeScramUsers(client: KafkaAdminClient): Promise<{ name: string; credentials: { mechanism: ScramMechanismView; iterations: number }[] }[]> {
  const res = await client.send(undefined, ApiKey.DescribeUserScramCredentials, [0, 0], { users: null }, 'Describing SCRAM users');
  failIf(res.errorCode, res.errorMessage, 'Describing SCRAM users');
  return res.results
    .filter((r) => r.errorCode === 0)
    .map((r) => ({ name: r.user, credentials: r.credentialInfos.flatMap((c) => (mechanismOfType(c.mechanism) === 'UNKNOWN' ? [] : [{ mechanism: mechanismOfType(c.mechanism) as ScramMechanismView, iterations: c.iterations }])) }));
}

export interface ScramAlteration {
  deletions: { name: string; mechanism: ScramMechanismView }[];
  upsertions: { name: string; mechanism: ScramMechanismView; iterations: number; salt: Uint8Array; saltedPassword: Uint8Array }[];
}

export async function alterScramUsers(client: KafkaAdminClient, a: ScramAlteration): Promise<{ user: string; errorCode: KafkaErrorName; errorMessage: string | null }[]> {
  const res = await client.send(
    undefined,
    ApiKey.AlterUserScramCredentials,
    [0, 0],
    {
      deletions: a.deletions.map((d) => ({ name: d.name, mechanism: SCRAM_MECHANISM_TYPES[d.mechanism] })),
      upsertions: a.upsertions.map((u) => ({ name: u.name, mechanism: SCRAM_MECHANISM_TYPES[u.mechanism], iterations: u.iterations, salt: u.salt, saltedPassword: u.saltedPassword })),
    },
    'Altering SCRAM users',
  );
  return res.results.map((r) => ({ user: r.user, errorCode: errorName(r.errorCode), errorMessage: r.errorMessage }));
}

function entityOf(data: readonly { entityType: string; entityName: string | null }[]): QuotaEntityView {
  const e: QuotaEntityView = {};
  for (const d of data) e[d.entityType as keyof QuotaEntityView] = d.entityName;
  return e;
}

/** DescribeClientQuotas: exactly `entity` (strict) or every entity. */
export async function describeQuotas(client: KafkaAdminClient, entity?: QuotaEntityView): Promise<{ entity: QuotaEntityView; values: Record<string, number> }[]> {
  const components = entity ? Object.entries(entity).map(([entityType, name]) => (name === null ? { entityType, matchType: 1, match: null } : { entityType, matchType: 0, match: name ?? null })) : [];
  const res = await client.send(undefined, ApiKey.DescribeClientQuotas, [0, 1], { components, strict: entity !== undefined }, 'Describing client quotas');
  failIf(res.errorCode, res.errorMessage, 'Describing client quotas');
  return (res.entries ?? []).map((e) => ({ entity: entityOf(e.entity), values: Object.fromEntries(e.values.map((v) => [v.key, v.value])) }));
}

export async function alterQuotas(client: KafkaAdminClient, entity: QuotaEntityView, set: Readonly<Record<string, number | null>>, validateOnly: boolean): Promise<{ entity: QuotaEntityView; errorCode: KafkaErrorName; errorMessage: string | null }> {
  const res = await client.send(
    undefined,
    ApiKey.AlterClientQuotas,
    [0, 1],
    {
      entries: [
        {
          entity: Object.entries(entity).map(([entityType, entityName]) => ({ entityType, entityName: entityName ?? null })),
          ops: Object.entries(set).map(([key, value]) => ({ key, value: value ?? 0, remove: value === null })),
        },
      ],
      validateOnly,
    },
    'Altering client quotas',
  );
  const r = res.entries[0];
  if (!r) throw new KafkaError('UNKNOWN_SERVER_ERROR', 'AlterClientQuotas answered no entity');
  return { entity: entityOf(r.entity), errorCode: errorName(r.errorCode), errorMessage: r.errorMessage };
}
