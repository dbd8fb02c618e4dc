/**
 * What the controller's partition changes are judged by, shared by the controller and by the
 * impact analysis (app/core/impact/), so a prediction uses the rules the controller applies:
 * which replicas are acceptable leaders, the topic's unclean election and min ISR, ELR on or off,
 * and the change a broker leaving the ISRs makes (a fence, a controlled shutdown, a
 * re-registration, an unregistration).
 */
import type { ClusterMetadata } from '../metadata/image.js';
import type { PartitionState } from '../metadata/records.js';
import { elrEnabled } from './features.js';
import { KafkaError } from '../../api/errors.js';
import { buildPartitionChange, type ChangeContext, type ChangeRequest, type ChangeResult } from './partition-change.js';

/** The two topic configs an election reads. */
export interface ElectionConfig {
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
}

/**
 * Registered, unfenced, not shutting down, not `excluded`, and the partition's replica not offline
 * there. (Made by a function, not inline: a named closure costs more, and a fence makes tens of
 * thousands.)
 */
export function acceptableLeaders(image: ClusterMetadata, excluded: number, state: PartitionState): (brokerId: number) => boolean {
  // The replica key is built only for a broker with offline replicas (rare).
  return (b) => b !== excluded && image.isActive(b) && (image.brokers.get(b)!.offlineReplicas.length === 0 || image.isActive(b, `${state.topicId}:${state.partition}`));
}

/** The context of one partition's change: `uncleanShutdown` >= 0 names a broker back from an unclean shutdown. */
export function changeContextFor(image: ClusterMetadata, cfg: ElectionConfig, state: PartitionState, isAcceptable: (brokerId: number) => boolean, uncleanShutdown = -1): ChangeContext {
  const base: ChangeContext = { isAcceptable, uncleanAllowed: cfg.uncleanLeaderElectionEnable };
  if (!elrEnabled(image)) return base;
  base.elr = { minIsr: Math.min(cfg.minInsyncReplicas, state.replicas.length) };
  if (uncleanShutdown >= 0) base.elr.uncleanShutdown = uncleanShutdown;
  return base;
}

/** The change that takes `brokerId` out of the partition's ISR and re-elects if it led (null: none). */
export function leaveIsrChange(state: PartitionState, brokerId: number, ctx: ChangeContext): ChangeResult | null {
  return buildPartitionChange(state, { targetIsr: state.isr.filter((b) => b !== brokerId) }, ctx);
}

/**
 * The change AlterPartitionReassignments asks for (KIP-455): the target replicas first, then the
 * ones being removed (sorted), with the adding and removing sets; a bad target is Kafka's error.
 */
export function reassignmentRequest(image: ClusterMetadata, state: PartitionState, target: readonly number[]): ChangeRequest | KafkaError {
  if (target.length === 0) return new KafkaError('INVALID_REPLICA_ASSIGNMENT', 'The target replica list is empty.');
  if (new Set(target).size !== target.length) return new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The target replica list ${JSON.stringify(target)} contains duplicate brokers.`);
  const unknown = target.find((b) => !image.brokers.has(b));
  if (unknown !== undefined) return new KafkaError('INVALID_REPLICA_ASSIGNMENT', `The target replica list includes broker ${unknown}, which is not registered.`);
  const current = state.replicas;
  const removing = current.filter((b) => !target.includes(b)).sort((a, b) => a - b);
  const adding = target.filter((b) => !current.includes(b)).sort((a, b) => a - b);
  return { targetReplicas: [...target, ...removing], targetAdding: adding, targetRemoving: removing };
}
