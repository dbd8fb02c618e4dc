/**
 * Config profiles and the durability explainer through the contract, on a real data directory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { closeDataDirs, closeKeeping, dataDirService, ok } from '../../sim/test-support/data-dir.js';

const service = (dir?: string) => dataDirService(dir === undefined ? {} : { dir });
afterEach(closeDataDirs);

describe('config profiles through the contract', () => {
  it('lists the built-in profiles with a durability summary each', async () => {
    const { s } = service();
    const list = await ok(s.call('profiles.list', {}));
    expect(list.map((p) => p.name).sort()).toEqual(['balanced', 'durability', 'throughput']);
    for (const p of list) {
      expect(p.builtIn).toBe(true);
      expect(p.durability.length).toBeGreaterThan(10);
    }
    // The durability profile (RF 3, min ISR 2, acks=all) beside a majority quorum with the same guarantee.
    const durability = list.find((p) => p.name === 'durability')!;
    expect([durability.quorum.failuresTolerated, durability.quorum.isr.replicas, durability.quorum.majority.replicas]).toEqual([2, 3, 5]);
  });

  it("cites Kafka's documentation and KIPs, never our internal documents, in every exported file of the built-in profiles", async () => {
    const { s } = service();
    for (const name of ['balanced', 'durability', 'throughput']) {
      const files = await ok(s.call('profiles.export', { name }));
      expect(files.length).toBeGreaterThan(1);
      for (const f of files) expect(f.contents, `${name}: ${f.filename}`).not.toMatch(/\bseed\b|§|semantics|design doc/i);
    }
    const [durability] = await ok(s.call('profiles.export', { name: 'durability', formats: ['profile'] }));
    expect(durability!.contents).toContain('KIP-966');
  });

  it('an exported profile imports back to an identical profile, and survives a restart', async () => {
    const first = service();
    const { s, dir } = first;
    const [file] = await ok(s.call('profiles.export', { name: 'durability', formats: ['profile'] }));
    const original = JSON.parse(file!.contents) as { name: string };
    original.name = 'my-durability';
    const text = JSON.stringify(original, null, 2);
    const imported = await ok(s.call('profiles.import', { json: text }));
    expect(imported.name).toBe('my-durability');
    const [again] = await ok(s.call('profiles.export', { name: 'my-durability', formats: ['profile'] }));
    expect(JSON.parse(again!.contents)).toEqual(original);
    const files = await ok(s.call('profiles.export', { name: 'my-durability' }));
    expect(files.map((f) => f.filename)).toEqual(expect.arrayContaining(['server-1.properties', 'producer.properties', 'consumer.properties']));
    expect(files.find((f) => f.filename === 'producer.properties')!.contents).toMatch(/^acks=all$/m);
    s.sim.engine.shutdown();
    s.sim.waitFor(() => s.sim.engine.isShutDown(), 60_000, 'shutdown');
    closeKeeping(first);
    const { s: reopened } = service(dir);
    expect((await ok(reopened.call('profiles.list', {}))).map((p) => p.name)).toContain('my-durability');
  });

  it('refuses an invalid profile, naming every bad field', async () => {
    const { s } = service();
    const r = await s.call('profiles.import', {
      json: JSON.stringify({ version: 1, name: 'bad', cluster: { brokers: 3 }, brokerConfigs: { 'min.insync.replicas': '0' }, topicDefaults: { partitions: 1, replicationFactor: 3, configs: {} }, producer: { acks: '2' }, consumer: {} }),
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('INVALID_INPUT');
    expect(r.error.message).toContain('brokerConfigs["min.insync.replicas"]');
    expect(r.error.message).toContain('producer.acks');
  });

  it('diffs a profile against the live cluster, plans a dry run, then applies it: the cluster gets the configs it names', async () => {
    const { s } = service();
    const before = await ok(s.call('profiles.diff', { from: 'balanced' }));
    expect(before.some((c) => c.key === 'min.insync.replicas')).toBe(true);
    const dry = await ok(s.call('profiles.apply', { name: 'balanced' }));
    expect(dry.applied).toBe(false);
    expect(dry.clusterConfigs).not.toBeNull();
    const configsBefore = await ok(s.call('configs.describe', { resource: { type: 'broker', name: '' } }));
    expect(configsBefore.find((c) => c.name === 'min.insync.replicas')!.value).toBe('1'); // the dry run changed nothing
    const applied = await ok(s.call('profiles.apply', { name: 'balanced', dryRun: false }));
    expect(applied.applied).toBe(true);
    const configsAfter = await ok(s.call('configs.describe', { resource: { type: 'broker', name: '' } }));
    for (const [key, value] of Object.entries(applied.clusterConfigs!.set)) {
      expect(configsAfter.find((c) => c.name === key)?.value, key).toBe(value);
    }
    const after = await ok(s.call('profiles.diff', { from: 'balanced' }));
    expect(after.filter((c) => c.section === 'brokerConfigs' && applied.clusterConfigs!.set[c.key] !== undefined)).toEqual([]);
    expect(await ok(s.call('profiles.diff', { from: 'balanced', to: 'throughput' }))).not.toEqual([]);
  });

  it('explains a topic’s durability from its RF, min.insync.replicas and the producer’s acks', async () => {
    const { s } = service();
    await ok(s.call('topics.create', { name: 'payments', partitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }));
    const d = await ok(s.call('topics.durability', { name: 'payments' }));
    expect(d).toMatchObject({ replicationFactor: 3, effectiveMinIsr: 2, acks: 'all' });
    expect(d.writes.brokerFailures).toBe(1);
    expect(d.acknowledgedWrites.brokerFailures).toBe(1);
    // Beside a majority quorum: the ISR survives 2 failures with 3 replicas; a quorum would need 5.
    expect(d.quorum).toMatchObject({ failuresTolerated: 2, isr: { replicas: 3, diskPerByte: 3, writeFailuresTolerated: 1 }, majority: { replicas: 5, copiesPerRecord: { min: 3, max: 3 }, diskPerByte: 5 } });
    // A new cluster runs with eligible leader replicas off (Kafka 4.0): the explainer says so.
    expect(d.eligibleLeaderReplicas).toMatchObject({ featureLevel: 0, partitions: [] });
    expect(d.eligibleLeaderReplicas.explanation).toContain('eligible.leader.replicas.version 0');
    const acks1 = await ok(s.call('topics.durability', { name: 'payments', acks: 1 }));
    expect(acks1.acknowledgedWrites.brokerFailures).toBe(0);
    expect(acks1.warnings.map((w) => w.code)).toContain('ACKS_NOT_ALL');
    // What-if: min.insync.replicas 3 on RF 3 would stop acks=all writes at the first failure; nothing changes.
    const stricter = await ok(s.call('topics.durability', { name: 'payments', set: { 'min.insync.replicas': '3' } }));
    expect(stricter).toMatchObject({ minInsyncReplicas: 3, effectiveMinIsr: 3 });
    expect(stricter.writes.brokerFailures).toBe(0);
    expect(stricter.acknowledgedWrites.brokerFailures).toBe(2);
    const inherited = await ok(s.call('topics.durability', { name: 'payments', set: { 'min.insync.replicas': null } }));
    expect(inherited.minInsyncReplicas).toBe(1);
    expect((await ok(s.call('topics.durability', { name: 'payments' }))).minInsyncReplicas).toBe(2);
  });
});
