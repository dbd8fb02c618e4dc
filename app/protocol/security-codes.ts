/**
 * Kafka's wire codes of the ACL and SCRAM enums (ResourceType, PatternType, AclOperation,
 * AclPermissionType, ScramMechanism) for the client side of the protocol (app/kafka-client reads
 * and writes them; the core defines them).
 */
export { ACL_OPERATIONS, nameOfCode, PATTERN_TYPES, PERMISSION_TYPES, RESOURCE_TYPES } from '../core/security/acl.js';
export { mechanismOfType, SCRAM_MECHANISM_TYPES } from '../core/security/scram.js';
