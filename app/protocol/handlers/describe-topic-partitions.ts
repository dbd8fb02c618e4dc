/**
 * DescribeTopicPartitions (75, KIP-966): Metadata's partition view plus each partition's eligible
 * leader replicas and last known ELR, paged by a cursor, from the answering broker's own copy of
 * the metadata (Kafka's DescribeTopicPartitionsRequestHandler over KRaftMetadataCache).
 *
 *   Request  => [topic name] response_partition_limit cursor{topic_name partition_index}?
 *   Response => throttle [error_code name topic_id is_internal [error_code partition_index
 *               leader_id leader_epoch replicas isr elr last_known_elr offline_replicas]
 *               topic_authorized_operations] next_cursor?
 *
 * Paging, as Kafka pages: the topics asked for (none = every topic) with a name ≥ the cursor's,
 * deduplicated and sorted by name; the cursor's topic starts at its partition index, the others
 * at 0; at most max(min(2000, limit), 1) partitions (2000 is `max.request.partition.size.limit`'s
 * default). A topic whose partitions do not all fit ends the page with next_cursor = that topic
 * and the first partition left out; when the limit is used up exactly before a topic, next_cursor
 * names that topic at 0 (even if it turns out not to exist). A topic named that does not exist is
 * UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION for a name Kafka would refuse); when every
 * topic is asked for, none can be missing. Partitions carry no error (a leaderless one has leader
 * -1 and error 0), replicas and ISR are listed whole, offline replicas apart.
 * Refused with INVALID_REQUEST for every topic asked: a cursor whose topic is not among the topics
 * named, or whose partition index is negative.
 */
import type { BrokerAnswer, ClientMetadataResponse, ClientMetadataTopic } from '../../core/engine.js';
import type { ApiHandler } from '../api-handler.js';
import { errorCode } from '../error-codes.js';
import { ApiKey, type DescribeTopicPartitionsRequest, type DescribeTopicPartitionsResponse } from '../generated/index.js';
import { type Init, ZERO_UUID } from '../runtime/index.js';
import { ADVERTISED_VERSIONS } from './api-versions.js';
import { answered, type BrokerGateway } from './broker-gateway.js';

/** `max.request.partition.size.limit`'s default: the most partitions one answer carries. */
export const MAX_REQUEST_PARTITION_SIZE_LIMIT = 2000;
const NOT_REQUESTED = -2147483648;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * A topic id as 16 bytes can carry it. The engine now makes canonical ids (they pass unchanged);
 * topics created before that stored 22 base64url characters whose last one holds 6 bits where a
 * uuid has 2 left, so for those the 4 low bits are dropped.
 */
export function wireTopicId(id: string): string {
  const last = BASE64URL.indexOf(id[21] ?? '');
  if (id.length !== 22 || last < 0) return ZERO_UUID;
  return id.slice(0, 21) + BASE64URL[last & 0b110000]!;
}

type TopicAnswer = DescribeTopicPartitionsResponse['topics'][number];

/** As DescribeTopicPartitionsRequest.getErrorResponse: every topic asked, with the error. */
function errorAnswer(request: DescribeTopicPartitionsRequest, code: number): Init<DescribeTopicPartitionsResponse> {
  return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({ errorCode: code, name: t.name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: NOT_REQUESTED })),
    nextCursor: null,
  };
}

export function describeTopicPartitionsHandler(gateway: BrokerGateway): ApiHandler<typeof ApiKey.DescribeTopicPartitions> {
  return {
    apiKey: ApiKey.DescribeTopicPartitions,
    advertised: ADVERTISED_VERSIONS[ApiKey.DescribeTopicPartitions]!,
    async handle(request) {
      const all = request.topics.length === 0;
      const cursor = request.cursor;
      const from = cursor?.topicName ?? '';
      const refuse = () => errorAnswer(request, errorCode('INVALID_REQUEST'));
      const names = [...new Set(request.topics.map((t) => t.name))].filter((n) => n >= from);
      if (!all && cursor && !names.includes(cursor.topicName)) return refuse();
      if (cursor && cursor.partitionIndex < 0) return refuse();

      const answer = await gateway.call<BrokerAnswer<ClientMetadataResponse>>((done) =>
        gateway.engine.metadataRequest(gateway.brokerId, { type: 'metadata', topics: all ? null : names }, done),
      );
      const m = await answered(answer);
      const byName = new Map(m.topics.map((t) => [t.name, t]));
      const order = (all ? m.topics.map((t) => t.name).filter((n) => n >= from) : names).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

      let remaining = Math.max(Math.min(MAX_REQUEST_PARTITION_SIZE_LIMIT, request.responsePartitionLimit), 1);
      const topics: TopicAnswer[] = [];
      let nextCursor: { topicName: string; partitionIndex: number } | null = null;
      for (const name of order) {
        if (remaining === 0) {
          nextCursor = { topicName: name, partitionIndex: 0 };
          break;
        }
        const t = byName.get(name);
        if (!t || t.error !== 'NONE') {
          if (!all) topics.push(missingTopic(name, t));
          continue;
        }
        const start = cursor && name === cursor.topicName ? cursor.partitionIndex : 0;
        const upper = Math.min(t.partitions.length, start + remaining);
        const page = t.partitions.filter((p) => p.partition >= start && p.partition < upper);
        topics.push(topicAnswer(t, page));
        if (upper < t.partitions.length) {
          nextCursor = { topicName: name, partitionIndex: upper };
          break;
        }
        remaining -= page.length;
      }
      return { throttleTimeMs: 0, topics, nextCursor };
    },
    errorResponse: errorAnswer,
  };
}

function topicAnswer(t: ClientMetadataTopic, page: ClientMetadataTopic['partitions']): TopicAnswer {
  return {
    errorCode: 0,
    name: t.name,
    topicId: wireTopicId(t.topicId),
    isInternal: t.isInternal,
    partitions: page.map((p) => ({
      errorCode: 0,
      partitionIndex: p.partition,
      leaderId: p.leader,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: p.replicas,
      isrNodes: p.isr,
      eligibleLeaderReplicas: p.elr,
      lastKnownElr: p.lastKnownElr,
      offlineReplicas: p.offlineReplicas,
    })),
    topicAuthorizedOperations: NOT_REQUESTED,
  };
}

function missingTopic(name: string, t: ClientMetadataTopic | undefined): TopicAnswer {
  const code = t?.error && t.error !== 'NONE' ? t.error : 'UNKNOWN_TOPIC_OR_PARTITION';
  return { errorCode: errorCode(code), name, topicId: ZERO_UUID, isInternal: t?.isInternal ?? false, partitions: [], topicAuthorizedOperations: NOT_REQUESTED };
}
