/**
 * The security methods on an external Kafka cluster, through Kafka's own APIs
 * (app/kafka-client/security-requests.ts), with the same views the embedded service gives:
 *
 * - `acls.list` tells a cluster without an authorizer (SECURITY_DISABLED) by `authorizer.enabled`
 *   false; `super.users` and `allow.everyone.if.no.acl.found` are static broker configs the Kafka
 *   protocol does not return, so they are null, and `acls.check` decides with Kafka's defaults
 *   (none, false) and says so in `assumed`;
 * - `acls.delete` with `dryRun` is DescribeAcls with each filter (what DeleteAcls would remove);
 * - `users.upsert` salts the password here and sends only the salted password;
 * - `quotas.throttles` is refused by capability (JMX metrics on a real cluster).
 */
import { KafkaError } from '../../api/errors.js';
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import { alterQuotas, alterScramUsers, createAcls, deleteAcls, describeAcls, describeQuotas, describeScramUsers } from '../../kafka-client/security-requests.js';
import type { AclBinding } from '../../core/security/acl.js';
import type { QuotaEntity } from '../../core/security/types.js';
import { clientProduce } from '../client-produce.js';
import { checkAccess, exportSecurity, filterOf, requireEntity, saltPassword, sortBindings } from '../security-views.js';
import type { KafkaMethods } from './kafka-methods.js';

type SecurityMethodName = 'clients.produce' | 'acls.list' | 'acls.create' | 'acls.delete' | 'acls.check' | 'users.list' | 'users.upsert' | 'users.delete' | 'quotas.list' | 'quotas.alter' | 'quotas.throttles' | 'security.export';

const ASSUMED =
  "super.users and allow.everyone.if.no.acl.found are static broker configs the Kafka protocol does not return: this check assumes Kafka's defaults (no super users, false).";

export function kafkaSecurityMethods(client: KafkaAdminClient, missing: (capability: 'quotaThrottles') => never): Pick<KafkaMethods, SecurityMethodName> {
  const all = filterOf(undefined);
  const disabled = (): never => {
    throw new KafkaError('SECURITY_DISABLED', 'No Authorizer is configured.');
  };
  return {
    'clients.produce': (input) => clientProduce(client.config, input),
    'acls.list': async ({ filter }) => {
      const bindings = await describeAcls(client, filterOf(filter));
      return { authorizer: { enabled: bindings !== null, superUsers: null, allowEveryoneIfNoAclFound: null }, bindings: sortBindings(bindings ?? []) };
    },
    'acls.create': async ({ bindings }) => {
      const results = await createAcls(client, bindings);
      if (results.some((r) => r.errorCode === 'SECURITY_DISABLED')) disabled();
      return results.map((r, i) => ({ binding: { ...bindings[i]! }, ...r }));
    },
    'acls.delete': async ({ filters, dryRun }) => {
      const core = filters.map(filterOf);
      if (dryRun) {
        return Promise.all(
          core.map(async (f) => {
            const bindings = await describeAcls(client, f);
            if (bindings === null) disabled();
            return { errorCode: 'NONE' as const, errorMessage: null, bindings: sortBindings(bindings!) };
          }),
        );
      }
      const results = await deleteAcls(client, core);
      if (results.some((r) => r.errorCode === 'SECURITY_DISABLED')) disabled();
      return results.map((r) => ({ ...r, bindings: sortBindings(r.bindings) }));
    },
    'acls.check': async (input) => {
      const bindings = await describeAcls(client, all);
      return checkAccess({ enabled: bindings !== null, superUsers: new Set(), allowEveryoneIfNoAclFound: false }, (bindings ?? []) as AclBinding[], input, bindings === null ? null : ASSUMED);
    },

    'users.list': () => describeScramUsers(client),
    'users.upsert': async ({ name, mechanism, password, iterations }) => {
      const salted = saltPassword(mechanism, password, iterations);
      return alterScramUsers(client, { deletions: [], upsertions: [{ name, mechanism, iterations: salted.iterations, salt: salted.salt, saltedPassword: salted.saltedPassword }] });
    },
    'users.delete': async ({ name, mechanism }) => {
      const existing = (await describeScramUsers(client)).find((u) => u.name === name);
      const mechanisms = mechanism ? [mechanism] : (existing?.credentials.map((c) => c.mechanism) ?? []);
      if (mechanisms.length === 0) return alterScramUsers(client, { deletions: [{ name, mechanism: 'SCRAM-SHA-512' }], upsertions: [] });
      const out = [];
      for (const m of mechanisms) out.push(...(await alterScramUsers(client, { deletions: [{ name, mechanism: m }], upsertions: [] })));
      return out;
    },

    'quotas.list': ({ entity }) => describeQuotas(client, entity),
    'quotas.alter': ({ entity, set, validateOnly }) => alterQuotas(client, requireEntity(entity), set, validateOnly ?? false),
    'quotas.throttles': () => missing('quotaThrottles'),
    'security.export': async ({ bootstrapServers }) =>
      exportSecurity(
        {
          acls: ((await describeAcls(client, all)) ?? []) as AclBinding[],
          users: await describeScramUsers(client),
          quotas: (await describeQuotas(client)) as { entity: QuotaEntity; values: Record<string, number> }[],
        },
        bootstrapServers ?? client.config.bootstrapServers.join(','),
      ),
  };
}
