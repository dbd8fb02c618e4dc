/**
 * The group APIs addressed to one broker: what a wire-protocol listener for that broker calls
 * with a decoded FindCoordinator, JoinGroup, … request, and what the console's admin calls use.
 * The request crosses the in-process network from the client node, so a broker that is down or
 * cut off is as unreachable as over TCP.
 *
 * Every answer is exactly one of: the broker's response, or `unreachable` — `disconnected` when the
 * broker's process is gone (close the client's connection), `timeout` when nothing answered
 * within the client's request timeout. A JoinGroup may park on the coordinator for up to the
 * group's rebalance timeout, so its client timeout is that plus a margin, as the Java consumer's.
 */
import type { GroupApiRequest, GroupNetworkRequest, GroupResponseOf } from '../group/messages.js';
import type { TxnApiRequest, TxnNetworkRequest, TxnResponseOf } from '../txn/messages.js';
import { CLIENT, type ClusterContext } from './context.js';
import { DEFAULT_REQUEST_TIMEOUT_MS as REQUEST_TIMEOUT_MS, type BrokerAnswer } from './kafka-requests.js';

/** How a broker answered a group request (or did not): the same answer as every client request's. */
export type GroupAnswer<T> = BrokerAnswer<T>;
/** The Java consumer's JOIN_GROUP_TIMEOUT_LAPSE: a JoinGroup waits the rebalance timeout plus this. */
const JOIN_GROUP_TIMEOUT_LAPSE_MS = 5_000;

/** The client-side timeout of a group request. */
export function groupRequestTimeoutMs(request: GroupApiRequest): number {
  if (request.api === 'joinGroup') return Math.max(REQUEST_TIMEOUT_MS, request.rebalanceTimeoutMs + JOIN_GROUP_TIMEOUT_LAPSE_MS);
  return REQUEST_TIMEOUT_MS;
}

export class GroupRequests {
  constructor(private readonly ctx: ClusterContext) {}

  send<R extends GroupApiRequest>(brokerId: number, request: R, done: (answer: GroupAnswer<GroupResponseOf<R>>) => void, requestTimeoutMs = groupRequestTimeoutMs(request)): void {
    const message: GroupNetworkRequest = { type: 'group', ...request };
    this.ctx.network.request(
      CLIENT,
      brokerId,
      message,
      requestTimeoutMs,
      (response) => done({ kind: 'response', response: response as GroupResponseOf<R> }),
      (reason) => done({ kind: 'unreachable', reason }),
    );
  }
}

/** The transaction APIs addressed to one broker (AddPartitionsToTxn, EndTxn, …), answered as a group request is. */
export function sendTxnRequest<R extends TxnApiRequest>(ctx: ClusterContext, brokerId: number, request: R, done: (answer: BrokerAnswer<TxnResponseOf<R>>) => void, requestTimeoutMs = REQUEST_TIMEOUT_MS): void {
  const message: TxnNetworkRequest = { type: 'txn', ...request };
  ctx.network.request(
    CLIENT,
    brokerId,
    message,
    requestTimeoutMs,
    (response) => done({ kind: 'response', response: response as TxnResponseOf<R> }),
    (reason) => done({ kind: 'unreachable', reason }),
  );
}
