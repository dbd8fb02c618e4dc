/**
 * Security (spread into `contract` in contract.ts): ACL bindings, SCRAM users and client quotas,
 * on the cluster the console runs and on any Kafka cluster alike (the Kafka driver sends Kafka's
 * CreateAcls, DescribeAcls, DeleteAcls, Describe/AlterUserScramCredentials and
 * Describe/AlterClientQuotas). Kafka's names and errors throughout: a cluster without an
 * authorizer answers the ACL methods SECURITY_DISABLED, a hostile binding, filter or entity
 * INVALID_REQUEST with Kafka's message, and nothing changes.
 */
import { z } from 'zod';
import type { KafkaErrorName } from './errors.js';
import type { ExportedFileView } from './profile-views.js';
import { method, returns } from './contract-kit.js';
import { ACL_OPERATIONS, ACL_RESOURCE_TYPES, CLIENT_QUOTA_KEYS, SCRAM_MECHANISM_NAMES } from './security-names.js';

export { ACL_OPERATIONS, ACL_RESOURCE_TYPES, CLIENT_QUOTA_KEYS, SCRAM_MECHANISM_NAMES } from './security-names.js';

export type AclResourceTypeView = (typeof ACL_RESOURCE_TYPES)[number];
export type AclOperationView = (typeof ACL_OPERATIONS)[number];
export type ScramMechanismView = (typeof SCRAM_MECHANISM_NAMES)[number];
export type ClientQuotaKeyView = (typeof CLIENT_QUOTA_KEYS)[number];

/** One ACL binding: a resource pattern and an access control entry (KIP-11, KIP-290). */
export interface AclBindingView {
  resourceType: AclResourceTypeView;
  resourceName: string;
  patternType: 'LITERAL' | 'PREFIXED';
  principal: string;
  host: string;
  operation: AclOperationView;
  permissionType: 'ALLOW' | 'DENY';
}

/** What the authorizer of a cluster is, as far as the console can know it. */
export interface AuthorizerView {
  /** False when the cluster answered SECURITY_DISABLED (no authorizer): every request is allowed. */
  enabled: boolean;
  /** super.users and allow.everyone.if.no.acl.found: known for a cluster the console runs, null for an external one (static broker configs the Kafka protocol does not return). */
  superUsers: string[] | null;
  allowEveryoneIfNoAclFound: boolean | null;
}

export interface AclListView {
  authorizer: AuthorizerView;
  bindings: AclBindingView[];
}

export interface AclCreateResultView {
  binding: AclBindingView;
  errorCode: KafkaErrorName;
  errorMessage: string | null;
}

export interface AclDeleteResultView {
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  /** The bindings the filter removed (with `dryRun`: would remove). */
  bindings: AclBindingView[];
}

/** Which rule decided an access check (StandardAuthorizer's). */
export type AccessRuleView = 'authorizer-off' | 'super-user' | 'deny-acl' | 'allow-acl' | 'no-acl-found' | 'no-matching-acl';

export interface AccessCheckView {
  allowed: boolean;
  rule: AccessRuleView;
  /** The binding that decided (deny-acl, allow-acl). */
  decidingBinding: AclBindingView | null;
  /** Every binding on the resource (its literal name, the wildcard, the prefixes of its name), and whether it applies to this principal, host and operation. */
  bindings: { binding: AclBindingView; applies: 'ALLOW' | 'DENY' | null }[];
  /** The decision in words. */
  explanation: string;
  /** What the answer assumes about an external cluster's static configs (null for one the console runs). */
  assumed: string | null;
}

export interface ScramUserView {
  name: string;
  credentials: { mechanism: ScramMechanismView; iterations: number }[];
}

export interface ScramAlterResultView {
  user: string;
  errorCode: KafkaErrorName;
  errorMessage: string | null;
}

/** A client quota entity: each type it names, a name or null for the default. */
export interface QuotaEntityView {
  user?: string | null;
  'client-id'?: string | null;
  ip?: string | null;
}

export interface ClientQuotaView {
  entity: QuotaEntityView;
  values: Partial<Record<string, number>>;
}

export interface QuotaAlterResultView {
  entity: QuotaEntityView;
  errorCode: KafkaErrorName;
  errorMessage: string | null;
}

/** One client's quota sensor on one broker: its rate now and the last throttle it got. */
export interface ClientThrottleView {
  brokerId: number;
  key: ClientQuotaKeyView;
  /** The metric tags the rate is kept under ('' when the quota is not per user or per client id). */
  user: string;
  clientId: string;
  /** The entity whose quota applies (null: none). */
  entity: QuotaEntityView | null;
  limit: number | null;
  /** Bytes/s, percent of a thread, or partitions/s over the quota window now. */
  rate: number;
  lastThrottleMs: number;
  /** Cluster time of the last throttle (null: never throttled). */
  lastThrottleAtMs: number | null;
  /** Whether it is throttled right now (its last throttle not over yet). */
  throttledNow: boolean;
}

/** What a client of its own got from the cluster (`clients.produce`). */
export interface ClientProduceView {
  /** NONE, or the refusal that stopped the client: Kafka's error name and message as the client got them. */
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  requestsAcknowledged: number;
  /** Key and value bytes of the acknowledged requests, and the real time the client took. */
  bytes: number;
  realMs: number;
  firstOffset: number;
}

const aclBindingSchema = z.strictObject({
  resourceType: z.enum(ACL_RESOURCE_TYPES),
  resourceName: z.string(),
  patternType: z.enum(['LITERAL', 'PREFIXED']),
  principal: z.string(),
  host: z.string(),
  operation: z.enum(ACL_OPERATIONS),
  permissionType: z.enum(['ALLOW', 'DENY']),
});

/** A filter: what is absent (or ANY) matches anything; MATCH finds the bindings that apply to a name. */
const aclFilterSchema = z.strictObject({
  resourceType: z.enum(['ANY', ...ACL_RESOURCE_TYPES]).optional(),
  resourceName: z.string().nullable().optional(),
  patternType: z.enum(['ANY', 'MATCH', 'LITERAL', 'PREFIXED']).optional(),
  principal: z.string().nullable().optional(),
  host: z.string().nullable().optional(),
  operation: z.enum(['ANY', ...ACL_OPERATIONS]).optional(),
  permissionType: z.enum(['ANY', 'ALLOW', 'DENY']).optional(),
});

const quotaEntitySchema = z.strictObject({
  user: z.string().nullable().optional(),
  'client-id': z.string().nullable().optional(),
  ip: z.string().nullable().optional(),
});

export type AclFilterInput = z.input<typeof aclFilterSchema>;

export const securityMethods = {
  /** The ACL bindings (DescribeAcls) that match `filter` (default: every binding), and what the authorizer is. */
  'acls.list': method(z.strictObject({ filter: aclFilterSchema.optional() }), returns<AclListView>()),
  /** CreateAcls: each binding on its own (INVALID_REQUEST with Kafka's message for one it refuses). */
  'acls.create': method(z.strictObject({ bindings: z.array(aclBindingSchema).min(1).max(1000) }), returns<AclCreateResultView[]>()),
  /** DeleteAcls, or with `dryRun` the bindings each filter would remove (the preview). */
  'acls.delete': method(z.strictObject({ filters: z.array(aclFilterSchema).min(1).max(100), dryRun: z.boolean().optional() }), returns<AclDeleteResultView[]>()),
  /**
   * Effective access: may `principal`, from `host`, perform `operation` on the resource? Answered
   * as the StandardAuthorizer decides, with the bindings that decide it.
   */
  'acls.check': method(
    z.strictObject({
      principal: z.string().min(1),
      host: z.string().min(1),
      operation: z.enum(ACL_OPERATIONS).exclude(['ALL']),
      resourceType: z.enum(ACL_RESOURCE_TYPES),
      resourceName: z.string().min(1),
    }),
    returns<AccessCheckView>(),
  ),

  /** Every user with SCRAM credentials and each credential's mechanism and iterations (DescribeUserScramCredentials; never a key). */
  'users.list': method(z.strictObject({}), returns<ScramUserView[]>()),
  /**
   * Create a SCRAM user or rotate its password (AlterUserScramCredentials): the console salts the
   * password (a random salt, `iterations`, default 4096) and sends only the salted password; the
   * password is kept nowhere.
   */
  'users.upsert': method(
    z.strictObject({
      name: z.string(),
      mechanism: z.enum(SCRAM_MECHANISM_NAMES),
      password: z.string().min(1),
      iterations: z.int().min(1).max(1_000_000).optional(),
    }),
    returns<ScramAlterResultView[]>(),
  ),
  /** Delete a user's credential for one mechanism, or for every mechanism it has. */
  'users.delete': method(z.strictObject({ name: z.string(), mechanism: z.enum(SCRAM_MECHANISM_NAMES).optional() }), returns<ScramAlterResultView[]>()),

  /** The client quotas by entity (DescribeClientQuotas; `entity` narrows to one, strictly). */
  'quotas.list': method(z.strictObject({ entity: quotaEntitySchema.optional() }), returns<ClientQuotaView[]>()),
  /** AlterClientQuotas for one entity: each key set to a value, or removed with null. */
  'quotas.alter': method(
    z.strictObject({
      entity: quotaEntitySchema,
      set: z.record(z.string(), z.number().nullable()),
      validateOnly: z.boolean().optional(),
    }),
    returns<QuotaAlterResultView>(),
  ),
  /** Every client's quota sensors on every broker, with the throttle each gets now (the clusters the console runs). */
  'quotas.throttles': method(z.strictObject({}), returns<ClientThrottleView[]>()),

  /**
   * Produce as a client of its own would: its own connection to the cluster's Kafka listeners
   * (the connection's bootstrap servers), its `clientId`, and SASL credentials or none (then
   * User:ANONYMOUS on a PLAINTEXT listener), so the authorizer and the quotas judge it as any
   * application. The records go `repeat` times, one Produce request each, on one connection
   * (a throttled answer delays the next), until the first refusal or `maxRealMs`.
   */
  'clients.produce': method(
    z.strictObject({
      topic: z.string().min(1),
      partition: z.int().min(0),
      acks: z.union([z.literal(0), z.literal(1), z.literal(-1), z.literal('all')]),
      records: z.array(z.strictObject({ key: z.string().nullable().optional(), value: z.string().nullable() })).min(1).max(1000),
      repeat: z.int().min(1).max(1000).optional(),
      maxRealMs: z.int().min(1).max(120_000).optional(),
      clientId: z.string().min(1).max(255),
      sasl: z.strictObject({ mechanism: z.enum(['PLAIN', ...SCRAM_MECHANISM_NAMES]), username: z.string().min(1), password: z.string().min(1) }).optional(),
    }),
    returns<ClientProduceView>(),
  ),

  /**
   * The cluster's ACL bindings, SCRAM users and client quotas as Kafka's commands (kafka-acls.sh,
   * kafka-configs.sh), a shell script to make the same on another cluster; each password is a
   * placeholder (the cluster keeps none). `asProfile` also gives them as a profile's `security` section.
   */
  'security.export': method(z.strictObject({ bootstrapServers: z.string().min(1).optional() }), returns<ExportedFileView[]>()),
} as const;
