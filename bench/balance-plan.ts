/**
 * `balance.plan` at scale: 50 brokers × 100,000 partitions (RF 3), every topic placed by the
 * controller's own placer (striped, as a new Kafka 4.x controller places them), planned in
 * process. Reports the wall time and how many moves such a cluster needs (a cluster the
 * controller placed needs few: its placement already spreads replicas and leaders evenly).
 */
import { performance } from 'node:perf_hooks';
import { planBalance } from '../app/core/balance/plan.js';
import type { BalanceModel, BalancePartition } from '../app/core/balance/types.js';
import { placeReplicas } from '../app/core/placement/index.js';
import { seededRandom } from '../app/core/random.js';

export const PLAN_BROKERS = 50;
export const PLAN_PARTITIONS = 100_000;
const PER_TOPIC = 1_000;

export interface BalancePlanResult {
  ms: number;
  moves: number;
  leaderChanges: number;
  balancednessBefore: number;
  balancednessAfter: number;
}

export function measureBalancePlan(brokers = PLAN_BROKERS, partitions = PLAN_PARTITIONS): BalancePlanResult {
  const placement = Array.from({ length: brokers }, (_, i) => ({ id: i + 1, rack: null, fenced: false, inControlledShutdown: false }));
  const random = seededRandom(17);
  const parts: BalancePartition[] = [];
  for (let t = 0; t < partitions / PER_TOPIC; t++) {
    const assignment = placeReplicas({ brokers: placement, numPartitions: PER_TOPIC, replicationFactor: 3, strategy: 'striped', random });
    assignment.forEach((replicas, p) => parts.push({ topic: `topic-${String(t).padStart(4, '0')}`, partition: p, replicas, leader: replicas[0]!, isr: [...replicas], bytes: 0 }));
  }
  const model: BalanceModel = { brokers: placement.map((b) => ({ id: b.id, rack: null, alive: true })), partitions: parts };
  const started = performance.now();
  const plan = planBalance(model, {});
  const ms = performance.now() - started;
  return { ms, moves: plan.partitions.length, leaderChanges: plan.leaderChanges.length, balancednessBefore: plan.balancedness.before, balancednessAfter: plan.balancedness.after };
}
