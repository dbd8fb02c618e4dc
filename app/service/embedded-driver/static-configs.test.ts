/**
 * A cluster made from a profile runs with the profile's read-only broker configs as its
 * server.properties, from its first open and on every open after it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKey } from '../../protocol/generated/index.js';
import { WireSim } from '../../protocol/test-support/wire-sim.js';
import { closeDataDirs, closeKeeping, dataDirService } from '../../sim/test-support/data-dir.js';
import { SqliteStorage } from '../../storage/sqlite-storage.js';
import { clusterStaticConfigs, profileStaticConfigs, STATIC_CONFIGS_SETTING } from './static-configs.js';
import { builtInProfiles } from '../built-in-profiles.js';

afterEach(closeDataDirs);

describe('static broker configs from a profile', () => {
  it('the built-in profiles\' read-only broker configs, num.partitions and default.replication.factor from their topic defaults', () => {
    const profiles = builtInProfiles();
    expect(profileStaticConfigs(profiles.get('durability')!)).toEqual({ 'auto.create.topics.enable': 'false', 'num.partitions': '6', 'default.replication.factor': '3' });
    expect(profileStaticConfigs(profiles.get('balanced')!)).toEqual({ 'num.partitions': '6', 'default.replication.factor': '3' });
  });

  it('are kept with the cluster: a reopen without the profile runs with them, and the auto-creation they turn off stays off', async () => {
    const d = dataDirService();
    const durability = builtInProfiles().get('durability')!;
    expect(clusterStaticConfigs(d.storage.metadata(), { isNew: true, newProfile: durability })).toMatchObject({ 'auto.create.topics.enable': 'false' });
    expect(JSON.parse(d.storage.metadata().loadSettings()[STATIC_CONFIGS_SETTING]!)).toMatchObject({ 'auto.create.topics.enable': 'false' });
    closeKeeping(d);
    const storage = SqliteStorage.open(d.dir);
    try {
      // Reopened with no profile (an existing cluster): the kept configs, and a caller's on top.
      const statics = clusterStaticConfigs(storage.metadata(), { isNew: false }, { 'num.partitions': '2' });
      expect(statics).toEqual({ 'auto.create.topics.enable': 'false', 'num.partitions': '2', 'default.replication.factor': '3' });
      const w = new WireSim({ seed: 53, storage, staticConfigs: statics });
      const m = await w.respond(1, ApiKey.Metadata, 8, { topics: [{ name: 'typo' }], allowAutoTopicCreation: true });
      expect(m.topics[0]!.errorCode).toBe(3);
      expect(w.sim.engine.metadata.topicsByName.has('typo')).toBe(false);
    } finally {
      storage.close();
    }
  });
});
