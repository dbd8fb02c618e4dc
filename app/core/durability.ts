/**
 * The durability/availability explainer: for one partition setup (replication factor,
 * min.insync.replicas, unclean.leader.election.enable, the producer's acks) how many broker
 * failures it survives, for writes, for reads, and without losing acknowledged writes, each in
 * one plain-English sentence, plus warnings about setups with known failure modes.
 *
 * Model (stated, because every number depends on it):
 * - The partition starts healthy: every replica is in the ISR. A "broker failure" is a broker
 *   holding a replica that stops (crash, power loss, network cut). The controller fences it and
 *   removes it from the ISR (docs/semantics.md#leader-elections, #controlled-shutdown), so the surviving replicas are ISR members and a
 *   clean election can pick one of them.
 * - effectiveMinIsr = min(min.insync.replicas, RF), as in Kafka 3.7+ (docs/semantics.md#produce-acks-and-mininsyncreplicas).
 *
 * The three answers, with n = RF and m = effectiveMinIsr:
 * - writes: acks=all needs a leader and ISR >= m, so n - m failures. acks=1/0 need only a
 *   leader, so n - 1; past n - m such writes are accepted but stay invisible to consumers until
 *   the ISR is back to m (3.7+ strict min ISR).
 * - reads: a consumer needs a leader, and a leader needs a live ISR member (or an unclean
 *   election), so n - 1 in the model above. Unclean election only matters when the survivors had
 *   already fallen out of the ISR; it trades committed records for availability.
 * - acknowledged writes: an acks=all acknowledgement means every ISR member holds the record and
 *   the ISR had at least m members, so m - 1 brokers may lose their data. An acks=1
 *   acknowledgement may exist on the leader alone (docs/semantics.md#known-ways-to-lose-data) and acks=0 is never acknowledged: 0.
 *   Unclean election does not change the count but makes loss possible with m brokers merely
 *   *down* instead of having lost their disks (an unclean election).
 */
import { KafkaError } from '../api/errors.js';
import { compareWithMajority, type QuorumComparison } from './quorum-comparison.js';

/** A producer's acks as a user writes it: Kafka's numbers or strings; -1 is Kafka's "all". */
export type AcksSetting = 0 | 1 | -1 | 'all' | '0' | '1' | '-1';

export interface DurabilityInput {
  replicationFactor: number;
  /** The topic's min.insync.replicas as configured (may exceed RF; capped, as Kafka 3.7+ does). */
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
  acks: AcksSetting;
}

/** How many of the partition's replica brokers may fail, and why, in one sentence. */
export interface Tolerance {
  brokerFailures: number;
  explanation: string;
}

export type DurabilityWarningCode =
  | 'SINGLE_REPLICA'
  | 'MIN_ISR_AT_LEAST_RF'
  | 'MIN_ISR_ABOVE_RF'
  | 'JEPSEN_MIN_ISR_ONE'
  | 'ACKS_NOT_ALL'
  | 'UNCLEAN_ELECTION_ENABLED';

export interface DurabilityWarning {
  code: DurabilityWarningCode;
  message: string;
}

export interface DurabilityExplanation {
  replicationFactor: number;
  minInsyncReplicas: number;
  /** min(min.insync.replicas, replicationFactor). */
  effectiveMinIsr: number;
  acks: 'all' | 1 | 0;
  uncleanLeaderElectionEnable: boolean;
  /** Failures that still let the producer's writes succeed. */
  writes: Tolerance;
  /** Failures that still let consumers read (the partition keeps a leader). */
  reads: Tolerance;
  /** Failures (including loss of the broker's data) that lose no write the producer saw acknowledged. */
  acknowledgedWrites: Tolerance;
  /** One line for a tooltip or a table cell. */
  summary: string;
  warnings: DurabilityWarning[];
  /** The same setup beside a majority-vote quorum (quorum-comparison.ts). */
  quorum: QuorumComparison;
}

/** Kafka's acks in canonical form: "all" (also -1), 1 or 0. Throws INVALID_REQUIRED_ACKS. */
export function normalizeAcks(acks: AcksSetting | string | number): 'all' | 1 | 0 {
  const text = String(acks).trim().toLowerCase();
  if (text === 'all' || text === '-1') return 'all';
  if (text === '1') return 1;
  if (text === '0') return 0;
  throw new KafkaError('INVALID_REQUIRED_ACKS', `acks must be 0, 1, -1 or "all", got ${JSON.stringify(acks)}`);
}

const brokers = (n: number): string => (n === 1 ? '1 broker' : `${n} brokers`);
const acksText = (acks: 'all' | 1 | 0): string => `acks=${acks}`;

function writesTolerance(n: number, m: number, acks: 'all' | 1 | 0): Tolerance {
  if (n === 1) {
    return { brokerFailures: 0, explanation: 'With a single replica, writes stop as soon as its broker is down: there is no other replica to lead.' };
  }
  if (acks === 'all') {
    const t = n - m;
    if (t === 0) {
      return {
        brokerFailures: 0,
        explanation:
          `With RF ${n} and min ISR ${m}, no broker may fail: one replica down leaves ${n - 1} in the ISR, ` +
          `below min ISR ${m}, and acks=all writes fail with NOT_ENOUGH_REPLICAS.`,
      };
    }
    const beyond =
      t + 1 === n
        ? `with all ${n} down the partition has no leader`
        : `with ${t + 1} down the ISR falls below ${m} and writes fail with NOT_ENOUGH_REPLICAS (nothing is appended)`;
    return {
      brokerFailures: t,
      explanation: `With RF ${n} and min ISR ${m}, ${brokers(t)} may fail without blocking acks=all writes; ${beyond}.`,
    };
  }
  const hidden =
    n - m < n - 1
      ? `; past ${brokers(n - m)} down the ISR is below min ISR ${m}, so they are accepted but stay invisible to consumers until enough replicas return (Kafka 3.7+)`
      : '';
  return {
    brokerFailures: n - 1,
    explanation: `With ${acksText(acks)}, writes need only a leader, so ${brokers(n - 1)} of ${n} may fail${hidden}.`,
  };
}

function readsTolerance(n: number, m: number, unclean: boolean): Tolerance {
  if (n === 1) {
    return { brokerFailures: 0, explanation: 'With a single replica, the partition is offline (leader -1) while its broker is down.' };
  }
  const frozen =
    m > 1 ? `; past ${brokers(n - m)} down the high watermark freezes, so only records committed before stay readable` : '';
  const lagging = unclean
    ? '; if the survivors had already fallen out of the ISR, unclean election still gives the partition a leader, at the cost of the records they lack'
    : '; if the survivors had already fallen out of the ISR, the partition stays offline until an in-sync replica returns (unclean election is off)';
  return {
    brokerFailures: n - 1,
    explanation: `Consumers need a leader and a surviving in-sync replica takes over, so reads continue with up to ${brokers(n - 1)} of ${n} down${frozen}${lagging}.`,
  };
}

function acknowledgedTolerance(n: number, m: number, acks: 'all' | 1 | 0, unclean: boolean): Tolerance {
  if (acks === 0) {
    return {
      brokerFailures: 0,
      explanation: 'With acks=0 the producer gets no acknowledgement at all, so any failure, even a dropped connection, can lose records it counted as sent.',
    };
  }
  if (acks === 1) {
    return {
      brokerFailures: 0,
      explanation:
        'With acks=1 the leader acknowledges before any follower has the record, so one leader failure can lose acknowledged writes: ' +
        'the new leader never had them and the old one truncates them when it returns.',
    };
  }
  if (n === 1) {
    return { brokerFailures: 0, explanation: "With a single replica, losing its broker's data loses acknowledged writes." };
  }
  if (m === 1) {
    return {
      brokerFailures: 0,
      explanation:
        'With min ISR 1, an acks=all write is acknowledged by the leader alone once the ISR has shrunk to it, ' +
        "so losing that one broker's data loses acknowledged writes (the Jepsen 2013 setup).",
    };
  }
  const uncleanRisk = unclean
    ? `; with unclean election on, ${brokers(m)} merely being down can already let an out-of-sync replica lead and truncate them`
    : '';
  return {
    brokerFailures: m - 1,
    explanation:
      `Every acks=all acknowledgement means at least ${m} in-sync replicas hold the record, so ${brokers(m - 1)} may fail, ` +
      `even losing their disks or unflushed data, without losing acknowledged writes${uncleanRisk}.`,
  };
}

function warningsFor(n: number, minIsr: number, m: number, acks: 'all' | 1 | 0, unclean: boolean): DurabilityWarning[] {
  const warnings: DurabilityWarning[] = [];
  if (n === 1) {
    warnings.push({
      code: 'SINGLE_REPLICA',
      message: "Replication factor 1: one broker failure takes the partition offline, and losing that broker's disk loses its data.",
    });
  }
  if (n > 1 && minIsr >= n) {
    warnings.push({
      code: 'MIN_ISR_AT_LEAST_RF',
      message:
        `min.insync.replicas ${minIsr} >= replication factor ${n}: any single broker failure blocks acks=all writes ` +
        `and freezes the high watermark, so consumers see no new records until it returns. Use ${n - 1} to tolerate one failure.`,
    });
  }
  if (minIsr > n) {
    warnings.push({
      code: 'MIN_ISR_ABOVE_RF',
      message:
        `min.insync.replicas ${minIsr} exceeds replication factor ${n}: Kafka 3.7+ caps it at ${n}, ` +
        'but an older broker refuses every acks=all write to this topic.',
    });
  }
  if (n > 1 && m === 1 && acks === 'all') {
    warnings.push({
      code: 'JEPSEN_MIN_ISR_ONE',
      message:
        'min.insync.replicas 1 with acks=all: once the ISR shrinks to the leader, writes are acknowledged by one copy. ' +
        'This is the setup Jepsen (2013) showed losing acknowledged writes; use min.insync.replicas 2 with RF 3 or more.',
    });
  }
  if (acks !== 'all') {
    warnings.push({
      code: 'ACKS_NOT_ALL',
      message:
        `${acksText(acks)}: min.insync.replicas does not gate these writes, and a leader failure can lose writes the producer ` +
        'saw succeed. Use acks=all where losing a record matters.',
    });
  }
  if (unclean) {
    warnings.push({
      code: 'UNCLEAN_ELECTION_ENABLED',
      message:
        'unclean.leader.election.enable=true: when no in-sync replica survives, an out-of-sync one may become leader and the ' +
        'committed records it lacks are lost, after consumers may already have read them; the new leader then writes other records at those offsets ' +
        "(Kafka's documentation, Design › Unclean leader election: What if they all die?).",
    });
  }
  return warnings;
}

function requirePositiveInt(value: number, what: string, code: 'INVALID_REPLICATION_FACTOR' | 'INVALID_CONFIG'): void {
  if (!Number.isInteger(value) || value < 1) throw new KafkaError(code, `${what} must be an integer of at least 1, got ${value}`);
}

/** Explain one partition setup. Throws INVALID_REPLICATION_FACTOR, INVALID_CONFIG or INVALID_REQUIRED_ACKS on bad input. */
export function explainDurability(input: DurabilityInput): DurabilityExplanation {
  const n = input.replicationFactor;
  requirePositiveInt(n, 'Replication factor', 'INVALID_REPLICATION_FACTOR');
  requirePositiveInt(input.minInsyncReplicas, 'min.insync.replicas', 'INVALID_CONFIG');
  const acks = normalizeAcks(input.acks);
  const m = Math.min(input.minInsyncReplicas, n);
  const unclean = input.uncleanLeaderElectionEnable;
  const writes = writesTolerance(n, m, acks);
  const reads = readsTolerance(n, m, unclean);
  const acknowledgedWrites = acknowledgedTolerance(n, m, acks, unclean);
  const w = writes.brokerFailures;
  const r = reads.brokerFailures;
  const a = acknowledgedWrites.brokerFailures;
  const summary =
    `RF ${n}, min ISR ${m}, ${acksText(acks)}, unclean ${unclean ? 'on' : 'off'}: ` +
    (w === 0 ? 'writes stop at the first broker failure, ' : `writes survive ${brokers(w)} down, `) +
    (r === 0 ? 'reads stop at the first, ' : `reads ${brokers(r)}, `) +
    (a === 0 ? 'and one failure can lose acknowledged writes.' : `and acknowledged writes survive ${brokers(a)} lost.`);
  return {
    replicationFactor: n,
    minInsyncReplicas: input.minInsyncReplicas,
    effectiveMinIsr: m,
    acks,
    uncleanLeaderElectionEnable: unclean,
    writes,
    reads,
    acknowledgedWrites,
    summary,
    warnings: warningsFor(n, input.minInsyncReplicas, m, acks, unclean),
    quorum: compareWithMajority(n, m, acks, unclean),
  };
}
