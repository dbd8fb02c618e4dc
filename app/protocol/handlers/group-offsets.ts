/**
 * A group's committed offsets on the wire: OffsetCommit (8), OffsetFetch (9), OffsetDelete (47).
 * The coordinator stores each commit as a record in `__consumer_offsets` and answers once it is
 * replicated; these handlers only map versions.
 *
 *   OffsetCommit => group_id generation_id(v1+) member_id(v1+) group_instance_id(v7+)
 *                   retention_time_ms(v2-4) [topic [partition offset leader_epoch(v6+)
 *                   commit_timestamp(v1) metadata]]
 *                <= throttle_time_ms(v3+) [topic [partition error_code]]
 *   OffsetFetch  => group_id [topic [partition]] (null = all, v2+) require_stable(v7+)
 *                <= throttle_time_ms(v3+) [topic [partition offset leader_epoch(v5+) metadata
 *                   error_code]] error_code(v2+)
 *   OffsetDelete => group_id [topic [partition]]
 *                <= error_code throttle_time_ms [topic [partition error_code]]
 *
 * Rules (Kafka's): OffsetCommit v0 comes from outside group management (generation -1, no
 * member); absent retention and commit timestamps are -1 ("the broker's default" and "now").
 * OffsetFetch v0-1 have no group-level error, so a group error (NOT_COORDINATOR,
 * COORDINATOR_LOAD_IN_PROGRESS, …) is put on every partition asked for, with offset -1 and
 * metadata "" (OffsetFetchRequest.getErrorResponse). The batched OffsetFetch of v8+ is not
 * advertised.
 */
import type { FetchedOffset, OffsetFetchResponse as EngineFetch } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey, type OffsetFetchRequest } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import type { BrokerGateway } from './broker-gateway.js';
import { askCoordinator } from './group-call.js';
import { toOffset } from './offsets.js';

/** OffsetFetch v2 added the group-level error code and "every partition" (null topics). */
const GROUP_ERROR_FROM = 2;

export function offsetCommitHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.OffsetCommit> {
  return {
    apiKey: ApiKey.OffsetCommit,
    advertised: ADVERTISED_VERSIONS[ApiKey.OffsetCommit]!,
    async handle(request) {
      const r = await askCoordinator(gateway, {
        api: 'offsetCommit',
        groupId: request.groupId,
        generationId: request.generationIdOrMemberEpoch,
        memberId: request.memberId,
        groupInstanceId: request.groupInstanceId,
        retentionTimeMs: toOffset(request.retentionTimeMs),
        topics: request.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => ({
            partition: p.partitionIndex,
            offset: toOffset(p.committedOffset),
            leaderEpoch: p.committedLeaderEpoch,
            metadata: p.committedMetadata,
            commitTimestampMs: toOffset(p.commitTimestamp),
          })),
        })),
      });
      return {
        throttleTimeMs: 0,
        topics: r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: errorCode(p.errorCode) })) })),
      };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })) })),
    }),
  };
}

const fetched = (p: FetchedOffset) => ({ partitionIndex: p.partition, committedOffset: BigInt(p.offset), committedLeaderEpoch: p.leaderEpoch, metadata: p.metadata, errorCode: errorCode(p.errorCode) });

/** A group-level error as old versions carry it: on every partition asked for. */
function perPartitionError(request: OffsetFetchRequest, code: number) {
  return {
    throttleTimeMs: 0,
    topics: (request.topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: code })),
    })),
  };
}

function fetchResponse(request: OffsetFetchRequest, version: number, r: EngineFetch) {
  const code = errorCode(r.errorCode);
  if (version < GROUP_ERROR_FROM && code !== 0) return perPartitionError(request, code);
  const topics = r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map(fetched) }));
  return version < GROUP_ERROR_FROM ? { throttleTimeMs: 0, topics } : { throttleTimeMs: 0, topics, errorCode: code };
}

export function offsetFetchHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.OffsetFetch> {
  return {
    apiKey: ApiKey.OffsetFetch,
    advertised: ADVERTISED_VERSIONS[ApiKey.OffsetFetch]!,
    async handle(request, ctx) {
      const topics = request.topics === null ? null : request.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes }));
      const r = await askCoordinator(gateway, { api: 'offsetFetch', groupId: request.groupId, topics, requireStable: request.requireStable });
      return fetchResponse(request, ctx.apiVersion, r);
    },
    errorResponse: (request, code, ctx) =>
      ctx.apiVersion < GROUP_ERROR_FROM ? perPartitionError(request, code) : { throttleTimeMs: 0, topics: [], errorCode: code },
  };
}

export function offsetDeleteHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.OffsetDelete> {
  return {
    apiKey: ApiKey.OffsetDelete,
    advertised: ADVERTISED_VERSIONS[ApiKey.OffsetDelete]!,
    async handle(request) {
      const r = await askCoordinator(gateway, {
        api: 'offsetDelete',
        groupId: request.groupId,
        topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex) })),
      });
      return {
        errorCode: errorCode(r.errorCode),
        throttleTimeMs: 0,
        topics: r.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, errorCode: errorCode(p.errorCode) })) })),
      };
    },
    errorResponse: (_request, code) => ({ errorCode: code, throttleTimeMs: 0, topics: [] }),
  };
}
