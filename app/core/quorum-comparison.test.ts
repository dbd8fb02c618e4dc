import { describe, expect, it } from 'vitest';
import { compareWithMajority } from './quorum-comparison.js';

describe('ISR replication beside a majority quorum (Kafka design: f+1 against 2f+1)', () => {
  it('RF 3, min ISR 2, acks=all: the ISR survives 2 failures with 3 replicas, where a majority quorum needs 5 and waits for 3', () => {
    const c = compareWithMajority(3, 2, 'all', false);
    expect(c.failuresTolerated).toBe(2);
    expect(c.isr).toEqual({ replicas: 3, copiesPerRecord: { min: 2, max: 3 }, diskPerByte: 3, writeFailuresTolerated: 1 });
    expect(c.majority).toEqual({ replicas: 5, copiesPerRecord: { min: 3, max: 3 }, diskPerByte: 5, writeFailuresTolerated: 2 });
    expect(c.note).toContain('needs 3 replicas (f+1) where a majority quorum needs 5 (2f+1)');
    expect(c.note).toContain('writes stop after 1 failure (min ISR 2)');
  });

  it('RF 2, min ISR 1: one failure survived with 2 replicas, a quorum needs 3', () => {
    const c = compareWithMajority(2, 1, 'all', false);
    expect([c.failuresTolerated, c.isr.replicas, c.majority.replicas, c.majority.copiesPerRecord.min]).toEqual([1, 2, 3, 2]);
    expect(c.isr.writeFailuresTolerated).toBe(1);
    expect(c.note).not.toContain('writes stop');
  });

  it('unclean election on: only the min ISR copies count, m - 1 failures', () => {
    const c = compareWithMajority(5, 3, 'all', true);
    expect(c.failuresTolerated).toBe(2);
    expect(c.majority.replicas).toBe(5);
    expect(c.note).toBe('A majority quorum of 5 gives the same 2-failure guarantee as these 5 replicas.');
  });

  it('acks=1 and acks=0 guarantee nothing, by either scheme', () => {
    for (const acks of [1, 0] as const) {
      const c = compareWithMajority(3, 2, acks, false);
      expect(c.failuresTolerated).toBe(0);
      expect(c.majority.replicas).toBe(1);
      expect(c.note).toContain('use acks=all to compare');
    }
    expect(compareWithMajority(3, 2, 1, false).isr.copiesPerRecord).toEqual({ min: 1, max: 1 });
  });

  it('RF 1: nothing to tolerate', () => {
    const c = compareWithMajority(1, 1, 'all', false);
    expect([c.failuresTolerated, c.isr.replicas, c.majority.replicas]).toEqual([0, 1, 1]);
  });
});
