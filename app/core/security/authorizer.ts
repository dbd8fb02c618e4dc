/**
 * KRaft's StandardAuthorizer (org.apache.kafka.metadata.authorizer.StandardAuthorizer and
 * StandardAuthorizerData) over the ACL bindings of a metadata image: every broker answers from its
 * own copy of the bindings, as a Kafka broker answers from the bindings its metadata log replayed.
 *
 * The rules, as Kafka applies them to one principal, client host, operation and resource:
 * - the authorizer is off unless `authorizer.class.name` names StandardAuthorizer: then every
 *   request is allowed (Kafka's "no authorizer");
 * - a principal listed in `super.users` (`User:a;User:b`) is always allowed;
 * - the bindings that apply to the resource are the literal ones of its name, the literal `*` of
 *   its type and the prefixed ones whose prefix starts its name;
 * - of those, a binding matches when its principal is the request's or `User:*`, its host is the
 *   client's address or `*`, and its operation is the requested one or ALL; an ALLOW binding of
 *   READ, WRITE, DELETE or ALTER also allows DESCRIBE, and of ALTER_CONFIGS also DESCRIBE_CONFIGS
 *   (DENY bindings imply nothing);
 * - a matching DENY decides (denied), else a matching ALLOW (allowed); with no match, a resource
 *   that has bindings for anyone is denied, one with none at all follows
 *   `allow.everyone.if.no.acl.found` (default false: denied).
 */
import { KafkaError } from '../../api/errors.js';
import {
  ACL_OPERATIONS,
  SUPPORTED_OPERATIONS,
  WILDCARD_HOST,
  WILDCARD_PRINCIPAL,
  WILDCARD_RESOURCE,
  parsePrincipal,
  type AclBinding,
  type AclOperation,
  type AclResourceType,
} from './acl.js';

/** Kafka's value of authorizer.class.name that turns the KRaft authorizer on. */
export const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';

export interface AuthorizerConfig {
  enabled: boolean;
  superUsers: ReadonlySet<string>;
  allowEveryoneIfNoAclFound: boolean;
}

/** The authorizer configured by the brokers' static configs (authorizer.class.name, super.users, allow.everyone.if.no.acl.found). */
export function authorizerConfig(staticConfigs: Readonly<Record<string, string>>): AuthorizerConfig {
  const className = (staticConfigs['authorizer.class.name'] ?? '').trim();
  if (className !== '' && className !== STANDARD_AUTHORIZER) {
    throw new KafkaError('INVALID_CONFIG', `authorizer.class.name: only ${STANDARD_AUTHORIZER} is available here, not ${className}.`);
  }
  const superUsers = new Set<string>();
  for (const value of (staticConfigs['super.users'] ?? '').split(';')) {
    const v = value.trim();
    if (v === '') continue;
    if (!parsePrincipal(v)) throw new KafkaError('INVALID_CONFIG', `super.users: expected a string in format principalType:principalName but got ${v}`);
    superUsers.add(v);
  }
  return { enabled: className !== '', superUsers, allowEveryoneIfNoAclFound: (staticConfigs['allow.everyone.if.no.acl.found'] ?? 'false').trim().toLowerCase() === 'true' };
}

/** Who asks: the session's principal (`User:alice`) and the client's address. */
export interface RequestSession {
  principal: string;
  clientHost: string;
}

/** Which rule decided (StandardAuthorizerData's MatchingRule kinds). */
export type DecidingRule = 'authorizer-off' | 'super-user' | 'deny-acl' | 'allow-acl' | 'no-acl-found' | 'no-matching-acl';

export interface Decision {
  allowed: boolean;
  rule: DecidingRule;
  /** The binding that decided (deny-acl, allow-acl). */
  binding?: AclBinding;
}

const IMPLIES_DESCRIBE: ReadonlySet<AclOperation> = new Set(['DESCRIBE', 'READ', 'WRITE', 'DELETE', 'ALTER']);
const IMPLIES_DESCRIBE_CONFIGS: ReadonlySet<AclOperation> = new Set(['DESCRIBE_CONFIGS', 'ALTER_CONFIGS']);

/** Whether one binding applies to the principal, host and operation, and what it says (findResult); null when it does not apply. */
export function bindingResult(b: AclBinding, session: RequestSession, operation: AclOperation): 'ALLOW' | 'DENY' | null {
  if (b.principal !== session.principal && b.principal !== WILDCARD_PRINCIPAL) return null;
  if (b.host !== WILDCARD_HOST && b.host !== session.clientHost) return null;
  if (b.operation !== 'ALL') {
    if (b.permissionType === 'ALLOW') {
      if (operation === 'DESCRIBE') {
        if (!IMPLIES_DESCRIBE.has(b.operation)) return null;
      } else if (operation === 'DESCRIBE_CONFIGS') {
        if (!IMPLIES_DESCRIBE_CONFIGS.has(b.operation)) return null;
      } else if (operation !== b.operation) return null;
    } else if (operation !== b.operation) return null;
  }
  return b.permissionType;
}

/** The bindings of one resource type, indexed the way a lookup by resource name needs them. */
interface TypeIndex {
  literal: Map<string, AclBinding[]>;
  prefixed: AclBinding[];
}

export class Authorizer {
  private readonly byType = new Map<AclResourceType, TypeIndex>();

  constructor(
    readonly config: AuthorizerConfig,
    bindings: Iterable<AclBinding>,
  ) {
    for (const b of bindings) {
      let idx = this.byType.get(b.resourceType);
      if (!idx) this.byType.set(b.resourceType, (idx = { literal: new Map(), prefixed: [] }));
      if (b.patternType === 'PREFIXED') idx.prefixed.push(b);
      else {
        const list = idx.literal.get(b.resourceName);
        if (list) list.push(b);
        else idx.literal.set(b.resourceName, [b]);
      }
    }
  }

  get enabled(): boolean {
    return this.config.enabled;
  }

  /** The bindings that apply to a resource: its literal name, the literal wildcard, the prefixes of its name. */
  bindingsFor(resourceType: AclResourceType, name: string): AclBinding[] {
    const idx = this.byType.get(resourceType);
    if (!idx) return [];
    const out: AclBinding[] = [...(idx.literal.get(name) ?? [])];
    if (name !== WILDCARD_RESOURCE) out.push(...(idx.literal.get(WILDCARD_RESOURCE) ?? []));
    for (const b of idx.prefixed) if (name.startsWith(b.resourceName)) out.push(b);
    return out;
  }

  /** Kafka's decision for one action, with the rule and binding that decided it. */
  decide(session: RequestSession, operation: AclOperation, resourceType: AclResourceType, name: string): Decision {
    if (!this.config.enabled) return { allowed: true, rule: 'authorizer-off' };
    if (this.config.superUsers.has(session.principal)) return { allowed: true, rule: 'super-user' };
    const bindings = this.bindingsFor(resourceType, name);
    let allow: AclBinding | undefined;
    for (const b of bindings) {
      const r = bindingResult(b, session, operation);
      if (r === 'DENY') return { allowed: false, rule: 'deny-acl', binding: b };
      if (r === 'ALLOW') allow ??= b;
    }
    if (allow) return { allowed: true, rule: 'allow-acl', binding: allow };
    if (bindings.length > 0) return { allowed: false, rule: 'no-matching-acl' };
    return { allowed: this.config.allowEveryoneIfNoAclFound, rule: 'no-acl-found' };
  }

  authorize(session: RequestSession, operation: AclOperation, resourceType: AclResourceType, name: string): boolean {
    return this.decide(session, operation, resourceType, name).allowed;
  }

  /**
   * Authorizer.authorizeByResourceType: may the principal perform `operation` on some resource of
   * the type? (InitProducerId asks it for WRITE on any topic.) Allowed outright, or by an ALLOW
   * that no DENY of the same or a shorter prefix dominates.
   */
  authorizeByResourceType(session: RequestSession, operation: AclOperation, resourceType: AclResourceType): boolean {
    if (this.authorize(session, operation, resourceType, 'hardcode')) return true;
    const idx = this.byType.get(resourceType);
    if (!idx) return false;
    const denyLiteral = new Set<string>();
    const denyPrefixed = new Set<string>();
    const allowLiteral: string[] = [];
    const allowPrefixed: string[] = [];
    let wildcardAllow = false;
    const all = [...[...idx.literal.values()].flat(), ...idx.prefixed];
    for (const b of all) {
      if (b.host !== session.clientHost && b.host !== WILDCARD_HOST) continue;
      if (b.principal !== session.principal && b.principal !== WILDCARD_PRINCIPAL) continue;
      if (b.operation !== operation && b.operation !== 'ALL') continue;
      const literal = b.patternType === 'LITERAL';
      if (b.permissionType === 'DENY') {
        if (literal && b.resourceName === WILDCARD_RESOURCE) return false;
        (literal ? denyLiteral : denyPrefixed).add(b.resourceName);
      } else if (literal && b.resourceName === WILDCARD_RESOURCE) wildcardAllow = true;
      else (literal ? allowLiteral : allowPrefixed).push(b.resourceName);
    }
    if (wildcardAllow) return true;
    const dominated = (name: string): boolean => {
      for (let i = 1; i <= name.length; i++) if (denyPrefixed.has(name.slice(0, i))) return true;
      return false;
    };
    for (const name of allowLiteral) if (!denyLiteral.has(name) && !dominated(name)) return true;
    for (const name of allowPrefixed) if (!dominated(name)) return true;
    return false;
  }

  /** The authorized operations of a resource as Kafka's bitfield (AuthHelper.authorizedOperations). */
  authorizedOperations(session: RequestSession, resourceType: AclResourceType, name: string): number {
    let bits = 0;
    for (const op of SUPPORTED_OPERATIONS[resourceType]) if (this.authorize(session, op, resourceType, name)) bits |= 1 << ACL_OPERATIONS[op];
    return bits;
  }
}
