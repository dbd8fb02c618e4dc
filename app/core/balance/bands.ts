/**
 * Cruise Control's distribution bands and balancedness weights (docs/semantics.md#balancing;
 * cruise-control `analyzer/goals/*DistributionGoal.java`, `KafkaCruiseControlUtils.java`).
 *
 * Invariants:
 * - p = (threshold − 1) × 0.9, computed in IEEE doubles exactly as Cruise Control does, so
 *   threshold 1.10 gives p = 0.09000000000000008 and avg 100 the band [90, 110], not [91, 109].
 * - Count bands round outward: upper = ceil(avg·(1+p)), lower = floor(avg·max(0, 1−p)).
 *   Resource bands (bytes) do not round.
 * - The inner band (where a goal settles a broker it had to fix) always lies inside the outer
 *   band and always contains floor(avg) and ceil(avg), so it is reachable.
 * - Balancedness weights: goal i of n (0 = highest priority) weighs 1.1^(n−1−i), × 1.5 if hard,
 *   normalised so the weights sum to 100.
 */

/** Cruise Control's BALANCE_MARGIN: aim inside the threshold to avoid churn. */
export const BALANCE_MARGIN = 0.9;
export const PRIORITY_WEIGHT = 1.1;
export const STRICTNESS_WEIGHT = 1.5;

export interface Band {
  lower: number;
  upper: number;
}

export function balancePercentage(threshold: number): number {
  return (threshold - 1) * BALANCE_MARGIN;
}

/** Replica or leader count band for an average per broker. */
export function countBand(avg: number, threshold: number): Band {
  const p = balancePercentage(threshold);
  return { lower: Math.floor(avg * Math.max(0, 1 - p)), upper: Math.ceil(avg * (1 + p)) };
}

/** The count band rounded inward, widened to hold floor(avg)..ceil(avg), clipped to `outer`. */
export function innerCountBand(avg: number, threshold: number, outer: Band): Band {
  const p = balancePercentage(threshold);
  const lower = Math.min(Math.floor(avg), Math.ceil(avg * Math.max(0, 1 - p)));
  const upper = Math.max(Math.ceil(avg), Math.floor(avg * (1 + p)));
  return { lower: Math.max(outer.lower, lower), upper: Math.min(outer.upper, upper) };
}

/** Resource band (bytes): the same shape without rounding. */
export function resourceBand(avg: number, threshold: number): Band {
  const p = balancePercentage(threshold);
  return { lower: avg * Math.max(0, 1 - p), upper: avg * (1 + p) };
}

/**
 * TopicReplicaDistributionGoal's band: the count band, then upper clamped to
 * [ceil(avg)+minGap, ceil(avg)+maxGap] and lower to [max(0, floor(avg)−maxGap), max(0, floor(avg)−minGap)].
 */
export function topicReplicaBand(avg: number, threshold: number, minGap: number, maxGap: number): Band {
  const raw = countBand(avg, threshold);
  const hi = Math.ceil(avg);
  const lo = Math.floor(avg);
  const upper = Math.max(hi + minGap, Math.min(hi + maxGap, raw.upper));
  const lower = Math.min(Math.max(0, lo - minGap), Math.max(Math.max(0, lo - maxGap), raw.lower));
  return { lower, upper };
}

/** Per-goal weights in priority order, summing to 100. */
export function balancednessWeights(goals: readonly { hard: boolean }[]): number[] {
  const n = goals.length;
  const raw = goals.map((g, i) => PRIORITY_WEIGHT ** (n - 1 - i) * (g.hard ? STRICTNESS_WEIGHT : 1));
  const total = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => (total === 0 ? 0 : (w / total) * 100));
}

/** 100 − Σ weights of the violated goals, rounded to two decimals (never below 0). */
export function balancednessScore(weights: readonly number[], violated: readonly boolean[]): number {
  let score = 100;
  weights.forEach((w, i) => {
    if (violated[i]) score -= w;
  });
  return Math.max(0, Math.round(score * 100) / 100);
}

/** Population variance (the comparator's stdev squared: same order, no sqrt noise). */
export function variance(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length;
}

/** Whether `value` lies in the band (a tiny relative slack absorbs float noise on byte sums). */
export function inBand(value: number, band: Band): boolean {
  const eps = 1e-9 * Math.max(1, Math.abs(band.upper));
  return value >= band.lower - eps && value <= band.upper + eps;
}
