/**
 * The pieces every guard (the authorization and quotas a handler's API has in Kafka's KafkaApis)
 * is made of: who the request's quota client is, and how to answer the topics a principal may not
 * touch while the handler serves the rest.
 */
import type { ClientSession, RequestContext } from '../../api-handler.js';
import type { QuotaClient } from '../../../core/security/quota-sensors.js';
import type { AclOperation } from '../../../core/security/acl.js';
import type { BrokerGateway } from '../broker-gateway.js';
import { authorizedNames, authorizerOf } from './authz.js';

/** A handler's `handle` with the guard in front of it. */
export type Handle<Req, Res> = (request: Req, ctx: RequestContext) => Res | null | Promise<Res | null>;

/** The user a quota is kept for: the principal's name (`alice` of `User:alice`, ANONYMOUS). */
export function quotaClient(ctx: RequestContext): QuotaClient {
  return { user: principalName(ctx.session), clientId: ctx.header.clientId ?? '' };
}

export function principalName(session: ClientSession): string {
  const i = session.principal.indexOf(':');
  return i < 0 ? session.principal : session.principal.slice(i + 1);
}

/** The engine time quotas are measured in. */
export function nowMs(gateway: BrokerGateway): number {
  return gateway.engine.scheduler.now();
}

/**
 * Serve the topics the principal may `operation` through `serve` and answer the others with
 * `denied(topic)`, appended after the served ones (clients match answers by name). When none is
 * allowed, `serve` is not called and `empty` is the response the denied entries go into.
 */
export async function splitByTopic<T, E, Res>(
  gateway: BrokerGateway,
  ctx: RequestContext,
  operation: AclOperation,
  o: {
    topics: readonly T[];
    name: (t: T) => string;
    serve: (allowed: T[]) => Res | null | Promise<Res | null>;
    empty: () => Res;
    denied: (t: T) => E;
    entries: (res: Res) => unknown[];
  },
): Promise<Res | null> {
  if (!authorizerOf(gateway).enabled) return o.serve([...o.topics]);
  const ok = authorizedNames(gateway, ctx, operation, 'TOPIC', o.topics.map(o.name));
  const allowed = o.topics.filter((t) => ok.has(o.name(t)));
  if (allowed.length === o.topics.length) return o.serve(allowed);
  const res = allowed.length > 0 ? await o.serve(allowed) : o.empty();
  if (res === null) return null;
  o.entries(res).push(...o.topics.filter((t) => !ok.has(o.name(t))).map(o.denied));
  return res;
}
