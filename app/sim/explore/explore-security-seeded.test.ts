/**
 * A seeded bug the security scope must find on its own: brokers that drop the ACL bindings of a
 * metadata snapshot they load (the controller never loads one here; it is not restarted).
 */
import { describe, expect, it, vi } from 'vitest';
import type { ImageSnapshot } from '../../core/metadata/snapshot.js';
import { explore } from './explorer.js';

vi.mock('../../core/metadata/snapshot.js', async (original) => {
  const real = await original<typeof import('../../core/metadata/snapshot.js')>();
  return { ...real, loadSnapshot: (image: Parameters<typeof real.loadSnapshot>[0], snap: ImageSnapshot) => real.loadSnapshot(image, { ...snap, acls: [] }) };
});

describe('the explorer against a broker that drops ACL bindings on snapshot load', () => {
  it('finds the path: a binding, a snapshot, a broker restarted that loads it', () => {
    const r = explore({ brokers: 2, records: 0, faults: 2, minInsyncReplicas: 1, uncleanLeaderElectionEnable: false, security: true, depth: 5, bail: true });
    expect(r.violations).toHaveLength(1);
    const [found] = r.violations;
    expect(found!.trace).toContain('snapshot');
    expect(found!.trace.some((m) => m.startsWith('restart '))).toBe(true);
    expect(found!.messages.join('\n')).toMatch(/holds ACLs \[\].*the controller committed ACLs \[\(principal=User:alice, host=\*, operation=READ, permissionType=ALLOW\) on TOPIC:LITERAL:t\]/);
  }, 300_000);
});
