/**
 * DeleteRecords on one broker (Kafka's ReplicaManager.deleteRecords, Partition.deleteRecordsOnLeader
 * and the DelayedDeleteRecords purgatory): each partition's leader moves its log start offset up to
 * the requested offset, then the answer waits until every follower on a live broker has followed
 * (the low watermark, from the log start offsets followers send in their fetches).
 *
 * Per partition, in Kafka's order: an internal topic is INVALID_TOPIC_EXCEPTION; an unknown one
 * UNKNOWN_TOPIC_OR_PARTITION; an offline replica KAFKA_STORAGE_ERROR; a broker that does not lead it
 * NOT_LEADER_OR_FOLLOWER; a topic without `delete` in cleanup.policy POLICY_VIOLATION. The offset
 * -1 means the high watermark; any other negative offset, or one past the high watermark, is
 * OFFSET_OUT_OF_RANGE (UnifiedLog.maybeIncrementLogStartOffset). An offset at or below the current
 * log start changes nothing and still answers the low watermark. A partition whose low watermark
 * has not reached the offset when `timeoutMs` passes is REQUEST_TIMED_OUT (its log start has moved
 * on the leader all the same); one whose leadership ends meanwhile gets NOT_LEADER_OR_FOLLOWER.
 *
 * Invariant: the log start never passes the high watermark, so no record a consumer could not yet
 * read is deleted, and committed records below it are gone on the leader at once and on each
 * follower at its next fetch.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { TopicRuntimeConfig } from '../runtime-config.js';
import { isInternalTopic } from '../topic-names.js';
import type { ClientDeleteRecordsPartitionResponse, ClientDeleteRecordsRequest, ClientDeleteRecordsResponse } from './messages.js';
import type { ReplicaPartition } from './partition.js';
import type { ReplicaManager } from './replica-manager.js';

/** DeleteRecordsRequest.HIGH_WATERMARK: delete every record below the high watermark. */
export const HIGH_WATERMARK = -1;

export interface DeleteRecordsHost {
  topicConfig(topicId: string): TopicRuntimeConfig;
  /** The leader's log start moved: fetch sessions must tell followers. */
  onLeaderStateChanged(partition: ReplicaPartition): void;
}

export function deleteRecords(
  host: DeleteRecordsHost,
  replicas: ReplicaManager,
  req: ClientDeleteRecordsRequest,
  reply: (res: ClientDeleteRecordsResponse) => void,
): void {
  const results: ClientDeleteRecordsPartitionResponse[] = new Array(req.partitions.length);
  let pending = req.partitions.length;
  if (pending === 0) return reply({ partitions: [] });
  req.partitions.forEach(({ topic, partition, offset }, i) => {
    const settle = (error: KafkaErrorName, lowWatermark: number, message?: string): void => {
      results[i] = { topic, partition, error, lowWatermark: error === 'NONE' ? lowWatermark : -1, ...(message ? { message } : {}) };
      if (--pending === 0) reply({ partitions: results });
    };
    if (isInternalTopic(topic)) return settle('INVALID_TOPIC_EXCEPTION', -1, `Cannot delete records of internal topic ${topic}`);
    const found = replicas.leaderReplica(topic, partition, -1, true);
    if (!found.ok) return settle(found.error, -1);
    const p = found.replica;
    if (!host.topicConfig(p.topicId).cleanupPolicyDelete) {
      return settle('POLICY_VIOLATION', -1, `Records of partition ${topic}-${partition} can not be deleted due to the configured policy`);
    }
    const hw = p.log.highWatermark;
    const target = offset === HIGH_WATERMARK ? hw : offset;
    if (target < 0) return settle('OFFSET_OUT_OF_RANGE', -1, `The offset ${target} for partition ${topic}-${partition} is not valid`);
    if (target > hw) {
      return settle('OFFSET_OUT_OF_RANGE', -1, `Cannot increment the log start offset to ${target} of partition ${topic}-${partition} since it is larger than the high watermark ${hw}`);
    }
    if (target > p.log.logStartOffset) {
      p.log.advanceLogStartOffset(target);
      host.onLeaderStateChanged(p);
    }
    const low = p.lowWatermark();
    if (low >= target) return settle('NONE', low);
    p.waitForLowWatermark(target, req.timeoutMs, (o) => settle(o.errorCode, 'lowWatermark' in o ? o.lowWatermark : -1));
  });
}
