import { describe, expect, it } from 'vitest';
import { offsetScaleFor, scaledOffsets, topologyDrift, type TwinTopology } from './twin-topology.js';

function topology(over: Partial<TwinTopology> = {}): TwinTopology {
  return {
    clusterId: 'c',
    brokers: new Map([
      [1, { rack: 'a', up: true }],
      [5, { rack: 'b', up: true }],
    ]),
    staticConfigs: { 'default.replication.factor': '2' },
    clusterConfigs: { 'log.retention.ms': '1000' },
    features: new Map([['eligible.leader.replicas.version', 1]]),
    topics: new Map([['t', { configs: { 'min.insync.replicas': '2' }, partitions: [{ replicas: [1, 5], leader: 5, logStartOffset: 3, highWatermark: 10, sizeBytes: 700 }] }]]),
    acls: [],
    quotas: [],
    notes: [],
    ...over,
  };
}

const empty = (): TwinTopology => topology({ brokers: new Map(), staticConfigs: {}, clusterConfigs: {}, features: new Map(), topics: new Map(), acls: null });

describe('a twin\'s drift from its source', () => {
  it('is nothing between equal topologies', () => {
    expect(topologyDrift(topology(), topology())).toEqual([]);
  });

  it('is everything for an empty twin, in the order a refresh applies it', () => {
    const kinds = topologyDrift(empty(), topology()).map((c) => `${c.kind} ${c.subject}`);
    expect(kinds).toEqual([
      'broker-added broker 1',
      'broker-added broker 5',
      'static-configs server.properties',
      'cluster-config log.retention.ms',
      'feature eligible.leader.replicas.version',
      'topic-added topic t',
      'leader t-0',
      'offsets t-0',
    ]);
  });

  it('says what a refresh cannot change: a rack, the static configs, offsets that went back', () => {
    const twin = topology({ brokers: new Map([[1, { rack: 'z', up: true }], [5, { rack: 'b', up: true }]]), staticConfigs: { 'default.replication.factor': '3' } });
    twin.topics.get('t')!.partitions[0]!.highWatermark = 20;
    const notApplied = topologyDrift(twin, topology()).filter((c) => c.notApplied !== undefined).map((c) => c.kind);
    expect(notApplied).toEqual(['broker-rack', 'static-configs', 'offsets']);
  });

  it('reports assignments, leaders, configs removed and brokers that are down or gone', () => {
    const source = topology({ brokers: new Map([[1, { rack: 'a', up: true }], [5, { rack: 'b', up: false }]]), clusterConfigs: {} });
    source.topics.get('t')!.partitions[0] = { replicas: [5, 1], leader: 1, logStartOffset: 3, highWatermark: 10, sizeBytes: 700 };
    const twin = topology({ brokers: new Map([[1, { rack: 'a', up: true }], [5, { rack: 'b', up: true }], [9, { rack: null, up: true }]]) });
    expect(topologyDrift(twin, source).map((c) => `${c.kind} ${c.subject}: ${c.twin} -> ${c.source}`)).toEqual([
      'cluster-config log.retention.ms: 1000 -> ',
      'assignment t-0: [1,5] -> [5,1]',
      'leader t-0: 5 -> 1',
      'broker-down broker 5: running -> down',
      'broker-removed broker 9: rack none -> ',
    ]);
  });

  it('scales every offset down when the record budget is below the source\'s records', () => {
    const source = topology();
    expect(offsetScaleFor(source, 10)).toBe(1);
    expect(offsetScaleFor(source, 5)).toBe(0.5);
    expect(scaledOffsets({ logStartOffset: 3, highWatermark: 10 }, 0.5)).toEqual({ logStartOffset: 1, highWatermark: 5 });
    const offsets = topologyDrift(empty(), source, 0.5).find((c) => c.kind === 'offsets')!;
    expect(offsets.source).toBe('3..10 (scaled to 1..5)');
  });
});
