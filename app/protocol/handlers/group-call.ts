/**
 * How the group handlers reach the broker's group coordinator: one engine `groupRequest` to this
 * listener's broker, answered as every broker answer is (a closed connection when the broker's
 * process is gone, silence when it is cut off). A JoinGroup or SyncGroup may be parked on the
 * coordinator until the rest of the group arrives; the promise simply settles later, and the
 * connection, which handles one request at a time as Kafka's does, answers the requests queued
 * behind it in order afterwards.
 *
 * Every client of ours is on 127.0.0.1 (the listener binds nothing else), so the host a member is
 * described with is Kafka's rendering of that address.
 */
import type { GroupAnswer, GroupApiRequest, GroupResponseOf } from '../../core/engine.js';
import { answered, type BrokerGateway } from './broker-gateway.js';

/** Kafka's `clientHost` for a member connected from the loopback address (InetAddress.toString). */
export const LOOPBACK_CLIENT_HOST = '/127.0.0.1';

/** Kafka's "authorized operations not requested" (Integer.MIN_VALUE). */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** Send one group request to this broker's coordinator and wait for its response. */
export async function askCoordinator<R extends GroupApiRequest>(gateway: BrokerGateway, request: R): Promise<GroupResponseOf<R>> {
  const answer = await gateway.call<GroupAnswer<GroupResponseOf<R>>>((done) => gateway.engine.groupRequest(gateway.brokerId, request, done));
  return answered(answer);
}
