/**
 * The topic page's partition table, one compact row per partition: status, leader (and whether it
 * is the preferred one), replicas, ISR, ELR, the leader's log end and high watermark, size and its
 * skew against the topic's mean, and how rows sort. Built from what topics.describe reports and the
 * explainer's status; where the connection does not report something (an external cluster's log
 * end offsets) the row holds null, never a made-up 0. Pure: no Vue, no DOM.
 */
import type { PartitionView } from '../../../../app/api/contract.js';
import { partitionSignature, type PartitionExplanation, type PartitionStatus } from './partition-explainer.js';

/** The status tag: its words and colour. */
export interface StatusTag {
  type: 'success' | 'info' | 'warning' | 'error';
  text: string;
}

const STATUS_TAG: Record<PartitionStatus, StatusTag> = {
  offline: { type: 'error', text: 'offline' },
  'leader-unreachable': { type: 'error', text: 'leader down, not yet fenced' },
  'under-min-isr': { type: 'error', text: 'under min ISR' },
  recovering: { type: 'warning', text: 'recovering' },
  'under-replicated': { type: 'warning', text: 'under-replicated' },
  'follower-unreachable': { type: 'warning', text: 'follower down, not yet fenced' },
  lagging: { type: 'warning', text: 'follower lagging' },
  reassigning: { type: 'info', text: 'reassigning' },
  healthy: { type: 'success', text: 'in sync' },
};

export function statusTag(status: PartitionStatus | undefined): StatusTag {
  return STATUS_TAG[status ?? 'healthy'];
}

/** Worst first, as the explainer orders them: the order a status sort uses. */
const SEVERITY: PartitionStatus[] = ['offline', 'leader-unreachable', 'under-min-isr', 'recovering', 'under-replicated', 'follower-unreachable', 'lagging', 'reassigning', 'healthy'];

export interface PartitionRow {
  partition: PartitionView;
  status: PartitionStatus;
  /** The leader is not replicas[0] (the preferred leader). */
  notPreferred: boolean;
  /** The leader's log end offset; null when the connection does not report it or there is no leader. */
  leaderLogEnd: number | null;
  /** Bytes of the leader's log; null when not reported. */
  sizeBytes: number | null;
  /** Size over the topic's mean partition size (1 = average); null without sizes or when every partition is empty. */
  skew: number | null;
  /** Replicas outside the ISR (not counting replicas a reassignment is adding). */
  outOfSync: number;
}

export type PartitionSortKey = 'partition' | 'status' | 'leader' | 'replicas' | 'isr' | 'leo' | 'hw' | 'size' | 'skew';
export type SortOrder = 'asc' | 'desc';

/**
 * One row per partition, in partition order. `previous` (the rows of the last read) lends its row
 * of a partition whose view, status and skew are what they were: a topic re-read every second keeps
 * the same row objects for the partitions that did not change, so the table renders none of them
 * again.
 */
export function partitionRows(partitions: readonly PartitionView[], explanations: ReadonlyMap<number, PartitionExplanation>, previous: readonly PartitionRow[] = []): PartitionRow[] {
  const sizes = partitions.map((p) => p.sizeBytes ?? null);
  const known = sizes.filter((s): s is number => s !== null);
  const mean = known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : 0;
  const before = new Map<number, PartitionRow>();
  for (const r of previous) before.set(r.partition.partition, r);
  return partitions.map((p, i) => {
    const size = sizes[i]!;
    const status = explanations.get(p.partition)?.status ?? 'healthy';
    const skew = size !== null && mean > 0 ? size / mean : null;
    const old = before.get(p.partition);
    if (old && old.status === status && old.skew === skew && samePartition(old.partition, p)) return old;
    const leaderState = p.leader >= 0 ? p.replicaStates.find((r) => r.brokerId === p.leader) : undefined;
    return {
      partition: p,
      status,
      notPreferred: p.leader >= 0 && p.leader !== p.replicas[0],
      leaderLogEnd: leaderState ? leaderState.logEndOffset : null,
      sizeBytes: size,
      skew,
      outOfSync: p.replicas.filter((r) => !p.isr.includes(r) && !p.addingReplicas.includes(r)).length,
    };
  });
}

/** Whether two reads of a partition say the same: everything its row and its card show. */
function samePartition(a: PartitionView, b: PartitionView): boolean {
  return a === b || (a.sizeBytes === b.sizeBytes && partitionSignature(a) === partitionSignature(b));
}

/** Nulls (not reported) sort last in either order; ties fall back to the partition number. */
function compare(a: number | null, b: number | null, order: SortOrder): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return order === 'asc' ? a - b : b - a;
}

const VALUE: Record<PartitionSortKey, (r: PartitionRow) => number | null> = {
  partition: (r) => r.partition.partition,
  // Worst first when ascending: a status sort brings the problems to the top.
  status: (r) => SEVERITY.indexOf(r.status),
  leader: (r) => (r.partition.leader < 0 ? null : r.partition.leader),
  replicas: (r) => r.outOfSync,
  isr: (r) => r.partition.isr.length,
  leo: (r) => r.leaderLogEnd,
  hw: (r) => r.partition.highWatermark,
  size: (r) => r.sizeBytes,
  skew: (r) => r.skew,
};

/** `rows` sorted by `key` (a new array; the partition number breaks ties, ascending). */
export function sortRows(rows: readonly PartitionRow[], key: PartitionSortKey, order: SortOrder): PartitionRow[] {
  const value = VALUE[key];
  return [...rows].sort((a, b) => compare(value(a), value(b), order) || a.partition.partition - b.partition.partition);
}
