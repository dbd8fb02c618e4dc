/**
 * Types of `balance.plan`: the input model a plan is computed from, the options, and the plan
 * itself. The plan is plain data (numbers, strings, arrays, objects), ready to serialise; the
 * contract mirrors these shapes.
 *
 * Invariants of a plan:
 * - `partitions` is exactly the `partitions` list of Kafka's reassignment JSON: only partitions
 *   whose replica list (set or order) changes, sorted by topic then partition, each target
 *   listing the intended leader first (Kafka's preferred leader is replicas[0]).
 * - `leaderChanges` lists every partition whose leader after the plan (its new replicas[0]) is
 *   not its leader now; a preferred election on each, after the reassignment completes, gives the
 *   `after` distribution.
 * - The same model and options always give the same plan (no randomness, sorted iteration).
 */

/** A broker as the balancer sees it. */
export interface BalanceBroker {
  id: number;
  /** `broker.rack`, or null. */
  rack: string | null;
  /** Registered, unfenced and not shutting down; a dead broker can only give replicas away. */
  alive: boolean;
  /** Excluded from receiving replicas and leadership (drained); merged with `excludeBrokers`. */
  excluded?: boolean;
}

/** A partition as the balancer sees it. */
export interface BalancePartition {
  topic: string;
  partition: number;
  /** The replica list in preferred order (replicas[0] is the preferred leader). */
  replicas: number[];
  /** The current leader, -1 when offline. */
  leader: number;
  isr: number[];
  /** Size of one replica in bytes (every replica counts this much on its broker). */
  bytes: number;
  /** A reassignment is in flight: `replicas` is its target and the planner leaves it alone. */
  reassigning?: boolean;
}

export interface BalanceModel {
  brokers: BalanceBroker[];
  partitions: BalancePartition[];
}

/** Goal thresholds, named after Cruise Control's configs (camelCased). */
export interface BalanceThresholds {
  /** `max.replicas.per.broker` (ReplicaCapacityGoal, hard). */
  maxReplicasPerBroker: number;
  /** `replica.count.balance.threshold`. */
  replicaCountBalanceThreshold: number;
  /** `disk.balance.threshold`. */
  diskBalanceThreshold: number;
  /** `topic.replica.count.balance.threshold` (tighter than Cruise Control's 3.0 for small clusters). */
  topicReplicaCountBalanceThreshold: number;
  /** `topic.replica.count.balance.min.gap`. */
  topicReplicaCountBalanceMinGap: number;
  /** `topic.replica.count.balance.max.gap`. */
  topicReplicaCountBalanceMaxGap: number;
  /** `leader.replica.count.balance.threshold`. */
  leaderReplicaCountBalanceThreshold: number;
}

export const DEFAULT_BALANCE_THRESHOLDS: Readonly<BalanceThresholds> = Object.freeze({
  maxReplicasPerBroker: 10_000,
  replicaCountBalanceThreshold: 1.1,
  diskBalanceThreshold: 1.1,
  topicReplicaCountBalanceThreshold: 1.5,
  topicReplicaCountBalanceMinGap: 1,
  topicReplicaCountBalanceMaxGap: 40,
  leaderReplicaCountBalanceThreshold: 1.1,
});

export interface BalanceOptions {
  /** Brokers to drain: they may only give replicas and leadership away. */
  excludeBrokers?: number[];
  /** Only leadership moves (reorder replicas + preferred election); no data moves. */
  leadersOnly?: boolean;
  thresholds?: Partial<BalanceThresholds>;
  /**
   * A broker that a count goal has to fix (outside Cruise Control's band) is taken to the band
   * rounded inward, [ceil(avg·(1−p)), floor(avg·(1+p))] widened to hold floor/ceil(avg), instead
   * of just inside the outer band. Default true; false reproduces Cruise Control's stopping point.
   */
  settleInsideBand?: boolean;
}

// The plan's public shape is the contract's (app/api/views.ts); the core produces it as is.
export type {
  BalanceBrokerLoadView,
  BalanceDistributionView,
  BalanceGoalName,
  BalanceGoalStatus,
  BalanceGoalView,
  BalanceLeaderChangeView,
  BalancePlanView,
  BalanceRackLoadView,
  BalanceReassignmentView,
} from '../../api/balance-views.js';
