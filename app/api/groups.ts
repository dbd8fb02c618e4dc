/**
 * The contract's consumer-group views: what `groups.*` and `consumers.*` answer. Offsets and lag
 * are as `kafka-consumer-groups.sh --describe` shows them: the committed offset, the partition's
 * log end offset as a read_uncommitted consumer sees it (the high watermark), and their difference.
 */
import type { GroupStateView } from './events.js';

export type { GroupStateView } from './events.js';

/** A topic's partitions, as an assignment lists them. */
export interface TopicPartitionsView {
  topic: string;
  partitions: number[];
}

/** One group in `groups.list`. */
export interface GroupListingView {
  groupId: string;
  state: GroupStateView;
  /** "consumer" for consumer groups; "" for a group that only stores offsets. */
  protocolType: string;
  /** The broker coordinating it: the leader of its `__consumer_offsets` partition. */
  coordinatorId: number;
  members: number;
  /** Σ lag over the partitions with a committed offset; null when it has none. */
  totalLag: number | null;
}

export interface GroupMemberView {
  memberId: string;
  /** `group.instance.id` of a static member. */
  groupInstanceId: string | null;
  clientId: string;
  /** The client's address as the coordinator saw it (Kafka's "/127.0.0.1"). */
  host: string;
  /** The partitions the group's leader gave it (empty until the group is Stable). */
  assignment: TopicPartitionsView[];
}

/** One partition the group consumes or has an offset for. */
export interface GroupPartitionView {
  topic: string;
  partition: number;
  /** null: the group has not committed an offset for it. */
  committedOffset: number | null;
  /** The high watermark (-1 when the partition no longer exists). */
  logEndOffset: number;
  /** logEndOffset − committedOffset; null without a committed offset. */
  lag: number | null;
  /**
   * The last stable offset (ListOffsets read_committed): a read_committed consumer reads below it,
   * so it is below the high watermark while a transaction is open there (-1 when the partition no
   * longer exists).
   */
  lastStableOffset: number;
  /** lastStableOffset − committedOffset: what a read_committed consumer can read now; null without a committed offset. */
  readCommittedLag: number | null;
  /** The member it is assigned to, if any. */
  memberId: string | null;
  clientId: string | null;
}

/** `groups.describe`. */
export interface GroupView {
  groupId: string;
  state: GroupStateView;
  protocolType: string;
  /** The assignor the members agreed on ("range", "roundrobin", …); "" unless Stable. */
  protocol: string;
  coordinatorId: number;
  /** The `__consumer_offsets` partition that holds the group. */
  offsetsPartition: number;
  members: GroupMemberView[];
  partitions: GroupPartitionView[];
  totalLag: number;
}

/** Where `groups.resetOffsets` moves one partition's committed offset. */
export interface OffsetResetPartitionView {
  topic: string;
  partition: number;
  previousOffset: number | null;
  newOffset: number;
  logStartOffset: number;
  logEndOffset: number;
}

export interface OffsetResetView {
  groupId: string;
  /** false when the offsets were committed; true for a preview. */
  dryRun: boolean;
  partitions: OffsetResetPartitionView[];
}

/** One member of an in-app consumer group (`consumers.*`). */
export interface InAppConsumerView {
  clientId: string;
  memberId: string;
  state: 'finding-coordinator' | 'joining' | 'syncing' | 'stable' | 'stopped';
  generationId: number;
  coordinatorId: number | null;
  assignment: TopicPartitionsView[];
  consumedRecords: number;
  lastError: string | null;
}

export interface InAppConsumerGroupView {
  groupId: string;
  topics: string[];
  members: InAppConsumerView[];
}
