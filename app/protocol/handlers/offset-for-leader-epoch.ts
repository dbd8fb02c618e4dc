/**
 * OffsetForLeaderEpoch (key 23) from a consumer (KIP-320): where a leader epoch ended on the
 * partition's leader, so a client whose position was written in that epoch can tell whether a
 * new leader truncated it (librdkafka ≥ 2.1 validates its position this way after a leader change).
 *
 *   OffsetForLeaderEpochRequest  => replica_id(v3+) [topic [partition current_leader_epoch(v2+) leader_epoch]]
 *   OffsetForLeaderEpochResponse => throttle_time_ms(v2+) [topic [error_code partition leader_epoch(v1+) end_offset]]
 *
 * Answers: the largest epoch at or below the one asked for and its end offset (the log end for
 * the current epoch), UNDEFINED (-1, -1) when the log knows no such epoch; the leader checks
 * current_leader_epoch first (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH). Follower requests
 * (replica_id ≥ 0) are the brokers' own business and answered as a consumer's.
 */
import type { BrokerAnswer, ClientOffsetForLeaderEpochResponse } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey } from '../generated/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import { answered, type BrokerGateway } from './broker-gateway.js';

export function offsetForLeaderEpochHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.OffsetForLeaderEpoch> {
  return {
    apiKey: ApiKey.OffsetForLeaderEpoch,
    advertised: ADVERTISED_VERSIONS[ApiKey.OffsetForLeaderEpoch]!,
    async handle(request) {
      const partitions = request.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, currentLeaderEpoch: p.currentLeaderEpoch, leaderEpoch: p.leaderEpoch })));
      const answer = await gateway.call<BrokerAnswer<ClientOffsetForLeaderEpochResponse>>((done) =>
        gateway.engine.offsetForLeaderEpochRequest(gateway.brokerId, { type: 'offsetForLeaderEpoch', partitions }, done),
      );
      const results = (await answered(answer)).partitions;
      let i = 0;
      return {
        throttleTimeMs: 0,
        topics: request.topics.map((t) => ({
          topic: t.topic,
          partitions: t.partitions.map(() => {
            const r = results[i++]!;
            return { errorCode: errorCode(r.error), partition: r.partition, leaderEpoch: r.leaderEpoch, endOffset: BigInt(r.endOffset) };
          }),
        })),
      };
    },
    errorResponse: (request, code) => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ topic: t.topic, partitions: t.partitions.map((p) => ({ errorCode: code, partition: p.partition, leaderEpoch: -1, endOffset: -1n })) })),
    }),
  };
}
