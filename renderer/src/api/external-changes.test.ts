/**
 * Changes to an external cluster wait for a confirmation naming it; reads, previews and the
 * host's own cluster do not. Run through the real client on a recording transport.
 */
import { createPinia, setActivePinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MethodName, Result } from '../../../app/api/contract.js';
import { setActiveConnection } from './active-connection.js';
import { ClientError, createClient } from './client.js';
import { confirmedOnPage, describeChange, externalTarget, setExternalConfirmer } from './external-changes.js';
import { setClient } from './instance.js';
import { useConfigsStore } from '../stores/configs.js';
import { useGroupsStore } from '../stores/groups.js';
import { useLeadersStore } from '../stores/leaders.js';
import { useProfilesStore } from '../stores/profiles.js';
import { useReassignmentsStore } from '../stores/reassignments.js';
import { useTopicPageStore } from '../stores/topic-page.js';
import { useTopicsStore } from '../stores/topics.js';
import type { Transport } from './transport.js';

/** Methods whose answer is a list (the stores read it as one). */
const LISTS = new Set(['topics.deleteMany', 'topics.list', 'reassignments.execute', 'reassignments.cancel', 'reassignments.list', 'leaders.elect', 'groups.list', 'configs.alter', 'configs.describe', 'records.delete', 'brokers.list']);

function recording() {
  const sent: { method: string; input: unknown }[] = [];
  const transport: Transport = {
    kind: 'http',
    call: async (method, input) => {
      sent.push({ method, input });
      return { ok: true, value: LISTS.has(method) ? [] : {} } as Result<never>;
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
      ['configs.alter', { resource: { type: 'topic', name: 'orders' }, set: { 'retention.ms': null } }, 'reset retention.ms of topic orders'],
      ['reassignments.execute', { partitions: [{}, {}, {}] }, 'move the replicas of 3 partitions'],
      ['reassignments.cancel', {}, 'cancel every reassignment'],
      ['leaders.elect', { type: 'preferred' }, 'run preferred leader elections'],
      ['groups.resetOffsets', { groupId: 'g', dryRun: false }, 'reset the committed offsets of group g'],
      ['profiles.apply', { name: 'durability', dryRun: false }, 'apply profile durability'],
      ['records.delete', { partitions: [{}] }, 'delete records of 1 partition'],
      ['cluster.updateFeatures', { updates: [{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 1 }] }, 'set feature eligible.leader.replicas.version=1'],
      ['transactions.abort', { topic: 'payments', partition: 1, startOffset: 3, dryRun: false }, 'abort a transaction on payments-1 (an ABORT marker)'],
    ];
    expect(describeChange('transactions.abort', { topic: 'payments', partition: 1, startOffset: 3 })).toBeNull();
    expect(describeChange('cluster.updateFeatures', { updates: [{ feature: 'eligible.leader.replicas.version', maxVersionLevel: 1 }], validateOnly: true })).toBeNull();
    for (const [method, input, said] of cases) expect(describeChange(method, input)).toBe(said);
  });
});

describe('a page that names the external cluster in its own confirmation', () => {
  const prod = { id: 'c1', name: 'prod', kind: 'external' as const, bootstrap: 'kafka-1:9092' };

  it('is the one dialog: the client does not ask again for the methods it confirmed, on that connection', async () => {
    const asked: string[] = [];
    setExternalConfirmer(async ({ change }) => (asked.push(change), true));
    setActiveConnection(prod);
    const { sent, client } = recording();
    expect(externalTarget()).toEqual(prod);
    await confirmedOnPage(externalTarget(), ['topics.delete'], () => client.call('topics.delete', { name: 'orders' }));
    expect(asked).toEqual([]);
    expect(sent).toEqual([{ method: 'topics.delete', input: { name: 'orders', connection: 'c1' } }]);
    // The pass ends with the call: the next change asks again.
    await client.call('topics.delete', { name: 'payments' });
    expect(asked).toEqual(['delete topic payments']);
  });

  it('cannot let a change through unnamed: another method, a call after an await, or another connection still ask', async () => {
    const asked: string[] = [];
    setExternalConfirmer(async ({ connection, change }) => (asked.push(`${connection.name}: ${change}`), true));
    setActiveConnection(prod);
    const { client } = recording();
    await confirmedOnPage(prod, ['topics.delete'], () => client.call('groups.delete', { groupId: 'billing' }));
    await confirmedOnPage(prod, ['topics.delete'], async () => {
      await client.call('topics.list', {});
      await client.call('topics.delete', { name: 'late' });
    });
    const staging = { id: 'c2', name: 'staging', kind: 'external' as const, bootstrap: 'stg:9092' };
    await confirmedOnPage(prod, ['topics.delete'], () => {
      setActiveConnection(staging); // the window switched after the page named prod
      return client.call('topics.delete', { name: 'orders' });
    });
    expect(asked).toEqual(['prod: delete group billing', 'prod: delete topic late', 'staging: delete topic orders']);
  });

  it('names nothing and changes nothing on the host’s own or a local cluster', async () => {
    expect(externalTarget()).toBeNull();
    setActiveConnection({ id: 'l2', name: 'second local', kind: 'local' });
    expect(externalTarget()).toBeNull();
  });

  it('the topics store’s bulk delete sends its change before any await, so the page’s pass covers it', async () => {
    const asked: string[] = [];
    setExternalConfirmer(async ({ change }) => (asked.push(change), true));
    setActiveConnection(prod);
    const { sent, client } = recording();
    setClient(client);
    setActivePinia(createPinia());
    await confirmedOnPage(externalTarget(), ['topics.deleteMany'], () => useTopicsStore().deleteMany(['a', 'b']));
    expect(asked).toEqual([]);
    expect(sent[0]).toEqual({ method: 'topics.deleteMany', input: { names: ['a', 'b'], connection: 'c1' } });
  });
});

describe('every page dialog that names the external cluster: its store sends the change before any await, so the page’s pass covers it', () => {
  const prod = { id: 'c1', name: 'prod', kind: 'external' as const, bootstrap: 'kafka-1:9092' };
  interface Case {
    page: string;
    method: MethodName;
    /** Outside the pass, before each send: what the page has done before its dialog (reads only). */
    prepare?: () => Promise<unknown>;
    /** What the page's confirmation sends. */
    send: () => Promise<unknown>;
  }
  const cases: Case[] = [
    { page: 'Balance: Execute', method: 'reassignments.execute', send: () => useReassignmentsStore().execute([{ topic: 'orders', partition: 0, replicas: [1, 2, 3] }], 10_485_760) },
    { page: 'Balance: cancel one move', method: 'reassignments.cancel', send: () => useReassignmentsStore().cancel([{ topic: 'orders', partition: 0 }]) },
    { page: 'Balance: cancel all', method: 'reassignments.cancel', send: () => useReassignmentsStore().cancel() },
    { page: 'Leaders: preferred election', method: 'leaders.elect', send: () => useLeadersStore().elect([{ topic: 'orders', partition: 0 }]) },
    { page: 'Groups: delete', method: 'groups.delete', prepare: async () => useGroupsStore().select('billing'), send: () => useGroupsStore().deleteGroup() },
    { page: 'Profiles: apply', method: 'profiles.apply', send: () => useProfilesStore().apply('durability', false) },
    { page: 'Configs: apply a weakening value', method: 'configs.alter', prepare: () => useConfigsStore().select({ type: 'topic', name: 'orders' }), send: () => useConfigsStore().apply('min.insync.replicas', '1') },
    { page: 'Configs: reset', method: 'configs.alter', prepare: () => useConfigsStore().select({ type: 'broker', name: '' }), send: () => useConfigsStore().reset('log.retention.ms') },
    { page: 'Topic: delete a config override', method: 'configs.alter', prepare: () => useTopicPageStore().open('orders'), send: () => useTopicPageStore().alterConfig('retention.ms', null) },
    { page: 'Topic: add partitions', method: 'partitions.add', prepare: () => useTopicPageStore().open('orders'), send: () => useTopicPageStore().addPartitions(6) },
    { page: 'Topic: change the replication factor', method: 'topics.setReplicationFactor', prepare: () => useTopicPageStore().open('orders'), send: () => useTopicPageStore().changeReplicationFactor(3, false) },
    { page: 'Topics: create (the wizard’s review)', method: 'topics.create', send: () => useTopicsStore().create({ name: 'payments', partitions: 3, replicationFactor: 3 }) },
  ];

  for (const c of cases) {
    it(`${c.page}: asked once by the client without the pass, not at all inside it; sent to that connection either way`, async () => {
      const asked: string[] = [];
      setExternalConfirmer(async ({ change }) => (asked.push(change), true));
      setActiveConnection(prod);
      const { sent, client } = recording();
      setClient(client);
      setActivePinia(createPinia());
      await c.prepare?.();
      const changes = () => sent.filter((s) => s.method === c.method && describeChange(c.method, s.input) !== null);
      await c.send();
      expect(asked).toEqual([describeChange(c.method, changes()[0]!.input)]);
      await c.prepare?.();
      await confirmedOnPage(externalTarget(), [c.method], c.send);
      expect(asked).toHaveLength(1);
      expect(changes()).toHaveLength(2);
      for (const s of changes()) expect(s.input).toMatchObject({ connection: 'c1' });
    });
  }
});

describe('a change sent to another connection than the window’s (a twin’s plan executed on its source)', () => {
  it('asks naming that connection even from a local window, sends it there once confirmed, and nothing on a no', async () => {
    const asked: string[] = [];
    let answer = false;
    setExternalConfirmer(async ({ connection, change }) => {
      asked.push(`${connection.name} ${connection.bootstrap} ${change}`);
      return answer;
    });
    setActiveConnection({ id: 'twin', name: 'production twin', kind: 'local' });
    const { sent, client } = recording();
    const production = { id: 'prod', name: 'production', kind: 'external' as const, bootstrap: 'kafka-1:9092' };
    const plan = { partitions: [{ topic: 'orders', partition: 0, replicas: [1, 2] }], throttleBytesPerSec: 1000 };
    const declined = await client.callOn(production, 'reassignments.execute', plan).catch((e: unknown) => e);
    expect((declined as ClientError).code).toBe('CANCELLED');
    expect(sent).toEqual([]);
    answer = true;
    await client.callOn(production, 'reassignments.execute', plan);
    expect(asked).toEqual(['production kafka-1:9092 move the replicas of 1 partition', 'production kafka-1:9092 move the replicas of 1 partition']);
    expect(sent).toEqual([{ method: 'reassignments.execute', input: { ...plan, connection: 'prod' } }]);
    // A read on the other connection asks nothing.
    await client.callOn(production, 'reassignments.list', {});
    expect(asked).toHaveLength(2);
  });
});
