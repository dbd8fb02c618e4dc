/**
 * The security methods on the cluster the console runs: ACL bindings, SCRAM users and client
 * quotas through the controller (engine.security, the same changes Kafka's APIs make), the
 * effective-access check with the cluster's own authorizer configuration, and each broker's
 * quota sensors.
 *
 * A method answers what a Kafka client would get: SECURITY_DISABLED for the ACL changes without
 * an authorizer (listing answers an empty list with the authorizer off), Kafka's per-item errors
 * otherwise.
 */
import type { ClientThrottleView, MethodParsedInput, MethodResult, QuotaEntityView } from '../../api/contract.js';
import { KafkaError } from '../../api/errors.js';
import type { Engine } from '../../core/engine.js';
import { CLIENT_QUOTA_KEYS } from '../../core/security/client-quotas.js';
import type { QuotaEntity, ScramMechanism } from '../../core/security/types.js';
import { clientProduce } from '../client-produce.js';
import { scramKeys } from '../scram-keys.js';
import { bindingView, checkAccess, exportSecurity, filterOf, requireEntity, saltPassword, sortBindings } from '../security-views.js';
import { MATCH_ANY } from '../../core/security/acl.js';

type SecurityMethod<M extends 'clients.produce' | 'acls.list' | 'acls.create' | 'acls.delete' | 'acls.check' | 'users.list' | 'users.upsert' | 'users.delete' | 'quotas.list' | 'quotas.alter' | 'quotas.throttles' | 'security.export'> = (
  input: MethodParsedInput<M>,
) => MethodResult<M> | Promise<MethodResult<M>>;

function requireAuthorizer(engine: Engine): void {
  if (!engine.security.config.enabled) throw new KafkaError('SECURITY_DISABLED', 'No Authorizer is configured.');
}

const MECHANISMS: ScramMechanism[] = ['SCRAM-SHA-256', 'SCRAM-SHA-512'];

export function securityMethods(engine: Engine): {
  'acls.list': SecurityMethod<'acls.list'>;
  'acls.create': SecurityMethod<'acls.create'>;
  'acls.delete': SecurityMethod<'acls.delete'>;
  'acls.check': SecurityMethod<'acls.check'>;
  'users.list': SecurityMethod<'users.list'>;
  'users.upsert': SecurityMethod<'users.upsert'>;
  'users.delete': SecurityMethod<'users.delete'>;
  'quotas.list': SecurityMethod<'quotas.list'>;
  'quotas.alter': SecurityMethod<'quotas.alter'>;
  'quotas.throttles': SecurityMethod<'quotas.throttles'>;
  'security.export': SecurityMethod<'security.export'>;
  'clients.produce': SecurityMethod<'clients.produce'>;
} {
  const sec = engine.security;
  const authorizerView = () => ({ enabled: sec.config.enabled, superUsers: [...sec.config.superUsers].sort(), allowEveryoneIfNoAclFound: sec.config.allowEveryoneIfNoAclFound });
  return {
    'acls.list': ({ filter }) => ({ authorizer: authorizerView(), bindings: sec.config.enabled ? sortBindings(sec.describeAcls(filterOf(filter)).map(bindingView)) : [] }),
    'acls.create': ({ bindings }) => {
      requireAuthorizer(engine);
      return sec.createAcls(bindings).map((r, i) => ({ binding: { ...bindings[i]! }, errorCode: r.errorCode, errorMessage: r.errorMessage }));
    },
    'acls.delete': ({ filters, dryRun }) => {
      requireAuthorizer(engine);
      const core = filters.map(filterOf);
      if (dryRun) return core.map((f) => ({ errorCode: 'NONE', errorMessage: null, bindings: sortBindings(sec.describeAcls(f).map(bindingView)) }));
      return sec.deleteAcls(core).map((r) => ({ errorCode: r.errorCode, errorMessage: r.errorMessage, bindings: sortBindings(r.matching.map(bindingView)) }));
    },
    'acls.check': (input) => checkAccess(sec.config, [...engine.metadata.acls.values()], input, null),

    'users.list': () =>
      sec
        .describeScramCredentials(null)
        .filter((r) => r.errorCode === 'NONE')
        .map((r) => ({ name: r.user, credentials: r.credentialInfos.map((c) => ({ mechanism: c.mechanism, iterations: c.iterations })) })),
    'users.upsert': ({ name, mechanism, password, iterations }) => {
      const salted = saltPassword(mechanism, password, iterations);
      const keys = scramKeys(mechanism, salted.salt, salted.saltedPassword);
      return sec.alterScramCredentials([], [{ name, mechanism, iterations: salted.iterations, ...keys }]);
    },
    'users.delete': ({ name, mechanism }) => {
      const mechanisms = mechanism ? [mechanism] : MECHANISMS.filter((m) => engine.metadata.scramCredential(name, m));
      if (mechanisms.length === 0) return sec.alterScramCredentials([{ name, mechanism: 'SCRAM-SHA-512' }], []);
      return mechanisms.flatMap((m) => sec.alterScramCredentials([{ name, mechanism: m }], []));
    },

    'quotas.list': ({ entity }) => {
      const components = entity
        ? Object.entries(entity).map(([entityType, name]) => (name === null ? { entityType, matchType: 1, match: null } : { entityType, matchType: 0, match: name ?? null }))
        : [];
      return sec.describeClientQuotas(components, entity !== undefined).map((e) => ({ entity: { ...e.entity } as QuotaEntityView, values: { ...e.values } }));
    },
    'quotas.alter': ({ entity, set, validateOnly }) => {
      const [result] = sec.alterClientQuotas([{ entity: requireEntity(entity) as QuotaEntity, ops: Object.entries(set).map(([key, value]) => ({ key, value })) }], validateOnly ?? false);
      return { entity: { ...result!.entity } as QuotaEntityView, errorCode: result!.errorCode, errorMessage: result!.errorMessage };
    },
    'security.export': ({ bootstrapServers }) =>
      exportSecurity(
        {
          acls: sec.describeAcls(MATCH_ANY),
          users: sec.describeScramCredentials(null).map((u) => ({ name: u.user, credentials: u.credentialInfos })),
          quotas: sec.describeClientQuotas([], false),
        },
        bootstrapServers ?? ([...engine.listenerAddresses().values()].map((a) => `${a.host}:${a.port}`).join(',') || 'localhost:9092'),
      ),
    // The listeners the host bound are PLAINTEXT unless it was started with TLS; a TLS one is tried as SSL.
    'clients.produce': (input) => clientProduce({ bootstrapServers: [...engine.listenerAddresses().values()].map((a) => `${a.host}:${a.port}`), security: 'PLAINTEXT' }, input),
    'quotas.throttles': () => {
      const now = engine.scheduler.now();
      return sec.quotaSensors().flatMap(({ brokerId, sensors }) =>
        sensors
          .filter((s) => (CLIENT_QUOTA_KEYS as Record<string, string>)[s.key] !== undefined)
          .map(
            (s): ClientThrottleView => ({
              brokerId,
              key: s.key,
              user: s.user,
              clientId: s.clientId,
              entity: s.entity ? ({ ...s.entity } as QuotaEntityView) : null,
              limit: s.limit,
              rate: s.rate,
              lastThrottleMs: s.lastThrottleMs,
              lastThrottleAtMs: s.lastThrottleAtMs,
              throttledNow: s.lastThrottleAtMs !== null && s.lastThrottleAtMs + s.lastThrottleMs > now,
            }),
          ),
      );
    },
  };
}
