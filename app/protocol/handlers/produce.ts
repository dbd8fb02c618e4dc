/**
 * Produce (key 0) on one broker: each partition's Records go to the engine as the client sent
 * them; the leader validates them (LogValidator), stores them and answers per acks.
 *
 *   ProduceRequest  => transactional_id(v3+) acks timeout_ms [topic [partition records]]
 *   ProduceResponse => [topic [partition error_code base_offset log_append_time_ms(v2+)
 *                      log_start_offset(v5+) record_errors(v8+) error_message(v8+)]] throttle_time_ms(v1+)
 *
 * Rules: v3+ only (magic 2; v0-2 are advertised for librdkafka's feature checks and answered
 * UNSUPPORTED_VERSION, as Kafka 4 does); acks=0 gets no response frame, and a write the broker
 * refused closes the connection instead; a transactional produce must use acks=-1
 * (INVALID_REQUIRED_ACKS), and its leader verifies each new partition with the producer's
 * transaction coordinator first (KIP-890); answers keep the request's order of topics and partitions.
 */
import type { ClientProducePartitionResponse, ProduceAnswer, ProducerFields } from '../../core/engine.js';
import { type ApiHandler, CloseConnection } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey, type ProduceRequest } from '../generated/index.js';
import { batchHeader } from '../records/record-batch.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import { answered, type BrokerGateway } from './broker-gateway.js';

type Partition = { index: number; errorCode: number; baseOffset: bigint; logAppendTimeMs: bigint; logStartOffset: bigint; recordErrors: { batchIndex: number; batchIndexErrorMessage: string | null }[]; errorMessage: string | null };

function everyPartition(request: ProduceRequest, code: number, message: string | null = null) {
  return {
    responses: request.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p): Partition => ({ index: p.index, errorCode: code, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage: message })),
    })),
    throttleTimeMs: 0,
  };
}

function partitionAnswer(r: ClientProducePartitionResponse): Partition {
  return {
    index: r.partition,
    errorCode: errorCode(r.error),
    baseOffset: BigInt(r.baseOffset),
    logAppendTimeMs: BigInt(r.logAppendTimeMs),
    logStartOffset: BigInt(r.logStartOffset),
    recordErrors: (r.recordErrors ?? []).map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message })),
    errorMessage: r.message ?? null,
  };
}

/** The first batch's producer fields, which KIP-890 verification needs before the leader validates the batch (a malformed one: none, the validator refuses it). */
function producerFieldsOf(records: Uint8Array | null): { producer?: ProducerFields } {
  if (!records || records.length === 0) return {};
  try {
    const h = batchHeader(records);
    return { producer: { producerId: h.producerId, producerEpoch: h.producerEpoch, baseSequence: h.baseSequence, transactional: h.isTransactional } };
  } catch {
    return {};
  }
}

export function produceHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.Produce> {
  return {
    apiKey: ApiKey.Produce,
    advertised: ADVERTISED_VERSIONS[ApiKey.Produce]!,
    implemented: [3, 8],
    async handle(request, ctx) {
      if (request.transactionalId !== null && request.acks !== -1) {
        // Kafka refuses a transactional produce without acks=all (InvalidRequiredAcks); acks=0 cannot be answered.
        if (request.acks === 0) throw new CloseConnection('a transactional produce with acks=0');
        return everyPartition(request, errorCode('INVALID_REQUIRED_ACKS'), 'A transactional produce must use acks=-1.');
      }
      const partitions = request.topicData.flatMap((t) => t.partitionData.map((p) => ({ topic: t.name, partition: p.index, wire: p.records, ...producerFieldsOf(p.records) })));
      const transactionalId = request.transactionalId;
      const answer = await gateway.call<ProduceAnswer>((done) =>
        gateway.engine.produceRequest(gateway.brokerId, { type: 'produce', apiVersion: ctx.apiVersion, acks: request.acks, timeoutMs: request.timeoutMs, transactionalId, partitions }, done),
      );
      if (answer.kind === 'no-response') return null;
      if (answer.kind === 'connection-closed') throw new CloseConnection(`acks=0 write refused with ${answer.error}`);
      const { partitions: results } = await answered(answer);
      let i = 0;
      return {
        responses: request.topicData.map((t) => ({ name: t.name, partitionResponses: t.partitionData.map(() => partitionAnswer(results[i++]!)) })),
        throttleTimeMs: 0,
      };
    },
    errorResponse: (request, code) => everyPartition(request, code),
  };
}
