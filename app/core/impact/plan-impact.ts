/**
 * Impact of a reassignment plan, computed with the controller's own code, not a model of it:
 * - during: the change AlterPartitionReassignments commits (change-context.ts
 *   `reassignmentRequest` → partition-change.ts): target replicas first, then the removed ones;
 *   the new replicas are out of the ISR while they copy; the leader does not move;
 * - after: the leader's AlterPartition once every new replica has caught up (its ISR plus the new
 *   replicas and any live target replica): the controller drops the removed replicas and, if the
 *   leader was one of them, elects the first valid target replica (partition-change.ts). A new
 *   replica on a broker that is not running never catches up: the move does not complete;
 * - throttles: the replicas `reassignments.execute` throttles (reassign-command.ts); the time is
 *   the busiest broker's bytes in or out over the rate (leader and follower rates are the same);
 * - with brokers or racks to stop, `stopImpact` on the cluster as it is during and after the move.
 * Nothing is changed: the states live in an overlay of the image.
 */
import { KafkaError } from '../../api/errors.js';
import type { OutcomeCounts, PlanBrokerView, PlanImpactView, PlanMomentView, PlanMoveView, PartitionOutcomeView } from '../../api/impact-contract.js';
import { acceptableLeaders, changeContextFor, reassignmentRequest, type ElectionConfig } from '../controller/change-context.js';
import { buildPartitionChange } from '../controller/partition-change.js';
import { followerThrottles, leaderThrottles, proposedMoveMap, validateReassignmentTargets, type ReassignmentTarget } from '../controller/reassign-command.js';
import type { ClusterMetadata, TopicImage } from '../metadata/image.js';
import type { PartitionState } from '../metadata/records.js';
import { DEFAULT_IMPACT_LIMIT, outcomeOf, stopImpact } from './stop-impact.js';

export interface PlanImpactInput {
  image: ClusterMetadata;
  topicConfig(topic: TopicImage): ElectionConfig;
  /** The leader's log size of a partition (bytes a new replica copies). */
  sizeBytes(topic: string, partition: number): number;
  targets: readonly ReassignmentTarget[];
  throttleBytesPerSec?: number;
  brokers?: readonly number[];
  racks?: readonly string[];
  groups?: readonly string[];
  limit?: number;
  elrUnavailable?: string;
}

const zero = (): OutcomeCounts => ({ offline: 0, 'unclean-only': 0, 'unclean-elected': 0, 'under-min-isr': 0, available: 0 });

/** The image with some partitions' states replaced (the rest, brokers and configs shared). */
export function overlayImage(image: ClusterMetadata, states: ReadonlyMap<TopicImage, ReadonlyMap<number, PartitionState>>): ClusterMetadata {
  const replaced = new Map<TopicImage, TopicImage>();
  for (const [topic, parts] of states) {
    const partitions = new Map(topic.partitions);
    for (const [n, s] of parts) partitions.set(n, s);
    replaced.set(topic, { ...topic, partitions });
  }
  const swap = (m: ReadonlyMap<string, TopicImage>): Map<string, TopicImage> => new Map([...m].map(([k, t]) => [k, replaced.get(t) ?? t]));
  return Object.create(image, { topicsById: { value: swap(image.topicsById) }, topicsByName: { value: swap(image.topicsByName) } }) as ClusterMetadata;
}

function momentOf(s: PartitionState, cfg: ElectionConfig, live: (b: number) => boolean): PlanMomentView {
  const outcome: PartitionOutcomeView = outcomeOf(s, Math.min(cfg.minInsyncReplicas, s.replicas.length), s.leaderRecoveryState === 'RECOVERING', live);
  return { replicas: [...s.replicas], addingReplicas: [...s.addingReplicas], removingReplicas: [...s.removingReplicas], leader: s.leader, isr: [...s.isr], outcome };
}

export function planImpact(input: PlanImpactInput): PlanImpactView {
  const { image } = input;
  const live = (b: number): boolean => image.isActive(b);
  validateReassignmentTargets(input.targets, new Set([...image.brokers.keys()].filter(live)));
  const before = zero();
  const during = zero();
  const after = zero();
  const duringStates = new Map<TopicImage, Map<number, PartitionState>>();
  const afterStates = new Map<TopicImage, Map<number, PartitionState>>();
  const perBroker = new Map<number, PlanBrokerView>();
  for (const b of [...image.brokers.values()].sort((x, y) => x.id - y.id)) {
    perBroker.set(b.id, { brokerId: b.id, rack: b.rack, replicasBefore: 0, replicasDuring: 0, replicasAfter: 0, leadersBefore: 0, leadersAfter: 0, bytesIn: 0, bytesOut: 0, throttled: false });
  }
  const moves: PlanMoveView[] = [];
  const limit = input.limit ?? DEFAULT_IMPACT_LIMIT;
  let unchanged = 0;
  let underReplicatedDuring = 0;
  let bytesToCopy = 0;
  let leaderMoves = 0;
  const current = (topic: string, partition: number): PartitionState => {
    const state = image.topicsByName.get(topic)?.partitions.get(partition);
    if (!state) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Partition ${topic}-${partition} does not exist.`);
    return state;
  };
  for (const t of input.targets) {
    const topic = image.topicsByName.get(t.topic)!;
    const state = current(t.topic, t.partition);
    const cfg = input.topicConfig(topic);
    const request = reassignmentRequest(image, state, t.replicas);
    if (request instanceof KafkaError) throw request;
    const ctx = changeContextFor(image, cfg, state, acceptableLeaders(image, -1, state));
    const started = buildPartitionChange(state, request, ctx)?.state ?? state;
    const adding = started.addingReplicas;
    const removing = started.removingReplicas;
    const same = adding.length === 0 && removing.length === 0 && started.replicas.every((b, i) => b === state.replicas[i]);
    if (same && state.replicas.length === t.replicas.length) unchanged++;
    let finished: PartitionState = started;
    if (adding.length > 0 || removing.length > 0) {
      // Every target replica caught up (the tool's check keeps targets on running brokers): the leader's AlterPartition puts them in the ISR.
      const caughtUp = [...new Set([...started.isr, ...started.replicas.filter((b) => live(b) && !removing.includes(b))])];
      finished = buildPartitionChange(started, { targetIsr: caughtUp }, changeContextFor(image, cfg, started, acceptableLeaders(image, -1, started)))?.state ?? started;
    }
    const size = adding.length > 0 ? input.sizeBytes(t.topic, t.partition) : 0;
    const copy = size * adding.length;
    bytesToCopy += copy;
    if (started.isr.length < started.replicas.length) underReplicatedDuring++;
    const b0 = momentOf(state, cfg, live);
    const d = momentOf(started, cfg, live);
    const a = momentOf(finished, cfg, live);
    before[b0.outcome]++;
    during[d.outcome]++;
    after[a.outcome]++;
    const moved = a.leader !== b0.leader;
    if (moved) leaderMoves++;
    for (const r of state.replicas) if (perBroker.has(r)) perBroker.get(r)!.replicasBefore++;
    for (const r of started.replicas) if (perBroker.has(r)) perBroker.get(r)!.replicasDuring++;
    for (const r of finished.replicas) if (perBroker.has(r)) perBroker.get(r)!.replicasAfter++;
    if (state.leader >= 0 && perBroker.has(state.leader)) perBroker.get(state.leader)!.leadersBefore++;
    const leaderAfter = finished.leader;
    if (leaderAfter >= 0 && perBroker.has(leaderAfter)) perBroker.get(leaderAfter)!.leadersAfter++;
    for (const r of adding) if (perBroker.has(r)) perBroker.get(r)!.bytesIn += size;
    if (state.leader >= 0 && perBroker.has(state.leader)) perBroker.get(state.leader)!.bytesOut += copy;
    if (started !== state) {
      if (!duringStates.has(topic)) duringStates.set(topic, new Map());
      duringStates.get(topic)!.set(t.partition, started);
    }
    if (finished !== state) {
      if (!afterStates.has(topic)) afterStates.set(topic, new Map());
      afterStates.get(topic)!.set(t.partition, finished);
    }
    if (moves.length < limit && !same) {
      moves.push({
        topic: t.topic,
        partition: t.partition,
        before: b0,
        during: d,
        after: a,
        leaderMoves: moved,
        preferredLeader: t.replicas[0]!,
        bytesToCopy: copy,
      });
    }
  }
  const moveMap = proposedMoveMap([], input.targets, (topic, partition) => current(topic, partition).replicas);
  const throttled = { leader: Object.fromEntries(leaderThrottles(moveMap)), follower: Object.fromEntries(followerThrottles(moveMap)) };
  for (const list of [...Object.values(throttled.leader), ...Object.values(throttled.follower)]) {
    for (const entry of list) {
      const broker = perBroker.get(Number(entry.split(':')[1]));
      if (broker) broker.throttled = true;
    }
  }
  const rate = input.throttleBytesPerSec ?? null;
  const busiest = Math.max(0, ...[...perBroker.values()].map((b) => Math.max(b.bytesIn, b.bytesOut)));
  const stopInput = { topicConfig: input.topicConfig, groups: input.groups ?? [], limit, ...(input.brokers ? { brokers: input.brokers } : {}), ...(input.racks ? { racks: input.racks } : {}), ...(input.elrUnavailable !== undefined ? { elrUnavailable: input.elrUnavailable } : {}) };
  const wantsStop = (input.brokers?.length ?? 0) + (input.racks?.length ?? 0) > 0;
  return {
    partitionCount: input.targets.length,
    unchanged,
    before,
    during,
    after,
    underReplicatedDuring,
    bytesToCopy,
    throttleBytesPerSec: rate,
    estimatedSeconds: rate === null ? null : busiest / rate,
    throttledReplicas: throttled,
    leaderMoves,
    moves,
    brokers: [...perBroker.values()],
    ...(wantsStop ? { stop: { during: stopImpact({ ...stopInput, image: overlayImage(image, duringStates) }), after: stopImpact({ ...stopInput, image: overlayImage(image, afterStates) }) } } : {}),
  };
}
