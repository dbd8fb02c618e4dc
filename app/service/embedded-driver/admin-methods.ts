/**
 * Admin methods of the contract beyond the engine's own operations (issue 4): leader balance and
 * election previews, bulk topic operations, replication-factor changes as reassignments, and the
 * export of assignments as Kafka's reassignment JSON. Every change goes through the engine's own
 * operations, so Kafka's validation and error codes apply unchanged.
 */
import { KafkaError } from '../../api/errors.js';
import type { MethodParsedInput, MethodResult } from '../../api/contract.js';
import type { ElectionResultView, LeaderBalanceView, TopicBulkResultView } from '../../api/views.js';
import type { Engine } from '../../core/engine.js';
import type { ClusterMetadata } from '../../core/metadata/image.js';
import type { PartitionState } from '../../core/metadata/records.js';
import { reassignmentResultView, requireTopic } from '../cluster-views.js';

type AdminMethod = 'leaders.balance' | 'leaders.preview' | 'topics.createMany' | 'topics.deleteMany' | 'topics.setReplicationFactor' | 'reassignments.export';
export type AdminMethods = { [M in AdminMethod]: (input: MethodParsedInput<M>) => MethodResult<M> };

function outcome(name: string, fn: () => void): TopicBulkResultView {
  try {
    fn();
    return { name, errorCode: 'NONE' };
  } catch (e) {
    if (e instanceof KafkaError && e.code !== 'INTERNAL') return { name, errorCode: e.code, message: e.message };
    throw e;
  }
}

/**
 * New replica lists for one partition at replication factor `rf` (topics.setReplicationFactor):
 * a decrease keeps the preferred leader and drops followers outside the ISR first, then from the
 * end; an increase adds the brokers on racks the partition lacks first, then the least loaded
 * (`load` counts replicas per broker and is updated with each pick).
 */
export function resizeReplicas(image: ClusterMetadata, state: PartitionState, rf: number, load: Map<number, number>): number[] {
  const current = state.replicas;
  if (rf === current.length) return [...current];
  if (rf < current.length) {
    const followers = current.slice(1);
    const keep = new Set(
      [...followers]
        .sort((a, b) => Number(state.isr.includes(b)) - Number(state.isr.includes(a)) || followers.indexOf(a) - followers.indexOf(b))
        .slice(0, rf - 1),
    );
    return [current[0]!, ...followers.filter((b) => keep.has(b))];
  }
  const next = [...current];
  const rackOf = (b: number): string | null => image.brokers.get(b)?.rack ?? null;
  while (next.length < rf) {
    const racks = new Set(next.map(rackOf));
    const candidates = [...image.brokers.values()]
      .filter((b) => !b.inControlledShutdown && !next.includes(b.id))
      .sort((a, b) => Number(racks.has(a.rack)) - Number(racks.has(b.rack)) || Number(a.fenced) - Number(b.fenced) || (load.get(a.id) ?? 0) - (load.get(b.id) ?? 0) || a.id - b.id);
    const pick = candidates[0];
    if (!pick) throw new KafkaError('INVALID_REPLICATION_FACTOR', `Replication factor ${rf} is larger than the ${image.brokers.size} registered broker(s).`);
    next.push(pick.id);
    load.set(pick.id, (load.get(pick.id) ?? 0) + 1);
  }
  return next;
}

/**
 * Leaders, preferred leaders and replicas per broker, and the partitions their preferred replica
 * does not lead (electable when it is in the ISR and its broker active), from the metadata.
 */
export function leaderBalanceView(
  image: ClusterMetadata,
  memberIds: readonly number[],
  settings: { autoLeaderRebalanceEnable: boolean; leaderImbalanceCheckIntervalSeconds: number },
): LeaderBalanceView {
  const brokers = new Map<number, { leaders: number; preferredLeaders: number; replicas: number; preferredButNotLeading: number }>();
  for (const id of memberIds) brokers.set(id, { leaders: 0, preferredLeaders: 0, replicas: 0, preferredButNotLeading: 0 });
  const notPreferred = [];
  for (const { topic, state } of image.allPartitions()) {
    const preferred = state.replicas[0]!;
    for (const r of state.replicas) {
      const b = brokers.get(r);
      if (b) b.replicas++;
    }
    const pb = brokers.get(preferred);
    if (pb) pb.preferredLeaders++;
    const lb = brokers.get(state.leader);
    if (lb) lb.leaders++;
    if (state.leader !== preferred) {
      if (pb) pb.preferredButNotLeading++;
      const electable = state.isr.includes(preferred) && image.isActive(preferred, `${state.topicId}:${state.partition}`);
      notPreferred.push({ topic: topic.name, partition: state.partition, leader: state.leader, preferredLeader: preferred, electable });
    }
  }
  notPreferred.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  return { brokers: [...brokers].map(([brokerId, c]) => ({ brokerId, ...c })), notPreferred, ...settings };
}

export function adminMethods(engine: Engine): AdminMethods {
  const image = engine.metadata;

  function leaderCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { id } of engine.members()) counts[String(id)] = 0;
    for (const { state } of image.allPartitions()) if (state.leader >= 0) counts[String(state.leader)] = (counts[String(state.leader)] ?? 0) + 1;
    return counts;
  }

  return {
    'leaders.balance': () => {
      const cfg = engine.clusterConfig();
      return leaderBalanceView(
        image,
        engine.members().map((m) => m.id),
        { autoLeaderRebalanceEnable: cfg.autoLeaderRebalanceEnable, leaderImbalanceCheckIntervalSeconds: cfg.leaderImbalanceCheckIntervalMs / 1000 },
      );
    },

    'leaders.preview': ({ type, partitions }) => {
      const before = leaderCounts();
      const after = { ...before };
      const results: ElectionResultView[] = engine.electLeaders(type, partitions, true).map((r) => {
        const old = image.topicsByName.get(r.topic)?.partitions.get(r.partition)?.leader ?? -1;
        if (r.errorCode === 'NONE') {
          if (old >= 0) after[String(old)] = (after[String(old)] ?? 1) - 1;
          after[String(r.leader)] = (after[String(r.leader)] ?? 0) + 1;
        }
        return { topic: r.topic, partition: r.partition, leader: r.leader, previousLeader: old, errorCode: r.errorCode, ...(r.message !== undefined ? { message: r.message } : {}) };
      });
      return { results, leadersBefore: before, leadersAfter: after };
    },

    'topics.createMany': ({ topics, validateOnly }) =>
      topics.map((t) =>
        outcome(t.name, () =>
          engine.createTopic({
            name: t.name,
            ...(t.partitions !== undefined ? { partitions: t.partitions } : {}),
            ...(t.replicationFactor !== undefined ? { replicationFactor: t.replicationFactor } : {}),
            ...(t.configs ? { configs: t.configs } : {}),
            ...(t.assignments ? { assignments: t.assignments } : {}),
            validateOnly: validateOnly ?? false,
          }),
        ),
      ),

    'topics.deleteMany': ({ names }) => names.map((name) => outcome(name, () => engine.deleteTopic(name))),

    'topics.setReplicationFactor': ({ topic: name, replicationFactor, throttleBytesPerSec, validateOnly }) => {
      const topic = requireTopic(engine, name);
      if (replicationFactor > image.brokers.size) {
        throw new KafkaError('INVALID_REPLICATION_FACTOR', `Replication factor ${replicationFactor} is larger than the ${image.brokers.size} registered broker(s).`);
      }
      const load = new Map<number, number>();
      for (const { state } of image.allPartitions()) for (const r of state.replicas) load.set(r, (load.get(r) ?? 0) + 1);
      const partitions = [...topic.partitions.values()]
        .sort((a, b) => a.partition - b.partition)
        .map((state) => {
          if (state.addingReplicas.length + state.removingReplicas.length > 0) {
            throw new KafkaError('REASSIGNMENT_IN_PROGRESS', `${name}-${state.partition} is being reassigned; cancel or finish that first.`);
          }
          return { topic: name, partition: state.partition, replicas: resizeReplicas(image, state, replicationFactor, load), currentReplicas: [...state.replicas] };
        })
        .filter((p) => p.replicas.join() !== p.currentReplicas.join());
      if (validateOnly || partitions.length === 0) return { topic: name, replicationFactor, partitions };
      const results = engine
        .executeReassignment({
          partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, replicas: p.replicas })),
          ...(throttleBytesPerSec !== undefined ? { throttleBytesPerSec } : {}),
        })
        .map(reassignmentResultView);
      return { topic: name, replicationFactor, partitions, results };
    },

    'reassignments.export': ({ topics }) => {
      const names = topics ?? [...image.topicsByName.keys()].sort();
      const partitions = names.flatMap((name) =>
        [...requireTopic(engine, name).partitions.values()]
          .sort((a, b) => a.partition - b.partition)
          .map((s) => ({ topic: name, partition: s.partition, replicas: [...s.replicas], log_dirs: s.replicas.map(() => 'any') })),
      );
      return { version: 1 as const, partitions };
    },
  };
}
