/**
 * The contract's consumer-group methods (`groups.*`), done as Kafka's admin client and
 * `kafka-consumer-groups.sh` do them: over the group APIs of the brokers, so the coordinator's
 * own rules and errors apply — ListGroups to every running broker, FindCoordinator then
 * DescribeGroups / OffsetFetch / OffsetCommit / DeleteGroups to the group's coordinator. The log
 * end offset of a partition is its high watermark (what a read_uncommitted ListOffsets answers).
 *
 * Guarantees: offsets are reset only for a group without members (Empty, or one that does not
 * exist yet), as the tool requires ("Assignments can only be reset if the group is inactive"), and
 * each target stays within the partition's [log start, log end], as the tool clamps it.
 */
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import type { MethodParsedInput, MethodResult } from '../../api/contract.js';
import type { GroupPartitionView, GroupStateView, OffsetResetPartitionView, TopicPartitionsView } from '../../api/groups.js';
import {
  LATEST_TIMESTAMP,
  NO_LEADER_EPOCH,
  OFFSETS_TOPIC,
  type BrokerAnswer,
  type ClientListOffsetsResponse,
  type Engine,
  type GroupAnswer,
  type GroupApiRequest,
  type GroupResponseOf,
  type ListOffsetsResult,
} from '../../core/engine.js';

type GroupMethod = 'groups.list' | 'groups.describe' | 'groups.resetOffsets' | 'groups.delete';
export type GroupMethods = { [M in GroupMethod]: (input: MethodParsedInput<M>) => Promise<MethodResult<M>> };

/** Start an async engine operation and resolve with its answer (the service's clock handling). */
export type Answer = <T>(start: (done: (value: T) => void) => void) => Promise<T>;

const tp = (topic: string, partition: number): string => `${topic}-${partition}`;

const HINTS: Partial<Record<KafkaErrorName, string>> = {
  COORDINATOR_NOT_AVAILABLE: 'The group coordinator is not available yet (__consumer_offsets is being created, or its partition is electing a leader); retry in a moment.',
  COORDINATOR_LOAD_IN_PROGRESS: 'The group coordinator is loading the group from __consumer_offsets; retry in a moment.',
  NOT_COORDINATOR: 'The group coordinator moved while the request was in flight; retry.',
};

function fail(code: KafkaErrorName, what: string): never {
  throw new KafkaError(code, HINTS[code] ?? `${what} failed: ${code}`);
}

/**
 * Where the group logic reads a cluster: the group APIs sent to one broker, the brokers to ask,
 * each partition's log range. The embedded cluster and an external one (kafka-driver/group-methods.ts)
 * each give one, so both answer `groups.*` with the same code.
 */
export interface GroupBackend {
  /** One group request to one broker; an unreachable broker is a KafkaError (retriable). */
  call<R extends GroupApiRequest>(brokerId: number, request: R): Promise<GroupResponseOf<R>>;
  /** The brokers ListGroups and FindCoordinator go to. */
  brokers(): Promise<number[]>;
  /** The high watermark and log start of a partition (-1 when it no longer exists). */
  logRange(topic: string, partition: number): Promise<{ logStartOffset: number; logEndOffset: number }>;
  /** The last stable offset (ListOffsets read_committed) of a partition; -1 when it no longer exists or has no leader. */
  lastStableOffset(topic: string, partition: number): Promise<number>;
  /** A topic's partitions, ascending; undefined when it does not exist. */
  partitions(topic: string): Promise<number[] | undefined>;
  /** ListOffsets by timestamp: the first offset at or after it (-1 when none). */
  offsetForTime(topic: string, partition: number, timestamp: number): Promise<{ error: KafkaErrorName; offset: number }>;
  /** A consumer-protocol assignment's partitions (null when it cannot be read). */
  assignedPartitions(assignment: Uint8Array): TopicPartitionsView[] | null;
  /** The `__consumer_offsets` partition of a group (-1 before the topic exists). */
  offsetsPartition(groupId: string): Promise<number>;
}

/** The embedded cluster's group APIs, each request answered through `answer` (the service's clock handling). */
export function embeddedGroupBackend(engine: Engine, answer: Answer): GroupBackend {
  return {
    async call(brokerId, request) {
      const a = await answer<GroupAnswer<GroupResponseOf<typeof request>>>((done) => engine.groupRequest(brokerId, request, done));
      if (a.kind === 'unreachable') throw new KafkaError('COORDINATOR_NOT_AVAILABLE', `Broker ${brokerId} did not answer (${a.reason}); retry in a moment.`);
      return a.response;
    },
    brokers: async () => engine.listBrokers().filter((b) => b.state === 'running' && !b.isolated).map((b) => b.id),
    async logRange(topic, partition) {
      const d = engine.describePartition(topic, partition);
      return d ? { logStartOffset: d.logStartOffset, logEndOffset: d.highWatermark } : { logStartOffset: -1, logEndOffset: -1 };
    },
    async lastStableOffset(topic, partition) {
      const leader = engine.metadata.topicsByName.get(topic)?.partitions.get(partition)?.leader ?? -1;
      if (leader < 0) return -1;
      const a = await answer<BrokerAnswer<ClientListOffsetsResponse>>((done) =>
        engine.listOffsetsRequest(leader, { type: 'listOffsets', isolationLevel: 'read_committed', partitions: [{ topic, partition, timestamp: LATEST_TIMESTAMP, currentLeaderEpoch: NO_LEADER_EPOCH }] }, done),
      );
      const p = a.kind === 'response' ? a.response.partitions[0] : undefined;
      return p && p.error === 'NONE' ? p.offset : -1;
    },
    async partitions(topic) {
      const image = engine.metadata.topicsByName.get(topic);
      return image ? [...image.partitions.keys()].sort((a, b) => a - b) : undefined;
    },
    async offsetForTime(topic, partition, timestamp) {
      const r = await answer<ListOffsetsResult>((done) => engine.listOffsets({ topic, partition, timestamp }, done));
      return { error: r.error, offset: r.offset };
    },
    assignedPartitions: (assignment) => engine.groupRecords.assignedPartitions(assignment),
    offsetsPartition: async (groupId) => offsetsPartitionOf(engine, groupId),
  };
}

/**
 * Every group's id and nothing else, as Kafka's admin client lists groups: ListGroups to every
 * broker at once (`groups.list` also describes each group and reads its offsets and lag).
 */
export async function groupIdsOver(backend: Pick<GroupBackend, 'call' | 'brokers'>): Promise<string[]> {
  const answers = await Promise.all((await backend.brokers()).map((b) => backend.call(b, { api: 'listGroups', statesFilter: [] })));
  return [...new Set(answers.flatMap((r) => r.groups.map((g) => g.groupId)))].sort();
}

/** The `groups.*` methods over any cluster's group APIs. */
export function groupMethodsOver(backend: GroupBackend): GroupMethods {
  const call = <R extends GroupApiRequest>(brokerId: number, request: R): Promise<GroupResponseOf<R>> => backend.call(brokerId, request);
  const logRange = (topic: string, partition: number) => backend.logRange(topic, partition);

  /** FindCoordinator, asked of running brokers in turn until one answers. */
  async function coordinatorOf(groupId: string): Promise<number> {
    let last: KafkaErrorName = 'COORDINATOR_NOT_AVAILABLE';
    for (const b of await backend.brokers()) {
      const r = (await call(b, { api: 'findCoordinator', keyType: 0, keys: [groupId] })).coordinators[0]!;
      if (r.errorCode === 'NONE') return r.nodeId;
      last = r.errorCode;
    }
    return fail(last, 'FindCoordinator');
  }

  async function committed(coordinator: number, groupId: string): Promise<Map<string, { topic: string; partition: number; offset: number }>> {
    const r = await call(coordinator, { api: 'offsetFetch', groupId, topics: null, requireStable: false });
    if (r.errorCode !== 'NONE') fail(r.errorCode, 'OffsetFetch');
    const out = new Map<string, { topic: string; partition: number; offset: number }>();
    for (const t of r.topics) for (const p of t.partitions) if (p.offset >= 0) out.set(tp(t.name, p.partition), { topic: t.name, partition: p.partition, offset: p.offset });
    return out;
  }

  async function describe(groupId: string) {
    const coordinatorId = await coordinatorOf(groupId);
    const g = (await call(coordinatorId, { api: 'describeGroups', groups: [groupId] })).groups[0]!;
    if (g.errorCode !== 'NONE') fail(g.errorCode, 'DescribeGroups');
    return { coordinatorId, group: g };
  }

  function lagOf(partitions: readonly GroupPartitionView[]): number | null {
    const lags = partitions.map((p) => p.lag).filter((l): l is number => l !== null);
    return lags.length === 0 ? null : lags.reduce((a, b) => a + b, 0);
  }

  return {
    'groups.list': async () => {
      const listings = [];
      for (const b of await backend.brokers()) {
        const r = await call(b, { api: 'listGroups', statesFilter: [] });
        if (r.groups.length === 0) continue;
        const described = (await call(b, { api: 'describeGroups', groups: r.groups.map((g) => g.groupId) })).groups;
        for (const g of r.groups) {
          const offsets = await committed(b, g.groupId).catch(() => new Map<string, { topic: string; partition: number; offset: number }>());
          const partitions = await Promise.all(
            [...offsets.values()].map(async (o) => {
              const end = (await logRange(o.topic, o.partition)).logEndOffset;
              return { lag: end >= 0 ? Math.max(0, end - o.offset) : null } as GroupPartitionView;
            }),
          );
          const d = described.find((x) => x.groupId === g.groupId);
          listings.push({
            groupId: g.groupId,
            // ListGroups names the state from v4 on; below that, DescribeGroups does.
            state: (g.state || d?.state || 'Dead') as GroupStateView,
            protocolType: g.protocolType,
            coordinatorId: b,
            members: d?.members.length ?? 0,
            totalLag: lagOf(partitions),
          });
        }
      }
      return listings.sort((a, b) => a.groupId.localeCompare(b.groupId));
    },

    'groups.describe': async ({ groupId }) => {
      const { coordinatorId, group } = await describe(groupId);
      if (group.state === 'Dead') throw new KafkaError('GROUP_ID_NOT_FOUND', `Consumer group '${groupId}' does not exist.`);
      const members = group.members.map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        host: m.clientHost,
        assignment: (group.protocolType === 'consumer' && m.assignment.length > 0 ? backend.assignedPartitions(m.assignment) : null) ?? [],
      }));
      const offsets = await committed(coordinatorId, groupId);
      const owner = new Map<string, { memberId: string; clientId: string }>();
      for (const m of members) for (const a of m.assignment) for (const p of a.partitions) owner.set(tp(a.topic, p), m);
      const keys = new Map<string, { topic: string; partition: number }>();
      for (const m of members) for (const a of m.assignment) for (const p of a.partitions) keys.set(tp(a.topic, p), { topic: a.topic, partition: p });
      for (const [k, o] of offsets) keys.set(k, o);
      const ranges = await Promise.all([...keys.values()].map(({ topic, partition }) => logRange(topic, partition)));
      const stable = await Promise.all([...keys.values()].map(({ topic, partition }) => backend.lastStableOffset(topic, partition)));
      const partitions: GroupPartitionView[] = [...keys]
        .map(([k, { topic, partition }], i) => {
          const committedOffset = offsets.get(k)?.offset ?? null;
          const { logEndOffset } = ranges[i]!;
          const lastStableOffset = stable[i]!;
          return {
            topic,
            partition,
            committedOffset,
            logEndOffset,
            lag: committedOffset === null || logEndOffset < 0 ? null : Math.max(0, logEndOffset - committedOffset),
            lastStableOffset,
            readCommittedLag: committedOffset === null || lastStableOffset < 0 ? null : Math.max(0, lastStableOffset - committedOffset),
            memberId: owner.get(k)?.memberId ?? null,
            clientId: owner.get(k)?.clientId ?? null,
          };
        })
        .sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
      return {
        groupId,
        state: group.state as GroupStateView,
        protocolType: group.protocolType,
        protocol: group.protocol,
        coordinatorId,
        offsetsPartition: await backend.offsetsPartition(groupId),
        members,
        partitions,
        totalLag: lagOf(partitions) ?? 0,
      };
    },

    'groups.resetOffsets': async ({ groupId, topics, to, dryRun = true }) => {
      const { coordinatorId, group } = await describe(groupId);
      if (group.state !== 'Empty' && group.state !== 'Dead') {
        throw new KafkaError('NON_EMPTY_GROUP', `Assignments can only be reset if the group '${groupId}' is inactive, but the current state is ${group.state}.`);
      }
      const current = await committed(coordinatorId, groupId);
      const scope: { topic: string; partition: number }[] = [];
      if (!topics) scope.push(...current.values());
      for (const t of topics ?? []) {
        const existing = await backend.partitions(t.topic);
        if (!existing) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${t.topic} does not exist.`);
        for (const p of t.partitions ?? existing) {
          if (!existing.includes(p)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Partition ${tp(t.topic, p)} does not exist.`);
          scope.push({ topic: t.topic, partition: p });
        }
      }
      if (scope.length === 0) throw new KafkaError('INVALID_REQUEST', `Group '${groupId}' has no committed offsets to reset: name the topics.`);
      const partitions: OffsetResetPartitionView[] = [];
      for (const { topic, partition } of scope) {
        const range = await logRange(topic, partition);
        const previousOffset = current.get(tp(topic, partition))?.offset ?? null;
        let target: number;
        if ('earliest' in to) target = range.logStartOffset;
        else if ('latest' in to) target = range.logEndOffset;
        else if ('offset' in to) target = to.offset;
        else if ('shiftBy' in to) target = (previousOffset ?? range.logEndOffset) + to.shiftBy;
        else {
          const r = await backend.offsetForTime(topic, partition, to.timestamp);
          if (r.error !== 'NONE') fail(r.error, `ListOffsets for ${tp(topic, partition)}`);
          target = r.offset >= 0 ? r.offset : range.logEndOffset; // no record at or after that time: the end
        }
        const newOffset = Math.min(Math.max(target, range.logStartOffset), range.logEndOffset);
        partitions.push({ topic, partition, previousOffset, newOffset, ...range });
      }
      if (!dryRun) {
        const byTopic = new Map<string, OffsetResetPartitionView[]>();
        for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p]);
        const r = await call(coordinatorId, {
          api: 'offsetCommit',
          groupId,
          generationId: -1,
          memberId: '',
          groupInstanceId: null,
          retentionTimeMs: -1,
          topics: [...byTopic].map(([name, ps]) => ({ name, partitions: ps.map((p) => ({ partition: p.partition, offset: p.newOffset, leaderEpoch: -1, metadata: '', commitTimestampMs: -1 })) })),
        });
        const failed = r.topics.flatMap((t) => t.partitions).find((p) => p.errorCode !== 'NONE');
        if (failed) fail(failed.errorCode, 'OffsetCommit');
      }
      return { groupId, dryRun, partitions };
    },

    'groups.delete': async ({ groupId }) => {
      const coordinatorId = await coordinatorOf(groupId);
      const r = (await call(coordinatorId, { api: 'deleteGroups', groups: [groupId] })).results[0]!;
      if (r.errorCode === 'NON_EMPTY_GROUP') throw new KafkaError('NON_EMPTY_GROUP', `The group '${groupId}' is not empty: only a group without active members can be deleted.`);
      if (r.errorCode === 'GROUP_ID_NOT_FOUND') throw new KafkaError('GROUP_ID_NOT_FOUND', `Consumer group '${groupId}' does not exist.`);
      if (r.errorCode !== 'NONE') fail(r.errorCode, 'DeleteGroups');
      return { groupId };
    },
  };
}

/** The `__consumer_offsets` partition of a group (-1 before the topic exists). */
function offsetsPartitionOf(engine: Engine, groupId: string): number {
  const count = engine.metadata.topicsByName.get(OFFSETS_TOPIC)?.partitions.size;
  return count === undefined ? -1 : engine.offsetsPartitionFor(groupId);
}
