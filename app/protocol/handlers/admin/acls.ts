/**
 * CreateAcls (30), DescribeAcls (29) and DeleteAcls (31), as Kafka's AclApis answers them
 * (`kafka-acls.sh`, Admin.createAcls/describeAcls/deleteAcls):
 *
 *   CreateAclsRequest  => [resource_type name pattern_type(v1+) principal host operation permission]
 *   DescribeAclsRequest => resource_type name pattern_type(v1+) principal host operation permission
 *   DeleteAclsRequest  => [filter: the same fields as DescribeAcls]
 *
 * In order, as Kafka gets there: a code none of Kafka's enums has (UNKNOWN), or a pattern type
 * other than LITERAL in v0 (ANY becomes LITERAL in a v0 filter), fails the request's parsing and
 * closes the connection; the principal needs ALTER (Create, Delete) or DESCRIBE (Describe) on the
 * cluster, else CLUSTER_AUTHORIZATION_FAILED; without an authorizer, SECURITY_DISABLED; a creation
 * naming ANY, MATCH or an ANY operation or permission cannot be a binding (AclBinding's
 * constructor), so the whole request answers UNKNOWN_SERVER_ERROR; then each creation and filter
 * is validated on its own with Kafka's INVALID_REQUEST messages (acl.ts). Changes are committed
 * by the controller; Describe answers from this broker's bindings, grouped by resource pattern.
 */
import { KafkaError } from '../../../api/errors.js';
import type { AclCreation } from '../../../core/engine.js';
import {
  ACL_OPERATIONS,
  nameOfCode,
  PATTERN_TYPES,
  PERMISSION_TYPES,
  RESOURCE_TYPES,
  type AclBinding,
  type AclBindingFilter,
} from '../../../core/security/acl.js';
import { type ApiHandler, CloseConnection, type RequestContext } from '../../api-handler.js';
import { errorCode } from '../../error-codes.js';
import { ApiKey, type DeleteAclsRequestDeleteAclsFilter } from '../../generated/index.js';
import { ADVERTISED_VERSIONS } from '../api-versions.js';
import { authorizeCluster, authorizerOf } from '../security/authz.js';
import { resultError, run, type AdminGateway } from './gateway.js';

const SECURITY_DISABLED = errorCode('SECURITY_DISABLED');
const CLUSTER_AUTHORIZATION_FAILED = errorCode('CLUSTER_AUTHORIZATION_FAILED');

/** A binding's codes, as the responses carry them. */
function codes(b: AclBinding) {
  return {
    resourceType: RESOURCE_TYPES[b.resourceType],
    resourceName: b.resourceName,
    patternType: PATTERN_TYPES[b.patternType],
    principal: b.principal,
    host: b.host,
    operation: ACL_OPERATIONS[b.operation],
    permissionType: PERMISSION_TYPES[b.permissionType],
  };
}

/** The filter a Describe or Delete names; its UNKNOWN codes close the connection (Kafka's request parser). */
function filterOf(f: DeleteAclsRequestDeleteAclsFilter, version: number): AclBindingFilter {
  let patternType = nameOfCode(PATTERN_TYPES, f.patternTypeFilter);
  if (version === 0) {
    if (patternType === 'ANY') patternType = 'LITERAL';
    else if (patternType !== 'LITERAL') throw new CloseConnection(`Version 0 only supports literal resource pattern types, not ${patternType}`);
  }
  const filter = {
    resourceType: nameOfCode(RESOURCE_TYPES, f.resourceTypeFilter),
    resourceName: f.resourceNameFilter,
    patternType,
    principal: f.principalFilter,
    host: f.hostFilter,
    operation: nameOfCode(ACL_OPERATIONS, f.operation),
    permissionType: nameOfCode(PERMISSION_TYPES, f.permissionType),
  };
  if (filter.resourceType === 'UNKNOWN' || filter.patternType === 'UNKNOWN' || filter.operation === 'UNKNOWN' || filter.permissionType === 'UNKNOWN') {
    throw new CloseConnection('the ACL filter contains UNKNOWN elements');
  }
  return filter as AclBindingFilter;
}

/** Group bindings by resource pattern (DescribeAclsResponse.aclsResources). */
function resourcesOf(bindings: readonly AclBinding[]) {
  const byPattern = new Map<string, { resourceType: number; resourceName: string; patternType: number; acls: { principal: string; host: string; operation: number; permissionType: number }[] }>();
  for (const b of bindings) {
    const c = codes(b);
    const key = `${c.resourceType}\u0000${c.patternType}\u0000${c.resourceName}`;
    let r = byPattern.get(key);
    if (!r) byPattern.set(key, (r = { resourceType: c.resourceType, resourceName: c.resourceName, patternType: c.patternType, acls: [] }));
    r.acls.push({ principal: c.principal, host: c.host, operation: c.operation, permissionType: c.permissionType });
  }
  return [...byPattern.values()];
}

export function describeAclsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.DescribeAcls> {
  const answer = (code: number, message: string | null, resources: ReturnType<typeof resourcesOf> = []) => ({ throttleTimeMs: 0, errorCode: code, errorMessage: message, resources });
  return {
    apiKey: ApiKey.DescribeAcls,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeAcls]!,
    handle(request, ctx: RequestContext) {
      const filter = filterOf(request, ctx.apiVersion);
      if (!authorizeCluster(gateway, ctx, 'DESCRIBE')) return answer(CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
      if (!authorizerOf(gateway).enabled) return answer(SECURITY_DISABLED, 'No Authorizer is configured on the broker');
      return answer(0, null, resourcesOf(gateway.engine.security.describeAcls(filter, gateway.brokerId)));
    },
    errorResponse: (_request, code) => answer(code, null),
  };
}

export function createAclsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.CreateAcls> {
  const every = (n: number, code: number, message: string | null) => ({ throttleTimeMs: 0, results: Array.from({ length: n }, () => ({ errorCode: code, errorMessage: message })) });
  return {
    apiKey: ApiKey.CreateAcls,
    advertised: ADVERTISED_VERSIONS[ApiKey.CreateAcls]!,
    async handle(request, ctx) {
      const creations: AclCreation[] = request.creations.map((c) => ({
        resourceType: nameOfCode(RESOURCE_TYPES, c.resourceType),
        resourceName: c.resourceName,
        patternType: nameOfCode(PATTERN_TYPES, c.resourcePatternType),
        principal: c.principal,
        host: c.host,
        operation: nameOfCode(ACL_OPERATIONS, c.operation),
        permissionType: nameOfCode(PERMISSION_TYPES, c.permissionType),
      }));
      if (ctx.apiVersion === 0 && creations.some((c) => c.patternType !== 'LITERAL')) throw new CloseConnection('Version 0 only supports literal resource pattern types');
      if (creations.some((c) => c.resourceType === 'UNKNOWN' || c.patternType === 'UNKNOWN' || c.operation === 'UNKNOWN' || c.permissionType === 'UNKNOWN')) {
        throw new CloseConnection('CreatableAcls contain unknown elements');
      }
      const n = creations.length;
      if (!authorizeCluster(gateway, ctx, 'ALTER')) return every(n, CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
      if (!authorizerOf(gateway).enabled) return every(n, SECURITY_DISABLED, 'No Authorizer is configured.');
      // Kafka cannot build an AclBinding of these (its constructors refuse them): the request fails as a whole.
      if (creations.some((c) => c.resourceType === 'ANY' || c.patternType === 'ANY' || c.patternType === 'MATCH' || c.operation === 'ANY' || c.permissionType === 'ANY')) {
        return every(n, errorCode('UNKNOWN_SERVER_ERROR'), null);
      }
      try {
        const results = await run(gateway, () => gateway.engine.security.createAcls(creations));
        return { throttleTimeMs: 0, results: results.map((r) => ({ errorCode: errorCode(r.errorCode), errorMessage: r.errorMessage })) };
      } catch (e) {
        const { errorCode: code, errorMessage } = resultError(e);
        return every(n, code, errorMessage);
      }
    },
    errorResponse: (request, code) => every(request.creations.length, code, null),
  };
}

export function deleteAclsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.DeleteAcls> {
  const every = (n: number, code: number, message: string | null) => ({
    throttleTimeMs: 0,
    filterResults: Array.from({ length: n }, () => ({ errorCode: code, errorMessage: message, matchingAcls: [] })),
  });
  return {
    apiKey: ApiKey.DeleteAcls,
    advertised: ADVERTISED_VERSIONS[ApiKey.DeleteAcls]!,
    async handle(request, ctx) {
      const filters = request.filters.map((f) => filterOf(f, ctx.apiVersion));
      const n = filters.length;
      if (!authorizeCluster(gateway, ctx, 'ALTER')) return every(n, CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.');
      if (!authorizerOf(gateway).enabled) return every(n, SECURITY_DISABLED, 'No Authorizer is configured.');
      try {
        const results = await run(gateway, () => gateway.engine.security.deleteAcls(filters));
        return {
          throttleTimeMs: 0,
          filterResults: results.map((r) => ({
            errorCode: errorCode(r.errorCode),
            errorMessage: r.errorMessage,
            matchingAcls: r.matching.map((b) => ({ errorCode: 0, errorMessage: null, ...codes(b) })),
          })),
        };
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        const { errorCode: code, errorMessage } = resultError(e);
        return every(n, code, errorMessage);
      }
    },
    errorResponse: (request, code) => every(request.filters.length, code, null),
  };
}
