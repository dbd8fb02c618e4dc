/**
 * DescribeClientQuotas (48) and AlterClientQuotas (49), KIP-546 (`kafka-configs.sh --entity-type
 * users|clients --describe|--alter`, Admin.describeClientQuotas / alterClientQuotas):
 *
 *   DescribeRequest => [component entity_type match_type match] strict
 *   AlterRequest    => [entry [entity entity_type entity_name] [op key value remove]] validate_only
 *
 * Describe needs DESCRIBE_CONFIGS on the cluster and answers from this broker's quotas; a
 * malformed filter is the whole response's error (INVALID_REQUEST, or UNSUPPORTED_VERSION for an
 * unknown entity type), as ClientQuotasImage.describe throws it. Alter needs ALTER_CONFIGS on the
 * cluster; each entity is answered on its own (client-quotas.ts has Kafka's rules). An entity
 * naming one type twice keeps the last name, as Kafka's request reads it into a map.
 */
import { KafkaError } from '../../../api/errors.js';
import type { QuotaEntity, QuotaEntityType } from '../../../core/security/client-quotas.js';
import type { ApiHandler } from '../../api-handler.js';
import { errorCode } from '../../error-codes.js';
import { ApiKey } from '../../generated/index.js';
import { ADVERTISED_VERSIONS } from '../api-versions.js';
import { authorizeCluster } from '../security/authz.js';
import { resultError, run, type AdminGateway } from './gateway.js';

const CLUSTER_AUTHORIZATION_FAILED = errorCode('CLUSTER_AUTHORIZATION_FAILED');

/** An entity as the wire lists it (type, name or null for the default). */
function entityData(entity: QuotaEntity): { entityType: string; entityName: string | null }[] {
  return Object.entries(entity).map(([entityType, entityName]) => ({ entityType, entityName: entityName ?? null }));
}

export function describeClientQuotasHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.DescribeClientQuotas> {
  const failed = (code: number, message: string | null) => ({ throttleTimeMs: 0, errorCode: code, errorMessage: message, entries: null });
  return {
    apiKey: ApiKey.DescribeClientQuotas,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeClientQuotas]!,
    handle(request, ctx) {
      if (!authorizeCluster(gateway, ctx, 'DESCRIBE_CONFIGS')) return failed(CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
      try {
        const entries = gateway.engine.security.describeClientQuotas(request.components, request.strict, gateway.brokerId);
        return {
          throttleTimeMs: 0,
          errorCode: 0,
          errorMessage: null,
          entries: entries.map((e) => ({ entity: entityData(e.entity), values: Object.entries(e.values).map(([key, value]) => ({ key, value })) })),
        };
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        const { errorCode: code, errorMessage } = resultError(e);
        return failed(code, errorMessage);
      }
    },
    errorResponse: (_request, code) => failed(code, null),
  };
}

export function alterClientQuotasHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.AlterClientQuotas> {
  return {
    apiKey: ApiKey.AlterClientQuotas,
    advertised: ADVERTISED_VERSIONS[ApiKey.AlterClientQuotas]!,
    async handle(request, ctx) {
      const alterations = request.entries.map((e) => {
        const entity: QuotaEntity = {};
        for (const d of e.entity) entity[d.entityType as QuotaEntityType] = d.entityName;
        return { entity, ops: e.ops.map((op) => ({ key: op.key, value: op.remove ? null : op.value })) };
      });
      const every = (code: number, message: string | null) => ({
        throttleTimeMs: 0,
        entries: alterations.map((a) => ({ errorCode: code, errorMessage: message, entity: entityData(a.entity) })),
      });
      if (!authorizeCluster(gateway, ctx, 'ALTER_CONFIGS')) return every(CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
      try {
        const results = await run(gateway, () => gateway.engine.security.alterClientQuotas(alterations, request.validateOnly));
        return { throttleTimeMs: 0, entries: results.map((r) => ({ errorCode: errorCode(r.errorCode), errorMessage: r.errorMessage, entity: entityData(r.entity) })) };
      } catch (e) {
        const { errorCode: code, errorMessage } = resultError(e);
        return every(code, errorMessage);
      }
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      entries: request.entries.map((e) => ({ errorCode: code, errorMessage: null, entity: e.entity.map((d) => ({ entityType: d.entityType, entityName: d.entityName })) })),
    }),
  };
}
