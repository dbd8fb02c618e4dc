import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { WHOLE_ASSIGNMENT_UP_TO, useBalanceStore } from './balance.js';
import { useEventStreamStore } from './event-stream.js';
import { useReassignmentsStore } from './reassignments.js';

describe('balance store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    await h.client.call('clock.setScale', { scale: 20 });
    await until(async () => (await h.client.call('brokers.list', {})).every((b) => b.state === 'running'));
    // A skewed cluster: broker 4 joins (rack-less like 1–3) after "orders" was placed on 1–3.
    await h.client.call('topics.create', { name: 'orders', assignments: [[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]] });
    await h.client.call('brokers.add', { id: 4 });
    await until(async () => (await h.client.call('brokers.list', {})).find((b) => b.id === 4)?.state === 'running');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('reads every broker and every partition with its replicas, ISR and leader', async () => {
    const store = useBalanceStore();
    await store.load();
    expect(store.error).toBeNull();
    expect(store.brokers.map((b) => b.id)).toEqual([1, 2, 3, 4]);
    const orders = store.partitions.filter((p) => p.topic === 'orders');
    expect(orders.map((p) => p.replicas)).toEqual([[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]]);
    expect(orders.every((p) => p.leader === p.replicas[0] && p.isr.length === 2)).toBe(true);
  });

  it("counts each broker's replicas and leaders as the cluster does, without reading a partition until a topic is drilled into", async () => {
    const store = useBalanceStore();
    // As at 100,000 partitions: the board reads no partition of a topic nobody chose.
    store.wholeAssignmentUpTo = 0;
    await h.client.call('topics.create', { name: 'clicks', partitions: 8, replicationFactor: 3 });
    await until(async () => (await h.client.call('topics.describe', { name: 'clicks' })).partitions.every((p) => p.leader >= 0 && p.isr.length === 3));
    const cluster = await h.client.call('topics.describeMany', {});
    const replicas = new Map<number, number>();
    const leaders = new Map<number, number>();
    for (const t of cluster) {
      for (const p of t.partitions) {
        for (const b of p.replicas) replicas.set(b, (replicas.get(b) ?? 0) + 1);
        if (p.leader >= 0) leaders.set(p.leader, (leaders.get(p.leader) ?? 0) + 1);
      }
    }
    await until(async () => {
      await store.load();
      return store.brokerLoads.every((b) => b.replicasBefore === (replicas.get(b.id) ?? 0) && b.leadersBefore === (leaders.get(b.id) ?? 0));
    });
    expect(store.brokerLoads.map((b) => b.id)).toEqual([1, 2, 3, 4]);
    expect(store.brokerLoads.reduce((n, b) => n + b.replicasBefore, 0)).toBe(cluster.reduce((n, t) => n + t.partitions.reduce((m, p) => m + p.replicas.length, 0), 0));
    expect(store.brokerLoads.every((b) => b.logBytes >= 0)).toBe(true);
    expect(store.partitionCount).toBe(cluster.reduce((n, t) => n + t.partitions.length, 0));
    expect(store.wholeAssignment).toBe(false);
    expect(store.partitions).toEqual([]);

    // Drilling into a topic reads its partitions, and only them.
    store.shownTopics = ['orders'];
    await until(() => store.partitions.length > 0);
    expect(new Set(store.partitions.map((p) => p.topic))).toEqual(new Set(['orders']));

    // A planned move changes the "after" figures of the two brokers by one replica each.
    const broker4 = store.brokerLoads.find((b) => b.id === 4)!;
    expect(store.moveReplica('orders', 0, 1, 4).verdict).toBe('ok');
    const after4 = store.brokerLoads.find((b) => b.id === 4)!;
    expect(after4.replicasAfter).toBe(broker4.replicasBefore + 1);
    expect(store.brokerLoads.find((b) => b.id === 1)!.replicasAfter).toBe((replicas.get(1) ?? 0) - 1);
    // The plan's topic stays read when the filter moves on.
    store.shownTopics = ['clicks'];
    await store.load();
    expect(store.planPartitions).toEqual([{ topic: 'orders', partition: 0, replicas: [4, 2], currentReplicas: [1, 2] }]);
    expect(new Set(store.partitions.map((p) => p.topic))).toEqual(new Set(['orders', 'clicks']));

    store.clearPlan();
    store.shownTopics = [];
    store.wholeAssignmentUpTo = WHOLE_ASSIGNMENT_UP_TO;
    await h.client.call('topics.deleteMany', { names: ['clicks'] });
    await store.load();
  });

  it('refuses a replica move onto a broker that already holds the partition and leaves the plan alone', async () => {
    const store = useBalanceStore();
    const check = store.moveReplica('orders', 0, 1, 2);
    expect(check.verdict).toBe('refused');
    expect(check.messages[0]!.text).toMatch(/already holds a replica of orders-0/);
    expect(store.planPartitions).toEqual([]);
  });

  it('moves a replica to another broker keeping the replication factor, and the leader badge only within the partition', async () => {
    const store = useBalanceStore();
    const move = store.moveReplica('orders', 0, 1, 4);
    expect(move.verdict).toBe('ok');
    expect(move.messages.map((m) => m.text)).toContain('Replication factor unchanged (2).');
    expect(store.planPartitions).toEqual([{ topic: 'orders', partition: 0, replicas: [4, 2], currentReplicas: [1, 2] }]);

    expect(store.moveLeader('orders', 0, 3).verdict).toBe('refused');
    const lead = store.moveLeader('orders', 0, 2);
    expect(lead.verdict).toBe('ok');
    expect(store.planPartitions[0]!.replicas).toEqual([2, 4]);

    store.undo('orders', 0);
    expect(store.planPartitions).toEqual([]);
  });

  it('warns when the target broker is not running, and when a move loses rack awareness', async () => {
    const store = useBalanceStore();
    await h.client.call('brokers.add', { id: 5, rack: 'east' });
    await h.client.call('brokers.add', { id: 6, rack: 'east' });
    await h.client.call('brokers.add', { id: 7, rack: 'west' });
    await until(async () => (await h.client.call('brokers.list', {})).filter((b) => b.id >= 5 && b.state === 'running').length === 3);
    await h.client.call('topics.create', { name: 'racked', assignments: [[5, 7]] });
    await h.client.call('brokers.kill', { brokerId: 4 });
    await store.load();

    const rack = store.checkReplica('racked', 0, 7, 6);
    expect(rack.verdict).toBe('warning');
    expect(rack.messages.some((m) => m.level === 'warning' && /Rack awareness lost/.test(m.text))).toBe(true);

    const down = store.checkReplica('orders', 1, 2, 4);
    expect(down.verdict).toBe('warning');
    expect(down.messages.some((m) => m.level === 'warning' && /Broker 4 is killed/.test(m.text))).toBe(true);

    await h.client.call('topics.deleteMany', { names: ['racked'] });
    await h.client.call('brokers.start', { brokerId: 4 });
    await until(async () => (await h.client.call('brokers.list', {})).find((b) => b.id === 4)?.state === 'running');
  });

  it('suggests a plan for the skewed cluster that raises balancedness, puts it on the board, and it executes', async () => {
    const stream = useEventStreamStore();
    stream.start();
    await until(() => stream.status === 'open');
    const store = useBalanceStore();
    const moves = useReassignmentsStore();
    moves.start();
    await store.load();
    const plan = await store.suggest({ excludeBrokers: [5, 6, 7], leadersOnly: false });
    expect(plan).not.toBeNull();
    expect(plan!.partitions.length).toBeGreaterThan(0);
    expect(plan!.balancedness.after).toBeGreaterThan(plan!.balancedness.before);
    expect(plan!.after.brokers.find((b) => b.id === 4)!.replicas).toBeGreaterThan(0);

    const { loaded, skipped } = await store.loadPlan(plan!.partitions);
    expect(skipped).toEqual([]);
    expect(loaded).toBe(plan!.partitions.length);
    expect(store.planPartitions.map((p) => p.replicas)).toEqual(plan!.partitions.map((p) => p.replicas));

    const results = await moves.execute(store.planPartitions, 1_000_000);
    expect(results?.every((r) => r.errorCode === 'NONE')).toBe(true);
    await until(() => moves.verifyResults?.every((v) => v.status === 'completed'), 30_000);
    await until(async () => {
      await store.load();
      return store.planPartitions.length === 0;
    });
    const after = await h.client.call('topics.describe', { name: 'orders' });
    for (const target of plan!.partitions) expect(after.partitions[target.partition]!.replicas).toEqual(target.replicas);
  });

  it('a suggestion can be stopped: it ends without a plan and without an error, or had already finished with one', async () => {
    const stream = useEventStreamStore();
    stream.start();
    await until(() => stream.status === 'open');
    const store = useBalanceStore();
    store.clearSuggestion();
    const planning = store.suggest({ excludeBrokers: [], leadersOnly: false });
    expect(store.suggesting).toBe(true);
    await store.stopSuggesting();
    const plan = await planning;
    if (plan === null) expect(store.suggestion).toBeNull();
    else expect(plan.goals.length).toBeGreaterThan(0);
    expect(store.suggestError).toBeNull();
    expect(store.suggesting).toBe(false);
    expect(store.suggestProgress).toBeNull();
    await store.stopSuggesting(); // nothing runs: nothing happens
  });
});

