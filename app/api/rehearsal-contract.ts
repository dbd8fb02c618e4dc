/**
 * Rehearsals on a local cluster, usually a twin (twin-contract.ts): a stop or a reassignment plan
 * is first predicted (`impact.ofStop`, `impact.ofPlan`), then really done on that cluster, and the
 * prediction is set beside what the engine did, partition by partition. Each rehearsal is kept in
 * the cluster's journal (beside its data), which `connections.twinReport` turns into Markdown with
 * the twin's making and refreshes. Spread into the `connections.*` methods: a rehearsal names its
 * cluster by connection id, and an external cluster is refused (nothing is ever stopped there).
 */
import { z } from 'zod';
import { method, returns } from './contract-kit.js';
import { connectionIdSchema } from './connections.js';
import { reassignmentPartitionSchema } from './contract-schemas.js';
import type { OutcomeCounts, PartitionOutcomeView } from './impact-contract.js';

/** How the brokers stop: `brokers.kill` (a crash), `brokers.powerLoss`, or `brokers.stop` (controlled shutdown). */
export type RehearsalFault = 'kill' | 'power-loss' | 'shutdown';
export const REHEARSAL_FAULTS: readonly RehearsalFault[] = ['kill', 'power-loss', 'shutdown'];

/** A partition's leader, ISR and ELR, and what that means for clients. */
export interface RehearsalStateView {
  leader: number;
  isr: number[];
  elr: number[];
  outcome: PartitionOutcomeView;
}

/** One partition of a rehearsed stop: what `impact.ofStop` said, and what the engine did. */
export interface RehearsalPartitionView {
  topic: string;
  partition: number;
  replicas: number[];
  predicted: RehearsalStateView;
  observed: RehearsalStateView;
  /** Leader, ISR, ELR and outcome all equal. */
  agrees: boolean;
  /** What differs, in words ('' when it agrees). */
  difference: string;
}

/**
 * A consumer group's coordinator after a rehearsed stop: the broker `impact.ofStop` predicted (the
 * leader of the group's `__consumer_offsets` partition) and the one the cluster then names
 * (FindCoordinator, as `groups.describe` asks it); -1: none (the partition has no leader).
 */
export interface RehearsalCoordinatorView {
  groupId: string;
  /** The `__consumer_offsets` partition that holds the group. */
  partition: number;
  predicted: number;
  observed: number;
  agrees: boolean;
  /** What differs, in words ('' when it agrees). */
  difference: string;
}

/** One partition of a rehearsed plan: the predicted end of the move, and the engine's. */
export interface RehearsalMoveView {
  topic: string;
  partition: number;
  predicted: { replicas: number[]; leader: number; isr: number[] };
  observed: { replicas: number[]; leader: number; isr: number[] };
  agrees: boolean;
  difference: string;
}

interface RehearsalBase {
  /** Wall-clock time it started (ms since the epoch) and how long it took. */
  startedAtMs: number;
  wallMs: number;
  /** Cluster time it took (the engine's clock runs 1–60× real time). */
  clusterMs: number;
  /** Rows compared, and how many agree. */
  compared: number;
  agreed: number;
}

export interface StopRehearsalView extends RehearsalBase {
  kind: 'stop';
  fault: RehearsalFault;
  /** What was asked to stop. */
  brokers: number[];
  racks: string[];
  /** The brokers stopped, in the order the prediction takes them out (each once the previous is fenced). */
  stopped: number[];
  /** Named but already down: not stopped again. */
  alreadyDown: number[];
  predictedCounts: OutcomeCounts;
  observedCounts: OutcomeCounts;
  /** The partitions a stopped broker is a replica of, disagreements first, at most `limit`. */
  partitions: RehearsalPartitionView[];
  /** Every group impact.ofStop followed, disagreements first (absent in a journal written before coordinators were compared). */
  coordinators?: RehearsalCoordinatorView[];
}

export interface PlanRehearsalView extends RehearsalBase {
  kind: 'plan';
  partitionCount: number;
  throttleBytesPerSec: number | null;
  bytesToCopy: number;
  /** `impact.ofPlan`'s estimate at the throttle; null without one. */
  estimatedSeconds: number | null;
  /** Cluster seconds from the first reassignment started to the last completed. */
  copySeconds: number;
  /** The moving partitions, disagreements first, at most `limit`. */
  moves: RehearsalMoveView[];
}

export type RehearsalView = StopRehearsalView | PlanRehearsalView;

/** The Markdown report of a cluster's journal (`connections.twinReport`). */
export interface TwinReportView {
  fileName: string;
  markdown: string;
  /** Journal entries it covers. */
  entries: number;
}

const brokerId = z.int().min(0);
const limit = z.int().min(0).max(1_000_000).optional();
/** Longest a rehearsal waits for the engine (wall seconds): a plan at a low throttle copies for a while. */
const timeoutSeconds = z.int().min(1).max(3_600).optional();

export const rehearsalMethods = {
  /**
   * Predict what stopping `brokers` and the brokers of `racks` does (`impact.ofStop`), then stop
   * them on local cluster `id` with `fault` (default kill), in the predicted order, each once the
   * controller has fenced the one before; once the cluster settles, every touched partition's
   * predicted leader, ISR, ELR and outcome beside the observed ones. Kept in the journal. The
   * brokers stay down (`brokers.start` brings them back).
   */
  'connections.rehearseStop': method(
    z
      .strictObject({
        id: connectionIdSchema,
        brokers: z.array(brokerId).max(10_000).optional(),
        racks: z.array(z.string()).max(1_000).optional(),
        fault: z.enum(['kill', 'power-loss', 'shutdown']).optional(),
        limit,
        timeoutSeconds,
      })
      .refine((i) => (i.brokers?.length ?? 0) + (i.racks?.length ?? 0) > 0, { message: 'Name at least one broker or rack to stop.', path: ['brokers'] }),
    returns<StopRehearsalView>(),
  ),
  /**
   * Predict a reassignment plan (`impact.ofPlan`), execute it on local cluster `id` with its
   * throttle, wait until every move completed, and set the predicted end (replicas, leader, ISR)
   * and the estimated copy time beside the engine's. Kept in the journal.
   */
  'connections.rehearsePlan': method(
    z.strictObject({
      id: connectionIdSchema,
      version: z.literal(1).optional(),
      partitions: z.array(reassignmentPartitionSchema).min(1).max(1_000_000),
      throttleBytesPerSec: z.int().min(1).optional(),
      limit,
      timeoutSeconds,
    }),
    returns<PlanRehearsalView>(),
  ),
  /**
   * The journal of local cluster `id` as Markdown: where the twin came from, the refreshes
   * applied, and each rehearsal (what was tried, how long, predicted against observed).
   */
  'connections.twinReport': method(z.strictObject({ id: connectionIdSchema }), returns<TwinReportView>()),
} as const;
