import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useEventStreamStore } from './event-stream.js';
import { parseReassignmentJson, partitionProgress, toReassignmentJson, useReassignmentsStore } from './reassignments.js';

describe("Kafka's reassignment JSON", () => {
  it('reads a file as kafka-reassign-partitions.sh writes it, log_dirs included', () => {
    const text = '{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[2,3],"log_dirs":["any","any"]}]}';
    expect(parseReassignmentJson(text)).toEqual({ ok: true, partitions: [{ topic: 'orders', partition: 0, replicas: [2, 3] }] });
    expect(parseReassignmentJson(JSON.stringify(toReassignmentJson([{ topic: 'orders', partition: 0, replicas: [2, 3] }])))).toEqual(parseReassignmentJson(text));
  });

  it('names what is wrong: another version, a broker twice, log_dirs of the wrong length, a partition twice, not JSON', () => {
    const bad = parseReassignmentJson(
      JSON.stringify({
        version: 2,
        partitions: [
          { topic: 'a', partition: 0, replicas: [1, 1] },
          { topic: 'a', partition: 1, replicas: [1, 2], log_dirs: ['any'] },
          { topic: 'a', partition: 1, replicas: [2, 3] },
        ],
      }),
    );
    expect(bad.ok).toBe(false);
    const errors = bad.ok ? [] : bad.errors.join('\n');
    expect(errors).toMatch(/Unsupported version 2/);
    expect(errors).toMatch(/names a broker twice/);
    expect(errors).toMatch(/log_dirs must have one entry per replica/);
    expect(errors).toMatch(/a-1 is listed twice/);
    expect(parseReassignmentJson('{"version":1,').ok).toBe(false);
  });
});

describe('progress of a moving partition', () => {
  it('counts a partition as partly done when one of its two new replicas has caught up', () => {
    const moving = {
      topic: 'orders',
      partition: 3,
      replicas: [1, 4, 5, 2],
      addingReplicas: [4, 5],
      removingReplicas: [2],
      // The engine's own figure follows the slowest new replica.
      progress: { percent: 0, leaderLogEndOffset: 1000, addingReplicas: [{ brokerId: 4, logEndOffset: 1000, inIsr: true }, { brokerId: 5, logEndOffset: 0, inIsr: false }] },
    };
    expect(partitionProgress(moving)).toEqual({ caughtUp: 1, adding: 2, percent: 50 });
  });
});

describe('reassignments store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    await h.client.call('clock.setScale', { scale: 10 });
    await until(async () => (await h.client.call('brokers.list', {})).every((b) => b.state === 'running'));
    await h.client.call('topics.create', { name: 'payments', assignments: [[1, 2], [2, 1]] });
    // 1.5 MB in partition 0: more than one replica fetch (replica.fetch.max.bytes, 1 MiB) carries.
    for (let i = 0; i < 3; i++) {
      await h.client.call('records.produce', { topic: 'payments', partition: 0, acks: 'all', records: Array.from({ length: 500 }, (_, k) => ({ value: `${'x'.repeat(1000)}${k}` })) });
    }
    await h.client.call('records.produce', { topic: 'payments', partition: 1, acks: 'all', records: [{ value: 'one' }] });
    useEventStreamStore().start();
    await until(() => useEventStreamStore().status === 'open');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('exports the current assignment as version 1 JSON with every partition', async () => {
    const store = useReassignmentsStore();
    const json = await store.exportCurrent();
    expect(json?.version).toBe(1);
    expect(json?.partitions.map((p) => [p.topic, p.partition, p.replicas])).toEqual([
      ['payments', 0, [1, 2]],
      ['payments', 1, [2, 1]],
    ]);
  });

  it('executes a throttled move, follows the new replica catching up to the leader, and cancels it back', async () => {
    const store = useReassignmentsStore();
    store.start();
    // 1 byte/s: the new replica on broker 3 cannot catch up while the move is watched.
    const results = await store.execute([{ topic: 'payments', partition: 0, replicas: [1, 3] }], 1);
    expect(results).toEqual([{ topic: 'payments', partition: 0, errorCode: 'NONE' }]);
    expect(store.active).toHaveLength(1);
    const moving = store.active[0]!;
    expect(moving.addingReplicas).toEqual([3]);
    expect(moving.removingReplicas).toEqual([2]);
    expect(moving.progress.leaderLogEndOffset).toBe(1500);
    expect(moving.progress.addingReplicas[0]!.logEndOffset).toBeLessThan(1500);
    expect(moving.progress.percent).toBeLessThan(100);
    const topic = await h.client.call('topics.describe', { name: 'payments' });
    expect(topic.configs['follower.replication.throttled.replicas']).toContain('0:3');

    // The first fetch brings up to 1 MiB; then the throttle holds the replica back.
    await until(() => store.active[0]!.progress.addingReplicas[0]!.logEndOffset > 0, 20_000);
    expect(store.active[0]!.progress.percent).toBeLessThan(100);
    // Overall: the one new replica (on broker 3) has not caught up yet.
    expect(store.catchUp).toEqual({ done: 0, total: 1 });
    const cancelled = await store.cancel();
    expect(cancelled).toEqual([{ topic: 'payments', partition: 0, errorCode: 'NONE' }]);
    expect(store.active).toEqual([]);
    expect((await h.client.call('topics.describe', { name: 'payments' })).partitions[0]!.replicas).toEqual([1, 2]);
  });

  it('moves a partition to completion, verifies it once done and drops the throttles', async () => {
    const store = useReassignmentsStore();
    store.start();
    const results = await store.execute([{ topic: 'payments', partition: 1, replicas: [3, 1], currentReplicas: [2, 1] }], 10_000_000);
    expect(results?.[0]!.errorCode).toBe('NONE');
    await until(() => store.verifyResults?.length, 30_000);
    expect(store.catchUp).toEqual({ done: 1, total: 1 });
    expect(store.verifyResults).toEqual([{ topic: 'payments', partition: 1, status: 'completed', replicas: [3, 1], message: expect.stringMatching(/completed/) }]);
    expect(store.allVerified).toBe(true);
    const topic = await h.client.call('topics.describe', { name: 'payments' });
    expect(topic.configs['follower.replication.throttled.replicas']).toBeUndefined();
    expect(topic.partitions[1]!.replicas).toEqual([3, 1]);
  });

  it("refuses a target naming an unknown broker with Kafka's error and moves nothing", async () => {
    const store = useReassignmentsStore();
    const results = await store.execute([{ topic: 'payments', partition: 0, replicas: [1, 9] }], null);
    expect(results).toBeNull();
    expect(store.executeError?.title).toBe('INVALID_REPLICA_ASSIGNMENT');
    expect(store.active).toEqual([]);
  });
});
