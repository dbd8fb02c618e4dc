/**
 * What both drivers share for the security methods: the contract's filters as the core's, an
 * effective-access check decided by the StandardAuthorizer's rules with its explanation in words,
 * and a user's password turned into what AlterUserScramCredentials sends.
 */
import { randomBytes } from 'node:crypto';
import type { AccessCheckView, AclBindingView, AclFilterInput, MethodParsedInput } from '../api/contract.js';
import { KafkaError } from '../api/errors.js';
import { Authorizer, bindingResult, type AuthorizerConfig, type Decision } from '../core/security/authorizer.js';
import { describeBinding, MATCH_ANY, type AclBinding, type AclBindingFilter } from '../core/security/acl.js';
import type { QuotaEntity, ScramMechanism } from '../core/security/types.js';
import { planSecurity, securityCommands, type ProfileSecurity } from '../core/profiles/security-section.js';
import type { ExportedFileView } from '../api/contract.js';
import { DEFAULT_SCRAM_ITERATIONS, saltedPassword } from './scram-keys.js';

/** The contract's filter (absent fields match anything) as the core's. */
export function filterOf(input: AclFilterInput | undefined): AclBindingFilter {
  return {
    resourceType: input?.resourceType ?? MATCH_ANY.resourceType,
    resourceName: input?.resourceName ?? null,
    patternType: input?.patternType ?? MATCH_ANY.patternType,
    principal: input?.principal ?? null,
    host: input?.host ?? null,
    operation: input?.operation ?? MATCH_ANY.operation,
    permissionType: input?.permissionType ?? MATCH_ANY.permissionType,
  };
}

export function bindingView(b: AclBinding): AclBindingView {
  return { ...b };
}

/** Bindings in a stable order: by resource, then principal, operation and permission. */
export function sortBindings<T extends AclBindingView>(bindings: T[]): T[] {
  const key = (b: AclBindingView): string => [b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permissionType].join('\u0000');
  return bindings.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

const RESOURCE_WORDS: Record<string, string> = { TOPIC: 'topic', GROUP: 'group', CLUSTER: 'the cluster', TRANSACTIONAL_ID: 'transactional id', DELEGATION_TOKEN: 'delegation token', USER: 'user' };

function resourceWords(type: string, name: string): string {
  return type === 'CLUSTER' ? 'the cluster' : `${RESOURCE_WORDS[type] ?? type} ${name}`;
}

type CheckInput = MethodParsedInput<'acls.check'>;

/** The effective-access check: the StandardAuthorizer's decision over `bindings`, with every binding on the resource and the decision in words. */
export function checkAccess(config: AuthorizerConfig, bindings: readonly AclBinding[], input: CheckInput, assumed: string | null): AccessCheckView {
  const authorizer = new Authorizer(config, bindings);
  const session = { principal: input.principal, clientHost: input.host };
  const decision: Decision = authorizer.decide(session, input.operation, input.resourceType, input.resourceName);
  const onResource = authorizer.bindingsFor(input.resourceType, input.resourceName);
  const where = resourceWords(input.resourceType, input.resourceName);
  const act = `${input.principal} from ${input.host} to ${input.operation} ${where}`;
  const explanation = ((): string => {
    switch (decision.rule) {
      case 'authorizer-off':
        return `The cluster has no authorizer, so every request is allowed: ${act} is allowed.`;
      case 'super-user':
        return `${input.principal} is a super user (super.users): allowed whatever the bindings say.`;
      case 'deny-acl':
        return `Denied by the binding ${describeBinding(decision.binding!)}: a DENY decides before any ALLOW.`;
      case 'allow-acl': {
        const b = decision.binding!;
        const implied = b.operation !== input.operation && b.operation !== 'ALL' ? ` (${b.operation} implies ${input.operation})` : '';
        return `Allowed by the binding ${describeBinding(b)}${implied}, and no DENY applies.`;
      }
      case 'no-matching-acl':
        return `Denied: ${where} has ${onResource.length} binding${onResource.length === 1 ? '' : 's'}, and none allows ${act}.`;
      case 'no-acl-found':
        return decision.allowed
          ? `No binding names ${where}, and allow.everyone.if.no.acl.found is true: allowed.`
          : `No binding names ${where}, and allow.everyone.if.no.acl.found is false: denied.`;
    }
  })();
  return {
    allowed: decision.allowed,
    rule: decision.rule,
    decidingBinding: decision.binding ? bindingView(decision.binding) : null,
    bindings: onResource.map((b) => ({ binding: bindingView(b), applies: config.enabled ? bindingResult(b, session, input.operation) : null })),
    explanation,
    assumed,
  };
}

/** A random salt and the salted password AlterUserScramCredentials sends (the password itself never leaves). */
export function saltPassword(mechanism: ScramMechanism, password: string, iterations = DEFAULT_SCRAM_ITERATIONS): { salt: Buffer; saltedPassword: Buffer; iterations: number } {
  const salt = randomBytes(16);
  return { salt, saltedPassword: saltedPassword(mechanism, password, salt, iterations), iterations };
}

/** The entity of a quota method as the core names it, refusing an empty one as Kafka does. */
export function requireEntity<T extends object>(entity: T): T {
  if (Object.keys(entity).length === 0) throw new KafkaError('INVALID_REQUEST', 'Invalid empty client quota entity');
  return entity;
}

/** What a cluster holds of the security a profile names, read through either driver. */
export interface LiveSecurity {
  authorizerEnabled: boolean;
  acls: AclBinding[];
  users: { name: string; mechanism: string }[];
  quotas: { entity: QuotaEntity; values: Record<string, number> }[];
}

/** The profile's security against the live cluster: what applying creates, and what it leaves to a person (users need passwords; bindings need an authorizer). */
export function planProfileSecurity(security: ProfileSecurity, live: LiveSecurity): { plan: ReturnType<typeof planSecurity>; manual: string[] } {
  const plan = planSecurity(security, live);
  const manual = plan.users.map((u) => `Create SCRAM user ${u.name} (${u.mechanism}, ${u.iterations} iterations) on the Security page or with kafka-configs.sh: a profile carries no password.`);
  if (!live.authorizerEnabled && plan.acls.length > 0) {
    manual.push(`The cluster has no authorizer (SECURITY_DISABLED): the profile's ${plan.acls.length} ACL binding(s) cannot be created until its brokers run with authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer.`);
    return { plan: { ...plan, acls: [] }, manual };
  }
  return { plan, manual };
}

/** The live cluster's security as Kafka's commands and as a profile's `security` section. */
export function exportSecurity(live: { acls: AclBinding[]; users: { name: string; credentials: { mechanism: ScramMechanism; iterations: number }[] }[]; quotas: { entity: QuotaEntity; values: Record<string, number> }[] }, bootstrap: string): ExportedFileView[] {
  const security: ProfileSecurity = {
    acls: sortBindings(live.acls.map((b) => ({ ...b }))),
    scramUsers: live.users.flatMap((u) => u.credentials.map((c) => ({ name: u.name, mechanism: c.mechanism, iterations: c.iterations }))),
    quotas: live.quotas.map((q) => ({ entity: { ...q.entity }, values: { ...q.values } })),
  };
  return [
    { filename: 'security.sh', contents: securityCommands(security, bootstrap) },
    { filename: 'security.profile-section.json', contents: `${JSON.stringify({ security }, null, 2)}\n` },
  ];
}
