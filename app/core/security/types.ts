/**
 * The shapes of the security state the metadata log holds (ACL bindings, SCRAM credentials,
 * client quotas), in a file of their own: the metadata records name them, and the modules that
 * validate and apply them import the records.
 */

/** Kafka's ResourceType names (acl.ts has their codes). */
export type ResourceTypeName = 'UNKNOWN' | 'ANY' | 'TOPIC' | 'GROUP' | 'CLUSTER' | 'TRANSACTIONAL_ID' | 'DELEGATION_TOKEN' | 'USER';
export type PatternTypeName = 'UNKNOWN' | 'ANY' | 'MATCH' | 'LITERAL' | 'PREFIXED';
export type AclOperationName =
  | 'UNKNOWN'
  | 'ANY'
  | 'ALL'
  | 'READ'
  | 'WRITE'
  | 'CREATE'
  | 'DELETE'
  | 'ALTER'
  | 'DESCRIBE'
  | 'CLUSTER_ACTION'
  | 'DESCRIBE_CONFIGS'
  | 'ALTER_CONFIGS'
  | 'IDEMPOTENT_WRITE'
  | 'CREATE_TOKENS'
  | 'DESCRIBE_TOKENS';
export type PermissionTypeName = 'UNKNOWN' | 'ANY' | 'DENY' | 'ALLOW';

/** A resource type a binding may name (not UNKNOWN or ANY). */
export type AclResourceType = Exclude<ResourceTypeName, 'UNKNOWN' | 'ANY'>;
/** An operation a binding may name (not UNKNOWN or ANY). */
export type AclOperation = Exclude<AclOperationName, 'UNKNOWN' | 'ANY'>;

export interface AclBinding {
  resourceType: AclResourceType;
  resourceName: string;
  patternType: 'LITERAL' | 'PREFIXED';
  principal: string;
  host: string;
  operation: AclOperation;
  permissionType: 'ALLOW' | 'DENY';
}

export type ScramMechanism = 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

/** A stored SCRAM credential; the byte fields in base64. */
export interface ScramCredential {
  name: string;
  mechanism: ScramMechanism;
  salt: string;
  storedKey: string;
  serverKey: string;
  iterations: number;
}

export type QuotaEntityType = 'user' | 'client-id' | 'ip';
/** A client quota entity: each type it names maps to a name, or null for the default. */
export type QuotaEntity = Partial<Record<QuotaEntityType, string | null>>;
