/**
 * The admin APIs in Kafka's bytes: requests encoded with the generated codecs in the versions
 * clients send, through a broker's dispatcher, against a simulated cluster; every answer read
 * back as a client reads it, with Kafka's error codes and messages.
 */
import { describe, expect, it } from 'vitest';
import { Simulation } from '../../../sim/simulation.js';
import { createDispatcher } from '../../dispatcher.js';
import { ApiKey, type ApiKeyNumber, type ApiMessages } from '../../generated/index.js';
import type { Init } from '../../runtime/index.js';
import { readResponse, requestFrame } from '../../test-support/frames.js';
import { CLUSTER_ID, WireSim } from '../../test-support/wire-sim.js';
import { adminHandlers, type AdminGateway } from './index.js';

function cluster(brokerId = 1) {
  const sim = new Simulation({ seed: 5, brokers: [{ id: 1, rack: 'a' }, { id: 2, rack: 'b' }, { id: 3, rack: 'c' }] });
  const gateway: AdminGateway = { brokerId, engine: sim.engine, clusterId: 'test-cluster', call: (start) => new Promise((resolve) => start(resolve)) };
  const dispatcher = createDispatcher(adminHandlers(gateway), { onHandlerError: (k, e) => console.error("HANDLER", k, e) });
  async function send<K extends ApiKeyNumber>(apiKey: K, version: number, body: Init<ApiMessages[K]['request']>): Promise<ApiMessages[K]['response']> {
    const outcome = await dispatcher.dispatch(requestFrame(apiKey, version, body).subarray(4));
    if (outcome.kind !== 'respond') throw new Error(`no response: ${outcome.kind === 'close' ? outcome.reason : 'none'}`);
    return readResponse(apiKey, version, outcome.parts).body;
  }
  return { sim, send };
}

describe('admin APIs on the wire: topics', () => {
  it('advertises the admin APIs in ApiVersions', async () => {
    const { send } = cluster();
    const keys = (await send(ApiKey.ApiVersions, 2, {})).apiKeys.map((k) => [k.apiKey, k.minVersion, k.maxVersion]);
    expect(keys).toEqual(expect.arrayContaining([[19, 0, 4], [20, 0, 3], [32, 0, 3], [33, 0, 1], [35, 0, 4], [37, 0, 1], [43, 0, 1], [44, 0, 0], [45, 0, 0], [46, 0, 0]]));
  });

  it('CreateTopics v4 creates, refuses an existing name, a name given twice and a replication factor above the broker count', async () => {
    const { sim, send } = cluster();
    const created = await send(ApiKey.CreateTopics, 4, { topics: [{ name: 'orders', numPartitions: 3, replicationFactor: 2, assignments: [], configs: [{ name: 'retention.ms', value: '3600000' }] }], timeoutMs: 5000, validateOnly: false });
    expect(created.topics).toEqual([expect.objectContaining({ name: 'orders', errorCode: 0, errorMessage: null })]);
    expect(sim.engine.metadata.topicsByName.get('orders')?.partitions.size).toBe(3);
    expect(sim.engine.metadata.topicsByName.get('orders')?.configs).toEqual({ 'retention.ms': '3600000' });

    const again = await send(ApiKey.CreateTopics, 4, {
      topics: [
        { name: 'orders', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'twice', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'twice', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'too-wide', numPartitions: 1, replicationFactor: 5, assignments: [], configs: [] },
      ],
      timeoutMs: 5000,
      validateOnly: false,
    });
    expect(again.topics.map((t) => [t.name, t.errorCode])).toEqual([['orders', 36], ['twice', 42], ['twice', 42], ['too-wide', 38]]);
    expect(again.topics[3]!.errorMessage).toMatch(/replication factor/i);
    expect(sim.engine.metadata.topicsByName.has('twice')).toBe(false);
  });

  it('CreateTopics with validate_only checks without creating, and -1 counts take the broker defaults', async () => {
    const { sim, send } = cluster();
    const r = await send(ApiKey.CreateTopics, 4, { topics: [{ name: 'defaults', numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: true });
    expect(r.topics[0]!.errorCode).toBe(0);
    expect(sim.engine.metadata.topicsByName.has('defaults')).toBe(false);
    const bad = await send(ApiKey.CreateTopics, 4, { topics: [{ name: 'bad', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'min.insync.replicas', value: 'zero' }] }], timeoutMs: 5000, validateOnly: true });
    expect(bad.topics[0]!.errorCode).toBe(40);
  });

  it('CreateTopics v0 takes an explicit assignment (counts -1)', async () => {
    const { sim, send } = cluster();
    const r = await send(ApiKey.CreateTopics, 0, { topics: [{ name: 'placed', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 1, brokerIds: [3, 1] }, { partitionIndex: 0, brokerIds: [2, 3] }], configs: [] }], timeoutMs: 5000 });
    expect(r.topics[0]!.errorCode).toBe(0);
    const t = sim.engine.metadata.topicsByName.get('placed')!;
    expect([t.partitions.get(0)!.replicas, t.partitions.get(1)!.replicas]).toEqual([[2, 3], [3, 1]]);
  });

  it('DeleteTopics v3 deletes, and answers UNKNOWN_TOPIC_OR_PARTITION for a topic that does not exist', async () => {
    const { sim, send } = cluster();
    sim.createTopic('gone', 1, 1);
    const r = await send(ApiKey.DeleteTopics, 3, { topicNames: ['gone', 'never'], timeoutMs: 5000 });
    expect(r.responses.map((t) => [t.name, t.errorCode])).toEqual([['gone', 0], ['never', 3]]);
    expect(sim.engine.metadata.topicsByName.has('gone')).toBe(false);
  });

  it('CreatePartitions v1 grows a topic and refuses to shrink one', async () => {
    const { sim, send } = cluster();
    sim.createTopic('grow', 2, 2);
    const r = await send(ApiKey.CreatePartitions, 1, { topics: [{ name: 'grow', count: 5, assignments: null }], timeoutMs: 5000, validateOnly: false });
    expect(r.results[0]).toMatchObject({ name: 'grow', errorCode: 0 });
    expect(sim.engine.metadata.topicsByName.get('grow')!.partitions.size).toBe(5);
    const shrink = await send(ApiKey.CreatePartitions, 1, { topics: [{ name: 'grow', count: 3, assignments: null }], timeoutMs: 5000, validateOnly: false });
    expect(shrink.results[0]!.errorCode).toBe(37);
  });
});

describe('admin APIs on the wire: configs', () => {
  it('DescribeConfigs v3 gives value, source, synonyms most specific first, type and documentation', async () => {
    const { sim, send } = cluster();
    sim.createTopic('cfg', 1, 1, { 'retention.ms': '3600000' });
    const r = await send(ApiKey.DescribeConfigs, 3, { resources: [{ resourceType: 2, resourceName: 'cfg', configurationKeys: ['retention.ms', 'min.insync.replicas'] }], includeSynonyms: true, includeDocumentation: true });
    const [result] = r.results;
    expect(result!.errorCode).toBe(0);
    const retention = result!.configs.find((c) => c.name === 'retention.ms')!;
    expect(retention).toMatchObject({ value: '3600000', configSource: 1, isDefault: false, configType: 5 });
    // Kafka lists its first broker synonym's layers only (log.retention.ms, which nothing sets here).
    expect(retention.synonyms).toEqual([{ name: 'retention.ms', value: '3600000', source: 1 }]);
    expect(retention.documentation).toMatch(/.{20,}/);
    const minIsr = result!.configs.find((c) => c.name === 'min.insync.replicas')!;
    expect(minIsr).toMatchObject({ value: '1', configSource: 5, configType: 3 });
    expect(result!.configs).toHaveLength(2);
  });

  it('DescribeConfigs answers Kafka’s errors: another broker’s id, an unknown topic, a resource type it does not serve', async () => {
    const { send } = cluster(1);
    const r = await send(ApiKey.DescribeConfigs, 1, {
      resources: [
        { resourceType: 4, resourceName: '2', configurationKeys: null },
        { resourceType: 2, resourceName: 'nope', configurationKeys: null },
        { resourceType: 8, resourceName: 'x', configurationKeys: null },
        { resourceType: 4, resourceName: '1', configurationKeys: ['num.partitions'] },
      ],
      includeSynonyms: false,
    });
    expect(r.results.map((x) => x.errorCode)).toEqual([42, 3, 42, 0]);
    expect(r.results[0]!.errorMessage).toBe('Unexpected broker id, expected 1 or empty string, but received 2');
    expect(r.results[3]!.configs.map((c) => c.name)).toEqual(['num.partitions']);
  });

  it('IncrementalAlterConfigs sets, deletes, appends to and subtracts from list configs; validate_only changes nothing', async () => {
    const { sim, send } = cluster();
    sim.createTopic('inc', 2, 2);
    const topicConfigs = () => sim.engine.metadata.topicsByName.get('inc')!.configs;
    const alter = (configs: { name: string; configOperation: number; value: string | null }[], validateOnly = false) =>
      send(ApiKey.IncrementalAlterConfigs, 0, { resources: [{ resourceType: 2, resourceName: 'inc', configs }], validateOnly });

    expect((await alter([{ name: 'min.insync.replicas', configOperation: 0, value: '2' }], true)).responses[0]!.errorCode).toBe(0);
    expect(topicConfigs()).toEqual({});
    expect((await alter([{ name: 'min.insync.replicas', configOperation: 0, value: '2' }])).responses[0]!.errorCode).toBe(0);
    expect(topicConfigs()).toEqual({ 'min.insync.replicas': '2' });
    await alter([{ name: 'leader.replication.throttled.replicas', configOperation: 2, value: '0:1' }]);
    await alter([{ name: 'leader.replication.throttled.replicas', configOperation: 2, value: '1:2,0:1' }]);
    expect(topicConfigs()['leader.replication.throttled.replicas']).toBe('0:1,1:2');
    await alter([{ name: 'leader.replication.throttled.replicas', configOperation: 3, value: '0:1' }]);
    expect(topicConfigs()['leader.replication.throttled.replicas']).toBe('1:2');
    await alter([{ name: 'min.insync.replicas', configOperation: 1, value: null }]);
    expect(topicConfigs()).toEqual({ 'leader.replication.throttled.replicas': '1:2' });

    const append = await alter([{ name: 'retention.ms', configOperation: 2, value: '5' }]);
    expect(append.responses[0]).toMatchObject({ errorCode: 40, errorMessage: 'Config value append is not allowed for config key: retention.ms' });
    const invalid = await alter([{ name: 'min.insync.replicas', configOperation: 0, value: '-3' }]);
    expect(invalid.responses[0]!.errorCode).toBe(40);
    const unknown = await send(ApiKey.IncrementalAlterConfigs, 0, { resources: [{ resourceType: 2, resourceName: 'missing', configs: [] }], validateOnly: false });
    expect(unknown.responses[0]!.errorCode).toBe(3);
  });

  it('AlterConfigs replaces a resource’s dynamic configs: what it omits goes back to the inherited value', async () => {
    const { sim, send } = cluster();
    sim.createTopic('legacy', 1, 1, { 'retention.ms': '1000', 'min.insync.replicas': '1' });
    const r = await send(ApiKey.AlterConfigs, 1, { resources: [{ resourceType: 2, resourceName: 'legacy', configs: [{ name: 'segment.bytes', value: '1048576' }] }], validateOnly: false });
    expect(r.responses[0]!.errorCode).toBe(0);
    expect(sim.engine.metadata.topicsByName.get('legacy')!.configs).toEqual({ 'segment.bytes': '1048576' });
  });

  it('cluster-wide broker defaults are the resource \'\': described as the dynamic defaults set, altered for every broker', async () => {
    const { sim, send } = cluster();
    await send(ApiKey.IncrementalAlterConfigs, 0, { resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'min.insync.replicas', configOperation: 0, value: '2' }] }], validateOnly: false });
    expect(sim.engine.metadata.clusterConfigs()).toMatchObject({ 'min.insync.replicas': '2' });
    const d = await send(ApiKey.DescribeConfigs, 1, { resources: [{ resourceType: 4, resourceName: '', configurationKeys: null }], includeSynonyms: true });
    expect(d.results[0]!.configs.map((c) => [c.name, c.value, c.configSource])).toEqual([['min.insync.replicas', '2', 3]]);
  });
});

describe('admin APIs on the wire: leaders, reassignments, log dirs', () => {
  it('ElectLeaders v1 moves leadership back to the preferred replica, then answers ELECTION_NOT_NEEDED', async () => {
    const { sim, send } = cluster();
    sim.createTopic('lead', 1, 3, {}, [[2, 1, 3]]);
    sim.engine.stopBroker(2);
    sim.waitFor(() => sim.partition('lead').leader !== 2, 60_000, 'leader moved off broker 2');
    sim.waitFor(() => sim.engine.brokerState(2) === 'stopped', 60_000, 'broker 2 stopped');
    sim.engine.startBroker(2);
    sim.waitFor(() => sim.partition('lead').isr.includes(2), 60_000, 'broker 2 back in the ISR');
    const first = await send(ApiKey.ElectLeaders, 1, { electionType: 0, topicPartitions: [{ topic: 'lead', partitions: [0] }], timeoutMs: 5000 });
    expect(first.errorCode).toBe(0);
    expect(first.replicaElectionResults).toEqual([{ topic: 'lead', partitionResult: [{ partitionId: 0, errorCode: 0, errorMessage: null }] }]);
    sim.advance(1000);
    expect(sim.partition('lead').leader).toBe(2);
    const second = await send(ApiKey.ElectLeaders, 0, { topicPartitions: [{ topic: 'lead', partitions: [0] }], timeoutMs: 5000 });
    expect(second.replicaElectionResults[0]!.partitionResult[0]!.errorCode).toBe(84);
  });

  it('AlterPartitionReassignments v0 starts a move that ListPartitionReassignments shows, and cancels it', async () => {
    const { sim, send } = cluster();
    sim.createTopic('move', 1, 1, {}, [[1]]);
    sim.produce('move', 0, Array.from({ length: 50 }, (_, i) => `r${i}`));
    // A stalled target keeps the move in flight.
    sim.engine.stallFollower(3, true);
    const started = await send(ApiKey.AlterPartitionReassignments, 0, { timeoutMs: 5000, topics: [{ name: 'move', partitions: [{ partitionIndex: 0, replicas: [3] }] }] });
    expect(started).toMatchObject({ errorCode: 0, responses: [{ name: 'move', partitions: [{ partitionIndex: 0, errorCode: 0 }] }] });
    const listed = await send(ApiKey.ListPartitionReassignments, 0, { timeoutMs: 5000, topics: null });
    expect(listed.topics).toEqual([{ name: 'move', partitions: [{ partitionIndex: 0, replicas: [3, 1], addingReplicas: [3], removingReplicas: [1] }] }]);
    const cancelled = await send(ApiKey.AlterPartitionReassignments, 0, { timeoutMs: 5000, topics: [{ name: 'move', partitions: [{ partitionIndex: 0, replicas: null }] }] });
    expect(cancelled.responses[0]!.partitions[0]!.errorCode).toBe(0);
    const again = await send(ApiKey.AlterPartitionReassignments, 0, { timeoutMs: 5000, topics: [{ name: 'move', partitions: [{ partitionIndex: 0, replicas: null }] }] });
    expect(again.responses[0]!.partitions[0]!.errorCode).toBe(85);
    const unknownBroker = await send(ApiKey.AlterPartitionReassignments, 0, { timeoutMs: 5000, topics: [{ name: 'move', partitions: [{ partitionIndex: 0, replicas: [9] }] }] });
    expect(unknownBroker.responses[0]!.partitions[0]!.errorCode).toBe(39);
  });

  it('DescribeLogDirs v1 lists this broker’s replicas with their sizes', async () => {
    const { sim, send } = cluster(1);
    sim.createTopic('sized', 2, 1, {}, [[1], [2]]);
    sim.produce('sized', 0, Array.from({ length: 20 }, (_, i) => `value-${i}`));
    const r = await send(ApiKey.DescribeLogDirs, 1, { topics: null });
    expect(r.results).toHaveLength(1);
    expect(r.results[0]!.logDir).toBe('broker-1');
    const sized = r.results[0]!.topics.find((t) => t.name === 'sized')!;
    // Broker 1 holds partition 0 only; its size is its log's bytes.
    expect(sized.partitions.map((p) => p.partitionIndex)).toEqual([0]);
    expect(Number(sized.partitions[0]!.partitionSize)).toBe(sim.engine.replicaSizeBytes(1, 'sized', 0));
    expect(Number(sized.partitions[0]!.partitionSize)).toBeGreaterThan(20 * 7);
  });
});

describe('admin APIs on the wire: DescribeCluster', () => {
  it('DescribeCluster v0 (flexible) names the cluster, the controller and the live brokers with racks at their listeners', async () => {
    const wire = new WireSim({ seed: 5, brokers: [{ id: 1, rack: 'a' }, { id: 2, rack: 'b' }, { id: 3, rack: 'c' }] });
    const r = await wire.respond(1, ApiKey.DescribeCluster, 0, { includeClusterAuthorizedOperations: false });
    expect(r).toMatchObject({ errorCode: 0, clusterId: CLUSTER_ID });
    expect(r.brokers).toEqual([
      { brokerId: 1, host: '127.0.0.1', port: 19_091, rack: 'a' },
      { brokerId: 2, host: '127.0.0.1', port: 19_092, rack: 'b' },
      { brokerId: 3, host: '127.0.0.1', port: 19_093, rack: 'c' },
    ]);
    expect([1, 2, 3]).toContain(r.controllerId);
    // A killed broker leaves the list once the controller fences it, as it leaves Metadata's.
    wire.sim.engine.killBroker(3);
    wire.sim.waitFor(() => wire.sim.engine.metadata.brokers.get(3)?.fenced === true, 60_000, 'broker 3 fenced');
    wire.sim.advance(1_000);
    const after = await wire.respond(1, ApiKey.DescribeCluster, 0, { includeClusterAuthorizedOperations: false });
    expect(after.brokers.map((b) => b.brokerId)).toEqual([1, 2]);
    expect(wire.handlerErrors).toEqual([]);
  });
});
