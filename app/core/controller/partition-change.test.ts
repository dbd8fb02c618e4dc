import { describe, expect, it } from 'vitest';
import type { PartitionState } from '../metadata/records.js';
import { buildPartitionChange, changeReason } from './partition-change.js';

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

  describe('with eligible leader replicas (KIP-966)', () => {
    const elrCtx = (active: number[], minIsr = 2, uncleanShutdown?: number) => ({
      isAcceptable: (b: number) => active.includes(b),
      uncleanAllowed: false,
      elr: { minIsr, ...(uncleanShutdown !== undefined ? { uncleanShutdown } : {}) },
    });

    it('a member leaving an ISR that falls below min ISR becomes eligible; at min ISR nobody is', () => {
      const atMin = buildPartitionChange(state(), { targetIsr: [1, 2] }, elrCtx([1, 2, 3]))!;
      expect(atMin.state.elr ?? []).toEqual([]);
      const below = buildPartitionChange(state({ isr: [1, 2] }), { targetIsr: [1] }, elrCtx([1, 2, 3]))!;
      expect(below.state).toMatchObject({ isr: [1], elr: [2], leader: 1, leaderEpoch: 4 });
      const back = buildPartitionChange(below.state, { targetIsr: [1, 3] }, elrCtx([1, 2, 3]))!;
      expect(back.state.elr).toEqual([]);
    });

    it('fencing the last ISR member empties the ISR and elects an unfenced ELR member cleanly', () => {
      const r = buildPartitionChange(state({ isr: [1], elr: [2] }), { targetIsr: [] }, elrCtx([2, 3]))!;
      expect(r.state).toMatchObject({ leader: 2, isr: [2], elr: [1], leaderRecoveryState: 'RECOVERED', leaderEpoch: 5 });
      expect(r.state.lastKnownElr ?? []).toEqual([]);
      expect([r.unclean, r.fromElr]).toEqual([false, true]);
    });

    it('with no eligible replica alive the ISR stays empty, and the last leader is remembered', () => {
      const r = buildPartitionChange(state({ isr: [1], elr: [2] }), { targetIsr: [] }, elrCtx([3]))!;
      expect(r.state).toMatchObject({ leader: -1, isr: [], elr: [1, 2], lastKnownElr: [1] });
    });

    it('a broker back from an unclean shutdown leaves the ISR and the ELR and may not lead', () => {
      const r = buildPartitionChange(state({ leader: 2, isr: [2], elr: [1] }), { targetIsr: [2] }, elrCtx([1, 2, 3], 2, 1))!;
      expect(r.state).toMatchObject({ leader: 2, isr: [2], elr: [] });
    });

    it('"balanced" recovery: with ISR and ELR empty the last known leader returns, as an unclean election', () => {
      const r = buildPartitionChange(state({ leader: -1, isr: [], elr: [], lastKnownElr: [1] }), { election: 'online' }, elrCtx([1, 2]))!;
      expect(r.state).toMatchObject({ leader: 1, isr: [1], leaderRecoveryState: 'RECOVERING', lastKnownElr: [] });
      expect(r.state.elr ?? []).toEqual([]);
      expect(r.unclean).toBe(true);
      // Recorded as its own kind of unclean election, so the console can say why it happened.
      expect(r.fromLastKnownLeader).toBe(true);
      expect(changeReason(r, 'broker-unfenced')).toBe('last-known-leader');
      const ordinary = buildPartitionChange(state({ leader: -1, isr: [1], replicas: [1, 2, 3] }), { election: 'unclean' }, { isAcceptable: (b) => b === 2, uncleanAllowed: false })!;
      expect([ordinary.unclean, ordinary.fromLastKnownLeader, changeReason(ordinary, 'broker-unfenced')]).toEqual([true, false, 'unclean-election']);
    });

    it('clearing the ELR (min.insync.replicas changed) keeps the ISR and the leader', () => {
      const r = buildPartitionChange(state({ isr: [1], elr: [2, 3] }), { clearElr: true }, elrCtx([1, 2, 3]))!;
      expect(r.state).toMatchObject({ leader: 1, isr: [1], elr: [], leaderEpoch: 4, partitionEpoch: 11 });
    });
  });
});
