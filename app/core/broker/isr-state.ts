/**
 * How a replica holds its partition's ISR (Kafka keeps the same in a Partition's state: the
 * committed ISR, and an AlterPartition in flight with the maximal ISR the HW counts meanwhile,
 * its PendingExpandIsr and PendingShrinkIsr).
 *
 * Apart from the partition (partition.ts), which decides every change: these are the shapes it
 * keeps, which the controller channel and the explorer's fingerprints read as well.
 */
import type { PartitionState } from '../metadata/records.js';

/** An AlterPartition in flight: the ISR it proposes, and the maximal ISR (committed and proposed members). */
export interface PendingIsr {
  proposed: number[];
  maximal: number[];
}

/** The list of a committed (frozen) state is kept as it is; any other is copied. */
export function shared(state: PartitionState, list: readonly number[]): readonly number[] {
  return Object.isFrozen(state) ? list : [...list];
}
