/**
 * A simulated cluster with KRaft's StandardAuthorizer on (super user User:admin) and two topics,
 * spoken to in Kafka's bytes, and the ACL creations and filters its tests send.
 */
import { WireSim } from './wire-sim.js';

export const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
export const admin = { principal: 'User:admin', clientHost: '127.0.0.1' };
export const alice = { principal: 'User:alice', clientHost: '127.0.0.1' };

/** Topics `orders` and `payments` (one partition on brokers 1–3); `extra` static configs over the authorizer's. Requests come from User:admin unless they name a session. */
export function secured(extra: Record<string, string> = {}): WireSim {
  const w = new WireSim({ seed: 3, staticConfigs: { 'authorizer.class.name': STANDARD_AUTHORIZER, 'super.users': 'User:admin', ...extra } });
  w.defaultSession = admin;
  w.sim.createTopic('orders', 1, 3, {}, [[1, 2, 3]]);
  w.sim.createTopic('payments', 1, 3, {}, [[1, 2, 3]]);
  return w;
}

/** A creation as the wire carries it: TOPIC (2), LITERAL (3), READ (3), ALLOW (3) for User:alice unless told otherwise. */
export function creation(o: Partial<{ resourceType: number; resourceName: string; resourcePatternType: number; principal: string; host: string; operation: number; permissionType: number }> = {}) {
  return { resourceType: 2, resourceName: 'orders', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 3, ...o };
}

/** The filter every binding matches (ANY everywhere). */
export const ANY_FILTER = { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 };

/** Create bindings as the super user, then let every broker apply them. */
export async function grant(w: WireSim, ...creations: ReturnType<typeof creation>[]): Promise<void> {
  await w.respond(1, 30 as never, 3, { creations } as never);
  w.sim.advance(1_000);
}
