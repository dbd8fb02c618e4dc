/**
 * What the handlers ask the broker's authorizer (Kafka's AuthHelper): may this request's
 * principal, from its client's address, perform an operation on a resource, and which of a list of
 * names may it. The authorizer is the broker's own (engine.security.authorizer): its bindings are
 * the ones this broker's metadata holds.
 */
import type { Authorizer } from '../../../core/security/authorizer.js';
import { CLUSTER_RESOURCE, type AclOperation, type AclResourceType } from '../../../core/security/acl.js';
import type { RequestContext } from '../../api-handler.js';
import type { BrokerGateway } from '../broker-gateway.js';

export function authorizerOf(gateway: BrokerGateway): Authorizer {
  return gateway.engine.security.authorizer(gateway.brokerId);
}

/** AuthHelper.authorize for one resource. */
export function authorize(gateway: BrokerGateway, ctx: RequestContext, operation: AclOperation, resourceType: AclResourceType, name: string): boolean {
  const a = authorizerOf(gateway);
  return !a.enabled || a.authorize(ctx.session, operation, resourceType, name);
}

/** An operation on the cluster resource (kafka-cluster). */
export function authorizeCluster(gateway: BrokerGateway, ctx: RequestContext, operation: AclOperation): boolean {
  return authorize(gateway, ctx, operation, 'CLUSTER', CLUSTER_RESOURCE);
}

/** AuthHelper.filterByAuthorized: the names (each decided once) the principal may perform `operation` on. */
export function authorizedNames(gateway: BrokerGateway, ctx: RequestContext, operation: AclOperation, resourceType: AclResourceType, names: Iterable<string>): Set<string> {
  const a = authorizerOf(gateway);
  const out = new Set<string>();
  for (const name of names) if (!out.has(name) && (!a.enabled || a.authorize(ctx.session, operation, resourceType, name))) out.add(name);
  return out;
}

/** Kafka's bitfield of authorized operations, or every supported operation without an authorizer (AuthHelper.authorizedOperations). */
export function authorizedOperations(gateway: BrokerGateway, ctx: RequestContext, resourceType: AclResourceType, name: string): number {
  return authorizerOf(gateway).authorizedOperations(ctx.session, resourceType, name);
}

/** Kafka's messages of the three authorization errors when a request as a whole is refused. */
export const CLUSTER_AUTHORIZATION_FAILED_MESSAGE = 'Cluster authorization failed.';
