import { describe, expect, it } from 'vitest';
import type { BrokerView, PartitionView } from '../../../../app/api/contract.js';
import { explainPartition } from './partition-explainer.js';

const broker = (id: number, state: BrokerView['state'] = 'running'): BrokerView => ({
  id,
  state,
  rack: null,
  partitionCount: 1,
  leaderCount: 0,
  isolated: false,
  fetcherStalled: false,
  isController: false,
  brokerEpoch: 1,
  logBytes: 0,
  listener: null,
});

function partition(patch: Partial<PartitionView>): PartitionView {
  return {
    partition: 0,
    leader: 1,
    leaderEpoch: 3,
    partitionEpoch: 5,
    replicas: [1, 2, 3],
    isr: [1],
    addingReplicas: [],
    removingReplicas: [],
    leaderRecoveryState: 'RECOVERED',
    eligibleLeaderReplicas: [],
    lastKnownElr: [],
    highWatermark: 10,
    logStartOffset: 0,
    replicaStates: [1, 2, 3].map((brokerId) => ({ brokerId, logEndOffset: 10 })),
    ...patch,
  } as PartitionView;
}

const ctx = (down: number[] = []) => ({
  brokers: new Map([1, 2, 3].map((id) => [id, broker(id, down.includes(id) ? 'stopped' : 'running')] as const)),
  minInsyncReplicas: 2,
  uncleanLeaderElectionEnable: false,
  replicaLagTimeMaxMs: 30_000,
  brokerSessionTimeoutMs: 9_000,
  events: [],
});

describe('the partition explainer and eligible leader replicas (KIP-966)', () => {
  it('names the eligible replica and says it would be elected cleanly if the ISR empties', () => {
    const e = explainPartition(partition({ isr: [1], eligibleLeaderReplicas: [2] }), ctx());
    expect(e.details).toContainEqual(expect.stringContaining('Broker 2 is an eligible leader replica (KIP-966): it left the ISR while it was below min ISR 2'));
    expect(e.details.join(' ')).toContain('if the ISR empties, the controller elects one of them cleanly');
  });

  it('offline with an empty ISR: the running eligible replica is elected, and the last known leader is named', () => {
    const e = explainPartition(partition({ leader: -1, isr: [], eligibleLeaderReplicas: [2], lastKnownElr: [1] }), ctx([1, 3]));
    expect(e.status).toBe('offline');
    expect(e.details[0]).toMatch(/^The ISR is empty/);
    expect(e.details.join(' ')).toContain('the controller elects broker 2 cleanly');
    expect(e.details.join(' ')).toContain('Broker 1 was the last leader (its last known ELR)');
  });

  it('says nothing about ELR for a partition without eligible replicas', () => {
    const e = explainPartition(partition({ isr: [1, 2, 3] }), ctx());
    expect(e.details.join(' ')).not.toContain('eligible');
  });
});
