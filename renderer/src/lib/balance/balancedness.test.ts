import { describe, expect, it } from 'vitest';
import type { BalanceGoalView } from '../../../../app/api/contract.js';
import { explainBalancedness } from './balancedness.js';

const goal = (name: BalanceGoalView['name'], weight: number, status: BalanceGoalView['status'], moves = 0): BalanceGoalView => ({
  name,
  weight,
  status,
  moves,
  hard: false,
  replicaMoves: moves,
  leadershipMoves: 0,
  planReplicaMoves: 0,
  planLeaderChanges: 0,
  reason: null,
  band: null,
});

describe('the balancedness score in words', () => {
  it('subtracts the weights of the goals not met (after) and of those worked on too (before)', () => {
    const goals = [goal('RackAwareGoal', 60, 'satisfied'), goal('ReplicaDistributionGoal', 25, 'violated', 3), goal('LeaderReplicaDistributionGoal', 15, 'optimized', 2)];
    const text = explainBalancedness({ goals, balancedness: { before: 60, after: 75 } });
    expect(text.after).toBe('After 75.00 = 100 − ReplicaDistributionGoal 25.00: the goals still not met.');
    expect(text.before).toBe('Before 60.00 = 100 − ReplicaDistributionGoal 25.00 − LeaderReplicaDistributionGoal 15.00: the goals the plan had to work on or cannot meet.');
    expect(text.weights).toContain('RackAwareGoal 60.00');
  });

  it('says 100 when nothing is subtracted', () => {
    const text = explainBalancedness({ goals: [goal('RackAwareGoal', 100, 'satisfied')], balancedness: { before: 100, after: 100 } });
    expect(text.after).toBe('After 100.00: every goal is met.');
    expect(text.before).toBe('Before 100.00: no goal needed any move.');
  });
});
