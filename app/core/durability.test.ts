import { describe, expect, it } from 'vitest';
import { KafkaError } from '../api/errors.js';
import { explainDurability, normalizeAcks } from './durability.js';
import type { DurabilityInput } from './durability.js';

const setup = (replicationFactor: number, minInsyncReplicas: number, acks: DurabilityInput['acks'], unclean = false) =>
  explainDurability({ replicationFactor, minInsyncReplicas, acks, uncleanLeaderElectionEnable: unclean });

const codes = (e: ReturnType<typeof explainDurability>) => e.warnings.map((w) => w.code);

describe('explainDurability', () => {
  it('RF 3, min ISR 2, acks=all (the standard durable setup) survives one failure for writes and loses nothing acknowledged', () => {
    const e = setup(3, 2, 'all');
    expect(e.effectiveMinIsr).toBe(2);
    expect(e.writes.brokerFailures).toBe(1);
    expect(e.reads.brokerFailures).toBe(2);
    expect(e.acknowledgedWrites.brokerFailures).toBe(1);
    expect(e.writes.explanation).toContain('With RF 3 and min ISR 2, 1 broker may fail without blocking acks=all writes');
    expect(e.writes.explanation).toContain('NOT_ENOUGH_REPLICAS');
    expect(e.warnings).toEqual([]);
  });

  it('RF 3, min ISR 1, acks=all keeps writing with two brokers down but is the Jepsen setup', () => {
    const e = setup(3, 1, 'all');
    expect(e.writes.brokerFailures).toBe(2);
    expect(e.reads.brokerFailures).toBe(2);
    expect(e.acknowledgedWrites.brokerFailures).toBe(0);
    expect(e.acknowledgedWrites.explanation).toContain('Jepsen');
    expect(e.writes.explanation).toBe(
      'With RF 3 and min ISR 1, 2 brokers may fail without blocking acks=all writes; with all 3 down the partition has no leader.',
    );
    expect(codes(e)).toEqual(['JEPSEN_MIN_ISR_ONE']);
  });

  it('RF 1 tolerates nothing and says so', () => {
    const e = setup(1, 1, 'all');
    expect([e.writes.brokerFailures, e.reads.brokerFailures, e.acknowledgedWrites.brokerFailures]).toEqual([0, 0, 0]);
    expect(e.reads.explanation).toContain('offline');
    expect(codes(e)).toEqual(['SINGLE_REPLICA']);
  });

  it('RF 2, min ISR 2: any single failure blocks acks=all writes, yet acknowledged writes survive one lost broker', () => {
    const e = setup(2, 2, 'all');
    expect(e.writes.brokerFailures).toBe(0);
    expect(e.reads.brokerFailures).toBe(1);
    expect(e.acknowledgedWrites.brokerFailures).toBe(1);
    expect(e.writes.explanation).toContain('no broker may fail');
    expect(codes(e)).toEqual(['MIN_ISR_AT_LEAST_RF']);
  });

  it('caps min ISR at the replication factor, as Kafka 3.7+ does, and warns about older brokers', () => {
    const e = setup(3, 5, 'all');
    expect(e.effectiveMinIsr).toBe(3);
    expect(e.minInsyncReplicas).toBe(5);
    expect(e.writes.brokerFailures).toBe(0);
    expect(e.acknowledgedWrites.brokerFailures).toBe(2);
    expect(codes(e)).toEqual(['MIN_ISR_AT_LEAST_RF', 'MIN_ISR_ABOVE_RF']);
  });

  it('acks=1 writes need only a leader but an acknowledged write may exist on the leader alone', () => {
    const e = setup(3, 2, 1);
    expect(e.acks).toBe(1);
    expect(e.writes.brokerFailures).toBe(2);
    expect(e.writes.explanation).toContain('invisible to consumers');
    expect(e.acknowledgedWrites.brokerFailures).toBe(0);
    expect(codes(e)).toEqual(['ACKS_NOT_ALL']);
    expect(e.summary).toBe(
      'RF 3, min ISR 2, acks=1, unclean off: writes survive 2 brokers down, reads 2 brokers, and one failure can lose acknowledged writes.',
    );
  });

  it('acks=0 is never acknowledged, so nothing is safe', () => {
    const e = setup(3, 2, '0');
    expect(e.acknowledgedWrites.brokerFailures).toBe(0);
    expect(e.acknowledgedWrites.explanation).toContain('no acknowledgement');
  });

  it('unclean election keeps the counts but names the risk', () => {
    const e = setup(3, 2, 'all', true);
    expect(e.acknowledgedWrites.brokerFailures).toBe(1);
    expect(e.acknowledgedWrites.explanation).toContain('unclean election on');
    expect(e.reads.explanation).toContain('unclean election still gives the partition a leader');
    expect(codes(e)).toEqual(['UNCLEAN_ELECTION_ENABLED']);
  });

  it('RF 5, min ISR 3 survives two failures both ways', () => {
    const e = setup(5, 3, -1);
    expect(e.acks).toBe('all');
    expect(e.writes.brokerFailures).toBe(2);
    expect(e.acknowledgedWrites.brokerFailures).toBe(2);
    expect(e.summary).toBe(
      'RF 5, min ISR 3, acks=all, unclean off: writes survive 2 brokers down, reads 4 brokers, and acknowledged writes survive 2 brokers lost.',
    );
  });

  it('refuses impossible inputs with Kafka error names', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e instanceof KafkaError ? e.code : 'other';
      }
      return 'none';
    };
    expect(code(() => setup(0, 1, 'all'))).toBe('INVALID_REPLICATION_FACTOR');
    expect(code(() => setup(3, 0, 'all'))).toBe('INVALID_CONFIG');
    expect(code(() => normalizeAcks('2'))).toBe('INVALID_REQUIRED_ACKS');
    expect(normalizeAcks(' ALL ')).toBe('all');
  });
});
