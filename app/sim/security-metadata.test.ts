/**
 * ACL bindings, SCRAM credentials and client quotas are metadata like any other: every broker
 * applies them and authorizes from its own copy, they survive a controller failover (the new
 * controller has them and keeps changing them) and a reopen of the data directory, after an
 * orderly close or a crash, from records or from a snapshot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MATCH_ANY } from '../core/security/acl.js';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import { Simulation } from './simulation.js';

const STANDARD = { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users': 'User:admin' };
const alice = { principal: 'User:alice', clientHost: '127.0.0.1' };

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setUp(sim: Simulation): void {
  const results = sim.engine.security.createAcls([
    { resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'READ', permissionType: 'ALLOW' },
    { resourceType: 'GROUP', resourceName: 'app-', patternType: 'PREFIXED', principal: 'User:alice', host: '*', operation: 'ALL', permissionType: 'ALLOW' },
  ]);
  expect(results.map((r) => r.errorCode)).toEqual(['NONE', 'NONE']);
  sim.engine.security.alterScramCredentials([], [{ name: 'alice', mechanism: 'SCRAM-SHA-512', iterations: 8192, salt: 'c2FsdA==', storedKey: 'c3RvcmVk', serverKey: 'c2VydmVy' }]);
  sim.engine.security.alterClientQuotas([{ entity: { user: 'alice' }, ops: [{ key: 'producer_byte_rate', value: 1_048_576 }] }]);
}

/** What one broker (or the controller, without an id) holds of the security state. */
function view(sim: Simulation, brokerId?: number) {
  return {
    acls: sim.engine.security.describeAcls(MATCH_ANY, brokerId).map((b) => `${b.resourceType}:${b.patternType}:${b.resourceName}:${b.operation}`).sort(),
    scram: sim.engine.security.describeScramCredentials(null, brokerId),
    quotas: sim.engine.security.describeClientQuotas([], false, brokerId),
  };
}

describe('security state in the metadata log', () => {
  it('reaches every broker, which authorizes from its own copy', () => {
    const sim = new Simulation({ seed: 21, brokers: 3, staticConfigs: STANDARD });
    setUp(sim);
    sim.advance(2_000);
    const controller = view(sim);
    expect(controller.acls).toEqual(['GROUP:PREFIXED:app-:ALL', 'TOPIC:LITERAL:orders:READ']);
    for (const id of [1, 2, 3]) {
      expect(view(sim, id)).toEqual(controller);
      expect(sim.engine.security.authorizer(id).authorize(alice, 'READ', 'GROUP', 'app-billing')).toBe(true);
      expect(sim.engine.security.authorizer(id).authorize(alice, 'WRITE', 'TOPIC', 'orders')).toBe(false);
    }
  });

  it('survives a controller failover: the new controller has it and changes it, a broker that was down catches up', () => {
    const sim = new Simulation({ seed: 22, brokers: 3, staticConfigs: STANDARD });
    setUp(sim);
    sim.advance(2_000);
    const first = sim.engine.controllerId!;
    sim.engine.killBroker(first);
    sim.waitFor(() => sim.engine.controllerId !== null && sim.engine.controllerId !== first, 60_000, 'a new controller');
    expect(view(sim).acls).toHaveLength(2);
    sim.engine.security.createAcls([{ resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'WRITE', permissionType: 'DENY' }]);
    sim.engine.security.alterScramCredentials([{ name: 'alice', mechanism: 'SCRAM-SHA-512' }], []);
    sim.engine.startBroker(first);
    sim.waitFor(() => sim.engine.listBrokers().every((b) => b.state === 'running'), 60_000, 'every broker running');
    sim.advance(2_000);
    expect(view(sim, first)).toEqual(view(sim));
    expect(view(sim, first).acls).toEqual(['GROUP:PREFIXED:app-:ALL', 'TOPIC:LITERAL:orders:READ', 'TOPIC:LITERAL:orders:WRITE']);
    expect(view(sim, first).scram).toEqual([]);
    expect(sim.engine.security.authorizer(first).decide(alice, 'WRITE', 'TOPIC', 'orders').rule).toBe('deny-acl');
  });

  for (const close of ['orderly', 'crash'] as const) {
    it(`survives a reopen of the data directory after ${close === 'orderly' ? 'an orderly close (from the snapshot)' : 'a crash (from the records)'}`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'replica-security-'));
      dirs.push(dir);
      let storage = SqliteStorage.open(dir);
      let sim = new Simulation({ seed: 23, brokers: 3, storage, staticConfigs: STANDARD });
      setUp(sim);
      sim.advance(2_000);
      const before = view(sim);
      if (close === 'orderly') {
        sim.engine.shutdown();
        sim.waitFor(() => sim.engine.isShutDown(), 120_000, 'shutdown');
        sim.engine.snapshotMetadata();
      }
      storage.close();
      storage = SqliteStorage.open(dir);
      sim = new Simulation({ seed: 23, brokers: 3, storage, staticConfigs: STANDARD });
      sim.advance(2_000);
      expect(view(sim)).toEqual(before);
      for (const id of [1, 2, 3]) expect(view(sim, id)).toEqual(before);
      expect(sim.engine.security.authorizer(1).authorize(alice, 'READ', 'TOPIC', 'orders')).toBe(true);
      storage.close();
    });
  }
});
