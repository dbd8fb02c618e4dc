/**
 * The bytes of `__consumer_offsets`, as a port. The group coordinator keeps its state as records
 * in that replicated topic, in Kafka's own schemas (OffsetCommitKey/Value, GroupMetadataKey/Value:
 * an int16 version, then the struct), and reads the consumer protocol's subscription and
 * assignment bytes to know which topics a group consumes. Those schemas are Kafka message
 * definitions, so their codecs are generated in app/protocol; the core, which may not import it,
 * takes them as this interface (`EngineOptions.groupRecords`), as it takes its storage.
 *
 * A `null` value is a tombstone: the offset or the group is gone.
 */

/** A committed offset as the coordinator keeps it (Kafka's OffsetAndMetadata). */
export interface OffsetAndMetadata {
  offset: number;
  /** The leader epoch of the last consumed record; -1 when the client did not say. */
  leaderEpoch: number;
  metadata: string;
  commitTimestampMs: number;
  /** Only for commits of OffsetCommit v1–v4 with a retention time: when the offset expires. */
  expireTimestampMs: number | null;
}

/** One member as the group metadata record stores it. */
export interface StoredMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  /** The member's metadata for the group's protocol (its subscription, for consumers). */
  subscription: Uint8Array;
  assignment: Uint8Array;
}

/** A group as its metadata record stores it: written when a generation's assignment is known. */
export interface StoredGroup {
  protocolType: string;
  generation: number;
  protocol: string | null;
  leader: string | null;
  /** When the group entered its current state; -1 when unknown. */
  currentStateTimestampMs: number;
  members: StoredMember[];
}

export type CoordinatorRecordKey =
  | { kind: 'offset'; group: string; topic: string; partition: number }
  | { kind: 'group'; group: string }
  /** A key version this coordinator does not know (Kafka skips such records). */
  | { kind: 'unknown'; version: number };

/** A consumer's assigned partitions, by topic. */
export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

export interface GroupRecordCodec {
  offsetCommitKey(group: string, topic: string, partition: number): Uint8Array;
  offsetCommitValue(offset: OffsetAndMetadata): Uint8Array;
  groupMetadataKey(group: string): Uint8Array;
  groupMetadataValue(group: StoredGroup): Uint8Array;
  /** Throws when the bytes are not a key Kafka could have written. */
  readKey(key: Uint8Array): CoordinatorRecordKey;
  readOffsetCommitValue(value: Uint8Array): OffsetAndMetadata;
  readGroupMetadataValue(value: Uint8Array): StoredGroup;
  /** The topics of a consumer-protocol subscription; null when the bytes are not one. */
  subscribedTopics(subscription: Uint8Array): string[] | null;
  /** The partitions of a consumer-protocol assignment; null when the bytes are not one. */
  assignedPartitions(assignment: Uint8Array): TopicPartitions[] | null;
  /** A consumer-protocol subscription (what the in-app consumer sends in JoinGroup). */
  encodeSubscription(topics: readonly string[]): Uint8Array;
  /** A consumer-protocol assignment (what the in-app consumer's leader sends in SyncGroup). */
  encodeAssignment(partitions: readonly TopicPartitions[]): Uint8Array;
}
