import { describe, expect, it } from 'vitest';
import { diffProfileLive, diffProfiles, planApply } from './diff.js';
import type { LiveCluster } from './types.js';
import { sampleProfile } from './test-support/profiles.js';

const brief = (changes: ReturnType<typeof diffProfiles>) =>
  changes.map((c) => `${c.topic !== undefined ? `${c.topic} ` : ''}${c.kind} ${c.path}: ${c.from ?? '∅'} → ${c.to ?? '∅'}`);

describe('diffProfiles', () => {
  it('lists changed, added and removed settings with old and new values, section by section', () => {
    const a = sampleProfile();
    const b = sampleProfile({
      cluster: { brokers: 4, racks: ['r1', 'r2', 'r3', 'r4'] },
      brokerConfigs: { 'min.insync.replicas': '1', 'num.replica.fetchers': '2', 'unclean.leader.election.enable': 'false' },
      topicDefaults: { partitions: 12, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
      producer: { acks: 'all', 'enable.idempotence': 'true', 'linger.ms': '50' },
      consumer: {},
    });
    expect(brief(diffProfiles(a, b))).toEqual([
      'changed cluster.brokers: 3 → 4',
      'changed cluster.racks: 1: r1, 2: r2, 3: r3 → 1: r1, 2: r2, 3: r3, 4: r4',
      'changed brokerConfigs["min.insync.replicas"]: 2 → 1',
      'added brokerConfigs["num.replica.fetchers"]: ∅ → 2',
      'changed topicDefaults.partitions: 6 → 12',
      'removed topicDefaults.configs["retention.ms"]: 86400000 → ∅',
      'changed producer["linger.ms"]: 10 → 50',
      'removed consumer["isolation.level"]: read_committed → ∅',
    ]);
  });

  it('compares values as Kafka reads them and racks as brokers get them', () => {
    const a = sampleProfile({ cluster: { brokers: 3, racks: 3 } });
    const b = sampleProfile({
      cluster: { brokers: 3, racks: ['rack-1', 'rack-2', 'rack-3'] },
      brokerConfigs: { 'min.insync.replicas': ' +2', 'unclean.leader.election.enable': 'FALSE' },
    });
    expect(diffProfiles(a, b)).toEqual([]);
    expect(diffProfiles(a, a)).toEqual([]);
  });
});

const live = (patch: Partial<LiveCluster> = {}): LiveCluster => ({
  clusterConfigs: {},
  features: {},
  brokerCount: 3,
  racks: ['r1', 'r2', 'r3'],
  topics: [],
  ...patch,
});

describe('diffProfileLive', () => {
  it('compares against Kafka defaults where the live cluster sets nothing, and lists live-only overrides as removed', () => {
    const profile = sampleProfile();
    const changes = diffProfileLive(profile, live({ clusterConfigs: { 'log.retention.ms': '1000', 'unclean.leader.election.enable': 'false' } }));
    expect(brief(changes)).toEqual([
      'added brokerConfigs["default.replication.factor"]: 1 → 3',
      'removed brokerConfigs["log.retention.ms"]: 1000 → ∅',
      'added brokerConfigs["min.insync.replicas"]: 1 → 2',
      'added brokerConfigs["num.partitions"]: 1 → 6',
    ]);
  });

  it('shows each existing topic whose effective configs or replication factor differ; internal topics are left out', () => {
    const profile = sampleProfile();
    const changes = diffProfileLive(
      profile,
      live({
        brokerCount: 2,
        racks: [null, null],
        clusterConfigs: { 'min.insync.replicas': '2', 'default.replication.factor': '3', 'num.partitions': '6' },
        topics: [
          { name: 'orders', configs: { 'retention.ms': '86400000' }, partitions: 6, replicationFactor: 3 },
          { name: 'logs', configs: { 'min.insync.replicas': '1' }, partitions: 2, replicationFactor: 1 },
          { name: '__consumer_offsets', configs: {}, partitions: 50, replicationFactor: 1 },
        ],
      }),
    );
    expect(brief(changes)).toEqual([
      'changed cluster.brokers: 2 → 3',
      'added cluster.racks: ∅ → 1: r1, 2: r2, 3: r3',
      'logs changed topicDefaults.replicationFactor: 1 → 3',
      'logs changed topicDefaults.partitions: 2 → 6',
      'logs changed topicDefaults.configs["min.insync.replicas"]: 1 → 2',
      'logs added topicDefaults.configs["retention.ms"]: 604800000 → 86400000',
    ]);
  });

  it('names each broker with its rack (or none), and flags fewer partitions than a topic has as impossible in Kafka', () => {
    const profile = sampleProfile({ cluster: { brokers: 4, racks: ['rack-a', 'rack-b', 'rack-c', 'rack-a'] } });
    const changes = diffProfileLive(
      profile,
      live({ brokerCount: 4, racks: ['rack-a', 'rack-b', 'rack-c', null], topics: [{ name: 'big', configs: {}, partitions: 12, replicationFactor: 3 }] }),
    );
    expect(changes.find((c) => c.key === 'racks')).toMatchObject({ from: '1: rack-a, 2: rack-b, 3: rack-c, 4: no rack', to: '1: rack-a, 2: rack-b, 3: rack-c, 4: rack-a' });
    const shrink = changes.find((c) => c.key === 'partitions' && c.topic === 'big')!;
    expect(shrink).toMatchObject({ from: '12', to: '6', impossible: true });
    expect(shrink.note).toContain('Kafka cannot remove partitions');
  });
});

describe('planApply', () => {
  it('sets dynamic broker configs on the cluster default, flags read-only ones for a restart and shape changes as manual', () => {
    const profile = sampleProfile({ brokerConfigs: { 'min.insync.replicas': '2', 'auto.create.topics.enable': 'false' } });
    const plan = planApply(profile, live({ brokerCount: 2, racks: ['r1', null] }));
    expect(plan.clusterConfigs).toEqual({
      resource: { type: 'broker', name: '' },
      set: { 'min.insync.replicas': '2' },
      changes: [{ key: 'min.insync.replicas', from: '1', to: '2', updateMode: 'cluster-wide' }],
    });
    expect(plan.restartRequired.map((c) => `${c.key}: ${c.from} → ${c.to}`)).toEqual([
      'auto.create.topics.enable: true → false',
      'default.replication.factor: 1 → 3',
      'num.partitions: 1 → 6',
    ]);
    expect(plan.manual).toEqual([
      'The profile has 3 brokers and the cluster 2: add 1 (configs cannot change the broker count).',
      'broker.rack is read-only, so these brokers need it set in server.properties and a restart: broker 2: no rack → r2.',
    ]);
    expect(plan.topics).toEqual([]);
    expect(plan.upToDate).toBe(false);
  });

  it('judges existing topics against the cluster configs as they will be after the change', () => {
    const profile = sampleProfile();
    const plan = planApply(
      profile,
      live({
        topics: [
          { name: 'orders', configs: {}, partitions: 6, replicationFactor: 3 },
          { name: 'audit', configs: { 'min.insync.replicas': '1', 'retention.ms': '86400000' }, partitions: 6, replicationFactor: 2 },
        ],
      }),
      { includeExistingTopics: true },
    );
    // orders inherits min.insync.replicas=2 from the new cluster default, so only retention.ms is set on it.
    expect(plan.topics).toEqual([
      {
        resource: { type: 'topic', name: 'audit' },
        set: { 'min.insync.replicas': '2' },
        changes: [{ key: 'min.insync.replicas', from: '1', to: '2' }],
      },
      {
        resource: { type: 'topic', name: 'orders' },
        set: { 'retention.ms': '86400000' },
        changes: [{ key: 'retention.ms', from: '604800000', to: '86400000' }],
      },
    ]);
    expect(plan.manual).toEqual(['Topic audit has replication factor 2, the profile 3: raise it with a reassignment (configs cannot change it).']);
  });

  it('deletes unlisted cluster overrides only when asked, and is up to date when nothing differs', () => {
    const profile = sampleProfile({ brokerConfigs: { 'min.insync.replicas': '2' } });
    const matching = live({
      clusterConfigs: { 'min.insync.replicas': '2', 'default.replication.factor': '3', 'num.partitions': '6', 'log.retention.ms': '1000' },
    });
    expect(planApply(profile, matching).upToDate).toBe(true);
    const plan = planApply(profile, matching, { removeUnlisted: true });
    expect(plan.clusterConfigs?.set).toEqual({ 'log.retention.ms': null });
    expect(plan.clusterConfigs?.changes).toEqual([{ key: 'log.retention.ms', from: '1000', to: null, updateMode: 'cluster-wide' }]);
  });

  it('plans feature levels as UpdateFeatures entries: an upgrade, or a safe downgrade', () => {
    const profile = sampleProfile({ features: { 'eligible.leader.replicas.version': 1 } });
    expect(diffProfileLive(profile, live({ features: {} })).filter((c) => c.section === 'features')).toEqual([
      { section: 'features', key: 'eligible.leader.replicas.version', path: 'features["eligible.leader.replicas.version"]', kind: 'changed', from: '0', to: '1' },
    ]);
    expect(planApply(profile, live()).features).toEqual([{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 1, upgradeType: 'upgrade', from: 0 }]);
    const off = sampleProfile({ features: { 'eligible.leader.replicas.version': 0 } });
    expect(planApply(off, live({ features: { 'eligible.leader.replicas.version': 1 } })).features).toEqual([
      { feature: 'eligible.leader.replicas.version', maxVersionLevel: 0, upgradeType: 'safe-downgrade', from: 1 },
    ]);
    expect(planApply(profile, live({ features: { 'eligible.leader.replicas.version': 1 } })).features).toEqual([]);
    expect(diffProfiles(sampleProfile(), profile).map((c) => [c.section, c.kind, c.to])).toEqual([['features', 'added', '1']]);
  });
});
