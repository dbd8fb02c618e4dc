/**
 * `impact.ofStop` (spread into `contract` in contract.ts): what happens to every partition and
 * every consumer group's coordinator if some brokers stop, predicted from the cluster's committed
 * metadata and configs by the controller's own election rules (app/core/impact/), on a local or an
 * external cluster alike. Nothing is changed: it is a question, not a drill.
 */
import { z } from 'zod';
import { method, returns } from './contract-kit.js';
import { reassignmentPartitionSchema } from './contract-schemas.js';

/** What a partition is once the stopped brokers are out of it, the first that applies. */
export type PartitionOutcomeView =
  /** No live replica at all: offline until one of its brokers returns. */
  | 'offline'
  /** No leader, but a live replica out of the ISR (and ELR): only an unclean election brings it back, losing what it lacks. */
  | 'unclean-only'
  /** The controller elected an out-of-sync replica (unclean.leader.election.enable, or the last known leader under ELR): records may be lost. */
  | 'unclean-elected'
  /** A leader, but an ISR below the effective min.insync.replicas: acks=all producers get NOT_ENOUGH_REPLICAS. */
  | 'under-min-isr'
  /** A leader and an ISR at or above min ISR. */
  | 'available';

export const PARTITION_OUTCOMES: readonly PartitionOutcomeView[] = ['offline', 'unclean-only', 'unclean-elected', 'under-min-isr', 'available'];

/** A partition's leader, ISR and ELR at one moment. */
export interface PartitionMomentView {
  leader: number;
  isr: number[];
  elr: number[];
  lastKnownElr: number[];
  outcome: PartitionOutcomeView;
}

/** How the new leader was chosen, in the controller's election order. */
export type ElectedFromView = 'isr' | 'elr' | 'last-known-leader' | 'unclean';

export interface PartitionImpactView {
  topic: string;
  partition: number;
  replicas: number[];
  /** min(min.insync.replicas, replica count), as the leader checks acks=all (Kafka 3.7+). */
  effectiveMinIsr: number;
  uncleanLeaderElectionEnable: boolean;
  before: PartitionMomentView;
  after: PartitionMomentView;
  /** The leader changes (to -1 included). */
  leaderMoves: boolean;
  /** Where the last election took the new leader from; null when no leader was elected. */
  electedFrom: ElectedFromView | null;
  /** Its eligible leader replicas were live before and none is live after: a clean recovery now waits for a stopped broker. */
  elrLost: boolean;
}

export interface GroupCoordinatorImpactView {
  groupId: string;
  /** The `__consumer_offsets` partition that holds the group. */
  partition: number;
  before: number;
  after: number;
  moves: boolean;
}

export interface RackImpactView {
  /** null: brokers with no rack. */
  rack: string | null;
  brokers: number[];
  stopped: number[];
  replicas: number;
  leadersBefore: number;
  leadersAfter: number;
}

export type OutcomeCounts = Record<PartitionOutcomeView, number>;

export interface StopImpactView {
  /** The brokers that stop, in the order the controller takes them out. */
  stopped: number[];
  /** Eligible leader replicas (KIP-966) are on in this cluster. */
  elrEnabled: boolean;
  /** Why ELR could not be read (an external cluster that does not serve DescribeTopicPartitions). */
  elrUnavailable?: string;
  partitionCount: number;
  /** Every partition's outcome before and after, counted. */
  before: OutcomeCounts;
  after: OutcomeCounts;
  leaderMoves: number;
  elrLost: number;
  /** The partitions a stopped broker is a replica of, worst outcome first, at most `limit`. */
  partitions: PartitionImpactView[];
  /** How many partitions a stopped broker is a replica of (partitions may hold fewer). */
  touched: number;
  coordinators: GroupCoordinatorImpactView[];
  /** Why no coordinators are listed (no __consumer_offsets, groups not readable), when none are. */
  coordinatorsNote?: string;
  racks: RackImpactView[];
}

/** One partition of a plan at one moment of the move. */
export interface PlanMomentView {
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
  leader: number;
  isr: number[];
  outcome: PartitionOutcomeView;
}

/** One partition a plan moves: before, while its new replicas copy, and once the move completes. */
export interface PlanMoveView {
  topic: string;
  partition: number;
  before: PlanMomentView;
  /** What the controller commits when the reassignment starts: new replicas added, none removed yet, out of the ISR. */
  during: PlanMomentView;
  /** Once every new replica is in the ISR: the controller drops the removed ones (and elects if the leader was one). */
  after: PlanMomentView;
  leaderMoves: boolean;
  /** `replicas[0]` of the target: it leads after the move only where the leader had to move, or after a preferred election. */
  preferredLeader: number;
  /** Bytes the new replicas copy from the leader (its log size, once per new replica). */
  bytesToCopy: number;
}

/** One broker's share of a plan. */
export interface PlanBrokerView {
  brokerId: number;
  rack: string | null;
  replicasBefore: number;
  replicasDuring: number;
  replicasAfter: number;
  leadersBefore: number;
  leadersAfter: number;
  /** Bytes it receives as a new replica, and sends as the leader of a moving partition. */
  bytesIn: number;
  bytesOut: number;
  /** Its leader or follower replication is throttled during the move (a source or a destination of a move). */
  throttled: boolean;
}

/** What a reassignment plan does (`impact.ofPlan`). */
export interface PlanImpactView {
  /** Partitions in the plan, and those whose target is their current assignment (nothing to do). */
  partitionCount: number;
  unchanged: number;
  /** Outcomes of the plan's partitions before, during and after the move. */
  before: OutcomeCounts;
  during: OutcomeCounts;
  after: OutcomeCounts;
  /** Partitions whose ISR is smaller than their replica set while they move (Kafka's under-replicated count rises by this). */
  underReplicatedDuring: number;
  bytesToCopy: number;
  throttleBytesPerSec: number | null;
  /** At the throttle, the busiest broker's bytes in or out over the rate; null without a throttle. */
  estimatedSeconds: number | null;
  /** The throttled replicas `reassignments.execute` sets (Kafka's `p:b` lists per topic). */
  throttledReplicas: { leader: Record<string, string[]>; follower: Record<string, string[]> };
  leaderMoves: number;
  moves: PlanMoveView[];
  brokers: PlanBrokerView[];
  /** With `brokers`/`racks`: `impact.ofStop` on the cluster as it is during the move and after it. */
  stop?: { during: StopImpactView; after: StopImpactView };
}

const brokerId = z.int().min(0);

export const impactMethods = {
  /**
   * If `brokers` and every broker of `racks` stop (crash, power loss, controlled shutdown: the
   * controller takes each out of its ISRs in turn, in the order given, racks' brokers by id):
   * each partition's outcome, which leaders move where, and which group coordinators move.
   */
  'impact.ofStop': method(
    z
      .strictObject({
        brokers: z.array(brokerId).max(10_000).optional(),
        racks: z.array(z.string()).max(1_000).optional(),
        /** At most this many partitions listed (default 5,000); the counts cover every partition. */
        limit: z.int().min(0).max(1_000_000).optional(),
      })
      .refine((i) => (i.brokers?.length ?? 0) + (i.racks?.length ?? 0) > 0, { message: 'Name at least one broker or rack to stop.', path: ['brokers'] }),
    returns<StopImpactView>(),
  ),
  /**
   * What a reassignment plan (Kafka's reassignment JSON, or `balance.plan`'s moves) does, by the
   * controller's own reassignment and election code: each partition during the move (new replicas
   * added before any is removed, out of the ISR while they copy) and after it, per-broker replicas,
   * leaders and bytes in and out, the throttled replicas and, with `throttleBytesPerSec`, how long
   * the busiest broker takes; with `brokers`/`racks`, what stopping them would do during and after.
   * Nothing is moved.
   */
  'impact.ofPlan': method(
    z.strictObject({
      version: z.literal(1).optional(),
      partitions: z.array(reassignmentPartitionSchema).min(1).max(1_000_000),
      throttleBytesPerSec: z.int().min(1).optional(),
      brokers: z.array(brokerId).max(10_000).optional(),
      racks: z.array(z.string()).max(1_000).optional(),
      /** At most this many moves listed (default 5,000); the counts cover every one. */
      limit: z.int().min(0).max(1_000_000).optional(),
    }),
    returns<PlanImpactView>(),
  ),
} as const;
