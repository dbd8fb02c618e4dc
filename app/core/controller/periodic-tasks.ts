/**
 * The active controller's two periodic tasks: the auto leader rebalance (Kafka's
 * auto.leader.rebalance.enable, every leader.imbalance.check.interval.seconds, at most
 * MAX_ELECTIONS_PER_IMBALANCE preferred elections a round) and the unclean election of leaderless
 * partitions whose topic allows it (unclean.leader.election.enable, checked every
 * unclean.leader.election.interval.ms).
 *
 * Invariant: while the controller is active, a partition led by another than its preferred
 * replica (with auto-rebalance on) exists only with the rebalance timer armed, and a leaderless
 * partition only with the unclean timer armed; so after a commit only the partitions it changed
 * need looking at.
 */
import type { MetadataImage, TopicImage } from '../metadata/image.js';
import type { CommittedRecord, MetadataRecord, PartitionState } from '../metadata/records.js';
import type { BrokerRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import { buildPartitionChange, changeReason, type ChangeContext } from './partition-change.js';

const MAX_ELECTIONS_PER_IMBALANCE = 1000;

export interface PeriodicTaskDeps {
  readonly image: MetadataImage;
  readonly scheduler: Scheduler;
  isActive(): boolean;
  config(): BrokerRuntimeConfig;
  /** Run `fn` after `ms` while this controller generation lasts. */
  after(ms: number, fn: () => void): TimerHandle;
  commit(records: MetadataRecord[]): CommittedRecord[];
  changeContext(topic: TopicImage, state: PartitionState): ChangeContext;
  topicUncleanAllowed(topic: TopicImage): boolean;
}

export class PeriodicTasks {
  private rebalanceTimer: TimerHandle | null = null;
  private uncleanTimer: TimerHandle | null = null;

  constructor(private readonly deps: PeriodicTaskDeps) {}

  /** Forget both timers (a new generation starts, or the controller resigns) and cancel them. */
  reset(): void {
    this.deps.scheduler.cancel(this.rebalanceTimer);
    this.deps.scheduler.cancel(this.uncleanTimer);
    this.rebalanceTimer = null;
    this.uncleanTimer = null;
  }

  /** After a commit: arm what the `changed` partitions (all when absent) call for. */
  afterCommit(changed?: readonly PartitionState[]): void {
    this.maybeScheduleRebalance(changed);
    this.maybeScheduleUncleanCheck(changed);
  }

  /**
   * Arm the imbalance check when some partition is led by another than its preferred replica.
   * Invariant: while active with auto-rebalance on, such a partition exists only with the timer
   * armed; so after a commit only the partitions it `changed` need looking at (all when absent).
   */
  maybeScheduleRebalance(changed?: readonly PartitionState[]): void {
    if (!this.deps.isActive() || this.rebalanceTimer) return;
    if (changed?.length === 0) return;
    const cfg = this.deps.config();
    if (!cfg.autoLeaderRebalanceEnable) return;
    const imbalanced = (state: PartitionState): boolean => state.leader >= 0 && state.leader !== state.replicas[0];
    if (!(changed ? changed.some(imbalanced) : this.deps.image.somePartition(imbalanced))) return;
    this.rebalanceTimer = this.deps.after(cfg.leaderImbalanceCheckIntervalMs, () => this.runRebalance());
  }

  private runRebalance(): void {
    const changes: MetadataRecord[] = [];
    let attempted = 0;
    for (const { topic, state } of this.deps.image.allPartitions()) {
      if (state.leader < 0 || state.leader === state.replicas[0]) continue;
      if (attempted >= MAX_ELECTIONS_PER_IMBALANCE) break;
      attempted++;
      const change = buildPartitionChange(state, { election: 'preferred' }, this.deps.changeContext(topic, state));
      if (change && change.state.leader === state.replicas[0]) changes.push({ type: 'PartitionChange', state: change.state, reason: 'auto-rebalance' });
    }
    this.rebalanceTimer = attempted >= MAX_ELECTIONS_PER_IMBALANCE ? this.deps.after(0, () => this.runRebalance()) : null;
    this.deps.commit(changes);
    this.maybeScheduleRebalance();
  }

  /** Arm the unclean-election check when a partition has no leader (same invariant as the rebalance check). */
  maybeScheduleUncleanCheck(changed?: readonly PartitionState[]): void {
    if (!this.deps.isActive() || this.uncleanTimer) return;
    const leaderless = (state: PartitionState): boolean => state.leader < 0;
    if (!(changed ? changed.some(leaderless) : this.deps.image.somePartition(leaderless))) return;
    this.uncleanTimer = this.deps.after(this.deps.config().uncleanLeaderElectionIntervalMs, () => {
      this.uncleanTimer = null;
      const changes: MetadataRecord[] = [];
      for (const { topic, state } of this.deps.image.allPartitions()) {
        if (state.leader >= 0 || !this.deps.topicUncleanAllowed(topic)) continue;
        const change = buildPartitionChange(state, { election: 'online' }, this.deps.changeContext(topic, state));
        if (change && change.state.leader >= 0) changes.push({ type: 'PartitionChange', state: change.state, reason: changeReason(change, 'broker-unfenced'), unclean: change.unclean });
      }
      this.deps.commit(changes);
      this.maybeScheduleUncleanCheck();
    });
  }
}
