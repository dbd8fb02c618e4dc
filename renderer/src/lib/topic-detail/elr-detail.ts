/**
 * The explainer's sentence about eligible leader replicas (KIP-966), from the partition view
 * alone: a replica that left the ISR while it was below min ISR holds every committed record and
 * may be elected cleanly once the ISR is empty; while the ISR is empty the controller also keeps
 * the last leader (the last known ELR) for a "balanced" recovery. Pure.
 */
import type { BrokerView, PartitionView } from '../../../../app/api/contract.js';
import { brokerAlive } from './broker-trouble.js';

const list = (ids: readonly number[]): string => (ids.length ? ids.join(', ') : 'none');

/**
 * The ELR sentence: who is eligible and why, and what happens if the ISR empties; while the
 * partition is offline with an empty ISR, the last known leader too. Null without ELR members.
 */
export function elrDetail(p: PartitionView, effMin: number, brokers: ReadonlyMap<number, BrokerView>): string | null {
  const elr = p.eligibleLeaderReplicas;
  const lastKnown = p.lastKnownElr;
  if (elr.length === 0 && (lastKnown.length === 0 || p.leader !== -1)) return null;
  const parts: string[] = [];
  if (elr.length > 0) {
    const who = elr.length === 1 ? `Broker ${elr[0]} is an eligible leader replica` : `Brokers ${list(elr)} are eligible leader replicas`;
    const live = elr.filter((id) => brokerAlive(brokers.get(id)));
    const next =
      p.leader !== -1
        ? 'if the ISR empties, the controller elects one of them cleanly instead of waiting for the last in-sync replica or electing an out-of-sync one'
        : live.length > 0
          ? `the controller elects broker ${live[0]} cleanly, as soon as it is registered and unfenced`
          : 'the first of them to come back is elected cleanly';
    parts.push(`${who} (KIP-966): ${elr.length === 1 ? 'it' : 'they'} left the ISR while it was below min ISR ${effMin}, so ${elr.length === 1 ? 'it holds' : 'they hold'} every committed record; ${next}.`);
  }
  if (lastKnown.length > 0 && p.leader === -1) {
    parts.push(
      `Broker ${list(lastKnown)} was the last leader (its last known ELR): if no eligible replica can lead, the controller elects it when it returns (the partition is then RECOVERING), not a replica that may lack committed records.`,
    );
  }
  return parts.join(' ');
}
