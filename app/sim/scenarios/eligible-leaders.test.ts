/**
 * Eligible leader replicas (KIP-966) as Kafka 4.x enables and keeps them: the
 * `eligible.leader.replicas.version` feature (UpdateFeatures, `kafka-features.sh`), its rules for
 * min.insync.replicas, and the ELR through the product's own views. Scenario 25(c) with ELR is in
 * jepsen.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { kafkaErrorOf } from '../../core/test-support/kafka-error.js';
import { Simulation } from '../simulation.js';
import { serviceOver } from '../virtual-service.js';
import { values, waitForIsr } from './support.js';

const ELR = 'eligible.leader.replicas.version';

/** RF 3, min ISR 2, ISR shrunk to {1}: 2 is eligible (and 3, shrunk out at min ISR, is not). */
function belowMinIsr(seed: number): Simulation {
  const sim = new Simulation({ seed });
  expect(sim.engine.updateFeatures([{ feature: ELR, maxVersionLevel: 1 }])[0]!.errorCode).toBe('NONE');
  sim.createTopic('t', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
  sim.createTopic('other', 1, 3, { 'min.insync.replicas': '2' }, [[1, 2, 3]]);
  for (const v of values(0, 4)) expect(sim.produce('t', 0, [v]).errorCode).toBe('NONE');
  sim.engine.stallFollower(3);
  sim.produce('t', 0, ['a'], 1);
  sim.produce('other', 0, ['a'], 1);
  waitForIsr(sim, 't', 0, [1, 2], 60_000);
  waitForIsr(sim, 'other', 0, [1, 2], 60_000);
  sim.engine.stallFollower(2);
  sim.produce('t', 0, ['b'], 1);
  sim.produce('other', 0, ['b'], 1);
  waitForIsr(sim, 't', 0, [1], 60_000);
  waitForIsr(sim, 'other', 0, [1], 60_000);
  expect(sim.partition('t', 0).elr).toEqual([2]);
  expect(sim.partition('other', 0).elr).toEqual([2]);
  return sim;
}

describe('eligible leader replicas (KIP-966)', () => {
  it('is a feature: off by default, finalized at level 1 by an upgrade, refused outside its range', () => {
    const sim = new Simulation({ seed: 400, staticConfigs: { 'min.insync.replicas': '2' } });
    expect(sim.engine.describeFeatures()).toEqual([
      expect.objectContaining({ name: ELR, minVersion: 0, maxVersion: 1, finalizedLevel: 0 }),
      // A new cluster runs at metadata.version 4.0-IV3, the only level the engine implements.
      expect.objectContaining({ name: 'metadata.version', minVersion: 25, maxVersion: 25, finalizedLevel: 25 }),
    ]);
    const refused = sim.engine.updateFeatures([
      { feature: ELR, maxVersionLevel: 2 },
      { feature: 'no.such.feature', maxVersionLevel: 1 },
    ]);
    expect(refused.map((r) => r.errorCode)).toEqual(['INVALID_UPDATE_VERSION', 'INVALID_UPDATE_VERSION']);
    expect(refused[0]!.message).toBe(`Invalid update version 2 for feature ${ELR}. The supported range is [0, 1].`);
    // All or nothing, as Kafka's controller: a valid upgrade beside a refused one is not finalized.
    const mixed = sim.engine.updateFeatures([{ feature: ELR, maxVersionLevel: 1 }, { feature: ELR + '.typo', maxVersionLevel: 1 }]);
    expect(mixed.map((r) => r.errorCode)).toEqual(['INVALID_UPDATE_VERSION', 'INVALID_UPDATE_VERSION']);
    expect(mixed[0]!.message).toMatch(/^The update failed for all features since the following feature had an error: .*typo/);
    expect(sim.engine.describeFeatures()[0]!.finalizedLevel).toBe(0);
    // metadata.version stays at 25: asking for it is a no-op, any other level (a downgrade to 3.9-IV0 here) is refused.
    expect(sim.engine.updateFeatures([{ feature: 'metadata.version', maxVersionLevel: 25 }])[0]!.errorCode).toBe('NONE');
    expect(sim.engine.updateFeatures([{ feature: 'metadata.version', maxVersionLevel: 21, upgradeType: 'unsafe-downgrade' }])[0]!.errorCode).toBe('INVALID_UPDATE_VERSION');
    expect(sim.engine.updateFeatures([{ feature: ELR, maxVersionLevel: 1 }], true)[0]!.errorCode).toBe('NONE');
    expect(sim.engine.describeFeatures()[0]!.finalizedLevel).toBe(0); // validateOnly changed nothing
    expect(sim.engine.updateFeatures([{ feature: ELR, maxVersionLevel: 1 }])[0]!.errorCode).toBe('NONE');
    expect(sim.engine.describeFeatures()[0]!.finalizedLevel).toBe(1);
    expect(sim.eventsOf('feature.updated')).toMatchObject([{ feature: ELR, level: 1, previousLevel: 0 }]);
    // Enabling it pins the cluster-level min.insync.replicas to the static value.
    expect(sim.engine.metadata.clusterConfigs()['min.insync.replicas']).toBe('2');
    // A downgrade must say so.
    expect(sim.engine.updateFeatures([{ feature: ELR, maxVersionLevel: 0 }])[0]!.errorCode).toBe('INVALID_UPDATE_VERSION');
    expect(sim.engine.updateFeatures([{ feature: ELR, maxVersionLevel: 0, upgradeType: 'safe-downgrade' }])[0]!.errorCode).toBe('NONE');
    expect(sim.engine.describeFeatures()[0]!.finalizedLevel).toBe(0);
  });

  it('while it is on, min.insync.replicas cannot be set per broker or deleted cluster-wide, and changing it clears the ELR it applies to', () => {
    const sim = belowMinIsr(401);
    const perBroker = kafkaErrorOf(() => sim.engine.alterConfigs('broker', '1', { 'min.insync.replicas': '2' }));
    expect(perBroker.code).toBe('INVALID_CONFIG');
    expect(kafkaErrorOf(() => sim.engine.alterConfigs('broker', '', { 'min.insync.replicas': null })).code).toBe('INVALID_CONFIG');
    // A topic's change clears that topic's ELR only.
    sim.engine.alterConfigs('topic', 'other', { 'min.insync.replicas': '2' });
    expect(sim.partition('other', 0).elr).toEqual([]);
    expect(sim.partition('t', 0).elr).toEqual([2]);
    // A cluster-level change (even to the same value) clears every ELR.
    sim.engine.alterConfigs('broker', '', { 'min.insync.replicas': '1' });
    expect(sim.partition('t', 0).elr).toEqual([]);
  });

  it('a safe downgrade to level 0 clears every ELR, and elections go back to the ISR alone', () => {
    const sim = belowMinIsr(402);
    expect(sim.engine.updateFeatures([{ feature: ELR, maxVersionLevel: 0, upgradeType: 'safe-downgrade' }])[0]!.errorCode).toBe('NONE');
    expect(sim.partition('t', 0).elr).toEqual([]);
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === -1, 20_000, 'partition offline');
    expect(sim.partition('t', 0).isr).toEqual([1]); // the last member stays, as without ELR
  });

  it("the console's partition view shows the ELR and the last known leader", async () => {
    const sim = belowMinIsr(403);
    const svc = serviceOver(sim, { seed: 403, fastForwardMs: null });
    const described = await svc.call('topics.describe', { name: 't' });
    if (!described.ok) throw new Error(described.error.message);
    expect(described.value.partitions[0]).toMatchObject({ isr: [1], eligibleLeaderReplicas: [2], lastKnownElr: [] });
    const durability = await svc.call('topics.durability', { name: 't' });
    if (!durability.ok) throw new Error(durability.error.message);
    expect(durability.value.eligibleLeaderReplicas).toMatchObject({ featureLevel: 1, partitions: [{ partition: 0, eligibleLeaderReplicas: [2], lastKnownElr: [] }] });
    expect(durability.value.eligibleLeaderReplicas.explanation).toContain('Eligible leader replicas are on');
    const features = await svc.call('cluster.features', {});
    expect(features.ok && features.value.map((f) => [f.name, f.finalizedLevel])).toEqual([[ELR, 1], ['metadata.version', 25]]);
    const bad = await svc.call('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 7 }] });
    expect(bad.ok && bad.value[0]!.errorCode).toBe('INVALID_UPDATE_VERSION');
    // Both die. Fenced first, 1 leaves the ISR and 2 (eligible, not fenced yet) is named leader;
    // fenced in turn, 2 empties the ISR and is remembered as the last known leader.
    sim.engine.killBroker(2);
    sim.engine.killBroker(1);
    sim.waitFor(() => sim.partition('t', 0).leader === -1 && sim.partition('t', 0).isr.length === 0, 30_000, 'an empty ISR');
    const after = await svc.call('topics.describe', { name: 't' });
    if (!after.ok) throw new Error(after.error.message);
    expect(after.value.partitions[0]).toMatchObject({ leader: -1, isr: [], lastKnownElr: [2] });
    expect(sim.eventsOf('leader.changed').filter((e) => e.topic === 't').map((e) => e.leader)).toEqual([2, -1]);
    expect([...after.value.partitions[0]!.eligibleLeaderReplicas].sort()).toEqual([1, 2]);
  });

  it('applying the durability profile turns the feature on, as its exported kafka-features.sh line would', async () => {
    const sim = new Simulation({ seed: 404 });
    const svc = serviceOver(sim, { seed: 404, fastForwardMs: null });
    const dry = await svc.call('profiles.apply', { name: 'durability' });
    if (!dry.ok) throw new Error(dry.error.message);
    expect(dry.value.features).toEqual([{ feature: ELR, maxVersionLevel: 1, upgradeType: 'upgrade', from: 0 }]);
    expect(sim.engine.describeFeatures()[0]!.finalizedLevel).toBe(0);
    const applied = await svc.call('profiles.apply', { name: 'durability', dryRun: false });
    expect(applied.ok && applied.value.applied).toBe(true);
    expect(sim.engine.describeFeatures()[0]!.finalizedLevel).toBe(1);
    expect(sim.engine.metadata.clusterConfigs()['min.insync.replicas']).toBe('2');
    const exported = await svc.call('profiles.export', { name: 'durability', formats: ['server-properties'] });
    if (!exported.ok) throw new Error(exported.error.message);
    expect(exported.value.find((f) => f.filename === 'features.sh')!.contents).toContain(`upgrade --feature ${ELR}=1\n`);
  });
});
