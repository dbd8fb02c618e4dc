/**
 * What `balance.plan` returns: the proposed reassignment (exactly `reassignments.execute`'s input),
 * leader changes, the goals in Cruise Control's names with their bands, the distribution before
 * and after, and the balancedness score.
 */

/** The balancer's goals, in Cruise Control's names. */
export type BalanceGoalName =
  | 'RackAwareGoal'
  | 'RackAwareDistributionGoal'
  | 'ReplicaCapacityGoal'
  | 'ReplicaDistributionGoal'
  | 'DiskUsageDistributionGoal'
  | 'TopicReplicaDistributionGoal'
  | 'LeaderReplicaDistributionGoal';

/** satisfied: nothing to do; optimized: moves made and now met; violated: still not met. */
export type BalanceGoalStatus = 'satisfied' | 'optimized' | 'violated';

export interface BalanceGoalView {
  name: BalanceGoalName;
  hard: boolean;
  status: BalanceGoalStatus;
  /**
   * Actions this goal applied while optimising (replica moves + leadership moves). A later goal
   * may move the same replica again or undo it, so these do not add up to the plan's totals;
   * `planReplicaMoves` and `planLeaderChanges` do.
   */
  moves: number;
  replicaMoves: number;
  leadershipMoves: number;
  /**
   * The plan's replica moves credited to this goal: each replica the plan adds counts for the
   * goal that last moved it there. Summed over the goals: the plan's `replicaMoves`.
   */
  planReplicaMoves: number;
  /**
   * The plan's leader changes credited to this goal (the goal that last changed that partition's
   * leader, by a leadership move or by moving the leader's replica). Summed: `leaderChanges.length`.
   */
  planLeaderChanges: number;
  /** Why the goal is not met (which brokers or partitions stay outside it), or a caveat on "satisfied"; null when none. */
  reason: string | null;
  /** The goal's band per alive, non-excluded broker, when it has a single one. */
  band: { lower: number; upper: number } | null;
  /**
   * Its weight in the balancedness score (0–100, two decimals): goals in priority order weigh
   * 1.1× the next, a hard goal 1.5× more, normalised to sum to 100. "After" is 100 minus the
   * weights of the goals still violated; "before" also subtracts those that had to move anything.
   */
  weight: number;
}

/** One entry of the reassignment JSON's `partitions` list, with the list it replaces. */
export interface BalanceReassignmentView {
  topic: string;
  partition: number;
  replicas: number[];
  currentReplicas: number[];
}

export interface BalanceLeaderChangeView {
  topic: string;
  partition: number;
  /** Leader now (-1 when offline). */
  from: number;
  to: number;
}

export interface BalanceBrokerLoadView {
  id: number;
  rack: string | null;
  alive: boolean;
  excluded: boolean;
  replicas: number;
  leaders: number;
  bytes: number;
}

export interface BalanceRackLoadView {
  rack: string | null;
  brokers: number[];
  replicas: number;
  leaders: number;
  bytes: number;
}

export interface BalanceDistributionView {
  brokers: BalanceBrokerLoadView[];
  racks: BalanceRackLoadView[];
}

export interface BalancePlanView {
  partitions: BalanceReassignmentView[];
  leaderChanges: BalanceLeaderChangeView[];
  /** Bytes copied to new replicas: Σ replica size × replicas added. */
  bytesToMove: number;
  /** Replicas added (= removed) over all partitions. */
  replicaMoves: number;
  before: BalanceDistributionView;
  after: BalanceDistributionView;
  /** 0–100 (Cruise Control's proposal balancedness, two decimals). */
  balancedness: { before: number; after: number };
  /** In priority order. */
  goals: BalanceGoalView[];
  /** What the plan cannot judge, in plain words (e.g. brokers without `broker.rack` beside brokers with one). */
  warnings: string[];
  /**
   * Why the plan moves many replicas (more than 5% of them), in plain words, or null: a cluster
   * whose topics the controller placed needs few, so a big plan names the goal that asked for
   * most moves and the brokers far from the average (e.g. added after the topics were created).
   */
  manyMovesReason: string | null;
}
