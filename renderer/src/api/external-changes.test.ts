/**
 * Changes to an external cluster wait for a confirmation naming it; reads, previews and the
 * host's own cluster do not. Run through the real client on a recording transport.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Result } from '../../../app/api/contract.js';
import { setActiveConnection } from './active-connection.js';
import { ClientError, createClient } from './client.js';
import { describeChange, setExternalConfirmer } from './external-changes.js';
import type { Transport } from './transport.js';

function recording() {
  const sent: { method: string; input: unknown }[] = [];
  const transport: Transport = {
    kind: 'http',
    call: async (method, input) => {
      sent.push({ method, input });
      return { ok: true, value: {} } as Result<never>;
    },
    subscribe: () => () => {},
    onStatus: () => () => {},
    close: () => {},
  };
  return { sent, client: createClient(transport) };
}

const store = new Map<string, string>();
beforeEach(() => {
  store.clear();
  (globalThis as { sessionStorage?: unknown }).sessionStorage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) };
});
afterEach(() => {
  setExternalConfirmer(undefined);
  delete (globalThis as { sessionStorage?: unknown }).sessionStorage;
});

describe('changes to an external cluster', () => {
  it('ask first, naming the cluster, its bootstrap servers and the change; a no sends nothing and fails CANCELLED', async () => {
    const asked: string[] = [];
    let answer = false;
    setExternalConfirmer(async ({ connection, change }) => {
      asked.push(`${connection.name} ${connection.bootstrap} ${change}`);
      return answer;
    });
    setActiveConnection({ id: 'c1', name: 'prod', kind: 'external', bootstrap: 'kafka-1:9092,kafka-2:9092' });
    const { sent, client } = recording();
    const declined = await client.call('topics.delete', { name: 'orders' }).catch((e: unknown) => e);
    expect(declined).toBeInstanceOf(ClientError);
    expect((declined as ClientError).code).toBe('CANCELLED');
    expect(sent).toEqual([]);
    answer = true;
    await client.call('groups.delete', { groupId: 'billing' });
    expect(sent).toEqual([{ method: 'groups.delete', input: { groupId: 'billing', connection: 'c1' } }]);
    expect(asked).toEqual(['prod kafka-1:9092,kafka-2:9092 delete topic orders', 'prod kafka-1:9092,kafka-2:9092 delete group billing']);
    expect((await client.result('topics.delete', { name: 'x' })).ok).toBe(true);
  });

  it('do not ask for reads, previews, or on the host’s own or a local cluster', async () => {
    let asked = 0;
    setExternalConfirmer(async () => (asked++, true));
    const { sent, client } = recording();
    setActiveConnection({ id: 'c1', name: 'prod', kind: 'external', bootstrap: 'k:9092' });
    await client.call('topics.list', {});
    await client.call('topics.create', { name: 't', partitions: 1, replicationFactor: 1, validateOnly: true });
    await client.call('groups.resetOffsets', { groupId: 'g', to: { earliest: true } });
    await client.call('profiles.apply', { name: 'durability', dryRun: true });
    expect(asked).toBe(0);
    setActiveConnection({ id: 'l2', name: 'second local', kind: 'local' });
    await client.call('topics.delete', { name: 'orders' });
    setActiveConnection(null);
    await client.call('topics.delete', { name: 'orders' });
    expect(asked).toBe(0);
    expect(sent).toHaveLength(6);
  });

  it('cover every changing action the console offers, each said in words', () => {
    const cases: [Parameters<typeof describeChange>[0], unknown, string][] = [
      ['topics.create', { name: 'orders' }, 'create topic orders'],
      ['topics.deleteMany', { names: ['a', 'b'] }, 'delete 2 topics'],
      ['partitions.add', { topic: 'orders', totalCount: 6 }, 'grow orders to 6 partitions'],
      ['topics.setReplicationFactor', { topic: 'orders', replicationFactor: 3 }, 'change the replication factor of orders to 3'],
      ['configs.alter', { resource: { type: 'topic', name: 'orders' }, set: { 'retention.ms': '1' } }, 'change retention.ms of topic orders'],
      ['configs.alter', { resource: { type: 'broker', name: '' }, set: { 'min.insync.replicas': '2' } }, 'change min.insync.replicas of every broker (cluster-wide default)'],
      ['reassignments.execute', { partitions: [{}, {}, {}] }, 'move the replicas of 3 partitions'],
      ['reassignments.cancel', {}, 'cancel every reassignment'],
      ['leaders.elect', { type: 'preferred' }, 'run preferred leader elections'],
      ['groups.resetOffsets', { groupId: 'g', dryRun: false }, 'reset the committed offsets of group g'],
      ['profiles.apply', { name: 'durability', dryRun: false }, 'apply profile durability'],
      ['records.delete', { partitions: [{}] }, 'delete records of 1 partition'],
      ['cluster.updateFeatures', { updates: [{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 1 }] }, 'set feature eligible.leader.replicas.version=1'],
    ];
    expect(describeChange('cluster.updateFeatures', { updates: [{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 1 }], validateOnly: true })).toBeNull();
    for (const [method, input, said] of cases) expect(describeChange(method, input)).toBe(said);
  });
});
