/**
 * The transaction APIs on the wire (KIP-98, KIP-447, KIP-664): the producer's AddPartitionsToTxn
 * (24), AddOffsetsToTxn (25), EndTxn (26) and TxnOffsetCommit (28), and the admin's
 * DescribeProducers (61), DescribeTransactions (65) and ListTransactions (66). The engine's
 * transaction coordinator (or, for TxnOffsetCommit, the group coordinator; for DescribeProducers,
 * the partition leader) decides every answer; these handlers only map versions.
 *
 *   AddPartitionsToTxn   => transactional_id producer_id producer_epoch [topic [partition]]     (v0-3)
 *                        <= throttle_time_ms [topic [partition error_code]]
 *   AddOffsetsToTxn      => transactional_id producer_id producer_epoch group_id <= throttle_time_ms error_code
 *   EndTxn               => transactional_id producer_id producer_epoch committed <= throttle_time_ms error_code
 *   TxnOffsetCommit      => transactional_id group_id producer_id producer_epoch generation_id(v3+)
 *                           member_id(v3+) group_instance_id(v3+) [topic [partition offset
 *                           leader_epoch(v2+) metadata]] <= throttle_time_ms [topic [partition error_code]]
 *   DescribeProducers    => [topic [partition]] <= [topic [partition error_code error_message
 *                           [producer_id producer_epoch last_sequence last_timestamp coordinator_epoch
 *                           current_txn_start_offset]]]
 *   DescribeTransactions => [transactional_id] <= [error_code transactional_id state timeout_ms
 *                           start_time_ms producer_id producer_epoch [topic [partition]]]
 *   ListTransactions     => [state_filter] [producer_id_filter] duration_filter(v1+)
 *                        <= error_code [unknown_state_filter] [transactional_id producer_id state]
 *   WriteTxnMarkers      => [producer_id producer_epoch transaction_result [topic [partition]]
 *                           coordinator_epoch] <= [producer_id [topic [partition error_code]]]
 *
 * WriteTxnMarkers is served to clients for what Kafka's Admin.abortTransaction sends (KIP-664:
 * an ABORT marker for a hanging transaction, `kafka-transactions.sh abort`); a coordinator of
 * this cluster writes its markers inside the engine. The partition leader checks the marker as
 * for a coordinator's (a stale producer epoch INVALID_PRODUCER_EPOCH, a stale coordinator epoch
 * TRANSACTION_COORDINATOR_FENCED).
 *
 * Rules: AddPartitionsToTxn v4+ (many transactions, KIP-890's broker-to-broker verification) and
 * the TRANSACTION_ABORTABLE versions (AddOffsetsToTxn, EndTxn, TxnOffsetCommit v4,
 * AddPartitionsToTxn v5) are not advertised: the partition leaders of this cluster verify with the
 * coordinator inside the engine, and clients keep the errors they know.
 */
import type { BrokerAnswer, TxnApiRequest, TxnResponseOf } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey, type AddPartitionsToTxnRequest } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import { answered, type BrokerGateway } from './broker-gateway.js';
import { askCoordinator } from './group-call.js';
import { toOffset } from './offsets.js';

/** Send one transaction request to this listener's broker and wait for its answer. */
async function askTxn<R extends TxnApiRequest>(gateway: BrokerGateway, request: R): Promise<TxnResponseOf<R>> {
  const answer = await gateway.call<BrokerAnswer<TxnResponseOf<R>>>((done) => gateway.engine.txnRequest(gateway.brokerId, request, done));
  return answered(answer);
}

function addPartitionsResponse(request: AddPartitionsToTxnRequest, byPartition: (topic: string, partition: number) => number) {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    resultsByTransaction: [],
    resultsByTopicV3AndBelow: request.v3AndBelowTopics.map((t) => ({ name: t.name, resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: byPartition(t.name, p) })) })),
  };
}

export function addPartitionsToTxnHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.AddPartitionsToTxn> {
  return {
    apiKey: ApiKey.AddPartitionsToTxn,
    advertised: ADVERTISED_VERSIONS[ApiKey.AddPartitionsToTxn]!,
    async handle(request, ctx) {
      const r = await askTxn(gateway, {
        api: 'addPartitionsToTxn',
        apiVersion: ctx.apiVersion,
        transactions: [
          {
            transactionalId: request.v3AndBelowTransactionalId,
            producerId: toOffset(request.v3AndBelowProducerId),
            producerEpoch: request.v3AndBelowProducerEpoch,
            verifyOnly: false,
            topics: request.v3AndBelowTopics.map((t) => ({ name: t.name, partitions: t.partitions })),
          },
        ],
      });
      const topics = r.results[0]?.topics ?? [];
      return addPartitionsResponse(request, (topic, partition) => errorCode(topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.errorCode ?? 'UNKNOWN_SERVER_ERROR'));
    },
    errorResponse: (request, code) => addPartitionsResponse(request, () => code),
  };
}

export function addOffsetsToTxnHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.AddOffsetsToTxn> {
  return {
    apiKey: ApiKey.AddOffsetsToTxn,
    advertised: ADVERTISED_VERSIONS[ApiKey.AddOffsetsToTxn]!,
    async handle(request, ctx) {
      const r = await askTxn(gateway, {
        api: 'addOffsetsToTxn',
        apiVersion: ctx.apiVersion,
        transactionalId: request.transactionalId,
        producerId: toOffset(request.producerId),
        producerEpoch: request.producerEpoch,
        groupId: request.groupId,
      });
      return { throttleTimeMs: 0, errorCode: errorCode(r.errorCode) };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code }),
  };
}

export function endTxnHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.EndTxn> {
  return {
    apiKey: ApiKey.EndTxn,
    advertised: ADVERTISED_VERSIONS[ApiKey.EndTxn]!,
    async handle(request, ctx) {
      const r = await askTxn(gateway, {
        api: 'endTxn',
        apiVersion: ctx.apiVersion,
        transactionalId: request.transactionalId,
        producerId: toOffset(request.producerId),
        producerEpoch: request.producerEpoch,
        committed: request.committed,
      });
      return { throttleTimeMs: 0, errorCode: errorCode(r.errorCode) };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code }),
  };
}

export function txnOffsetCommitHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.TxnOffsetCommit> {
  return {
    apiKey: ApiKey.TxnOffsetCommit,
    advertised: ADVERTISED_VERSIONS[ApiKey.TxnOffsetCommit]!,
    async handle(request, ctx) {
      const r = await askCoordinator(gateway, {
        api: 'txnOffsetCommit',
        apiVersion: ctx.apiVersion,
        transactionalId: request.transactionalId,
        groupId: request.groupId,
        producerId: toOffset(request.producerId),
        producerEpoch: request.producerEpoch,
        generationId: request.generationId,
        memberId: request.memberId,
        groupInstanceId: request.groupInstanceId,
        topics: request.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({ partition: p.partitionIndex, offset: toOffset(p.committedOffset), leaderEpoch: p.committedLeaderEpoch, metadata: p.committedMetadata })),
        })),
      });
      return { throttleTimeMs: 0, topics: r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: errorCode(p.errorCode) })) })) };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })) })),
    }),
  };
}

export function describeProducersHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.DescribeProducers> {
  return {
    apiKey: ApiKey.DescribeProducers,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeProducers]!,
    async handle(request) {
      const r = await askTxn(gateway, { api: 'describeProducers', topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes })) });
      return {
        throttleTimeMs: 0,
        topics: r.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partition,
            errorCode: errorCode(p.errorCode),
            errorMessage: p.errorMessage,
            activeProducers: p.activeProducers.map((a) => ({
              producerId: BigInt(a.producerId),
              producerEpoch: a.producerEpoch,
              lastSequence: a.lastSequence,
              lastTimestamp: BigInt(a.lastTimestamp),
              coordinatorEpoch: a.coordinatorEpoch,
              currentTxnStartOffset: BigInt(a.currentTxnStartOffset),
            })),
          })),
        })),
      };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, errorCode: code, errorMessage: null, activeProducers: [] })) })),
    }),
  };
}

export function describeTransactionsHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.DescribeTransactions> {
  return {
    apiKey: ApiKey.DescribeTransactions,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeTransactions]!,
    async handle(request) {
      const r = await askTxn(gateway, { api: 'describeTransactions', transactionalIds: request.transactionalIds });
      return {
        throttleTimeMs: 0,
        transactionStates: r.transactionStates.map((t) => ({
          errorCode: errorCode(t.errorCode),
          transactionalId: t.transactionalId,
          transactionState: t.state,
          transactionTimeoutMs: t.transactionTimeoutMs,
          transactionStartTimeMs: BigInt(t.transactionStartTimeMs),
          producerId: BigInt(t.producerId),
          producerEpoch: t.producerEpoch,
          topics: t.topics.map((tp) => ({ topic: tp.name, partitions: tp.partitions })),
        })),
      };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      transactionStates: request.transactionalIds.map((transactionalId) => ({
        errorCode: code,
        transactionalId,
        transactionState: '',
        transactionTimeoutMs: 0,
        transactionStartTimeMs: -1n,
        producerId: -1n,
        producerEpoch: -1,
        topics: [],
      })),
    }),
  };
}

export function listTransactionsHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.ListTransactions> {
  return {
    apiKey: ApiKey.ListTransactions,
    advertised: ADVERTISED_VERSIONS[ApiKey.ListTransactions]!,
    async handle(request, ctx) {
      const r = await askTxn(gateway, {
        api: 'listTransactions',
        stateFilters: request.stateFilters,
        producerIdFilters: request.producerIdFilters.map(toOffset),
        durationFilterMs: ctx.apiVersion >= 1 ? toOffset(request.durationFilter) : -1,
      });
      return {
        throttleTimeMs: 0,
        errorCode: errorCode(r.errorCode),
        unknownStateFilters: r.unknownStateFilters,
        transactionStates: r.transactionStates.map((t) => ({ transactionalId: t.transactionalId, producerId: BigInt(t.producerId), transactionState: t.state })),
      };
    },
    errorResponse: (_request, code) => ({ throttleTimeMs: 0, errorCode: code, unknownStateFilters: [], transactionStates: [] }),
  };
}

/** Every transaction API a broker serves. */
export function writeTxnMarkersHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.WriteTxnMarkers> {
  return {
    apiKey: ApiKey.WriteTxnMarkers,
    advertised: ADVERTISED_VERSIONS[ApiKey.WriteTxnMarkers]!,
    async handle(request) {
      const r = await askTxn(gateway, {
        api: 'writeTxnMarkers',
        markers: request.markers.map((m) => ({
          producerId: toOffset(m.producerId),
          producerEpoch: m.producerEpoch,
          coordinatorEpoch: m.coordinatorEpoch,
          result: m.transactionResult ? 'COMMIT' : 'ABORT',
          topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes })),
        })),
      });
      return {
        markers: r.markers.map((m) => ({
          producerId: BigInt(m.producerId),
          topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: errorCode(p.errorCode) })) })),
        })),
      };
    },
    errorResponse: (request, code) => ({
      markers: request.markers.map((m) => ({ producerId: m.producerId, topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, errorCode: code })) })) })),
    }),
  };
}

export const TRANSACTION_HANDLERS = [
  addPartitionsToTxnHandler,
  addOffsetsToTxnHandler,
  endTxnHandler,
  txnOffsetCommitHandler,
  describeProducersHandler,
  describeTransactionsHandler,
  listTransactionsHandler,
  writeTxnMarkersHandler,
] as const;
