/**
 * Whether a broker's leader count after an election is better or worse: closer to or further
 * from an even share of the leaders (the total over the brokers shown), which is what leader
 * balance means. A broker that loses leaders towards its share is better off, not worse: colour
 * says better or worse, never merely up or down. Pure: no Vue.
 */

export type Tone = 'better' | 'worse' | 'same';

/** The even share of `counts`' total over its brokers (0 for none). */
export function evenShare(counts: readonly number[]): number {
  return counts.length === 0 ? 0 : counts.reduce((a, b) => a + b, 0) / counts.length;
}

/** Better when the count moves towards `share`, worse when away from it. */
export function leaderTone(before: number, after: number, share: number): Tone {
  const d = Math.abs(after - share) - Math.abs(before - share);
  if (Math.abs(d) < 1e-9) return 'same';
  return d < 0 ? 'better' : 'worse';
}
