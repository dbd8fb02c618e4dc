import { describe, expect, it } from 'vitest';
import type { PartitionView } from '../../../../app/api/contract.js';
import type { PartitionExplanation } from './partition-explainer.js';
import { partitionRows, sortRows, statusTag } from './partition-rows.js';

function partition(n: number, over: Partial<PartitionView> = {}): PartitionView {
  const replicas = over.replicas ?? [1, 2, 3];
  return {
    partition: n,
    leader: replicas[0]!,
    leaderEpoch: 0,
    partitionEpoch: 0,
    replicas,
    isr: [...replicas],
    addingReplicas: [],
    removingReplicas: [],
    leaderRecoveryState: 'RECOVERED',
    eligibleLeaderReplicas: [],
    lastKnownElr: [],
    highWatermark: 10,
    logStartOffset: 0,
    replicaStates: replicas.map((brokerId) => ({ brokerId, logEndOffset: 10, highWatermark: 10, logStartOffset: 0, flushedOffset: 10 })),
    sizeBytes: 1000,
    ...over,
  };
}
const explained = (status: PartitionExplanation['status']): PartitionExplanation => ({ status, flags: [status], severity: 'warning', headline: '', details: [] });

describe('the partition table’s rows', () => {
  it('holds the leader’s log end, whether the leader is the preferred one, and the size’s skew against the topic’s mean', () => {
    const rows = partitionRows(
      [partition(0, { sizeBytes: 3000 }), partition(1, { leader: 2, sizeBytes: 1000 }), partition(2, { sizeBytes: 2000, replicaStates: [{ brokerId: 1, logEndOffset: 42, highWatermark: 40, logStartOffset: 0, flushedOffset: 42 }] })],
      new Map(),
    );
    expect(rows.map((r) => r.skew)).toEqual([1.5, 0.5, 1]);
    expect(rows.map((r) => r.notPreferred)).toEqual([false, true, false]);
    expect(rows[2]!.leaderLogEnd).toBe(42);
  });

  it('keeps what the connection does not report as null, never 0 (an external cluster: no replica states, no size)', () => {
    const [row] = partitionRows([partition(0, { replicaStates: [], sizeBytes: undefined })], new Map());
    expect(row!.leaderLogEnd).toBeNull();
    expect(row!.sizeBytes).toBeNull();
    expect(row!.skew).toBeNull();
  });

  it('sorts by any column with ties by partition, the unreported last, and problems first by status', () => {
    const rows = partitionRows(
      [partition(0, { sizeBytes: 5 }), partition(1, { sizeBytes: 50, isr: [1] }), partition(2, { sizeBytes: undefined }), partition(3, { leader: -1, sizeBytes: 50 })],
      new Map([
        [1, explained('under-replicated')],
        [3, explained('offline')],
      ]),
    );
    expect(sortRows(rows, 'status', 'asc').map((r) => r.partition.partition)).toEqual([3, 1, 0, 2]);
    expect(sortRows(rows, 'size', 'desc').map((r) => r.partition.partition)).toEqual([1, 3, 0, 2]);
    expect(sortRows(rows, 'size', 'asc').map((r) => r.partition.partition)).toEqual([0, 1, 3, 2]);
    expect(sortRows(rows, 'replicas', 'desc')[0]!.partition.partition).toBe(1);
    expect(sortRows(rows, 'leader', 'asc').at(-1)!.partition.partition).toBe(3);
    expect(statusTag('leader-unreachable')).toEqual({ type: 'error', text: 'leader down, not yet fenced' });
  });

  it('keeps the row of a partition that reads the same again, and builds a new one for a partition that changed', () => {
    const first = partitionRows([partition(0), partition(1), partition(2)], new Map());
    const again = partitionRows([partition(0), partition(1, { highWatermark: 11 }), partition(2, { sizeBytes: 1000 })], new Map(), first);
    expect(again[0]).toBe(first[0]);
    expect(again[1]).not.toBe(first[1]);
    expect(again[1]!.partition.highWatermark).toBe(11);
    expect(again[2]).toBe(first[2]);
    // Another status, another replica log state or another size: a new row each, showing it.
    const later = partitionRows(
      [partition(0), partition(1, { highWatermark: 11, replicaStates: [{ brokerId: 1, logEndOffset: 12, highWatermark: 11, logStartOffset: 0, flushedOffset: 12 }] }), partition(2, { sizeBytes: 1000 })],
      new Map([[0, explained('lagging')]]),
      again,
    );
    expect(later[0]).not.toBe(again[0]);
    expect(later[0]!.status).toBe('lagging');
    expect(later[1]).not.toBe(again[1]);
    expect(later[1]!.leaderLogEnd).toBe(12);
    // Partition 2 reads the same, its size and the mean too: its row is kept.
    expect(later[2]).toBe(again[2]);
    const grown = partitionRows([partition(0), partition(1), partition(2, { sizeBytes: 4000 })], new Map(), later);
    expect(grown.map((r) => r.skew)).toEqual([0.5, 0.5, 2]);
    expect(grown[0]).not.toBe(later[0]);
  });
});
