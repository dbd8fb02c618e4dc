import { describe, expect, it } from 'vitest';
import { runFaultSeed } from './run.js';

const SEEDS = 30;

describe('the fault run with a compacted topic', () => {
  it(`after healing, every replica holds each key's last acknowledged write at its offset and the replicas agree (${SEEDS} seeds)`, () => {
    const failures: string[] = [];
    let acked = 0;
    let cleanings = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const r = runFaultSeed(seed, {
        compacted: true,
        inspect: (sim) =>
          sim.engine.subscribe((e) => {
            if (e.type === 'log.cleaned' && e.topic === 'ct') cleanings++;
          }),
      });
      acked += r.stats.ackedRecords;
      if (!r.ok) failures.push([`seed ${seed} failed`, ...r.violations, 'schedule:', ...r.schedule].join('\n  '));
    }
    expect(failures).toEqual([]);
    expect(acked).toBeGreaterThan(SEEDS * 200);
    // The cleaners ran through the faults: many cleanings per seed.
    expect(cleanings).toBeGreaterThan(SEEDS * 10);
  }, 600_000);
});
