/**
 * Metadata in Kafka's bytes against a simulated cluster: the brokers with their listeners, the
 * controller, and per partition what `topics.describe` shows, in every version clients send.
 */
import { describe, expect, it } from 'vitest';
import { ApiKey } from '../generated/index.js';
import { CLUSTER_ID, WireSim } from '../test-support/wire-sim.js';

function cluster(): WireSim {
  const w = new WireSim({ seed: 41, brokers: [{ id: 1, rack: 'a' }, { id: 2, rack: 'b' }, { id: 3, rack: 'c' }] });
  w.sim.createTopic('orders', 2, 3, {}, [[1, 2, 3], [2, 3, 1]]);
  w.sim.createTopic('audit', 1, 2, {}, [[3, 1]]);
  return w;
}

describe('Metadata (key 3)', () => {
  it('lists every live broker at its listener, a live controller, the cluster id and each partition as the controller records it (v8)', async () => {
    const w = cluster();
    const m = await w.respond(2, ApiKey.Metadata, 8, { topics: null, allowAutoTopicCreation: false });
    expect(m.brokers).toEqual([
      { nodeId: 1, host: '127.0.0.1', port: 19_091, rack: 'a' },
      { nodeId: 2, host: '127.0.0.1', port: 19_092, rack: 'b' },
      { nodeId: 3, host: '127.0.0.1', port: 19_093, rack: 'c' },
    ]);
    expect(m.clusterId).toBe(CLUSTER_ID);
    expect([1, 2, 3]).toContain(m.controllerId);
    expect(m.topics.map((t) => t.name)).toEqual(['audit', 'orders']);
    const orders = m.topics.find((t) => t.name === 'orders')!;
    for (const p of orders.partitions) {
      const d = w.sim.engine.describePartition('orders', p.partitionIndex)!;
      expect(p).toMatchObject({ errorCode: 0, leaderId: d.leader, leaderEpoch: d.leaderEpoch, replicaNodes: d.replicas, isrNodes: d.isr, offlineReplicas: [] });
    }
  });

  it('reads the topic list as each version does: v0 empty = all, v1+ empty = none and null = all', async () => {
    const w = cluster();
    expect((await w.respond(1, ApiKey.Metadata, 0, { topics: [] })).topics.map((t) => t.name)).toEqual(['audit', 'orders']);
    expect((await w.respond(1, ApiKey.Metadata, 1, { topics: [] })).topics).toEqual([]);
    expect((await w.respond(1, ApiKey.Metadata, 1, { topics: null })).topics.map((t) => t.name)).toEqual(['audit', 'orders']);
    const one = await w.respond(1, ApiKey.Metadata, 4, { topics: [{ name: 'audit' }, { name: 'missing' }, { name: 'bad name!' }], allowAutoTopicCreation: false });
    expect(one.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['audit', 0],
      ['missing', 3],
      ['bad name!', 17],
    ]);
    expect(w.sim.engine.metadata.topicsByName.has('missing')).toBe(false);
  });

  it('after a kill: the broker is gone from the list, its replicas are offline (v5+), or dropped with REPLICA_NOT_AVAILABLE below v5', async () => {
    const w = cluster();
    w.sim.engine.killBroker(3);
    w.sim.waitFor(() => w.sim.engine.metadata.brokers.get(3)!.fenced && w.sim.partition('audit').leader === 1, 60_000, 'broker 3 fenced');
    w.sim.advance(3_000);
    const v8 = await w.respond(1, ApiKey.Metadata, 8, { topics: [{ name: 'audit' }] });
    expect(v8.brokers.map((b) => b.nodeId)).toEqual([1, 2]);
    expect(v8.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, leaderId: 1, replicaNodes: [3, 1], offlineReplicas: [3] });
    const v1 = await w.respond(1, ApiKey.Metadata, 1, { topics: [{ name: 'audit' }] });
    expect(v1.topics[0]!.partitions[0]).toMatchObject({ errorCode: 9, leaderId: 1, replicaNodes: [1], isrNodes: [1] });
  });

  it('a partition without a live leader has leader -1 and LEADER_NOT_AVAILABLE', async () => {
    const w = cluster();
    w.sim.engine.killBroker(3);
    w.sim.engine.killBroker(1);
    w.sim.waitFor(() => w.sim.partition('audit').leader === -1, 60_000, 'audit offline');
    w.sim.advance(3_000);
    const m = await w.respond(2, ApiKey.Metadata, 8, { topics: [{ name: 'audit' }] });
    expect(m.topics[0]!.partitions[0]).toMatchObject({ errorCode: 5, leaderId: -1 });
    expect(m.controllerId).toBe(2);
  });
});
