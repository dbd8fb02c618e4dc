/**
 * DescribeUserScramCredentials (50) and AlterUserScramCredentials (51), KIP-554
 * (`kafka-configs.sh --entity-type users --alter --add-config 'SCRAM-SHA-512=[password=…]'`,
 * Admin.describeUserScramCredentials / alterUserScramCredentials):
 *
 *   DescribeRequest => [user] (null or empty: every user)
 *   AlterRequest    => [deletion name mechanism] [upsertion name mechanism iterations salt salted_password]
 *
 * Describe needs DESCRIBE on the cluster, Alter needs ALTER (CLUSTER_AUTHORIZATION_FAILED for the
 * whole request otherwise, as KafkaApis and ControllerApis answer). The client sends the salted
 * password (Hi(password, salt, iterations)); the broker derives StoredKey and ServerKey from it
 * through the gateway's `scramKeys` and the controller stores only those with the salt and the
 * iterations (ScramControlManager.finishUpsertion). A user created here logs in at once: the SASL
 * gate reads the credential from this broker's metadata; a deleted one cannot.
 */
import { mechanismOfType, SCRAM_MECHANISM_TYPES, type ScramUpsertion } from '../../../core/security/scram.js';
import type { ApiHandler } from '../../api-handler.js';
import { errorCode } from '../../error-codes.js';
import { ApiKey } from '../../generated/index.js';
import { ADVERTISED_VERSIONS } from '../api-versions.js';
import { authorizeCluster } from '../security/authz.js';
import { resultError, run, type AdminGateway } from './gateway.js';

const CLUSTER_AUTHORIZATION_FAILED = errorCode('CLUSTER_AUTHORIZATION_FAILED');

export function describeUserScramCredentialsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.DescribeUserScramCredentials> {
  const failed = (code: number, message: string | null) => ({ throttleTimeMs: 0, errorCode: code, errorMessage: message, results: [] });
  return {
    apiKey: ApiKey.DescribeUserScramCredentials,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeUserScramCredentials]!,
    handle(request, ctx) {
      if (!authorizeCluster(gateway, ctx, 'DESCRIBE')) return failed(CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
      const users = request.users === null ? null : request.users.map((u) => u.name);
      const results = gateway.engine.security.describeScramCredentials(users, gateway.brokerId);
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        results: results.map((r) => ({
          user: r.user,
          errorCode: errorCode(r.errorCode),
          errorMessage: r.errorMessage,
          credentialInfos: r.credentialInfos.map((c) => ({ mechanism: SCRAM_MECHANISM_TYPES[c.mechanism], iterations: c.iterations })),
        })),
      };
    },
    errorResponse: (_request, code) => failed(code, null),
  };
}

export function alterUserScramCredentialsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.AlterUserScramCredentials> {
  const every = (names: string[], code: number, message: string | null) => ({ throttleTimeMs: 0, results: [...new Set(names)].sort().map((user) => ({ user, errorCode: code, errorMessage: message })) });
  return {
    apiKey: ApiKey.AlterUserScramCredentials,
    advertised: ADVERTISED_VERSIONS[ApiKey.AlterUserScramCredentials]!,
    async handle(request, ctx) {
      const names = [...request.deletions.map((d) => d.name), ...request.upsertions.map((u) => u.name)];
      if (!authorizeCluster(gateway, ctx, 'ALTER')) return every(names, CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
      const derive = gateway.scramKeys;
      const upsertions = request.upsertions.map((u): ScramUpsertion => {
        const mechanism = mechanismOfType(u.mechanism);
        // The keys of an unknown mechanism are never stored: the controller refuses it first.
        const keys = mechanism === 'UNKNOWN' || !derive ? { salt: '', storedKey: '', serverKey: '' } : derive(mechanism, u.salt, u.saltedPassword);
        return { name: u.name, mechanism, iterations: u.iterations, ...keys };
      });
      if (!derive && upsertions.some((u) => u.mechanism !== 'UNKNOWN')) return every(names, errorCode('UNKNOWN_SERVER_ERROR'), null);
      const deletions = request.deletions.map((d) => ({ name: d.name, mechanism: mechanismOfType(d.mechanism) }));
      try {
        const results = await run(gateway, () => gateway.engine.security.alterScramCredentials(deletions, upsertions));
        return { throttleTimeMs: 0, results: results.map((r) => ({ user: r.user, errorCode: errorCode(r.errorCode), errorMessage: r.errorMessage })) };
      } catch (e) {
        const { errorCode: code, errorMessage } = resultError(e);
        return every(names, code, errorMessage);
      }
    },
    errorResponse: (request, code) => every([...request.deletions.map((d) => d.name), ...request.upsertions.map((u) => u.name)], code, null),
  };
}
