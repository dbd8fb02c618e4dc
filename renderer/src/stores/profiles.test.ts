import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProfileView } from '../../../app/api/contract.js';
import { ClientError } from '../api/client.js';
import { startStoreHost, type StoreHost } from '../test-support/store-host.js';
import { useProfilesStore } from './profiles.js';

describe('profiles store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lists the built-in durability, balanced and throughput profiles with their durability summary', async () => {
    const store = useProfilesStore();
    await store.refresh();
    expect(store.error).toBeNull();
    const builtIn = store.list.filter((p) => p.builtIn).map((p) => p.name);
    expect(builtIn).toEqual(expect.arrayContaining(['durability', 'balanced', 'throughput']));
    expect(store.list.find((p) => p.name === 'durability')?.durability).toMatch(/min ISR 2/);
  });

  it('opens a profile with its settings and the rationale for each', async () => {
    const store = useProfilesStore();
    await store.select('durability');
    expect(store.profile?.brokerConfigs['min.insync.replicas']).toBe('2');
    expect(store.profile?.notes['brokerConfigs.min.insync.replicas']).toBeTruthy();
    await store.select('no-such-profile');
    expect((store.profileError as ClientError).code).toBe('INVALID_INPUT');
  });

  it('exports every format: profile JSON, a server.properties per broker, CLI commands and client properties', async () => {
    const store = useProfilesStore();
    const files = await store.exportFiles('balanced', ['profile', 'server-properties', 'topic-commands', 'client-properties'], 'kafka-1:9092');
    const names = files.map((f) => f.filename);
    expect(names).toEqual(expect.arrayContaining(['balanced.profile.json', 'server-1.properties', 'server-3.properties', 'producer.properties', 'consumer.properties']));
    expect((JSON.parse(files.find((f) => f.filename.endsWith('.json'))!.contents) as ProfileView).name).toBe('balanced');
    expect(files.find((f) => f.filename === 'producer.properties')!.contents).toContain('bootstrap.servers=kafka-1:9092');
    expect(files.some((f) => f.contents.includes('kafka-topics.sh'))).toBe(true);
  });

  it('imports an exported profile under a new name, then refuses to replace it without overwrite', async () => {
    const store = useProfilesStore();
    const [file] = await store.exportFiles('durability', ['profile']);
    const copy = JSON.stringify({ ...(JSON.parse(file!.contents) as ProfileView), name: 'durability-copy' });
    expect(store.importTarget(copy)).toEqual({ name: 'durability-copy', exists: false, builtIn: false });
    const r = await store.importProfile(copy);
    expect(r).toMatchObject({ ok: true, name: 'durability-copy' });
    expect(store.list.find((p) => p.name === 'durability-copy')?.builtIn).toBe(false);
    expect(store.importTarget(copy).exists).toBe(true);
    const again = await store.importProfile(copy);
    expect(again).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect(await store.importProfile(copy, true)).toMatchObject({ ok: true });
    expect(store.importTarget(file!.contents)).toMatchObject({ name: 'durability', builtIn: true, exists: false });
    expect((await store.importProfile(file!.contents)).ok).toBe(false);
  });

  it('names every invalid field of a refused import', async () => {
    const store = useProfilesStore();
    const bad = JSON.stringify({ version: 1, name: 'bad', cluster: { brokers: 3 }, brokerConfigs: { 'min.insync.replicas': '0' }, topicDefaults: { partitions: 1, replicationFactor: 3, configs: {} }, producer: { acks: '2' }, consumer: {} });
    const r = await store.importProfile(bad);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['brokerConfigs["min.insync.replicas"]', 'producer.acks']));
    const notJson = await store.importProfile('{ nope');
    expect(notJson.ok ? [] : notJson.issues.map((i) => i.path)).toEqual(['(root)']);
    expect(store.importTarget('{ nope').name).toBeNull();
  });

  it('diffs a profile against its copy (no differences), another profile and the live cluster', async () => {
    const store = useProfilesStore();
    expect((await store.compare('durability-copy', 'durability'))?.changes).toEqual([]);
    const vsThroughput = await store.compare('durability', 'throughput');
    expect(vsThroughput?.changes.find((c) => c.key === 'unclean.leader.election.enable' && c.section === 'brokerConfigs')).toMatchObject({ from: 'false', to: 'true', kind: 'changed' });
    const live = await store.compare('durability', null);
    expect(live?.to).toBeNull();
    expect(live?.changes.find((c) => c.path === 'cluster.brokers')).toMatchObject({ from: '3', to: '6' });
  });

  it('plans an apply as a dry run that changes nothing, then applies it for real', async () => {
    const store = useProfilesStore();
    const minIsr = async () => (await h.client.call('configs.describe', { resource: { type: 'broker', name: '' } })).find((c) => c.name === 'min.insync.replicas')!;
    const dry = await store.planApply('balanced', false);
    expect(dry).toMatchObject({ applied: false, upToDate: false });
    expect(dry?.clusterConfigs?.changes.find((c) => c.key === 'min.insync.replicas')).toMatchObject({ from: '1', to: '2' });
    expect((await minIsr()).value).toBe('1');
    const done = await store.apply('balanced', false);
    expect(done?.applied).toBe(true);
    expect(await minIsr()).toMatchObject({ value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect((await store.planApply('balanced', false))?.clusterConfigs).toBeNull();
  });
});
