/**
 * kafka-reassign-partitions.sh over the controller's AlterPartitionReassignments (KIP-455), with
 * the replication throttles the tool sets (KIP-73) and progress reports while replicas move.
 *
 * Tool-side input errors refuse the whole request with a thrown KafkaError (the tool exits before
 * touching the cluster); what the controller says about each partition comes back as
 * per-partition results. Every execute behaves as `--additional` (the API is incremental). The
 * throttle is in place before the first byte moves, and cleared as the tool clears it.
 */
import type { EngineEvent } from '../../api/events.js';
import { KafkaError } from '../../api/errors.js';
import type { ReassignmentResult } from '../controller/controller.js';
import {
  BROKER_THROTTLE_CONFIGS,
  followerThrottles,
  leaderThrottles,
  mergeThrottledReplicas,
  proposedMoveMap,
  reassigningBrokers,
  TOPIC_THROTTLE_CONFIGS,
  validateReassignmentTargets,
  verifyLine,
  type ReassignmentTarget,
  type VerifyStatus,
} from '../controller/reassign-command.js';
import type { TimerHandle } from '../time.js';
import type { ClusterContext } from './context.js';
import type { ReadModel } from './read-model.js';
import type { ReassignmentProgress } from './types.js';

const REASSIGNMENT_PROGRESS_MS = 1_000;

export interface VerifyResult {
  topic: string;
  partition: number;
  status: VerifyStatus;
  message: string;
  replicas: number[];
}

export class ReassignmentAdmin {
  private progressTimer: TimerHandle | null = null;
  private readonly lastProgress = new Map<string, number>();

  constructor(
    private readonly ctx: ClusterContext,
    private readonly read: ReadModel,
  ) {}

  /** Sees every event first: a started reassignment starts the progress reports. */
  onEvent(event: EngineEvent): void {
    if (event.type === 'reassignment.changed' && event.status === 'started') this.watch();
  }

  /** `--execute [--throttle B]`: check the input like the tool, set the throttle, start the moves. */
  execute(input: { partitions: ReassignmentTarget[]; throttleBytesPerSec?: number }): ReassignmentResult[] {
    const controller = this.ctx.controller;
    controller.requireActive();
    const throttle = input.throttleBytesPerSec;
    if (throttle !== undefined && (!Number.isSafeInteger(throttle) || throttle < 0)) {
      throw new KafkaError('INVALID_INPUT', `The throttle must be a whole number of bytes per second, got ${throttle}.`);
    }
    const image = controller.image;
    validateReassignmentTargets(input.partitions, new Set([...image.brokers.values()].filter((b) => !b.fenced).map((b) => b.id)));
    const missingTopic = input.partitions.find((t) => !image.topicsByName.has(t.topic));
    if (missingTopic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${missingTopic.topic} not found.`);
    const missing = input.partitions.filter((t) => !image.topicsByName.get(t.topic)!.partitions.has(t.partition));
    if (missing.length > 0) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Unable to find partition: ${missing.map((t) => `${t.topic}-${t.partition}`).join(', ')}`);
    if (throttle !== undefined) this.setThrottle(input.partitions, throttle);
    return controller.alterReassignments(input.partitions.map((t) => ({ topic: t.topic, partition: t.partition, replicas: [...t.replicas] })));
  }

  /**
   * `--cancel`: revert the given partitions' reassignments (undefined = every ongoing one). A
   * partition with none gets NO_REASSIGNMENT_IN_PROGRESS. When something was cancelled the
   * throttles are cleared as the tool does without `--preserve-throttles`.
   */
  cancel(partitions?: { topic: string; partition: number }[]): ReassignmentResult[] {
    const controller = this.ctx.controller;
    controller.requireActive();
    const ongoing = controller.listReassignments();
    const items = partitions ?? ongoing.map(({ topic, partition }) => ({ topic, partition }));
    const results = controller.alterReassignments(items.map(({ topic, partition }) => ({ topic, partition, replicas: null })));
    if (results.some((r) => r.errorCode === 'NONE')) {
      const involved = ongoing.filter((r) => items.some((i) => i.topic === r.topic && i.partition === r.partition)).flatMap((r) => r.replicas);
      this.clearThrottles(items.map((i) => i.topic), involved);
    }
    return results;
  }

  /** `--list` (ListPartitionReassignments). */
  list(): ReassignmentProgress[] {
    return this.ctx.controller.listReassignments().map((r) => {
      const view = this.read.describePartition(r.topic, r.partition);
      const leaderEnd = view?.replicaStates.find((s) => s.brokerId === view.leader)?.logEndOffset ?? -1;
      const start = view?.logStartOffset ?? 0;
      const adding = r.addingReplicas.map((brokerId) => {
        const logEndOffset = view?.replicaStates.find((s) => s.brokerId === brokerId)?.logEndOffset ?? 0;
        return { brokerId, logEndOffset, inIsr: view?.isr.includes(brokerId) ?? false };
      });
      // Share of the leader's log the new replicas hold (the slowest one counts).
      const span = Math.max(0, leaderEnd - start);
      const slowest = adding.reduce((m, a) => Math.min(m, a.inIsr ? leaderEnd : a.logEndOffset), leaderEnd);
      const percent = span === 0 ? 100 : Math.max(0, Math.min(100, Math.floor(((slowest - start) / span) * 100)));
      return { ...r, progress: { leaderLogEndOffset: leaderEnd, addingReplicas: adding, percent } };
    });
  }

  /** While replicas move, report each partition's catch-up every second (when it changed). */
  watch(): void {
    if (this.progressTimer) return;
    const ctx = this.ctx;
    this.progressTimer = ctx.scheduler.schedule(REASSIGNMENT_PROGRESS_MS, () => {
      this.progressTimer = null;
      const running = this.list();
      const seen = new Set<string>();
      for (const r of running) {
        const key = `${r.topic}:${r.partition}`;
        seen.add(key);
        if (this.lastProgress.get(key) === r.progress.percent) continue;
        this.lastProgress.set(key, r.progress.percent);
        ctx.emit({ type: 'reassignment.progress', atMs: ctx.scheduler.now(), topic: r.topic, partition: r.partition, percent: r.progress.percent, leaderLogEndOffset: r.progress.leaderLogEndOffset, addingReplicas: r.progress.addingReplicas });
      }
      for (const key of [...this.lastProgress.keys()]) if (!seen.has(key)) this.lastProgress.delete(key);
      if (running.length > 0) this.watch();
    });
  }

  /**
   * `--verify`: Kafka's line per partition, in the order given. A partition that does not exist
   * reads as a mismatch with an empty replica set, as in the tool. Once no reassignment at all is
   * running (the tool's own condition, unrelated partitions included) it clears both rates on
   * every live broker and on the target brokers, and both lists on the given topics.
   */
  verify(partitions: ReassignmentTarget[]): VerifyResult[] {
    const controller = this.ctx.controller;
    controller.requireActive();
    const ongoing = controller.listReassignments();
    const results = partitions.map((t) => {
      const running = ongoing.find((r) => r.topic === t.topic && r.partition === t.partition);
      const replicas = running?.replicas ?? [...(controller.image.topicsByName.get(t.topic)?.partitions.get(t.partition)?.replicas ?? [])];
      return { topic: t.topic, partition: t.partition, ...verifyLine(t, running !== undefined, replicas), replicas };
    });
    if (ongoing.length === 0) this.clearThrottles(partitions.map((t) => t.topic), partitions.flatMap((t) => t.replicas));
    return results;
  }

  private setThrottle(targets: ReassignmentTarget[], bytesPerSec: number): void {
    const controller = this.ctx.controller;
    const image = controller.image;
    const current = (topic: string, partition: number): readonly number[] => image.topicsByName.get(topic)?.partitions.get(partition)?.replicas ?? [];
    const moves = proposedMoveMap(controller.listReassignments(), targets, current);
    const leader = leaderThrottles(moves);
    const follower = followerThrottles(moves);
    for (const topic of moves.keys()) {
      const configs = image.topicsByName.get(topic)?.configs;
      if (!configs) continue;
      const set: Record<string, string> = {};
      for (const [name, entries] of [
        ['leader.replication.throttled.replicas', leader.get(topic) ?? []],
        ['follower.replication.throttled.replicas', follower.get(topic) ?? []],
      ] as const) {
        const merged = mergeThrottledReplicas(configs[name], entries);
        if (merged !== (configs[name] ?? '')) set[name] = merged;
      }
      if (Object.keys(set).length > 0) controller.alterConfigs('topic', topic, set);
    }
    const rate = String(bytesPerSec);
    for (const id of reassigningBrokers(moves)) {
      if (!image.brokers.has(id)) continue;
      const configs = image.brokerConfigs.get(String(id)) ?? {};
      const set = Object.fromEntries(BROKER_THROTTLE_CONFIGS.filter((name) => configs[name] !== rate).map((name) => [name, rate]));
      if (Object.keys(set).length > 0) controller.alterConfigs('broker', String(id), set);
    }
  }

  /** The tool's clearAllThrottles; only configs that are set are deleted (no empty records). */
  private clearThrottles(topics: string[], targetBrokers: number[]): void {
    const controller = this.ctx.controller;
    const image = controller.image;
    const live = [...image.brokers.values()].filter((b) => !b.fenced).map((b) => b.id);
    const brokers = [...new Set([...live, ...targetBrokers])].filter((id) => image.brokers.has(id)).sort((a, b) => a - b);
    for (const id of brokers) {
      const configs = image.brokerConfigs.get(String(id)) ?? {};
      const unset = BROKER_THROTTLE_CONFIGS.filter((name) => name in configs);
      if (unset.length > 0) controller.alterConfigs('broker', String(id), Object.fromEntries(unset.map((name) => [name, null])));
    }
    for (const topic of new Set(topics)) {
      const configs = image.topicsByName.get(topic)?.configs;
      const unset = TOPIC_THROTTLE_CONFIGS.filter((name) => configs && name in configs);
      if (unset.length > 0) controller.alterConfigs('topic', topic, Object.fromEntries(unset.map((name) => [name, null])));
    }
  }
}
