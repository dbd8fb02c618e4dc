/**
 * What to do about an error, in one sentence, for the toasts and inline messages. Keyed by the
 * contract's error codes (Kafka's names where Kafka has one).
 */
import type { ErrorCode } from '../../../app/api/contract.js';

const HELP: Partial<Record<ErrorCode, string>> = {
  NOT_ENOUGH_REPLICAS: 'The ISR is smaller than min.insync.replicas: restart or heal brokers, or lower min.insync.replicas (less durable), or produce with acks=1.',
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 'The leader wrote the records but the ISR shrank below min.insync.replicas before they were replicated; retrying may write duplicates.',
  REQUEST_TIMED_OUT: 'Followers did not catch up in time: check for stalled, isolated or slow brokers, then retry.',
  LEADER_NOT_AVAILABLE: 'The partition has no leader right now (election in progress or all replicas down): wait, or start a broker that holds it.',
  NOT_LEADER_OR_FOLLOWER: 'Leadership moved while the request was in flight: retry.',
  INVALID_REPLICATION_FACTOR: 'The replication factor must be at least 1 and at most the number of live brokers: add brokers or lower it.',
  INVALID_PARTITIONS: 'Partition counts must be at least 1, and a topic can only grow.',
  INVALID_REPLICA_ASSIGNMENT: 'Every partition needs the same number of distinct, existing brokers.',
  INVALID_CONFIG: 'Check the value against the config’s type and valid range (see its documentation).',
  TOPIC_ALREADY_EXISTS: 'Pick another name, or open the existing topic.',
  INVALID_TOPIC_EXCEPTION: 'Topic names use letters, digits, ".", "_" and "-", at most 249 characters, and cannot be "." or "..".',
  UNKNOWN_TOPIC_OR_PARTITION: 'The topic or partition does not exist (it may have been deleted): refresh the list.',
  REASSIGNMENT_IN_PROGRESS: 'Wait for the running reassignment to finish, or cancel it first.',
  NO_REASSIGNMENT_IN_PROGRESS: 'Nothing is being moved for that partition.',
  ELECTION_NOT_NEEDED: 'The preferred replica already leads: nothing to do.',
  PREFERRED_LEADER_NOT_AVAILABLE: 'The preferred replica is offline or out of the ISR: bring it back first.',
  ELIGIBLE_LEADERS_NOT_AVAILABLE: 'No replica in the ISR is alive: start one, or run an unclean election (may lose data).',
  KAFKA_STORAGE_ERROR: 'A broker’s storage failed: see the broker’s state; restarting it re-reads its files.',
  CORRUPT_MESSAGE: 'A record batch failed its CRC check: that replica is offline until it is rebuilt.',
  OFFSET_OUT_OF_RANGE: 'Choose an offset between the log start offset and the high watermark.',
  BROKER_NOT_FOUND: 'That broker is not a member of the cluster: refresh the broker list.',
  INVALID_STATE: 'Not possible in the current state: read the message (a broker that hosts replicas must be drained with Balance › exclude broker before it can be removed; a running broker cannot be started).',
  POLICY_VIOLATION: 'The cluster’s policy refuses this change.',
  INVALID_INPUT: 'A field is missing or has the wrong type: see the message.',
  INVALID_REQUEST: 'The request was refused: see the message.',
  INTERNAL: 'This is a bug in Replica Studio; the host logged it with its stack.',
  NON_EMPTY_GROUP: 'The group still has members: stop its consumers (they leave the group), wait for the state Empty, then try again.',
  GROUP_ID_NOT_FOUND: 'No such consumer group (it may have been deleted, or never committed an offset): refresh the list.',
  COORDINATOR_NOT_AVAILABLE: 'The group coordinator is moving (its broker is down or __consumer_offsets is being created): retry in a few seconds.',
  COORDINATOR_LOAD_IN_PROGRESS: 'A new coordinator is loading the group from __consumer_offsets: retry in a moment.',
  NOT_COORDINATOR: 'The group coordinator moved while the request was in flight: retry.',
};

export function errorHelp(code: ErrorCode): string | undefined {
  return HELP[code];
}
