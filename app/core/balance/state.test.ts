import { describe, expect, it } from 'vitest';
import { ClusterState } from './state.js';

const rack: Record<number, string> = { 1: 'a', 2: 'a', 3: 'b', 4: 'b', 5: 'c', 6: 'd' };
const model = { brokers: [1, 2, 3, 4, 5, 6].map((id) => ({ id, rack: rack[id]!, alive: true })), partitions: [] };

describe('rack excess', () => {
  const state = new ClusterState(model, new Set([6]));

  it('is 0 when no two replicas share a rack (RF ≤ racks)', () => {
    expect(state.rackExcess([1, 3, 5])).toBe(0);
    expect(state.rackExcess([2, 4])).toBe(0);
  });

  it('counts replicas beyond one per rack, and racks left short when RF = racks', () => {
    expect(state.rackExcess([1, 2])).toBe(1);
    // RF 3 on 3 racks: a holds one too many and c one too few.
    expect(state.rackExcess([1, 2, 3])).toBe(2);
  });

  it('asks for an even spread when RF > racks (rack-aware distribution)', () => {
    // Racks with candidates: a, b, c (d only holds excluded broker 6). RF 4 → 1 or 2 per rack.
    expect(state.rackExcess([1, 2, 3, 5])).toBe(0);
    expect(state.rackExcess([1, 2, 3, 4])).toBe(1); // c is short of its one replica
  });

  it('counts every replica on a rack with no candidate broker left', () => {
    expect(state.rackExcess([1, 3, 6])).toBe(2); // 6 is on rack d, and c is short
    expect(new ClusterState(model, new Set()).rackExcess([1, 3, 6])).toBe(0);
  });

  it('is 0 when no broker has a rack', () => {
    const plain = new ClusterState({ brokers: [1, 2].map((id) => ({ id, rack: null, alive: true })), partitions: [] }, new Set());
    expect(plain.racksConfigured).toBe(false);
    expect(plain.rackExcess([1, 2])).toBe(0);
  });
});
