/**
 * What eligible leader replicas (KIP-966) change for one topic, for the durability explainer.
 *
 * Rules (Kafka 4.x, docs/semantics.md#eligible-leader-replicas-kip-966): with `eligible.leader.replicas.version` >= 1 a
 * replica leaving the ISR while it is below the effective min ISR m joins the ELR: it holds every
 * record committed before the high watermark froze, so once the ISR is empty the controller may
 * elect it cleanly; a broker back from an unclean shutdown leaves the ELR. Without the feature the
 * last ISR member stays in the ISR and only it (or, with unclean election, any replica) may lead.
 * The failure counts of the explainer do not change: ELR changes which replica may lead after the
 * last in-sync replica fails, not how many copies an acknowledgement stands on.
 */

export interface ElrExplanation {
  /** The finalized level of eligible.leader.replicas.version (0: off). */
  featureLevel: number;
  explanation: string;
}

export function explainEligibleLeaders(featureLevel: number, replicationFactor: number, effectiveMinIsr: number, uncleanLeaderElectionEnable: boolean): ElrExplanation {
  const m = effectiveMinIsr;
  if (replicationFactor <= 1) {
    return { featureLevel, explanation: 'With a single replica there is no other replica to keep eligible: eligible leader replicas change nothing for this topic.' };
  }
  if (featureLevel < 1) {
    const fallback = uncleanLeaderElectionEnable
      ? 'or elects an out-of-sync replica uncleanly, losing the committed records it lacks'
      : 'however long that takes';
    return {
      featureLevel,
      explanation:
        `Eligible leader replicas are off (eligible.leader.replicas.version 0): a replica that leaves the ISR while it is below min ISR ${m} is forgotten, ` +
        `so when the last in-sync replica fails the partition waits for that broker ${fallback}, even if a replica that left the ISR later still holds every committed record. ` +
        'Kafka 4.x turns them on once per cluster: kafka-features.sh upgrade --feature eligible.leader.replicas.version=1.',
    };
  }
  return {
    featureLevel,
    explanation:
      `Eligible leader replicas are on (KIP-966): a replica that leaves the ISR while it is below min ISR ${m} stays eligible, since it holds every committed record, ` +
      'so when the last in-sync replica fails the controller elects an eligible one cleanly; a broker back from an unclean shutdown (a power loss) is no longer eligible, so it cannot make the others truncate committed records.',
  };
}
