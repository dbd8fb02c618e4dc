import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientError } from '../api/client.js';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useBrokersStore } from './brokers.js';
import { useEventStreamStore } from './event-stream.js';

describe('brokers store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    // Broker sessions (9 s) and fetch rounds play out in engine time: run it 30× faster.
    await h.client.call('clock.setScale', { scale: 30 });
    useEventStreamStore().start();
    useBrokersStore().start();
    await until(() => useEventStreamStore().status === 'open');
  }, 90_000);
  afterAll(async () => {
    if (h) useBrokersStore().stop();
    await h?.close();
  }, 30_000);

  const state = (id: number) => useBrokersStore().byId.get(id)?.state;

  it('lists the three running brokers with the one that hosts the controller', async () => {
    const store = useBrokersStore();
    await until(() => store.brokers.length === 3 && store.brokers.every((b) => b.state === 'running'));
    expect(store.brokers.map((b) => b.id)).toEqual([1, 2, 3]);
    expect(store.controllerId).toBeTypeOf('number');
    expect(store.brokers.filter((b) => b.isController)).toHaveLength(1);
  });

  it('kills a broker and shows it killed at once, then restarts it and sees it running again', async () => {
    const store = useBrokersStore();
    const victim = store.brokers.find((b) => !b.isController)!.id;
    expect(await store.perform('kill', victim)).toBe(true);
    expect(state(victim)).toBe('killed');
    expect(store.pending[victim]).toBeUndefined();
    expect(await store.perform('start', victim)).toBe(true);
    await until(() => state(victim) === 'running');
  });

  it('refuses an action the state does not allow with Kafka’s error and keeps it for the page', async () => {
    const store = useBrokersStore();
    expect(await store.perform('start', 2)).toBe(false);
    const failure = store.lastFailure!;
    expect(failure).toMatchObject({ action: 'start', brokerId: 2 });
    expect(failure.error).toBeInstanceOf(ClientError);
    expect((failure.error as ClientError).code).toBe('INVALID_STATE');
    expect(state(2)).toBe('running');
  });

  it('controlled shutdown moves every leadership off the broker before it stops', async () => {
    const store = useBrokersStore();
    await h.client.call('topics.create', { name: 'orders', partitions: 6, replicationFactor: 3 });
    await until(() => store.brokers.every((b) => b.partitionCount === 6 && b.leaderCount > 0));
    expect(await store.perform('stop', 1)).toBe(true);
    await until(() => state(1) === 'stopped');
    expect(store.byId.get(1)!.leaderCount).toBe(0);
    expect(store.byId.get(2)!.leaderCount + store.byId.get(3)!.leaderCount).toBe(6);
    expect(await store.perform('start', 1)).toBe(true);
    await until(() => state(1) === 'running');
  });

  it('isolates and heals a broker, and stalls and resumes its fetchers, showing each flag', async () => {
    const store = useBrokersStore();
    expect(await store.perform('isolate', 3)).toBe(true);
    expect(store.byId.get(3)!.isolated).toBe(true);
    // Cut off, it misses its heartbeats and the controller fences it.
    await until(() => state(3) === 'fenced');
    expect(await store.perform('heal', 3)).toBe(true);
    expect(store.byId.get(3)!.isolated).toBe(false);
    await until(() => state(3) === 'running');

    expect(await store.perform('stall', 2)).toBe(true);
    expect(store.byId.get(2)).toMatchObject({ fetcherStalled: true, state: 'running' });
    expect(await store.perform('unstall', 2)).toBe(true);
    expect(store.byId.get(2)!.fetcherStalled).toBe(false);
  });

  it('adds a broker with a rack, and removes a broker only once it hosts no replicas', async () => {
    const store = useBrokersStore();
    const added = await store.add({ rack: 'rack-b' });
    expect(added).toMatchObject({ id: 4, rack: 'rack-b' });
    expect(store.byId.get(4)?.rack).toBe('rack-b');
    await until(() => state(4) === 'running');

    await h.client.call('topics.create', { name: 'on-four', assignments: [[4, 1]] });
    expect(await store.perform('stop', 4)).toBe(true);
    await until(() => state(4) === 'stopped');
    expect(await store.perform('remove', 4)).toBe(false);
    expect(store.lastFailure?.action).toBe('remove');
    expect((store.lastFailure?.error as ClientError).error.message).toMatch(/balance\.plan with excludeBrokers/);
    expect(store.byId.has(4)).toBe(true);

    const empty = await store.add({ id: 7, rack: null });
    expect(empty).toMatchObject({ id: 7, rack: null });
    expect(await store.perform('kill', 7)).toBe(true);
    expect(await store.perform('remove', 7)).toBe(true);
    expect(store.byId.has(7)).toBe(false);
    await store.refresh();
    expect(store.brokers.map((b) => b.id)).toEqual([1, 2, 3, 4]);
  });

  it('refuses a broker id that is taken', async () => {
    const store = useBrokersStore();
    expect(await store.add({ id: 2, rack: 'x' })).toBeNull();
    expect(store.lastFailure?.action).toBe('add');
    expect((store.lastFailure?.error as ClientError).code).toBe('INVALID_INPUT');
  });

  it('moves the controller badge to another broker when the controller’s broker is killed', async () => {
    const store = useBrokersStore();
    const before = await until(() => store.controllerId);
    expect(await store.perform('kill', before)).toBe(true);
    const after = await until(() => (store.controllerId !== null && store.controllerId !== before ? store.controllerId : null));
    expect(store.byId.get(after)!.state).toBe('running');
    expect(store.byId.get(before)!.isController).toBe(false);
  });
});
