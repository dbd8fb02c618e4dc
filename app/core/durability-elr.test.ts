import { describe, expect, it } from 'vitest';
import { explainEligibleLeaders } from './durability-elr.js';

describe('explainEligibleLeaders', () => {
  it('off: says the last in-sync replica is waited for, and how Kafka 4.x turns the feature on', () => {
    const off = explainEligibleLeaders(0, 3, 2, false);
    expect(off.featureLevel).toBe(0);
    expect(off.explanation).toContain('below min ISR 2 is forgotten');
    expect(off.explanation).toContain('kafka-features.sh upgrade --feature eligible.leader.replicas.version=1');
    expect(off.explanation).not.toContain('uncleanly');
    expect(explainEligibleLeaders(0, 3, 2, true).explanation).toContain('elects an out-of-sync replica uncleanly');
  });

  it('on: an eligible replica is elected cleanly, and an unclean shutdown leaves the ELR', () => {
    const on = explainEligibleLeaders(1, 5, 3, false);
    expect(on.explanation).toContain('below min ISR 3 stays eligible');
    expect(on.explanation).toContain('elects an eligible one cleanly');
    expect(on.explanation).toContain('unclean shutdown');
  });

  it('a single replica: nothing to keep eligible', () => {
    expect(explainEligibleLeaders(1, 1, 1, false).explanation).toMatch(/change nothing/);
  });
});
