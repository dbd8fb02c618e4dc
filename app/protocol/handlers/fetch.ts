/**
 * Fetch (key 1) as a consumer on one broker: record batches below the high watermark, as the
 * log stores them (a client's batch byte for byte as it was produced).
 *
 *   FetchRequest  => replica_id max_wait_ms min_bytes max_bytes(v3+) isolation_level(v4+)
 *                    session_id(v7+) session_epoch(v7+) [topic [partition current_leader_epoch(v9+)
 *                    fetch_offset log_start_offset(v5+) partition_max_bytes]] forgotten(v7+) rack_id(v11+)
 *   FetchResponse => throttle_time_ms(v1+) error_code(v7+) session_id(v7+) [topic [partition error_code
 *                    high_watermark last_stable_offset(v4+) log_start_offset(v5+) aborted(v4+)
 *                    preferred_read_replica(v11+) records]]
 *
 * Rules: v4+ only (magic 2; v0-3 answer UNSUPPORTED_VERSION); the long poll, min/max bytes and
 * the "first batch even if larger" rule are the engine's (its fetch purgatory); fetch sessions
 * (KIP-227, v7+) are the broker's (app/core/broker/client-fetch-sessions.ts): a full fetch may
 * open one, an incremental fetch is answered with the partitions that changed only, and a wrong
 * session id or epoch with FETCH_SESSION_ID_NOT_FOUND / INVALID_FETCH_SESSION_EPOCH and no
 * partitions; read_committed reads up to the last stable offset (KIP-98: the first offset of an
 * open transaction, else the high watermark) and lists the aborted transactions overlapping what
 * it returns, whose records the client drops (control batches too); a batch read from its middle is sent whole
 * (the client skips the records below its offset), one cut at the high watermark as far as it.
 */
import type { BrokerAnswer, ClientFetchPartitionResponse, ClientFetchResponse } from '../../core/engine.js';
import { type RecordBatch, wholeBatchFrom } from '../../core/log/records.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey, type FetchRequest } from '../generated/index.js';
import { encodeRecordBatch, producerOption } from '../records/record-batch.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import { answered, type BrokerGateway } from './broker-gateway.js';
import { toOffset } from './offsets.js';

const NO_RECORDS = new Uint8Array(0);

/**
 * The Records field: the batches' bytes, one after another. Empty (never null) when there are
 * none, as Kafka sends it: librdkafka refuses a null record set ("invalid MessageSetSize -1").
 */
export function recordsField(batches: readonly RecordBatch[]): Uint8Array {
  if (batches.length === 0) return NO_RECORDS;
  const parts = batches.map((b) => {
    const whole = wholeBatchFrom(b);
    return whole.encoded ?? encodeRecordBatch(whole, producerOption(whole));
  });
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function partitionData(r: ClientFetchPartitionResponse) {
  return {
    partitionIndex: r.partition,
    errorCode: errorCode(r.error),
    highWatermark: BigInt(r.highWatermark),
    lastStableOffset: BigInt(r.lastStableOffset),
    logStartOffset: BigInt(r.logStartOffset),
    abortedTransactions: r.abortedTransactions ? r.abortedTransactions.map((t) => ({ producerId: BigInt(t.producerId), firstOffset: BigInt(t.firstOffset) })) : r.error === 'NONE' ? [] : null,
    preferredReadReplica: -1,
    records: recordsField(r.batches),
  };
}

function everyPartition(request: FetchRequest, code: number) {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: request.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: code, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n, abortedTransactions: null, preferredReadReplica: -1, records: NO_RECORDS })),
    })),
  };
}

/** The request's fetch session (KIP-227, v7+): its id, epoch and the partitions it forgets. */
function sessionOf(request: FetchRequest): { id: number; epoch: number; forgotten: { topic: string; partition: number }[] } {
  return {
    id: request.sessionId,
    epoch: request.sessionEpoch,
    forgotten: request.forgottenTopicsData.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))),
  };
}

/** The answer's partitions as Kafka's FetchResponse lists them: a topic entry for each run of one topic's partitions. */
function byTopic(partitions: readonly ClientFetchPartitionResponse[]) {
  const out: { topic: string; partitions: ReturnType<typeof partitionData>[] }[] = [];
  for (const p of partitions) {
    const last = out[out.length - 1];
    if (last && last.topic === p.topic) last.partitions.push(partitionData(p));
    else out.push({ topic: p.topic, partitions: [partitionData(p)] });
  }
  return out;
}

export function fetchHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.Fetch> {
  return {
    apiKey: ApiKey.Fetch,
    advertised: ADVERTISED_VERSIONS[ApiKey.Fetch]!,
    implemented: [4, 11],
    async handle(request, ctx) {
      const partitions = request.topics.flatMap((t) =>
        t.partitions.map((p) => ({
          topic: t.topic,
          partition: p.partition,
          fetchOffset: toOffset(p.fetchOffset),
          currentLeaderEpoch: p.currentLeaderEpoch,
          partitionMaxBytes: Math.max(0, p.partitionMaxBytes),
        })),
      );
      const answer = await gateway.call<BrokerAnswer<ClientFetchResponse>>((done) =>
        gateway.engine.fetchRequest(gateway.brokerId, {
          type: 'clientFetch',
          maxWaitMs: Math.max(0, request.maxWaitMs),
          minBytes: Math.max(0, request.minBytes),
          maxBytes: Math.max(0, request.maxBytes),
          isolationLevel: request.isolationLevel === 1 ? 'read_committed' : 'read_uncommitted',
          partitions,
          ...(ctx.apiVersion >= 7 ? { session: sessionOf(request) } : {}),
        }, done),
      );
      const r = await answered(answer);
      return { throttleTimeMs: 0, errorCode: errorCode(r.error ?? 'NONE'), sessionId: r.sessionId ?? 0, responses: byTopic(r.partitions) };
    },
    errorResponse: (request, code) => everyPartition(request, code),
  };
}
