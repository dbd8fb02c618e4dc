/** `balance.plan`'s algorithm: build a model from the metadata image, then plan. */
export { buildBalanceModel, balancePartitionKey, type BalanceSizes } from './model.js';
export { planBalance, planBalanceSteps, resolveThresholds, type BalancePlanStep } from './plan.js';
export { countBand, resourceBand, topicReplicaBand, balancednessWeights, balancednessScore } from './bands.js';
export * from './types.js';
