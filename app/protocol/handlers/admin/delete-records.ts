/**
 * DeleteRecords (21) on one broker (Kafka's KafkaApis.handleDeleteRecordsRequest): the admin
 * client sends each partition to its leader; this broker moves the log start of the partitions it
 * leads and answers the others NOT_LEADER_OR_FOLLOWER (core/broker/delete-records.ts has the rules).
 *
 *   DeleteRecordsRequest  => [topic [partition offset]] timeout_ms        (offset -1: the high watermark)
 *   DeleteRecordsResponse => throttle_time_ms [topic [partition low_watermark error_code]]
 *
 * A partition named twice is answered once, with the last offset given (Kafka collects the request
 * into a map by partition). Topics are answered in the order first named.
 */
import type { BrokerAnswer, ClientDeleteRecordsResponse } from '../../../core/engine.js';
import type { ApiHandler } from '../../api-handler.js';
import { errorCode } from '../../error-codes.js';
import { ApiKey, type DeleteRecordsRequest } from '../../generated/index.js';
import { ADVERTISED_VERSIONS } from '../api-versions.js';
import { answered } from '../broker-gateway.js';
import { toOffset } from '../offsets.js';
import type { AdminGateway } from './gateway.js';

function everyPartition(request: DeleteRecordsRequest, code: number) {
  return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: code })) })),
  };
}

export function deleteRecordsHandler(gateway: AdminGateway): ApiHandler<typeof ApiKey.DeleteRecords> {
  return {
    apiKey: ApiKey.DeleteRecords,
    advertised: ADVERTISED_VERSIONS[ApiKey.DeleteRecords]!,
    async handle(request) {
      // By topic, then partition: the last offset named for a partition wins.
      const asked = new Map<string, Map<number, number>>();
      for (const t of request.topics) {
        const partitions = asked.get(t.name) ?? new Map<number, number>();
        for (const p of t.partitions) partitions.set(p.partitionIndex, toOffset(p.offset));
        asked.set(t.name, partitions);
      }
      const partitions = [...asked].flatMap(([topic, ps]) => [...ps].map(([partition, offset]) => ({ topic, partition, offset })));
      let results: ClientDeleteRecordsResponse['partitions'] = [];
      if (partitions.length > 0) {
        const answer = await gateway.call<BrokerAnswer<ClientDeleteRecordsResponse>>((done) =>
          gateway.engine.deleteRecordsRequest(gateway.brokerId, { type: 'deleteRecords', timeoutMs: Math.max(request.timeoutMs, 0), partitions }, done),
        );
        results = (await answered(answer)).partitions;
      }
      let i = 0;
      return {
        throttleTimeMs: 0,
        topics: [...asked].map(([name, ps]) => ({
          name,
          partitions: [...ps.keys()].map((partitionIndex) => {
            const r = results[i++]!;
            return { partitionIndex, lowWatermark: BigInt(r.lowWatermark), errorCode: errorCode(r.error) };
          }),
        })),
      };
    },
    errorResponse: (request, code) => everyPartition(request, code),
  };
}
