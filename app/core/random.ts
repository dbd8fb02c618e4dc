/**
 * Random is injected into the core so that placement, election jitter and fault schedules are
 * reproducible: the same seed gives the same history. The seeded implementation lives in
 * `app/service/seeded-random.ts` (pure-rand); the core only depends on this interface.
 */
export interface Random {
  /** A uniformly distributed integer in [0, bound). `bound` must be a positive integer. */
  nextInt(bound: number): number;
  /** A uniformly distributed float in [0, 1). */
  nextFloat(): number;
}
