/**
 * ACL bindings as Kafka defines them (KIP-11, KIP-290 prefixed patterns): a resource pattern
 * (resource type, name, LITERAL or PREFIXED) and an access control entry (principal, host,
 * operation, ALLOW or DENY). The enums carry Kafka's wire codes (org.apache.kafka.common.acl and
 * .resource: ResourceType, PatternType, AclOperation, AclPermissionType), so the protocol, the
 * metadata records and the console speak of the same values.
 *
 * Also here: a filter's match (ResourcePatternFilter.matches and AccessControlEntryFilter.matches,
 * MATCH included), the validation a new binding passes before the controller stores it (AclApis
 * and AclControlManager.validateNewAcl) and the principal form `Type:Name`.
 */
import { KafkaError } from '../../api/errors.js';
import type { AclBinding, AclOperation, AclOperationName, AclResourceType, PatternTypeName, PermissionTypeName, ResourceTypeName } from './types.js';

export type { AclBinding, AclOperation, AclOperationName, AclResourceType, PatternTypeName, PermissionTypeName, ResourceTypeName } from './types.js';

export const RESOURCE_TYPES: Readonly<Record<ResourceTypeName, number>> = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6, USER: 7 };
export const PATTERN_TYPES: Readonly<Record<PatternTypeName, number>> = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 };
export const ACL_OPERATIONS: Readonly<Record<AclOperationName, number>> = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
};
export const PERMISSION_TYPES: Readonly<Record<PermissionTypeName, number>> = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 };


/** The resource name of the cluster (Kafka's CLUSTER_NAME). */
export const CLUSTER_RESOURCE = 'kafka-cluster';
/** A LITERAL resource name matching every resource of its type. */
export const WILDCARD_RESOURCE = '*';
/** The principal matching every principal, and the host matching every host. */
export const WILDCARD_PRINCIPAL = 'User:*';
export const WILDCARD_HOST = '*';
/** The principal of a connection that did not authenticate (PLAINTEXT, or TLS without a client certificate). */
export const ANONYMOUS = 'User:ANONYMOUS';

/** What DescribeAcls and DeleteAcls select by: null matches any name, principal or host. */
export interface AclBindingFilter {
  resourceType: Exclude<ResourceTypeName, 'UNKNOWN'>;
  resourceName: string | null;
  patternType: Exclude<PatternTypeName, 'UNKNOWN'>;
  principal: string | null;
  host: string | null;
  operation: Exclude<AclOperationName, 'UNKNOWN'>;
  permissionType: Exclude<PermissionTypeName, 'UNKNOWN'>;
}

/** The filter every binding matches. */
export const MATCH_ANY: AclBindingFilter = { resourceType: 'ANY', resourceName: null, patternType: 'ANY', principal: null, host: null, operation: 'ANY', permissionType: 'ANY' };

/** The operations each resource type has (Kafka's AclEntry.supportedOperations), in Kafka's order. */
export const SUPPORTED_OPERATIONS: Readonly<Record<AclResourceType, readonly AclOperation[]>> = {
  TOPIC: ['READ', 'WRITE', 'CREATE', 'DESCRIBE', 'DELETE', 'ALTER', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'],
  GROUP: ['READ', 'DESCRIBE', 'DELETE'],
  CLUSTER: ['CREATE', 'CLUSTER_ACTION', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'ALTER', 'DESCRIBE'],
  TRANSACTIONAL_ID: ['DESCRIBE', 'WRITE'],
  DELEGATION_TOKEN: ['DESCRIBE'],
  USER: ['CREATE_TOKENS', 'DESCRIBE_TOKENS'],
};

/** The name of a wire code in one of the enums above; UNKNOWN for a code Kafka does not define (its fromCode). */
export function nameOfCode<N extends string>(table: Readonly<Record<N, number>>, code: number): N {
  for (const [name, c] of Object.entries(table)) if (c === code) return name as N;
  return 'UNKNOWN' as N;
}

/** `Type:Name` split at the first colon (SecurityUtils.parseKafkaPrincipal); null when it has no colon. */
export function parsePrincipal(principal: string): { type: string; name: string } | null {
  const i = principal.indexOf(':');
  if (principal.length === 0 || i < 0) return null;
  return { type: principal.slice(0, i), name: principal.slice(i + 1) };
}

/**
 * A binding CreateAcls may store, or the INVALID_REQUEST Kafka answers for it: AclApis refuses a
 * cluster resource not named kafka-cluster and an empty name, the controller (validateNewAcl) an
 * unknown or ANY resource type, pattern type, operation or permission. A principal without a
 * colon is refused too (SecurityUtils.parseKafkaPrincipal's rule): Kafka's controller would store
 * it and its authorizer could not read it back.
 */
export function validateNewBinding(b: {
  resourceType: ResourceTypeName;
  resourceName: string;
  patternType: PatternTypeName;
  principal: string;
  host: string;
  operation: AclOperationName;
  permissionType: PermissionTypeName;
}): AclBinding {
  const invalid = (message: string): never => {
    throw new KafkaError('INVALID_REQUEST', message);
  };
  if (b.resourceType === 'CLUSTER' && b.resourceName !== CLUSTER_RESOURCE) invalid(`The only valid name for the CLUSTER resource is ${CLUSTER_RESOURCE}`);
  if (b.resourceName === '') invalid('Invalid empty resource name');
  if (b.resourceType === 'UNKNOWN' || b.resourceType === 'ANY') invalid(`Invalid resourceType ${b.resourceType}`);
  if (b.patternType !== 'LITERAL' && b.patternType !== 'PREFIXED') invalid(`Invalid patternType ${b.patternType}`);
  if (b.operation === 'UNKNOWN' || b.operation === 'ANY') invalid(`Invalid operation ${b.operation}`);
  if (b.permissionType !== 'ALLOW' && b.permissionType !== 'DENY') invalid(`Invalid permissionType ${b.permissionType}`);
  if (!parsePrincipal(b.principal)) invalid(`Could not parse principal from \`${b.principal}\` (no colon is present separating the principal type from the principal name)`);
  return b as AclBinding;
}

/** ResourcePatternFilter.matches: MATCH finds the literal name, the literal wildcard and every prefix of the name. */
export function patternMatches(filter: AclBindingFilter, b: AclBinding): boolean {
  if (filter.resourceType !== 'ANY' && filter.resourceType !== b.resourceType) return false;
  if (filter.patternType !== 'ANY' && filter.patternType !== 'MATCH' && filter.patternType !== b.patternType) return false;
  if (filter.resourceName === null) return true;
  if (filter.patternType === 'ANY' || filter.patternType === b.patternType) return filter.resourceName === b.resourceName;
  if (b.patternType === 'LITERAL') return filter.resourceName === b.resourceName || b.resourceName === WILDCARD_RESOURCE;
  return filter.resourceName.startsWith(b.resourceName);
}

/** AclBindingFilter.matches: the pattern filter and the entry filter (null and ANY match anything). */
export function filterMatches(filter: AclBindingFilter, b: AclBinding): boolean {
  if (!patternMatches(filter, b)) return false;
  if (filter.principal !== null && filter.principal !== b.principal) return false;
  if (filter.host !== null && filter.host !== b.host) return false;
  if (filter.operation !== 'ANY' && filter.operation !== b.operation) return false;
  return filter.permissionType === 'ANY' || filter.permissionType === b.permissionType;
}

/**
 * A filter DeleteAcls may apply (AclControlManager.validateFilter); the wire's unknown codes never
 * get here (Kafka's request parser refuses them and the connection closes).
 */
export function validateFilter(filter: AclBindingFilter): void {
  if ((filter.resourceType as string) === 'UNKNOWN' || (filter.patternType as string) === 'UNKNOWN') throw new KafkaError('INVALID_REQUEST', 'Unknown patternFilter.');
  if ((filter.operation as string) === 'UNKNOWN' || (filter.permissionType as string) === 'UNKNOWN') throw new KafkaError('INVALID_REQUEST', 'Unknown entryFilter.');
}

/** Two bindings are the same binding (Kafka keeps one of equal bindings). */
export function sameBinding(a: AclBinding, b: AclBinding): boolean {
  return (
    a.resourceType === b.resourceType &&
    a.resourceName === b.resourceName &&
    a.patternType === b.patternType &&
    a.principal === b.principal &&
    a.host === b.host &&
    a.operation === b.operation &&
    a.permissionType === b.permissionType
  );
}

/** A binding in one line, as kafka-acls.sh --list prints its entry. */
export function describeBinding(b: AclBinding): string {
  return `(principal=${b.principal}, host=${b.host}, operation=${b.operation}, permissionType=${b.permissionType}) on ${b.resourceType}:${b.patternType}:${b.resourceName}`;
}
