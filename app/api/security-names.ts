/**
 * The names the security methods take (Kafka's), in a module without zod so the console can list
 * them in its forms without loading the contract's schemas.
 */
export const ACL_RESOURCE_TYPES = ['TOPIC', 'GROUP', 'CLUSTER', 'TRANSACTIONAL_ID', 'DELEGATION_TOKEN', 'USER'] as const;
export const ACL_OPERATIONS = ['ALL', 'READ', 'WRITE', 'CREATE', 'DELETE', 'ALTER', 'DESCRIBE', 'CLUSTER_ACTION', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'CREATE_TOKENS', 'DESCRIBE_TOKENS'] as const;
export const SCRAM_MECHANISM_NAMES = ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
/** The quota keys of user and client-id entities (Kafka's QuotaConfig). */
export const CLIENT_QUOTA_KEYS = ['producer_byte_rate', 'consumer_byte_rate', 'request_percentage', 'controller_mutation_rate'] as const;
