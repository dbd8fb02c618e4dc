/**
 * ISR replication beside a majority-vote quorum, for one partition setup (Kafka's documentation,
 * Design › Replicated Logs: "with f+1 replicas a Kafka topic can tolerate f failures without
 * losing committed messages", where a majority vote needs 2f+1 replicas, f+1 of which must
 * have a write before it commits).
 *
 * Model (the design document's): a failure is a broker that stops (crash, power cut, network
 * cut) and does not lose what it had written; the controller elects only from the ISR (or the
 * ELR), never an out-of-sync replica unless unclean election is on.
 *
 * With n = RF, m = min(min.insync.replicas, n):
 * - f, the failures an acknowledged record survives: acks=all with unclean election off: n - 1
 *   (every ISR member holds every committed record, and the ISR shrinks one failure at a time);
 *   with unclean election on: m - 1 (once the m in-sync copies are down an out-of-sync replica
 *   may lead); acks=1 or 0: 0 (the leader alone had it, or nobody confirmed).
 * - ISR: n replicas; an acks=all write waits for every ISR member, n while all are in sync and
 *   never fewer than m; n copies on disk; writes tolerate n - m failures (acks=all).
 * - Majority quorum with the same f: 2f + 1 replicas; a write waits for f + 1; 2f + 1 copies on
 *   disk; writes tolerate f failures.
 */

export interface QuorumSide {
  replicas: number;
  /** Copies that must have a record before it is acknowledged: at least `min`, at most `max`. */
  copiesPerRecord: { min: number; max: number };
  /** Bytes stored per byte produced. */
  diskPerByte: number;
  /** Broker failures after which writes are still accepted. */
  writeFailuresTolerated: number;
}

export interface QuorumComparison {
  /** f: broker failures an acknowledged record survives under this setup. */
  failuresTolerated: number;
  isr: QuorumSide;
  majority: QuorumSide;
  /** One sentence: what the comparison shows for this setup. */
  note: string;
}

export function compareWithMajority(replicationFactor: number, effectiveMinIsr: number, acks: 'all' | 1 | 0, uncleanLeaderElectionEnable: boolean): QuorumComparison {
  const n = replicationFactor;
  const m = Math.max(1, Math.min(effectiveMinIsr, n));
  const f = acks !== 'all' ? 0 : uncleanLeaderElectionEnable ? m - 1 : n - 1;
  const isr: QuorumSide = {
    replicas: n,
    copiesPerRecord: acks === 'all' ? { min: m, max: n } : acks === 1 ? { min: 1, max: 1 } : { min: 0, max: 0 },
    diskPerByte: n,
    writeFailuresTolerated: acks === 'all' ? n - m : n - 1,
  };
  const majority: QuorumSide = { replicas: 2 * f + 1, copiesPerRecord: { min: f + 1, max: f + 1 }, diskPerByte: 2 * f + 1, writeFailuresTolerated: f };
  let note: string;
  if (acks !== 'all') {
    note = `With acks=${acks} an acknowledgement stands on ${acks === 1 ? 'the leader alone' : 'no copy at all'}, so no failure is survived for sure, by ISR or quorum: use acks=all to compare.`;
  } else if (f === 0) {
    note = 'One failure can already lose an acknowledged record here, so a majority quorum needs just one replica for the same (lack of) guarantee.';
  } else {
    const saved = majority.replicas - n;
    note =
      saved > 0
        ? `To survive ${f} broker failure${f === 1 ? '' : 's'} without losing an acknowledged record, ISR replication needs ${n} replicas (f+1) where a majority quorum needs ${majority.replicas} (2f+1): ${saved} fewer cop${saved === 1 ? 'y' : 'ies'} on disk` +
          (isr.writeFailuresTolerated < f ? `, at the price that writes stop after ${isr.writeFailuresTolerated} failure${isr.writeFailuresTolerated === 1 ? '' : 's'} (min ISR ${m}) where the quorum keeps writing through ${f}.` : '.')
        : `A majority quorum of ${majority.replicas} gives the same ${f}-failure guarantee as these ${n} replicas.`;
  }
  return { failuresTolerated: f, isr, majority, note };
}
