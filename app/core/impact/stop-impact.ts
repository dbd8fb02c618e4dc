/**
 * Impact analysis: what the controller does to every partition if some brokers stop, computed
 * from committed metadata and configs with the controller's own change code
 * (controller/change-context.ts → partition-change.ts), not a model of it. The same function
 * answers for a local cluster (the engine's image) and an external one (the image the Kafka
 * driver reads, app/service/kafka-driver/snapshot.ts).
 *
 * Model (docs/semantics.md#impact-analysis):
 * - A stopped broker is taken out of every ISR it is in, as the controller does when it fences
 *   a broker whose heartbeats stopped or grants a controlled shutdown: leaderships move by the
 *   controller's election order (a valid leader stays; else the first ISR member in assignment
 *   order; with ELR an ELR member, then the last known leader; else, if allowed, an unclean
 *   election). A killed broker stays in the ELRs it is in (only an unclean restart removes it).
 * - Brokers stop one after another, in the order given (racks' brokers by id): while broker i is
 *   taken out, brokers i+1… are still alive. Stopped at the same moment, the controller fences
 *   them in the order their sessions expire; that order can change which stopped broker stays in
 *   an ELR, not which live broker leads.
 * - It is the state right after the controller reacted: the periodic auto leader rebalance runs
 *   later, and a broker that comes back is not modelled.
 */
import { KafkaError } from '../../api/errors.js';
import {
  PARTITION_OUTCOMES,
  type ElectedFromView,
  type GroupCoordinatorImpactView,
  type OutcomeCounts,
  type PartitionImpactView,
  type PartitionMomentView,
  type PartitionOutcomeView,
  type RackImpactView,
  type StopImpactView,
} from '../../api/impact-contract.js';
import { acceptableLeaders, changeContextFor, leaveIsrChange, type ElectionConfig } from '../controller/change-context.js';
import { elrEnabled } from '../controller/features.js';
import { offsetsPartitionFor } from '../group/partition-for.js';
import type { ClusterMetadata, TopicImage } from '../metadata/image.js';
import type { PartitionState } from '../metadata/records.js';

export type { ElectionConfig } from '../controller/change-context.js';

export interface StopImpactInput {
  image: ClusterMetadata;
  /** The topic's min.insync.replicas and unclean.leader.election.enable as they resolve. */
  topicConfig(topic: TopicImage): ElectionConfig;
  brokers?: readonly number[];
  racks?: readonly string[];
  /** Groups whose coordinators to follow. */
  groups?: readonly string[];
  limit?: number;
  elrUnavailable?: string;
}

const OFFSETS_TOPIC = '__consumer_offsets';
export const DEFAULT_IMPACT_LIMIT = 5_000;

/** The brokers to stop, in order: `brokers` as given, then each rack's brokers by id; duplicates once. */
export function brokersToStop(image: ClusterMetadata, brokers: readonly number[] = [], racks: readonly string[] = []): number[] {
  const out: number[] = [];
  for (const id of brokers) {
    if (!image.brokers.has(id)) throw new KafkaError('BROKER_NOT_FOUND', `Broker ${id} is not registered.`);
    if (!out.includes(id)) out.push(id);
  }
  for (const rack of racks) {
    const ids = [...image.brokers.values()].filter((b) => b.rack === rack).map((b) => b.id).sort((a, b) => a - b);
    if (ids.length === 0) throw new KafkaError('INVALID_REQUEST', `No registered broker is on rack ${JSON.stringify(rack)}.`);
    for (const id of ids) if (!out.includes(id)) out.push(id);
  }
  if (out.length === 0) throw new KafkaError('INVALID_REQUEST', 'Name at least one broker or rack to stop.');
  return out;
}

/** A partition's outcome in `state`, with `live` saying which replicas still run. */
export function outcomeOf(state: Pick<PartitionState, 'leader' | 'replicas' | 'isr'>, effectiveMinIsr: number, unclean: boolean, live: (b: number) => boolean): PartitionOutcomeView {
  if (state.leader < 0) return state.replicas.some(live) ? 'unclean-only' : 'offline';
  if (unclean) return 'unclean-elected';
  return state.isr.length < effectiveMinIsr ? 'under-min-isr' : 'available';
}

function moment(state: PartitionState, outcome: PartitionOutcomeView): PartitionMomentView {
  return { leader: state.leader, isr: [...state.isr], elr: [...(state.elr ?? [])], lastKnownElr: [...(state.lastKnownElr ?? [])], outcome };
}

function zeroCounts(): OutcomeCounts {
  return { offline: 0, 'unclean-only': 0, 'unclean-elected': 0, 'under-min-isr': 0, available: 0 };
}

/** The state of one partition after `stop` leave it, one broker at a time, by the controller's change code. */
function afterStop(image: ClusterMetadata, cfg: ElectionConfig, state: PartitionState, stop: readonly number[], position: ReadonlyMap<number, number>) {
  let current = state;
  let unclean = false;
  let electedFrom: ElectedFromView | null = null;
  for (let i = 0; i < stop.length; i++) {
    const b = stop[i]!;
    if (!current.isr.includes(b)) continue;
    // The controller's own test with this broker as its `excluded`; brokers stopped before it are fenced by now.
    const controllers = acceptableLeaders(image, b, current);
    const acceptable = i === 0 ? controllers : (x: number): boolean => controllers(x) && !((position.get(x) ?? Infinity) < i);
    const change = leaveIsrChange(current, b, changeContextFor(image, cfg, current, acceptable));
    if (!change) continue;
    current = change.state;
    if (change.unclean) unclean = true;
    if (change.leaderChanged) {
      electedFrom = current.leader < 0 ? null : change.fromLastKnownLeader ? 'last-known-leader' : change.unclean ? 'unclean' : change.fromElr ? 'elr' : 'isr';
    }
  }
  return { state: current, unclean, electedFrom };
}

/** A touched partition, kept light: only the `limit` listed ones become views. */
interface Touched {
  topic: string;
  state: PartitionState;
  next: PartitionState;
  minIsr: number;
  unclean: boolean;
  electedFrom: ElectedFromView | null;
  before: PartitionOutcomeView;
  after: PartitionOutcomeView;
  elrLost: boolean;
}

export function stopImpact(input: StopImpactInput): StopImpactView {
  const { image } = input;
  const stopped = brokersToStop(image, input.brokers, input.racks);
  const stoppedSet = new Set(stopped);
  const position = new Map(stopped.map((b, i) => [b, i]));
  const liveBefore = (b: number): boolean => image.isActive(b);
  const liveAfter = (b: number): boolean => !stoppedSet.has(b) && image.isActive(b);
  const before = zeroCounts();
  const after = zeroCounts();
  const limit = input.limit ?? DEFAULT_IMPACT_LIMIT;
  // One bucket per outcome, each filled in topic-name and partition order: worst first without a sort.
  const buckets = new Map<PartitionOutcomeView, Touched[]>(PARTITION_OUTCOMES.map((o) => [o, []]));
  const leadersBefore = new Map<number, number>();
  const leadersAfter = new Map<number, number>();
  const replicasOn = new Map<number, number>();
  const offsetsLeaders = new Map<number, { before: number; after: number }>();
  let partitionCount = 0;
  let touched = 0;
  let leaderMoves = 0;
  let elrLost = 0;
  const bump = (m: Map<number, number>, b: number): void => void m.set(b, (m.get(b) ?? 0) + 1);

  const topics = [...image.topicsById.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const topic of topics) {
    const cfg = input.topicConfig(topic);
    const numbers = [...topic.partitions.keys()].sort((a, b) => a - b);
    for (const n of numbers) {
      const state = topic.partitions.get(n)!;
      partitionCount++;
      const minIsr = Math.min(cfg.minInsyncReplicas, state.replicas.length);
      let involved = false;
      for (const r of state.replicas) {
        bump(replicasOn, r);
        if (stoppedSet.has(r)) involved = true;
      }
      if (state.leader >= 0) bump(leadersBefore, state.leader);
      const outcomeBefore = outcomeOf(state, minIsr, state.leaderRecoveryState === 'RECOVERING', liveBefore);
      before[outcomeBefore]++;
      if (!involved) {
        after[outcomeBefore]++;
        if (state.leader >= 0) bump(leadersAfter, state.leader);
        if (topic.name === OFFSETS_TOPIC) offsetsLeaders.set(state.partition, { before: state.leader, after: state.leader });
        continue;
      }
      touched++;
      const next = afterStop(image, cfg, state, stopped, position);
      const outcomeAfter = outcomeOf(next.state, minIsr, next.unclean || next.state.leaderRecoveryState === 'RECOVERING', liveAfter);
      after[outcomeAfter]++;
      if (next.state.leader >= 0) bump(leadersAfter, next.state.leader);
      if (topic.name === OFFSETS_TOPIC) offsetsLeaders.set(state.partition, { before: state.leader, after: next.state.leader });
      if (next.state.leader !== state.leader) leaderMoves++;
      const lost = (state.elr ?? []).some(liveBefore) && !(next.state.elr ?? []).some(liveAfter);
      if (lost) elrLost++;
      // No bucket lists more than `limit`: the rest are counted, not kept.
      const bucket = buckets.get(outcomeAfter)!;
      if (bucket.length < limit) bucket.push({ topic: topic.name, state, next: next.state, minIsr, unclean: cfg.uncleanLeaderElectionEnable, electedFrom: next.electedFrom, before: outcomeBefore, after: outcomeAfter, elrLost: lost });
    }
  }

  const listed: PartitionImpactView[] = [];
  for (const outcome of PARTITION_OUTCOMES) {
    for (const t of buckets.get(outcome)!) {
      if (listed.length >= limit) break;
      const moves = t.next.leader !== t.state.leader;
      listed.push({
        topic: t.topic,
        partition: t.state.partition,
        replicas: [...t.state.replicas],
        effectiveMinIsr: t.minIsr,
        uncleanLeaderElectionEnable: t.unclean,
        before: moment(t.state, t.before),
        after: moment(t.next, t.after),
        leaderMoves: moves,
        electedFrom: moves ? t.electedFrom : null,
        elrLost: t.elrLost,
      });
    }
  }

  const racks = new Map<string | null, RackImpactView>();
  for (const b of [...image.brokers.values()].sort((x, y) => x.id - y.id)) {
    let rack = racks.get(b.rack);
    if (!rack) racks.set(b.rack, (rack = { rack: b.rack, brokers: [], stopped: [], replicas: 0, leadersBefore: 0, leadersAfter: 0 }));
    rack.brokers.push(b.id);
    if (stoppedSet.has(b.id)) rack.stopped.push(b.id);
    rack.replicas += replicasOn.get(b.id) ?? 0;
    rack.leadersBefore += leadersBefore.get(b.id) ?? 0;
    rack.leadersAfter += leadersAfter.get(b.id) ?? 0;
  }

  const coordinators: GroupCoordinatorImpactView[] = [];
  let coordinatorsNote: string | undefined;
  const offsetsCount = image.topicsByName.get(OFFSETS_TOPIC)?.partitions.size ?? 0;
  if (offsetsCount === 0) coordinatorsNote = `${OFFSETS_TOPIC} does not exist yet: no group has a coordinator.`;
  else {
    for (const groupId of [...new Set(input.groups ?? [])].sort()) {
      const partition = offsetsPartitionFor(groupId, offsetsCount);
      const leaders = offsetsLeaders.get(partition) ?? { before: -1, after: -1 };
      coordinators.push({ groupId, partition, before: leaders.before, after: leaders.after, moves: leaders.before !== leaders.after });
    }
  }

  return {
    stopped,
    elrEnabled: elrEnabled(image),
    ...(input.elrUnavailable !== undefined ? { elrUnavailable: input.elrUnavailable } : {}),
    partitionCount,
    before,
    after,
    leaderMoves,
    elrLost,
    partitions: listed,
    touched,
    coordinators,
    ...(coordinatorsNote !== undefined ? { coordinatorsNote } : {}),
    racks: [...racks.values()].sort((a, b) => (a.rack === b.rack ? 0 : a.rack === null ? 1 : b.rack === null ? -1 : a.rack < b.rack ? -1 : 1)),
  };
}
