/**
 * The contract's consumer group methods: Kafka's group admin (ListGroups, DescribeGroups, the
 * offset reset of `kafka-consumer-groups.sh`, DeleteGroups) and the console's own in-app consumer
 * groups that drills start. Spread into the method table in contract.ts.
 */
import { z } from 'zod';
import { method, returns } from './contract-kit.js';
import { empty, groupIdSchema, topicNameSchema } from './contract-schemas.js';
import type { GroupListingView, GroupView, InAppConsumerGroupView, OffsetResetView } from './groups.js';

export const groupsMethods = {
  /**
   * Every consumer group, from every running broker (ListGroups), with its coordinator, member
   * count and total lag.
   */
  'groups.list': method(empty, returns<GroupListingView[]>()),
  /**
   * One group as `kafka-consumer-groups.sh --describe` shows it: state, protocol, members with
   * client id, host and assignment, and per partition the committed offset, log end offset and
   * lag. A group that does not exist fails with GROUP_ID_NOT_FOUND.
   */
  'groups.describe': method(z.strictObject({ groupId: groupIdSchema }), returns<GroupView>()),
  /**
   * `kafka-consumer-groups.sh --reset-offsets`: move the group's committed offsets of the chosen
   * topics (default: every topic it has offsets for) to the earliest or latest offset, an offset,
   * the first offset at or after a time, or by N. Targets are kept within [log start, log end].
   * Only for a group without members (Empty, or not existing yet), as Kafka requires: otherwise
   * NON_EMPTY_GROUP. `dryRun` (the default) only previews.
   */
  'groups.resetOffsets': method(
    z.strictObject({
      groupId: groupIdSchema,
      topics: z.array(z.strictObject({ topic: topicNameSchema, partitions: z.array(z.int().min(0)).optional() })).optional(),
      to: z.union([
        z.strictObject({ earliest: z.literal(true) }),
        z.strictObject({ latest: z.literal(true) }),
        z.strictObject({ offset: z.int().min(0) }),
        z.strictObject({ timestamp: z.int() }),
        z.strictObject({ shiftBy: z.int() }),
      ]),
      dryRun: z.boolean().optional(),
    }),
    returns<OffsetResetView>(),
  ),
  /** DeleteGroups: only a group without members (NON_EMPTY_GROUP otherwise); its offsets go with it. */
  'groups.delete': method(z.strictObject({ groupId: groupIdSchema }), returns<{ groupId: string }>()),

  /**
   * Start an in-app consumer group (for drills): `members` consumers join `groupId`, share the
   * topics' partitions (range assignor), consume from the committed offsets (else the earliest)
   * and commit every 5 s, exactly as a Kafka client would, over the cluster's own network.
   */
  'consumers.start': method(
    z.strictObject({
      groupId: groupIdSchema,
      topics: z.array(topicNameSchema).min(1),
      members: z.int().min(1).max(20).optional(),
      sessionTimeoutMs: z.int().min(1).optional(),
    }),
    returns<InAppConsumerGroupView>(),
  ),
  /** Stop an in-app consumer group: its members commit and leave (or vanish, with `leave: false`). */
  'consumers.stop': method(z.strictObject({ groupId: groupIdSchema, leave: z.boolean().optional() }), returns<{ groupId: string }>()),
  /** The in-app consumer groups and what each member is doing. */
  'consumers.list': method(empty, returns<InAppConsumerGroupView[]>()),
};
