/**
 * The data-loss check of the drills: which records the cluster acknowledged, which of them a
 * truncation removed from a replica, and which are gone from the partition for good.
 *
 * Invariants:
 * - A record counts as acknowledged only with acks 1 or all and errorCode NONE; it keeps the
 *   leader epoch its batch was written in and the leader's append time, both from the produce
 *   answer itself (never read afterwards, when a newer leader may already hold the partition).
 * - "Lost" is decided by reading the partition back from its leader and comparing values at
 *   each acknowledged offset, never inferred from events: an offset past the high watermark, or
 *   one that now holds another value, is lost.
 * Pure TypeScript over the contract: no Vue, no DOM, testable in Node.
 */
import type { MethodInput, MethodResult, ProduceResultView, Result } from '../../../../app/api/contract.js';
import { ClientError, type Call } from '../../api/client.js';

export type Acks = 0 | 1 | 'all';

/** One record the cluster acknowledged (acks 1 or all, errorCode NONE). */
export interface AcknowledgedRecord {
  topic: string;
  partition: number;
  offset: number;
  value: string | null;
  acks: Acks;
  /** Epoch of the leader that appended it (a replica truncated in a later epoch may have lost it). */
  leaderEpoch: number;
  /** Cluster time at which its leader appended it. */
  appendedAtMs: number;
}

/** The records of one produce answer the cluster acknowledged: those of each batch whose partition answered NONE. */
export function acknowledgedRecords(topic: string, acks: Acks, result: ProduceResultView, values: (string | null)[]): AcknowledgedRecord[] {
  if (acks === 0) return [];
  return result.batches.flatMap((b) => {
    if (b.errorCode !== 'NONE' || b.baseOffset < 0) return [];
    const { partition, baseOffset, leaderEpoch, appendedAtMs } = b;
    return b.records.map((index, k) => ({ topic, partition, offset: baseOffset + k, value: values[index] ?? null, acks, leaderEpoch, appendedAtMs }));
  });
}

/**
 * Acknowledged records a truncation removed from that replica: in [toOffset, fromOffset),
 * appended before it, and (for a divergence) written in an epoch before the one the replica
 * truncated to — the new leader's records at the same offsets were never removed.
 */
export function removedByTruncation(
  acknowledged: readonly AcknowledgedRecord[],
  t: { partition: number; fromOffset: number; toOffset: number; leaderEpoch: number; atMs: number; reason: string },
  topicName: string,
): AcknowledgedRecord[] {
  return acknowledged.filter(
    (a) =>
      a.topic === topicName &&
      a.partition === t.partition &&
      a.offset >= t.toOffset &&
      a.offset < t.fromOffset &&
      a.appendedAtMs <= t.atMs &&
      (t.reason === 'power-loss' || t.leaderEpoch < 0 || a.leaderEpoch < t.leaderEpoch),
  );
}

/** Offsets as ranges: [0,1,2,5] → "0–2, 5". */
export function offsetRanges(offsets: number[]): string {
  const sorted = [...new Set(offsets)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

export interface AcknowledgedCheck {
  highWatermark: number;
  logStartOffset: number;
  present: AcknowledgedRecord[];
  /** Acknowledged records whose offset is now past the HW or holds another record. */
  lost: AcknowledgedRecord[];
  /** Of `lost`: those whose offset now holds a different record (a later leader reused it). */
  replaced: AcknowledgedRecord[];
}

/** Lost records grouped the way the drills explain them: by the acks they were written with, and by what their offset holds now. */
export interface LossBreakdown {
  /** acks=1 first, then acks=all; only groups with a lost record. */
  byAcks: { acks: Acks; offsets: number[] }[];
  /** Lost offsets that now hold another record. */
  replaced: number[];
  /** Lost offsets with nothing there now (at or past the high watermark, or before the log start). */
  missing: number[];
}

export function lossBreakdown(check: AcknowledgedCheck): LossBreakdown {
  const replaced = new Set(check.replaced.map((r) => `${r.offset}|${r.value}`));
  const byAcks = ([1, 'all'] as const)
    .map((acks) => ({ acks, offsets: check.lost.filter((r) => r.acks === acks).map((r) => r.offset) }))
    .filter((g) => g.offsets.length > 0);
  return {
    byAcks,
    replaced: check.replaced.map((r) => r.offset),
    missing: check.lost.filter((r) => !replaced.has(`${r.offset}|${r.value}`)).map((r) => r.offset),
  };
}

/** Errors a read meets while a new leader is still loading the partition: retried for a moment. */
const TRANSIENT = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'NOT_LEADER_OR_FOLLOWER', 'LEADER_NOT_AVAILABLE', 'REPLICA_NOT_AVAILABLE', 'NETWORK_EXCEPTION']);

async function consumeRetrying(call: Call, input: MethodInput<'records.consume'>): Promise<Result<MethodResult<'records.consume'>>> {
  let r = await call('records.consume', input);
  for (let i = 0; i < 25 && !r.ok && TRANSIENT.has(r.error.code); i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    r = await call('records.consume', input);
  }
  return r;
}

/** Compare acknowledged records with what the leader serves now (reads at most 20 × 500 records); a failed read throws its ClientError. */
export async function checkAcknowledged(call: Call, topic: string, partition: number, acknowledged: readonly AcknowledgedRecord[]): Promise<AcknowledgedCheck> {
  const mine = acknowledged.filter((a) => a.topic === topic && a.partition === partition);
  const byOffset = new Map<number, string | null>();
  let hw = 0;
  let lso = 0;
  if (mine.length > 0) {
    const from = mine.reduce((m, a) => Math.min(m, a.offset), Infinity);
    const to = mine.reduce((m, a) => Math.max(m, a.offset), -Infinity);
    let offset = from;
    for (let i = 0; i < 20; i++) {
      const r = await consumeRetrying(call, { topic, partition, offset, maxRecords: 500 });
      if (!r.ok) {
        if (r.error.code === 'OFFSET_OUT_OF_RANGE') {
          const d = r.error.details as { highWatermark?: number; logStartOffset?: number } | undefined;
          hw = d?.highWatermark ?? hw;
          lso = d?.logStartOffset ?? lso;
          break;
        }
        throw new ClientError(r.error, 'records.consume');
      }
      hw = r.value.highWatermark;
      lso = r.value.logStartOffset;
      for (const rec of r.value.records) byOffset.set(rec.offset, rec.value);
      const last = r.value.records[r.value.records.length - 1];
      if (!last || last.offset >= to || last.offset + 1 >= hw) break;
      offset = last.offset + 1;
    }
  }
  const present: AcknowledgedRecord[] = [];
  const lost: AcknowledgedRecord[] = [];
  const replaced: AcknowledgedRecord[] = [];
  for (const a of mine) {
    if (byOffset.has(a.offset) && byOffset.get(a.offset) === a.value) present.push(a);
    else {
      lost.push(a);
      if (byOffset.has(a.offset)) replaced.push(a);
    }
  }
  return { highWatermark: hw, logStartOffset: lso, present, lost, replaced };
}
