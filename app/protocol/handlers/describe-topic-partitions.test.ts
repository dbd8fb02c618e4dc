/**
 * DescribeTopicPartitions (75) in Kafka's bytes, through a broker's dispatcher over a simulated
 * cluster: the ELR and last known ELR of KIP-966, and Kafka's cursor paging.
 */
import { describe, expect, it } from 'vitest';
import { ELR_FEATURE } from '../../core/engine.js';
import { values, waitForIsr } from '../../sim/scenarios/support.js';
import { ApiKey } from '../generated/index.js';
import { WireSim } from '../test-support/wire-sim.js';
import { wireTopicId } from './describe-topic-partitions.js';

const ask = (w: WireSim, body: Parameters<WireSim['respond']>[3] & object, broker = 1) => w.respond(broker, ApiKey.DescribeTopicPartitions, 0, body as never);

describe('DescribeTopicPartitions (KIP-966)', () => {
  it('lists each partition with its eligible leader replicas and, once the ISR empties, the last known ELR', async () => {
    const w = new WireSim({ seed: 410 });
    const sim = w.sim;
    sim.engine.updateFeatures([{ feature: ELR_FEATURE, maxVersionLevel: 1 }]);
    sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
    for (const v of values(0, 4)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
    const full = await ask(w, { topics: [{ name: 't' }] });
    expect(full.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, leaderId: 1, replicaNodes: [1, 2, 3], isrNodes: [1, 2, 3], eligibleLeaderReplicas: [], lastKnownElr: [] });

    // ISR {1,2} at min ISR 2, then {1}: 2 left while the ISR was below min ISR, so it is eligible.
    sim.engine.stallFollower(3);
    sim.produce('t', 0, ['a'], 1);
    waitForIsr(sim, 't', 0, [1, 2], 60_000);
    sim.engine.stallFollower(2);
    sim.produce('t', 0, ['b'], 1);
    waitForIsr(sim, 't', 0, [1], 60_000);
    sim.advance(2_000); // every broker's copy of the metadata has the change
    const shrunk = await ask(w, { topics: [{ name: 't' }] }, 3);
    expect(shrunk.topics[0]).toMatchObject({ errorCode: 0, name: 't', topicId: wireTopicId(sim.engine.metadata.topicsByName.get('t')!.topicId), isInternal: false });
    expect(shrunk.topics[0]!.partitions[0]).toMatchObject({ leaderId: 1, isrNodes: [1], eligibleLeaderReplicas: [2], lastKnownElr: [] });

    sim.engine.killBroker(2);
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === -1 && sim.partition('t', 0).isr.length === 0, 30_000, 'an empty ISR');
    sim.advance(2_000);
    const empty = (await ask(w, { topics: [{ name: 't' }] }, 3)).topics[0]!.partitions[0]!;
    // A leaderless partition carries no error here (Metadata says LEADER_NOT_AVAILABLE); the dead replicas are offline.
    expect(empty).toMatchObject({ errorCode: 0, leaderId: -1, isrNodes: [], lastKnownElr: [2], offlineReplicas: [1, 2] });
    expect([...empty.eligibleLeaderReplicas!].sort()).toEqual([1, 2]);
  });

  it('pages by the response partition limit with a cursor, as Kafka does', async () => {
    const w = new WireSim({ seed: 411, brokers: 3 });
    w.sim.createTopic('b', 3, 1);
    w.sim.createTopic('a', 2, 1);
    w.sim.createTopic('c', 1, 1);
    w.sim.advance(2_000);
    const shape = (r: Awaited<ReturnType<typeof ask>>) => ({ topics: r.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]), next: r.nextCursor });

    // Every topic (none named), sorted by name; the limit cuts b after partition 0.
    expect(shape(await ask(w, { topics: [], responsePartitionLimit: 3 }))).toEqual({ topics: [['a', [0, 1]], ['b', [0]]], next: { topicName: 'b', partitionIndex: 1 } });
    expect(shape(await ask(w, { topics: [], responsePartitionLimit: 3, cursor: { topicName: 'b', partitionIndex: 1 } }))).toEqual({ topics: [['b', [1, 2]], ['c', [0]]], next: null });
    // The limit used up exactly before a topic: the cursor names that topic at 0.
    expect(shape(await ask(w, { topics: [], responsePartitionLimit: 2 }))).toEqual({ topics: [['a', [0, 1]]], next: { topicName: 'b', partitionIndex: 0 } });
    // A limit below 1 counts as 1.
    expect(shape(await ask(w, { topics: [{ name: 'c' }], responsePartitionLimit: 0 }))).toEqual({ topics: [['c', [0]]], next: null });

    // Named topics: a missing one is UNKNOWN_TOPIC_OR_PARTITION, an invalid name INVALID_TOPIC_EXCEPTION; duplicates are asked once.
    const named = await ask(w, { topics: [{ name: 'c' }, { name: 'zz' }, { name: 'a' }, { name: 'c' }, { name: 'bad name!' }] });
    expect(named.topics.map((t) => [t.name, t.errorCode, t.partitions.length])).toEqual([['a', 0, 2], ['bad name!', 17, 0], ['c', 0, 1], ['zz', 3, 0]]);

    // A cursor whose topic is not among those named, or with a negative partition: INVALID_REQUEST for every topic asked.
    const refused = await ask(w, { topics: [{ name: 'a' }, { name: 'c' }], cursor: { topicName: 'b', partitionIndex: 0 } });
    expect(refused.topics.map((t) => [t.name, t.errorCode])).toEqual([['a', 42], ['c', 42]]);
    expect((await ask(w, { topics: [{ name: 'a' }], cursor: { topicName: 'a', partitionIndex: -1 } })).topics[0]!.errorCode).toBe(42);
  });

  it('is advertised as version 0, and topic ids travel as Kafka uuids', async () => {
    const w = new WireSim({ seed: 412, brokers: 1 });
    const keys = (await w.respond(1, ApiKey.ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' })).apiKeys;
    expect(keys.find((k) => k.apiKey === 75)).toEqual({ apiKey: 75, minVersion: 0, maxVersion: 0 });
    expect(wireTopicId('AAAAAAAAAAAAAAAAAAAAAB')).toBe('AAAAAAAAAAAAAAAAAAAAAA');
    expect(wireTopicId('AAAAAAAAAAAAAAAAAAAAAw')).toBe('AAAAAAAAAAAAAAAAAAAAAw');
  });
});
