/**
 * InitProducerId (key 22) for idempotent producers (enable.idempotence, the Java client's default
 * since 3.0): a fresh producer id with epoch 0 from the broker's block of ids.
 *
 *   InitProducerIdRequest  => transactional_id transaction_timeout_ms
 *   InitProducerIdResponse => throttle_time_ms error_code producer_id producer_epoch
 *
 * A transactional id is refused with TRANSACTIONAL_ID_AUTHORIZATION_FAILED: there is no
 * transaction coordinator here, and that is the error on which clients stop at once rather than
 * retry. While the broker has no block of ids the answer is COORDINATOR_LOAD_IN_PROGRESS, which
 * clients retry.
 */
import type { BrokerAnswer, ClientInitProducerIdResponse } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import { answered, type BrokerGateway } from './broker-gateway.js';

export function initProducerIdHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.InitProducerId> {
  return {
    apiKey: ApiKey.InitProducerId,
    advertised: ADVERTISED_VERSIONS[ApiKey.InitProducerId]!,
    async handle(request) {
      const answer = await gateway.call<BrokerAnswer<ClientInitProducerIdResponse>>((done) =>
        gateway.engine.initProducerIdRequest(gateway.brokerId, { type: 'initProducerId', transactionalId: request.transactionalId, transactionTimeoutMs: request.transactionTimeoutMs }, done),
      );
      const r = await answered(answer);
      return { throttleTimeMs: 0, errorCode: errorCode(r.error), producerId: BigInt(r.producerId), producerEpoch: r.producerEpoch };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code, producerId: -1n, producerEpoch: -1 }),
  };
}
