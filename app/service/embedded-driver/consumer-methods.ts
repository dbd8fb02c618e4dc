/**
 * The in-app consumer groups of the contract (`consumers.*`): groups of `GroupConsumer`s the
 * console starts for a drill, each member a full classic-protocol consumer over the cluster's own
 * network. They live as long as the service (not persisted: a reopened cluster has none).
 *
 * Invariant: one in-app group per group id; starting one that runs is INVALID_STATE.
 */
import { KafkaError } from '../../api/errors.js';
import type { MethodParsedInput, MethodResult } from '../../api/contract.js';
import type { InAppConsumerGroupView } from '../../api/groups.js';
import type { Engine } from '../../core/engine.js';
import { GroupConsumer } from './group-consumer.js';

type ConsumerMethod = 'consumers.start' | 'consumers.stop' | 'consumers.list';
export type ConsumerMethods = { [M in ConsumerMethod]: (input: MethodParsedInput<M>) => MethodResult<M> };

interface InAppGroup {
  groupId: string;
  topics: string[];
  members: GroupConsumer[];
}

function view(g: InAppGroup): InAppConsumerGroupView {
  return {
    groupId: g.groupId,
    topics: g.topics,
    members: g.members.map((m, i) => ({
      clientId: `${g.groupId}-consumer-${i + 1}`,
      memberId: m.memberId,
      state: m.state,
      generationId: m.generationId,
      coordinatorId: m.coordinatorId,
      assignment: m.assignment.map((a) => ({ topic: a.topic, partitions: [...a.partitions] })),
      consumedRecords: m.consumedRecords,
      lastError: m.lastError,
    })),
  };
}

export function consumerMethods(engine: Engine): ConsumerMethods {
  const groups = new Map<string, InAppGroup>();
  return {
    'consumers.start': ({ groupId, topics, members = 3, sessionTimeoutMs }) => {
      if (groups.has(groupId)) throw new KafkaError('INVALID_STATE', `In-app consumers of group '${groupId}' are already running: stop them first.`);
      for (const t of topics) if (!engine.metadata.topicsByName.has(t)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${t} does not exist.`);
      const g: InAppGroup = {
        groupId,
        topics,
        members: Array.from({ length: members }, (_, i) => new GroupConsumer(engine, { groupId, clientId: `${groupId}-consumer-${i + 1}`, topics, ...(sessionTimeoutMs ? { sessionTimeoutMs } : {}) })),
      };
      groups.set(groupId, g);
      for (const m of g.members) m.start();
      return view(g);
    },
    'consumers.stop': ({ groupId, leave = true }) => {
      const g = groups.get(groupId);
      if (!g) throw new KafkaError('INVALID_STATE', `No in-app consumers of group '${groupId}' are running.`);
      for (const m of g.members) m.stop(leave);
      groups.delete(groupId);
      return { groupId };
    },
    'consumers.list': () => [...groups.values()].map(view),
  };
}
