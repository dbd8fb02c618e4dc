/**
 * An ACL binding in words, as the Access page's form says what a binding allows before it is
 * created and the tables say it after: who, from where, may (or may not) do what, on which
 * resources. The wording follows the authorizer's rules: a prefixed pattern covers every name
 * starting with it, `*` every resource of the type, User:* every principal, and an ALLOW of READ,
 * WRITE, DELETE or ALTER also allows DESCRIBE (ALTER_CONFIGS: DESCRIBE_CONFIGS).
 */
import type { AclBindingView, QuotaEntityView } from '../../../../app/api/contract.js';

const NOUNS: Record<AclBindingView['resourceType'], [string, string]> = {
  TOPIC: ['topic', 'topics'],
  GROUP: ['consumer group', 'consumer groups'],
  CLUSTER: ['the cluster', 'the cluster'],
  TRANSACTIONAL_ID: ['transactional id', 'transactional ids'],
  DELEGATION_TOKEN: ['delegation token', 'delegation tokens'],
  USER: ['user', 'users'],
};

const IMPLIES_DESCRIBE = new Set(['READ', 'WRITE', 'DELETE', 'ALTER']);

/** Where the binding applies, in words. */
export function resourceWords(b: Pick<AclBindingView, 'resourceType' | 'resourceName' | 'patternType'>): string {
  const [one] = NOUNS[b.resourceType];
  if (b.resourceType === 'CLUSTER') return one;
  if (b.patternType === 'PREFIXED') return `every ${one} whose name starts with “${b.resourceName}”`;
  if (b.resourceName === '*') return `every ${one}`;
  return `${one} “${b.resourceName}”`;
}

/** The whole binding in words: "Allows User:bob, from any host, to write to topic “orders” (and describe it)." */
export function bindingWords(b: AclBindingView): string {
  const who = b.principal === 'User:*' ? 'every principal' : b.principal;
  const from = b.host === '*' ? 'from any host' : `from ${b.host} only`;
  const what = b.operation === 'ALL' ? 'do anything' : b.operation.toLowerCase().replace(/_/g, ' ');
  const implied =
    b.permissionType !== 'ALLOW' ? '' : IMPLIES_DESCRIBE.has(b.operation) ? ' (which also lets it describe)' : b.operation === 'ALTER_CONFIGS' ? ' (which also lets it describe configs)' : '';
  const verb = b.permissionType === 'ALLOW' ? 'Allows' : 'Denies';
  const deny = b.permissionType === 'DENY' ? ', whatever any ALLOW says' : '';
  return `${verb} ${who}, ${from}, to ${what} on ${resourceWords(b)}${implied}${deny}.`;
}

/** kafka-acls.sh's line for the binding (what the profile export writes, and a copyable form). */
export function aclCommandLine(b: AclBindingView, bootstrap = 'localhost:9092'): string {
  const kind = b.permissionType === 'ALLOW' ? 'allow' : 'deny';
  const resource: Record<AclBindingView['resourceType'], string> = {
    TOPIC: `--topic '${b.resourceName}'`,
    GROUP: `--group '${b.resourceName}'`,
    CLUSTER: '--cluster',
    TRANSACTIONAL_ID: `--transactional-id '${b.resourceName}'`,
    DELEGATION_TOKEN: `--delegation-token '${b.resourceName}'`,
    USER: `--user-principal '${b.resourceName}'`,
  };
  const pattern = b.patternType === 'PREFIXED' ? ' --resource-pattern-type prefixed' : '';
  const op = b.operation === 'ALL' ? 'All' : b.operation.split('_').map((w) => w[0] + w.slice(1).toLowerCase()).join('');
  return `kafka-acls.sh --bootstrap-server ${bootstrap} --add --${kind}-principal '${b.principal}' --${kind}-host '${b.host}' --operation ${op} ${resource[b.resourceType]}${pattern}`;
}

/** A client quota entity in words: "user alice, every client-id (default)". */
export function entityWords(e: QuotaEntityView): string {
  const part = (type: 'user' | 'client-id', v: string | null | undefined) => (v === undefined ? null : v === null ? `every ${type} (default)` : `${type} ${v}`);
  return [part('user', e.user), part('client-id', e['client-id']), e.ip !== undefined ? `ip ${e.ip ?? '(default)'}` : null].filter(Boolean).join(', ');
}
