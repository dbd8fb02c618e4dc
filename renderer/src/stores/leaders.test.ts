import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useLeadersStore } from './leaders.js';

describe('leaders store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    await until(async () => (await h.client.call('brokers.list', {})).every((b) => b.state === 'running'));
    await h.client.call('topics.create', { name: 'events', assignments: [[1, 2], [2, 3], [3, 1], [1, 3]] });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('shows leaders per broker, nothing off its preferred leader, and the auto-rebalance settings', async () => {
    const store = useLeadersStore();
    await store.refresh();
    expect(store.error).toBeNull();
    const b = store.balance!;
    expect(b.brokers.map((x) => [x.brokerId, x.leaders])).toEqual([
      [1, 2],
      [2, 1],
      [3, 1],
    ]);
    expect(b.notPreferred).toEqual([]);
    expect(b.autoLeaderRebalanceEnable).toBe(true);
    expect(b.leaderImbalanceCheckIntervalSeconds).toBe(300);
  });

  it('lists a partition whose preferred replica changed, previews the election and runs it', async () => {
    const store = useLeadersStore();
    // Reorder events-0 to [2, 1]: no data moves, broker 1 keeps leading, broker 2 is now preferred.
    await h.client.call('reassignments.execute', { partitions: [{ topic: 'events', partition: 0, replicas: [2, 1] }] });
    await until(async () => (await h.client.call('reassignments.list', {})).length === 0);
    await store.refresh();
    expect(store.balance!.notPreferred).toEqual([{ topic: 'events', partition: 0, leader: 1, preferredLeader: 2, electable: true }]);
    expect(store.imbalance.find((i) => i.brokerId === 2)!.ratio).toBeCloseTo(1 / 2);

    const preview = await store.runPreview(null);
    expect(preview!.leadersBefore).toEqual({ '1': 2, '2': 1, '3': 1 });
    expect(preview!.leadersAfter).toEqual({ '1': 1, '2': 2, '3': 1 });
    expect(preview!.results.find((r) => r.partition === 0)).toMatchObject({ leader: 2, errorCode: 'NONE' });
    // A preview elects nothing.
    expect((await h.client.call('topics.describe', { name: 'events' })).partitions[0]!.leader).toBe(1);

    const results = await store.elect();
    expect(results!.find((r) => r.partition === 0)).toMatchObject({ previousLeader: 1, leader: 2, errorCode: 'NONE' });
    expect(results!.filter((r) => r.partition !== 0).every((r) => r.errorCode === 'ELECTION_NOT_NEEDED')).toBe(true);
    expect(store.balance!.notPreferred).toEqual([]);
    expect(store.balance!.brokers.find((x) => x.brokerId === 2)!.leaders).toBe(2);
  });

  it('elects only the chosen partitions and says when no election is needed', async () => {
    const store = useLeadersStore();
    const results = await store.elect([{ topic: 'events', partition: 1 }]);
    expect(results).toEqual([{ topic: 'events', partition: 1, leader: 2, previousLeader: 2, errorCode: 'ELECTION_NOT_NEEDED', message: expect.any(String) }]);
  });

  it('marks an off-preferred partition whose preferred replica is down as not electable', async () => {
    const store = useLeadersStore();
    await h.client.call('brokers.kill', { brokerId: 3 });
    await until(async () => (await h.client.call('topics.describe', { name: 'events' })).partitions[2]!.leader === 1, 20_000);
    await store.refresh();
    expect(store.balance!.notPreferred).toContainEqual({ topic: 'events', partition: 2, leader: 1, preferredLeader: 3, electable: false });
    const results = await store.elect([{ topic: 'events', partition: 2 }]);
    expect(results![0]!.errorCode).toBe('PREFERRED_LEADER_NOT_AVAILABLE');
  });
});
