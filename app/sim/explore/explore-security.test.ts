import { describe, expect, it } from 'vitest';
import { explore, replay } from './explorer.js';
import type { ExploreScope } from './world.js';

/** RF 2, no records: the partition stays put while ACLs, credentials, a snapshot and a failover move around it. */
const SECURITY: ExploreScope = { brokers: 2, records: 0, faults: 2, minInsyncReplicas: 1, uncleanLeaderElectionEnable: false, security: true };

describe('exhaustive exploration of ACL and SCRAM metadata', () => {
  it('holds every invariant on every path of 3 moves (ACL and credential changes, a snapshot, a controller failover, kills and restarts)', () => {
    const r = explore({ ...SECURITY, depth: 3 });
    expect(r.violations).toEqual([]);
    expect(r.complete).toBe(true);
    expect(r.states).toBeGreaterThan(300);
  }, 120_000);

  it('a broker restarted after the snapshot loads the binding and the credential from it, and authorizes by them', () => {
    const { world, checker } = replay(SECURITY, ['acl +', 'user +', 'snapshot', 'kill 2', 'restart 2', 'time +1s']);
    expect(checker.violations).toEqual([]);
    const b2 = world.sim.internals.brokers.get(2)!;
    expect(b2.process).toBe('running');
    const snapshot = world.sim.internals.controller.latestSnapshot()!;
    expect(snapshot.acls).toHaveLength(1);
    // A broker starting from nothing is behind the records kept, so it loaded the snapshot (broker-lifecycle.ts).
    expect(world.sim.internals.controller.records(0)[0]!.offset).toBeGreaterThan(0);
    expect(world.sim.engine.security.authorizer(2).authorize({ principal: 'User:alice', clientHost: '127.0.0.1' }, 'READ', 'TOPIC', 't')).toBe(true);
    expect(world.sim.engine.security.scramCredential(2, 'alice', 'SCRAM-SHA-256')?.salt).toBe(btoa('salt-1'));
  });

  it('across a controller failover, the new controller commits a deletion every broker applies', () => {
    const { world, checker } = replay(SECURITY, ['acl +', 'failover', 'time +1s', 'acl -', 'time +1s', 'time +1s']);
    expect(checker.violations).toEqual([]);
    expect(world.sim.engine.controllerId).not.toBe(0);
    for (const id of [1, 2]) expect(world.sim.engine.security.authorizer(id).authorize({ principal: 'User:alice', clientHost: '127.0.0.1' }, 'READ', 'TOPIC', 't')).toBe(false);
    expect(world.security!.history.map((h) => h.state.acls.length)).toEqual([0, 1, 0]);
  });

  it('reports a broker whose ACLs or credential differ from what the controller committed by its offset', () => {
    const { world, checker } = replay(SECURITY, ['acl +', 'user +', 'time +1s']);
    expect(checker.violations).toEqual([]);
    // Drop the binding from broker 1's image behind the engine's back: the checker must notice.
    const image = world.sim.internals.brokers.get(1)!.image;
    image.acls.clear();
    image.securityVersion++;
    checker.check();
    expect(checker.violations.join('\n')).toMatch(/broker 1 at metadata offset \d+ holds ACLs \[\]/);
    expect(checker.violations.join('\n')).toMatch(/broker 1's authorizer denies User:alice READ on topic t/);
  });
});
