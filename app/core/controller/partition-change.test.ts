import { describe, expect, it } from 'vitest';
import type { PartitionState } from '../metadata/records.js';
import { buildPartitionChange } from './partition-change.js';

const state = (over: Partial<PartitionState> = {}): PartitionState => ({
  topicId: 't',
  partition: 0,
  replicas: [1, 2, 3],
  isr: [1, 2, 3],
  leader: 1,
  leaderEpoch: 4,
  partitionEpoch: 10,
  addingReplicas: [],
  removingReplicas: [],
  leaderRecoveryState: 'RECOVERED',
  ...over,
});
const ctx = (active: number[], uncleanAllowed = false) => ({ isAcceptable: (b: number) => active.includes(b), uncleanAllowed });

describe('buildPartitionChange', () => {
  it('keeps a valid leader: an ISR shrink changes only the partition epoch', () => {
    const r = buildPartitionChange(state(), { targetIsr: [1, 2] }, ctx([1, 2, 3]))!;
    expect(r.state).toMatchObject({ leader: 1, isr: [1, 2], leaderEpoch: 4, partitionEpoch: 11 });
    expect(r.leaderChanged).toBe(false);
  });

  it('elects the first valid replica in assignment order, not ISR order', () => {
    const r = buildPartitionChange(state({ isr: [3, 1, 2] }), { targetIsr: [3, 2] }, ctx([2, 3]))!;
    expect(r.state).toMatchObject({ leader: 2, leaderEpoch: 5 });
  });

  it('keeps the last ISR member and goes offline when nobody is valid and unclean is off', () => {
    const r = buildPartitionChange(state({ isr: [1] }), { targetIsr: [] }, ctx([2, 3]))!;
    expect(r.state).toMatchObject({ leader: -1, isr: [1], leaderEpoch: 5 });
  });

  it('an unclean election takes the first acceptable replica, ISR [it], RECOVERING', () => {
    const r = buildPartitionChange(state({ isr: [1] }), { targetIsr: [] }, ctx([2, 3], true))!;
    expect(r.state).toMatchObject({ leader: 2, isr: [2], leaderRecoveryState: 'RECOVERING' });
    expect(r.unclean).toBe(true);
  });

  it('a preferred election moves to replicas[0] only when it is valid', () => {
    expect(buildPartitionChange(state({ leader: 2 }), { election: 'preferred' }, ctx([1, 2, 3]))!.state.leader).toBe(1);
    expect(buildPartitionChange(state({ leader: 2, isr: [2, 3] }), { election: 'preferred' }, ctx([1, 2, 3]))).toBeNull();
  });

  it('completes a reassignment once every target replica is in the ISR, bumping the leader epoch', () => {
    const moving = state({ replicas: [4, 5, 6, 1, 2, 3], addingReplicas: [4, 5, 6], removingReplicas: [1, 2, 3] });
    expect(buildPartitionChange(moving, { targetIsr: [1, 2, 3, 4, 5] }, ctx([1, 2, 3, 4, 5, 6]))!.reassignmentCompleted).toBe(false);
    const done = buildPartitionChange(moving, { targetIsr: [1, 2, 3, 4, 5, 6] }, ctx([1, 2, 3, 4, 5, 6]))!;
    expect(done.reassignmentCompleted).toBe(true);
    expect(done.state).toMatchObject({ replicas: [4, 5, 6], isr: [4, 5, 6], leader: 4, leaderEpoch: 5, addingReplicas: [], removingReplicas: [] });
  });
});
