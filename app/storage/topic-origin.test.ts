/**
 * A topic a client's request created keeps who created it across a reopen (the metadata records
 * and the snapshot both carry it), and the service shows it on the topic as the console reads it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiKey } from '../protocol/generated/index.js';
import { WireSim } from '../protocol/test-support/wire-sim.js';
import { Simulation } from '../sim/simulation.js';
import { serviceOver } from '../sim/virtual-service.js';
import { SqliteStorage } from './sqlite-storage.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function autoCreate(w: WireSim, topic: string, clientId: string): Promise<void> {
  const a = await w.request(2, ApiKey.Metadata, 8, { topics: [{ name: topic }], allowAutoTopicCreation: true }, { header: { clientId } });
  if (a.kind !== 'respond' || a.body.topics[0]!.errorCode !== 0) throw new Error(`not created: ${JSON.stringify(a)}`);
}

describe('the origin of an auto-created topic', () => {
  for (const snapshot of [false, true]) {
    it(`is kept across a reopen ${snapshot ? 'from a snapshot' : 'from the metadata records'}, and topics.list / topics.describe show it`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'topic-origin-'));
      dirs.push(dir);
      let storage = SqliteStorage.open(dir);
      const w = new WireSim({ seed: 47, storage });
      await storage.batch(() => autoCreate(w, 'clicks', 'web-producer'));
      storage.batch(() => w.sim.createTopic('orders', 1, 3));
      if (snapshot) storage.batch(() => w.sim.internals.controller.takeSnapshot());
      const createdAt = w.sim.engine.metadata.topicsByName.get('clicks')!.createdBy!.atMs;
      storage.close();

      storage = SqliteStorage.open(dir);
      try {
        const sim = new Simulation({ seed: 47, storage });
        const s = serviceOver(sim, { seed: 47 });
        const list = await s.call('topics.list', {});
        if (!list.ok) throw new Error(list.error.message);
        const byName = new Map(list.value.map((t) => [t.name, t]));
        expect(byName.get('clicks')!.createdBy).toEqual({ api: 'Metadata', clientId: 'web-producer', brokerId: 2, atMs: createdAt });
        expect(byName.get('orders')!.createdBy).toBeUndefined();
        const d = await s.call('topics.describe', { name: 'clicks' });
        if (!d.ok) throw new Error(d.error.message);
        expect(d.value.createdBy).toMatchObject({ api: 'Metadata', clientId: 'web-producer' });
      } finally {
        storage.close();
      }
    });
  }
});
