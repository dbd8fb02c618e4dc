/**
 * FindCoordinator (key 10): which broker coordinates a group or a transactional id. Any broker answers, from its own
 * metadata: the live leader of the group's `__consumer_offsets` partition, with the host and port
 * of that broker's listener (the same address Metadata advertises).
 *
 *   FindCoordinatorRequest  => key key_type(v1+)                  (v0-3: one key)
 *                              key_type [coordinator_keys](v4+)    (batched)
 *   FindCoordinatorResponse => throttle_time_ms(v1+) error_code error_message(v1+) node_id host port   (v0-3)
 *                              throttle_time_ms [key node_id host port error_code error_message]     (v4+)
 *
 * Rules (Kafka's KafkaApis.handleFindCoordinatorRequest): the first request creates
 * `__consumer_offsets` and is answered COORDINATOR_NOT_AVAILABLE until its leaders exist; a
 * coordinator whose listener address is unknown is not available either; a failed lookup names
 * no node (-1, "", -1). Key type 1 names a transactional id: its coordinator is the leader of the
 * id's `__transaction_state` partition, which the first such request creates.
 */
import type { FindCoordinatorResponse as EngineResponse } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey, type FindCoordinatorRequest } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import type { BrokerGateway } from './broker-gateway.js';
import { askCoordinator } from './group-call.js';

const BATCHED_FROM = 4;
const NO_NODE = { nodeId: -1, host: '', port: -1 };

type Coordinator = { key: string; nodeId: number; host: string; port: number; errorCode: number; errorMessage: string | null };

function response(request: FindCoordinatorRequest, version: number, coordinators: Coordinator[]) {
  if (version >= BATCHED_FROM) return { throttleTimeMs: 0, coordinators };
  const [only] = coordinators;
  return { throttleTimeMs: 0, errorCode: only?.errorCode ?? 0, errorMessage: only?.errorMessage ?? null, nodeId: only?.nodeId ?? -1, host: only?.host ?? '', port: only?.port ?? -1 };
}

const keysOf = (request: FindCoordinatorRequest, version: number): string[] => (version >= BATCHED_FROM ? request.coordinatorKeys : [request.key]);

export function findCoordinatorHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.FindCoordinator> {
  return {
    apiKey: ApiKey.FindCoordinator,
    advertised: ADVERTISED_VERSIONS[ApiKey.FindCoordinator]!,
    async handle(request, ctx) {
      const r: EngineResponse = await askCoordinator(gateway, { api: 'findCoordinator', keyType: request.keyType, keys: keysOf(request, ctx.apiVersion), clientId: ctx.header.clientId ?? '' });
      const listeners = gateway.engine.listenerAddresses();
      const coordinators = r.coordinators.map((c): Coordinator => {
        const at = c.errorCode === 'NONE' ? listeners.get(c.nodeId) : undefined;
        if (c.errorCode === 'NONE' && at) return { key: c.key, nodeId: c.nodeId, host: at.host, port: at.port, errorCode: 0, errorMessage: null };
        const error = c.errorCode === 'NONE' ? 'COORDINATOR_NOT_AVAILABLE' : c.errorCode;
        return { key: c.key, ...NO_NODE, errorCode: errorCode(error), errorMessage: c.errorMessage };
      });
      return response(request, ctx.apiVersion, coordinators);
    },
    errorResponse: (request, code, ctx) =>
      response(request, ctx.apiVersion, keysOf(request, ctx.apiVersion).map((key) => ({ key, ...NO_NODE, errorCode: code, errorMessage: null }))),
  };
}
