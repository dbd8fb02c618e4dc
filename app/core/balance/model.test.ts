import { describe, expect, it } from 'vitest';
import { MetadataImage } from '../metadata/image.js';
import type { MetadataRecord, PartitionState } from '../metadata/records.js';
import { balancePartitionKey, buildBalanceModel } from './model.js';

function imageOf(records: MetadataRecord[]): MetadataImage {
  const image = new MetadataImage();
  records.forEach((record, offset) => image.apply({ offset, timestampMs: 0, record }));
  return image;
}

const partition = (topicId: string, p: number, replicas: number[], extra: Partial<PartitionState> = {}): MetadataRecord => ({
  type: 'Partition',
  state: { topicId, partition: p, replicas, isr: [...replicas], leader: replicas[0]!, leaderEpoch: 0, partitionEpoch: 0, addingReplicas: [], removingReplicas: [], leaderRecoveryState: 'RECOVERED', ...extra },
});

const register = (brokerId: number, rack: string | null, fenced = false): MetadataRecord => ({ type: 'RegisterBroker', brokerId, brokerEpoch: brokerId, incarnationId: `i${brokerId}`, rack, fenced });

describe('buildBalanceModel', () => {
  const image = imageOf([
    register(3, 'b'),
    register(1, 'a'),
    register(2, 'a', true),
    register(4, 'b'),
    { type: 'BrokerRegistrationChange', brokerId: 4, brokerEpoch: 4, inControlledShutdown: true },
    { type: 'Topic', name: 'zeta', topicId: 'Z' },
    { type: 'Topic', name: 'alpha', topicId: 'A' },
    partition('Z', 0, [3, 1]),
    partition('A', 1, [1, 3]),
    partition('A', 0, [4, 1, 3, 2], { addingReplicas: [4], removingReplicas: [2], leader: 1, isr: [1, 3, 2] }),
  ]);

  it('lists brokers by id, alive only when registered, unfenced and not shutting down', () => {
    expect(buildBalanceModel(image).brokers).toEqual([
      { id: 1, rack: 'a', alive: true },
      { id: 2, rack: 'a', alive: false },
      { id: 3, rack: 'b', alive: true },
      { id: 4, rack: 'b', alive: false },
    ]);
  });

  it('lists partitions by topic then partition, a reassignment at its target', () => {
    const sizes = new Map([
      [balancePartitionKey('alpha', 0), 100],
      [balancePartitionKey('zeta', 0), 7],
    ]);
    expect(buildBalanceModel(image, sizes).partitions).toEqual([
      { topic: 'alpha', partition: 0, replicas: [4, 1, 3], leader: 1, isr: [1, 3, 2], bytes: 100, reassigning: true },
      { topic: 'alpha', partition: 1, replicas: [1, 3], leader: 1, isr: [1, 3], bytes: 0 },
      { topic: 'zeta', partition: 0, replicas: [3, 1], leader: 3, isr: [3, 1], bytes: 7 },
    ]);
  });

  it('takes sizes from a function too, ignoring what is not a size', () => {
    const bytes = buildBalanceModel(image, (topic, p) => (topic === 'alpha' ? p * 10 - 5 : Number.NaN)).partitions.map((p) => p.bytes);
    expect(bytes).toEqual([0, 5, 0]);
  });
});
