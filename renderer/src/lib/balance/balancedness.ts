/**
 * The balancedness score in words (Cruise Control's proposal balancedness, as balance.plan
 * computes it): 100 minus the weights of the goals not met. Each goal weighs 1.1× the goal after
 * it in priority order, a hard goal 1.5× more, the weights summing to 100. "Before" subtracts every
 * goal the plan had to work on (it moved something) or could not meet; "after" only those still
 * not met. Pure: no Vue.
 */
import type { BalancePlanView } from '../../../../app/api/contract.js';

const fmt = (n: number): string => (Math.round(n * 100) / 100).toFixed(2);

function terms(goals: BalancePlanView['goals'], counted: (g: BalancePlanView['goals'][number]) => boolean): string | null {
  const hit = goals.filter(counted);
  return hit.length === 0 ? null : `100 − ${hit.map((g) => `${g.name} ${fmt(g.weight)}`).join(' − ')}`;
}

/** "Before 85.62 = 100 − ReplicaDistributionGoal 14.38; after …", one sentence per side. */
export function explainBalancedness(plan: Pick<BalancePlanView, 'goals' | 'balancedness'>): { before: string; after: string; weights: string } {
  const before = terms(plan.goals, (g) => g.moves > 0 || g.status === 'violated');
  const after = terms(plan.goals, (g) => g.status === 'violated');
  return {
    before: before ? `Before ${fmt(plan.balancedness.before)} = ${before}: the goals the plan had to work on or cannot meet.` : `Before ${fmt(plan.balancedness.before)}: no goal needed any move.`,
    after: after ? `After ${fmt(plan.balancedness.after)} = ${after}: the goals still not met.` : `After ${fmt(plan.balancedness.after)}: every goal is met.`,
    weights: `Each goal weighs 1.1× the goal below it, a hard goal 1.5× more, summing to 100: ${plan.goals.map((g) => `${g.name} ${fmt(g.weight)}`).join(', ')}.`,
  };
}
