import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useGroupsStore } from './groups.js';

describe('groups store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    await until(async () => (await h.client.call('brokers.list', {})).every((b) => b.state === 'running'));
    await h.client.call('clock.setScale', { scale: 30 });
    await h.client.call('topics.create', { name: 'orders', partitions: 3, replicationFactor: 3 });
    for (const partition of [0, 1, 2]) {
      await until(async () => (await h.client.call('records.produce', { topic: 'orders', partition, acks: 'all', records: [{ value: 'a' }, { value: 'b' }] })).errorCode === 'NONE');
    }
    await h.client.call('consumers.start', { groupId: 'billing', topics: ['orders'], members: 3 });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('lists the group and describes it: members with assignment, committed offset, log end and lag, lag over time', async () => {
    const store = useGroupsStore();
    store.start();
    await until(async () => {
      await store.refresh();
      return store.groups.find((g) => g.groupId === 'billing' && g.state === 'Stable' && g.totalLag === 0);
    }, 30_000);
    store.select('billing');
    await until(async () => {
      await store.refresh();
      return store.group?.partitions.length === 3 && store.group.partitions.every((p) => p.committedOffset === 2);
    }, 30_000);
    const g = store.group!;
    expect(g.members).toHaveLength(3);
    expect(g.members.flatMap((m) => m.assignment.flatMap((a) => a.partitions)).sort()).toEqual([0, 1, 2]);
    expect(g.partitions.map((p) => [p.partition, p.logEndOffset, p.lag])).toEqual([
      [0, 2, 0],
      [1, 2, 0],
      [2, 2, 0],
    ]);
    expect(store.inactive).toBe(false);
    expect(store.lagHistory.length).toBeGreaterThan(0);
    expect(store.lagHistory.at(-1)!.totalLag).toBe(0);
    store.stop();
  });

  it('refuses a reset while the group has members, then previews and applies one once it is empty, and deletes it', async () => {
    const store = useGroupsStore();
    store.select('billing');
    expect(await store.previewReset({ earliest: true })).toBeNull(); // NON_EMPTY_GROUP
    await h.client.call('consumers.stop', { groupId: 'billing' });
    await until(async () => {
      await store.refresh();
      return store.group?.state === 'Empty';
    }, 30_000);
    expect(store.inactive).toBe(true);
    const preview = await store.previewReset({ shiftBy: -1 });
    expect(preview!.partitions.map((p) => [p.previousOffset, p.newOffset])).toEqual([
      [2, 1],
      [2, 1],
      [2, 1],
    ]);
    expect(store.group!.partitions.every((p) => p.committedOffset === 2)).toBe(true);
    expect(await store.applyReset()).not.toBeNull();
    expect(store.group!.partitions.map((p) => p.committedOffset)).toEqual([1, 1, 1]);
    expect(store.group!.totalLag).toBe(3);
    expect(await store.deleteGroup()).toBe(true);
    expect(store.selectedId).toBeNull();
    expect(store.groups.find((g) => g.groupId === 'billing')).toBeUndefined();
  });
});
