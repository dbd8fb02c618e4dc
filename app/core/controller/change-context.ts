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
import { buildPartitionChange, type ChangeContext, type ChangeResult } from './partition-change.js';

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
