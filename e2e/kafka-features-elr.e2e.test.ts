/**
 * Feature levels and eligible leader replicas over the Kafka protocol, black-box against
 * `npm run serve`'s listeners: requests encoded by our generated codecs on a plain socket (no
 * client library here sends UpdateFeatures or DescribeTopicPartitions), answers checked against
 * the console's own view of the cluster (the contract over HTTP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeatureView } from '../app/api/feature-views.js';
import { ApiKey } from '../app/protocol/generated/index.js';
import { api } from './support/harness.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';
import { kafkaWire, type KafkaWire } from './support/kafka-wire.js';

const ELR = 'eligible.leader.replicas.version';
const SOFTWARE = { clientSoftwareName: 'replica-studio-e2e', clientSoftwareVersion: '1' };

describe('features and ELR over the Kafka protocol', () => {
  let k: KafkaServe;
  let wire: KafkaWire;
  beforeAll(async () => {
    k = await startKafkaServe();
    wire = await kafkaWire(k.bootstrap.split(',')[1]!);
  });
  afterAll(async () => {
    wire?.close();
    await k?.stop();
  });

  it('ApiVersions v4 reports the supported features and metadata.version 25 finalized; UpdateFeatures validates, then enables ELR', async () => {
    const before = await wire.send(ApiKey.ApiVersions, 4, SOFTWARE);
    expect(before.supportedFeatures).toEqual([
      { name: ELR, minVersion: 0, maxVersion: 1 },
      { name: 'metadata.version', minVersion: 25, maxVersion: 25 },
    ]);
    expect(before.finalizedFeatures).toEqual([{ name: 'metadata.version', minVersionLevel: 25, maxVersionLevel: 25 }]);

    const checked = await wire.send(ApiKey.UpdateFeatures, 1, { timeoutMs: 5000, featureUpdates: [{ feature: ELR, maxVersionLevel: 1, upgradeType: 1 }], validateOnly: true });
    expect(checked).toMatchObject({ errorCode: 0, results: [{ feature: ELR, errorCode: 0 }] });
    expect((await api<FeatureView[]>(k.host, 'cluster.features')).find((f) => f.name === ELR)!.finalizedLevel).toBe(0);

    const refused = await wire.send(ApiKey.UpdateFeatures, 1, { timeoutMs: 5000, featureUpdates: [{ feature: ELR, maxVersionLevel: 2, upgradeType: 1 }], validateOnly: false });
    expect(refused).toMatchObject({ errorCode: 95, results: [] }); // INVALID_UPDATE_VERSION
    expect(refused.errorMessage).toContain('Invalid update version 2 for feature eligible.leader.replicas.version');

    expect(await wire.send(ApiKey.UpdateFeatures, 1, { timeoutMs: 5000, featureUpdates: [{ feature: ELR, maxVersionLevel: 1, upgradeType: 1 }], validateOnly: false })).toMatchObject({ errorCode: 0 });
    expect((await api<FeatureView[]>(k.host, 'cluster.features')).find((f) => f.name === ELR)!.finalizedLevel).toBe(1);
    // Every broker learns the level from the metadata log.
    await until(async () => (await wire.send(ApiKey.ApiVersions, 4, SOFTWARE)).finalizedFeatures.some((f) => f.name === ELR && f.maxVersionLevel === 1), 30_000, 'ELR finalized in ApiVersions');
    const after = await wire.send(ApiKey.ApiVersions, 4, SOFTWARE);
    expect(after.finalizedFeaturesEpoch).toBeGreaterThan(before.finalizedFeaturesEpoch);
  });

  it('DescribeTopicPartitions shows the ELR the console shows once the ISR shrinks below min.insync.replicas', async () => {
    await api(k.host, 'clock.setScale', { scale: 60 });
    await api(k.host, 'topics.create', { name: 'elr', configs: { 'min.insync.replicas': '2' }, assignments: [[1, 2, 3]] });
    await until(async () => (await k.topic('elr')).partitions[0]!.isr.length === 3, 20_000, 'a full ISR');
    await api(k.host, 'brokers.stallFollower', { brokerId: 3, stalled: true });
    await api(k.host, 'records.produce', { topic: 'elr', partition: 0, acks: 1, records: [{ value: 'a' }] });
    await until(async () => (await k.topic('elr')).partitions[0]!.isr.join() === '1,2', 30_000, 'ISR {1,2}');
    await api(k.host, 'brokers.stallFollower', { brokerId: 2, stalled: true });
    await api(k.host, 'records.produce', { topic: 'elr', partition: 0, acks: 1, records: [{ value: 'b' }] });
    await until(async () => (await k.topic('elr')).partitions[0]!.isr.join() === '1', 30_000, 'ISR {1}');
    const console = (await k.topic('elr')).partitions[0]!;
    expect(console.eligibleLeaderReplicas).toEqual([2]);

    let p = (await wire.send(ApiKey.DescribeTopicPartitions, 0, { topics: [{ name: 'elr' }, { name: 'missing' }] })).topics;
    await until(async () => {
      p = (await wire.send(ApiKey.DescribeTopicPartitions, 0, { topics: [{ name: 'elr' }, { name: 'missing' }] })).topics;
      return p[0]!.partitions[0]!.isrNodes.join() === '1';
    }, 30_000, "broker 2's copy of the metadata");
    expect(p.map((t) => [t.name, t.errorCode])).toEqual([['elr', 0], ['missing', 3]]);
    expect(p[0]!.partitions[0]).toMatchObject({ partitionIndex: 0, leaderId: 1, replicaNodes: [1, 2, 3], isrNodes: [1], eligibleLeaderReplicas: console.eligibleLeaderReplicas, lastKnownElr: console.lastKnownElr });
    await api(k.host, 'clock.setScale', { scale: 1 });
  });
});
