/**
 * Differential, for feature levels and eligible leader replicas: the same steps through the
 * embedded driver (the console host's own cluster) and through the Kafka driver (an external
 * connection to a second `npm run serve` host, reached only over the Kafka protocol: ApiVersions,
 * UpdateFeatures, DescribeTopicPartitions) give the same features, the same UpdateFeatures
 * outcomes and the same ELR. The faults that shrink the ISR are drills, which the Kafka protocol
 * has no request for: each host is asked for them over its own HTTP API. Applying a profile that
 * sets a feature level changes it the same way on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DurabilityView, TopicView } from '../app/api/views.js';
import { api } from './support/harness.js';
import { until } from './support/kafka-serve.js';
import { startTwoHosts, value, type Side, type TwoHosts } from './support/two-hosts.js';

const ELR = 'eligible.leader.replicas.version';

describe('features and ELR through the embedded driver and the Kafka driver', () => {
  let hosts: TwoHosts;
  beforeAll(async () => {
    hosts = await startTwoHosts();
  });
  afterAll(async () => {
    await hosts?.stop();
  });
  const call = <T>(method: string, input: unknown) => hosts.call<T>(method, input);
  const on = (side: Side) => hosts.on(side);
  /** The drills of one side, on the host that runs that cluster. */
  const drill = (side: Side) => (method: string, input: Record<string, unknown>) => (side === 'kafka' ? api(hosts.external.host, method, input) : value(call(method, input)));

  async function features(side: Side) {
    const run = on(side);
    const out: Record<string, unknown> = {};
    out['features'] = await value(run('cluster.features'));
    out['refused'] = await value(run('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 2 }] }));
    out['mixed'] = await value(run('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 1 }, { feature: 'no.such.feature', maxVersionLevel: 1 }] }));
    out['validated'] = await value(run('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 1 }], validateOnly: true }));
    out['stillOff'] = await value(run('cluster.features'));
    out['asUpgrade'] = await value(run('cluster.updateFeatures', { updates: [{ feature: 'metadata.version', maxVersionLevel: 21 }] }));
    out['enabled'] = await value(run('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 1 }] }));
    out['on'] = await value(run('cluster.features'));
    return out;
  }

  it('reads and updates the same feature levels', async () => {
    const embedded = await features('embedded');
    const kafka = await features('kafka');
    expect(kafka).toEqual(embedded);
    expect((embedded['on'] as { name: string; finalizedLevel: number }[]).map((f) => [f.name, f.finalizedLevel])).toEqual([[ELR, 1], ['metadata.version', 25]]);
    expect((embedded['stillOff'] as { name: string; finalizedLevel: number }[])[0]!.finalizedLevel).toBe(0);
    expect(embedded['refused']).toEqual([{ feature: ELR, errorCode: 'INVALID_UPDATE_VERSION', message: expect.stringContaining('Invalid update version 2') }]);
  });

  async function profile(side: Side) {
    const run = on(side);
    await value(run('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 0, upgradeType: 'safe-downgrade' }] }));
    const dry = await value(run<{ features: unknown[] }>('profiles.apply', { name: 'durability' }));
    const applied = await value(run<{ applied: boolean }>('profiles.apply', { name: 'durability', dryRun: false }));
    const after = await value(run<{ name: string; finalizedLevel: number }[]>('cluster.features'));
    return { planned: dry.features, applied: applied.applied, levels: after.map((f) => [f.name, f.finalizedLevel]) };
  }

  it('applies the durability profile the same way, its feature level included (kafka-features.sh upgrade before the configs)', async () => {
    const embedded = await profile('embedded');
    const kafka = await profile('kafka');
    expect(kafka).toEqual(embedded);
    expect(embedded).toEqual({ planned: [{ feature: ELR, maxVersionLevel: 1, upgradeType: 'upgrade', from: 0 }], applied: true, levels: [[ELR, 1], ['metadata.version', 25]] });
  });

  async function elr(side: Side) {
    const run = on(side);
    const fault = drill(side);
    await (side === 'kafka' ? api(hosts.external.host, 'clock.setScale', { scale: 60 }) : value(run('clock.setScale', { scale: 60 })));
    await value(run('topics.create', { name: 'elr', configs: { 'min.insync.replicas': '2' }, assignments: [[1, 2, 3]] }));
    const isr = async () => (await value(run<TopicView>('topics.describe', { name: 'elr' }))).partitions[0]!.isr.join();
    await until(async () => (await isr()) === '1,2,3', 30_000, `${side}: a full ISR`);
    await fault('brokers.stallFollower', { brokerId: 3, stalled: true });
    await value(run('records.produce', { topic: 'elr', partition: 0, acks: 1, records: [{ value: 'a' }] }));
    await until(async () => (await isr()) === '1,2', 30_000, `${side}: ISR {1,2}`);
    await fault('brokers.stallFollower', { brokerId: 2, stalled: true });
    await value(run('records.produce', { topic: 'elr', partition: 0, acks: 1, records: [{ value: 'b' }] }));
    // Through the Kafka driver each read may come from another broker's copy of the metadata, so
    // the view compared is the one that showed the ISR {1} with its ELR, not a later read that may trail it.
    let topic = await value(run<TopicView>('topics.describe', { name: 'elr' }));
    await until(
      async () => {
        topic = await value(run<TopicView>('topics.describe', { name: 'elr' }));
        return topic.partitions[0]!.isr.join() === '1' && topic.partitions[0]!.eligibleLeaderReplicas.length > 0;
      },
      30_000,
      `${side}: ISR {1} with its ELR`,
    );
    let durability = await value(run<DurabilityView>('topics.durability', { name: 'elr' }));
    await until(
      async () => ((durability = await value(run<DurabilityView>('topics.durability', { name: 'elr' }))).eligibleLeaderReplicas.partitions[0]?.eligibleLeaderReplicas.length ?? 0) > 0,
      30_000,
      `${side}: the durability view's ELR`,
    );
    await (side === 'kafka' ? api(hosts.external.host, 'clock.setScale', { scale: 1 }) : value(run('clock.setScale', { scale: 1 })));
    return {
      partitions: topic.partitions.map((p) => ({ leader: p.leader, isr: p.isr, eligibleLeaderReplicas: p.eligibleLeaderReplicas, lastKnownElr: p.lastKnownElr })),
      elrUnavailable: topic.unavailable?.eligibleLeaderReplicas ?? null,
      durability: durability.eligibleLeaderReplicas,
    };
  }

  it('shows the same eligible leader replicas once the ISR shrinks below min.insync.replicas', async () => {
    const embedded = await elr('embedded');
    const kafka = await elr('kafka');
    expect(kafka).toEqual(embedded);
    expect(embedded.partitions).toEqual([{ leader: 1, isr: [1], eligibleLeaderReplicas: [2], lastKnownElr: [] }]);
    expect(embedded.durability).toMatchObject({ featureLevel: 1, partitions: [{ partition: 0, eligibleLeaderReplicas: [2], lastKnownElr: [] }] });
  });
});
