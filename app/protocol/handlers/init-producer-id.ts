/**
 * InitProducerId (key 22): for an idempotent producer (enable.idempotence, the Java client's
 * default since 3.0) a fresh producer id with epoch 0 from the broker's block of ids; for a
 * transactional id, its transaction coordinator's producer id and bumped epoch, which fences the
 * id's previous producer (NOT_COORDINATOR on another broker, CONCURRENT_TRANSACTIONS while the
 * previous producer's open transaction is being aborted).
 *
 *   InitProducerIdRequest  => transactional_id transaction_timeout_ms producer_id(v3+) producer_epoch(v3+)
 *   InitProducerIdResponse => throttle_time_ms error_code producer_id producer_epoch
 *
 * v4 is the last advertised (v5 adds KIP-890's TRANSACTION_ABORTABLE). While the broker has no
 * block of ids the answer is COORDINATOR_LOAD_IN_PROGRESS, which clients retry.
 */
import type { BrokerAnswer, ClientInitProducerIdResponse } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import { answered, type BrokerGateway } from './broker-gateway.js';
import { toOffset } from './offsets.js';

export function initProducerIdHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.InitProducerId> {
  return {
    apiKey: ApiKey.InitProducerId,
    advertised: ADVERTISED_VERSIONS[ApiKey.InitProducerId]!,
    async handle(request, ctx) {
      const answer = await gateway.call<BrokerAnswer<ClientInitProducerIdResponse>>((done) =>
        gateway.engine.initProducerIdRequest(
          gateway.brokerId,
          {
            type: 'initProducerId',
            transactionalId: request.transactionalId,
            transactionTimeoutMs: request.transactionTimeoutMs,
            producerId: ctx.apiVersion >= 3 ? toOffset(request.producerId) : -1,
            producerEpoch: ctx.apiVersion >= 3 ? request.producerEpoch : -1,
            apiVersion: ctx.apiVersion,
          },
          done,
        ),
      );
      const r = await answered(answer);
      return { throttleTimeMs: 0, errorCode: errorCode(r.error), producerId: BigInt(r.producerId), producerEpoch: r.producerEpoch };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code, producerId: -1n, producerEpoch: -1 }),
  };
}
