/**
 * ListOffsets (key 2) on one broker: which offset a timestamp names, on each partition's leader.
 *
 *   ListOffsetsRequest  => replica_id isolation_level(v2+) [topic [partition current_leader_epoch(v4+) timestamp]]
 *   ListOffsetsResponse => throttle_time_ms(v2+) [topic [partition error_code timestamp offset leader_epoch(v4+)]]
 *
 * Timestamps: -1 latest (the high watermark; the last stable offset under read_committed, the
 * same here), -2 earliest (the log start), -3 the record with the largest timestamp (KIP-734,
 * Kafka serves it from v7, so below v7 it is UNSUPPORTED_VERSION), else the first offset whose
 * timestamp is at or after it. v1+ only (v0's "offsets before" list is gone in Kafka 4 too).
 * A partition named twice in one request is answered INVALID_REQUEST each time, as Kafka does.
 */
import type { BrokerAnswer, ClientListOffsetsPartitionResponse, ClientListOffsetsResponse } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey, type ListOffsetsRequest } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import { answered, type BrokerGateway } from './broker-gateway.js';
import { toOffset } from './offsets.js';

const MAX_TIMESTAMP = -3n;

/** One partition's answer; the leader epoch only from v4, where the response has it. */
function partitionAnswer(version: number, index: number, code: number, r?: ClientListOffsetsPartitionResponse) {
  return { partitionIndex: index, errorCode: code, oldStyleOffsets: [], timestamp: BigInt(r?.timestamp ?? -1), offset: BigInt(r?.offset ?? -1), leaderEpoch: version >= 4 ? (r?.leaderEpoch ?? -1) : -1 };
}

function everyPartition(request: ListOffsetsRequest, code: number) {
  return { throttleTimeMs: 0, topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => partitionAnswer(0, p.partitionIndex, code)) })) };
}

export function listOffsetsHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.ListOffsets> {
  return {
    apiKey: ApiKey.ListOffsets,
    advertised: ADVERTISED_VERSIONS[ApiKey.ListOffsets]!,
    implemented: [1, 5],
    async handle(request, ctx) {
      const seen = new Map<string, number>();
      for (const t of request.topics) for (const p of t.partitions) seen.set(`${t.name}\u0000${p.partitionIndex}`, (seen.get(`${t.name}\u0000${p.partitionIndex}`) ?? 0) + 1);
      const refused = (name: string, p: ListOffsetsRequest['topics'][number]['partitions'][number]): number | null => {
        if ((seen.get(`${name}\u0000${p.partitionIndex}`) ?? 0) > 1) return errorCode('INVALID_REQUEST');
        if (p.timestamp === MAX_TIMESTAMP && ctx.apiVersion < 7) return errorCode('UNSUPPORTED_VERSION');
        return null;
      };
      const asked = request.topics.flatMap((t) =>
        t.partitions.filter((p) => refused(t.name, p) === null).map((p) => ({ topic: t.name, partition: p.partitionIndex, timestamp: toOffset(p.timestamp), currentLeaderEpoch: p.currentLeaderEpoch })),
      );
      let results: ClientListOffsetsPartitionResponse[] = [];
      if (asked.length > 0) {
        const answer = await gateway.call<BrokerAnswer<ClientListOffsetsResponse>>((done) =>
          gateway.engine.listOffsetsRequest(gateway.brokerId, { type: 'listOffsets', isolationLevel: request.isolationLevel === 1 ? 'read_committed' : 'read_uncommitted', partitions: asked }, done),
        );
        results = (await answered(answer)).partitions;
      }
      let i = 0;
      return {
        throttleTimeMs: 0,
        topics: request.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => {
            const code = refused(t.name, p);
            if (code !== null) return partitionAnswer(ctx.apiVersion, p.partitionIndex, code);
            const r = results[i++]!;
            return partitionAnswer(ctx.apiVersion, p.partitionIndex, errorCode(r.error), r);
          }),
        })),
      };
    },
    errorResponse: (request, code) => everyPartition(request, code),
  };
}
