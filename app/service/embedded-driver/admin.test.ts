/**
 * Admin operations through the contract on a real data directory (SQLite files in a temp dir):
 * bulk topics, replication-factor changes, leader balance and election previews, assignment
 * export, and the broker add/remove rules.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { VirtualClusterService } from '../../sim/virtual-service.js';
import { closeDataDirs, dataDirService, ok } from '../../sim/test-support/data-dir.js';

function service(brokers: number | { id: number; rack?: string | null }[] = 3, seed = 1): VirtualClusterService {
  return dataDirService({ brokers, seed }).s;
}
afterEach(closeDataDirs);

describe('admin operations on a real data directory', () => {
  it('creates and deletes topics in bulk, each on its own', async () => {
    const s = service();
    const created = await ok(
      s.call('topics.createMany', {
        topics: [
          { name: 'a', partitions: 3, replicationFactor: 3 },
          { name: 'b', partitions: 1, replicationFactor: 4 },
          { name: 'c', partitions: 2, replicationFactor: 2, configs: { 'retention.ms': '3600000' } },
        ],
      }),
    );
    expect(created.map((r) => [r.name, r.errorCode])).toEqual([
      ['a', 'NONE'],
      ['b', 'INVALID_REPLICATION_FACTOR'],
      ['c', 'NONE'],
    ]);
    expect((await ok(s.call('topics.list', {}))).map((t) => t.name)).toEqual(['a', 'c']);
    const preview = await ok(s.call('topics.createMany', { topics: [{ name: 'd', partitions: 1, replicationFactor: 1 }], validateOnly: true }));
    expect(preview[0]!.errorCode).toBe('NONE');
    expect((await ok(s.call('topics.list', {}))).map((t) => t.name)).toEqual(['a', 'c']);
    const deleted = await ok(s.call('topics.deleteMany', { names: ['a', 'nope', 'c'] }));
    expect(deleted.map((r) => r.errorCode)).toEqual(['NONE', 'UNKNOWN_TOPIC_OR_PARTITION', 'NONE']);
    expect(await ok(s.call('topics.list', {}))).toEqual([]);
  });

  it('changes the replication factor through a reassignment, keeping the data', async () => {
    const s = service([
      { id: 1, rack: 'r1' },
      { id: 2, rack: 'r1' },
      { id: 3, rack: 'r2' },
      { id: 4, rack: 'r2' },
    ]);
    await ok(s.call('topics.create', { name: 't', assignments: [[1], [2]] }));
    for (let i = 0; i < 20; i++) await ok(s.call('records.produce', { topic: 't', partition: i % 2, acks: 'all', records: [{ value: `v${i}` }] }));
    const plan = await ok(s.call('topics.setReplicationFactor', { topic: 't', replicationFactor: 3, validateOnly: true }));
    for (const p of plan.partitions) {
      expect(p.replicas).toHaveLength(3);
      expect(p.replicas[0]).toBe(p.currentReplicas[0]); // the preferred leader stays first
      const racks = new Set(p.replicas.map((b) => (b <= 2 ? 'r1' : 'r2')));
      expect(racks.size).toBe(2); // a new replica goes to the rack the partition lacked
    }
    expect(await ok(s.call('reassignments.list', {}))).toEqual([]); // validateOnly moved nothing
    const done = await ok(s.call('topics.setReplicationFactor', { topic: 't', replicationFactor: 3 }));
    expect(done.results!.every((r) => r.errorCode === 'NONE')).toBe(true);
    s.sim.waitFor(() => s.sim.engine.listReassignments().length === 0, 60_000, 'the move');
    const topic = await ok(s.call('topics.describe', { name: 't' }));
    for (const p of topic.partitions) {
      expect(p.replicas).toHaveLength(3);
      expect(p.isr).toHaveLength(3);
    }
    const down = await ok(s.call('topics.setReplicationFactor', { topic: 't', replicationFactor: 1 }));
    s.sim.waitFor(() => s.sim.engine.listReassignments().length === 0, 60_000, 'the shrink');
    expect(down.partitions.map((p) => p.replicas.length)).toEqual([1, 1]);
    const records = await ok(s.call('records.consume', { topic: 't', partition: 0, offset: 0 }));
    expect(records.records.map((r) => r.value)).toEqual(['v0', 'v2', 'v4', 'v6', 'v8', 'v10', 'v12', 'v14', 'v16', 'v18']);
    const tooMany = await s.call('topics.setReplicationFactor', { topic: 't', replicationFactor: 5 });
    expect(tooMany.ok ? null : tooMany.error.code).toBe('INVALID_REPLICATION_FACTOR');
  });

  it('shows leader balance, previews a preferred election, then elects', async () => {
    const s = service(3, 7);
    await ok(s.call('topics.create', { name: 't', assignments: [[1, 2, 3], [2, 3, 1], [3, 1, 2]] }));
    await ok(s.call('brokers.stop', { brokerId: 1 }));
    s.sim.waitFor(() => s.sim.engine.brokerState(1) === 'stopped', 30_000, 'broker 1 stopped');
    await ok(s.call('brokers.start', { brokerId: 1 }));
    s.sim.waitFor(() => s.sim.partition('t', 0).isr.length === 3 && s.sim.partition('t', 2).isr.length === 3, 60_000, 'broker 1 back in the ISRs');
    const balance = await ok(s.call('leaders.balance', {}));
    expect(balance.autoLeaderRebalanceEnable).toBe(true);
    expect(balance.leaderImbalanceCheckIntervalSeconds).toBe(300);
    const b1 = balance.brokers.find((b) => b.brokerId === 1)!;
    expect(b1).toMatchObject({ leaders: 0, preferredLeaders: 1, preferredButNotLeading: 1, replicas: 3 });
    expect(balance.notPreferred).toEqual([{ topic: 't', partition: 0, leader: 2, preferredLeader: 1, electable: true }]);
    const preview = await ok(s.call('leaders.preview', { type: 'preferred' }));
    expect(preview.leadersBefore).toEqual({ 1: 0, 2: 2, 3: 1 });
    expect(preview.leadersAfter).toEqual({ 1: 1, 2: 1, 3: 1 });
    expect(s.sim.partition('t', 0).leader).toBe(2); // a preview changes nothing
    // Each outcome names the leader now and after: the console shows "2 → 1", not an error code.
    expect(preview.results.find((r) => r.partition === 0)).toMatchObject({ previousLeader: 2, leader: 1, errorCode: 'NONE' });
    expect(preview.results.find((r) => r.partition === 1)).toMatchObject({ previousLeader: 2, leader: 2, errorCode: 'ELECTION_NOT_NEEDED' });
    const elected = await ok(s.call('leaders.elect', { type: 'preferred' }));
    expect(elected.find((r) => r.partition === 0)).toMatchObject({ previousLeader: 2, leader: 1, errorCode: 'NONE' });
    expect((await ok(s.call('leaders.balance', {}))).notPreferred).toEqual([]);
  });

  it('exports the assignment as Kafka reassignment JSON that executes back as a no-op', async () => {
    const s = service();
    await ok(s.call('topics.create', { name: 't', partitions: 2, replicationFactor: 2 }));
    const json = await ok(s.call('reassignments.export', { topics: ['t'] }));
    expect(json.version).toBe(1);
    expect(json.partitions).toHaveLength(2);
    expect(json.partitions[0]!.log_dirs).toEqual(['any', 'any']);
    const again = await ok(s.call('reassignments.execute', json));
    expect(again.every((r) => r.errorCode === 'NONE')).toBe(true);
    expect(await ok(s.call('reassignments.list', {}))).toEqual([]);
  });

  it('adds a broker with a rack and removes a broker only once it holds no replicas', async () => {
    const s = service();
    const added = await ok(s.call('brokers.add', { id: 4, rack: 'r9' }));
    expect(added).toMatchObject({ id: 4, rack: 'r9' });
    s.sim.waitFor(() => s.sim.engine.brokerState(4) === 'running', 30_000, 'broker 4 running');
    await ok(s.call('topics.create', { name: 't', assignments: [[4, 1]] }));
    await ok(s.call('brokers.stop', { brokerId: 4 }));
    s.sim.waitFor(() => s.sim.engine.brokerState(4) === 'stopped', 30_000, 'broker 4 stopped');
    const refused = await s.call('brokers.remove', { brokerId: 4 });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toMatch(/reassign|drain/);
    await ok(s.call('reassignments.execute', { partitions: [{ topic: 't', partition: 0, replicas: [1, 2] }] }));
    s.sim.waitFor(() => s.sim.engine.listReassignments().length === 0, 60_000, 'drain');
    await ok(s.call('brokers.remove', { brokerId: 4 }));
    expect((await ok(s.call('brokers.list', {}))).map((b) => b.id)).toEqual([1, 2, 3]);
  });

  it('balance.plan then reassignments.execute balances a skewed 6-broker, 2-rack cluster without losing a record', async () => {
    const s = service(
      [1, 2, 3, 4, 5, 6].map((id) => ({ id, rack: id % 2 === 0 ? 'r2' : 'r1' })),
      11,
    );
    const assignments = Array.from({ length: 30 }, (_, p) => [1, 2, 3].map((_, j) => 1 + ((p + j) % 3)));
    await ok(s.call('topics.create', { name: 'skewed', assignments }));
    const written: string[][] = Array.from({ length: 30 }, () => []);
    for (let i = 0; i < 120; i++) {
      const p = i % 30;
      await ok(s.call('records.produce', { topic: 'skewed', partition: p, acks: 'all', records: [{ value: `r${i}` }] }));
      written[p]!.push(`r${i}`);
    }
    const plan = await ok(s.call('balance.plan', {}));
    expect(plan.balancedness.before).toBeLessThan(95);
    expect(plan.balancedness.after).toBeGreaterThanOrEqual(95);
    expect(plan.bytesToMove).toBeGreaterThan(0);
    const results = await ok(s.call('reassignments.execute', { partitions: plan.partitions.map(({ topic, partition, replicas }) => ({ topic, partition, replicas })) }));
    expect(results.every((r) => r.errorCode === 'NONE')).toBe(true);
    s.sim.waitFor(() => s.sim.engine.listReassignments().length === 0, 300_000, 'the moves');
    await ok(s.call('leaders.elect', { type: 'preferred' }));
    const brokers = await ok(s.call('brokers.list', {}));
    for (const b of brokers) {
      expect(Math.abs(b.partitionCount - 15), `replicas on ${b.id}`).toBeLessThanOrEqual(1);
      expect(Math.abs(b.leaderCount - 5), `leaders on ${b.id}`).toBeLessThanOrEqual(1);
    }
    const topic = await ok(s.call('topics.describe', { name: 'skewed' }));
    for (const p of topic.partitions) {
      expect(new Set(p.replicas.map((b) => b % 2)).size, `racks of partition ${p.partition}`).toBe(2);
      const read = await ok(s.call('records.consume', { topic: 'skewed', partition: p.partition, offset: 0 }));
      expect(read.records.map((r) => r.value)).toEqual(written[p.partition]);
    }
    const again = await ok(s.call('balance.plan', {}));
    expect(again.balancedness.before).toBeGreaterThanOrEqual(95);
    expect(again.partitions).toEqual([]);
    // Draining broker 6 before removing it, and a leaders-only plan.
    const drain = await ok(s.call('balance.plan', { excludeBrokers: [6] }));
    expect(drain.after.brokers.find((b) => b.id === 6)!.replicas).toBe(0);
    const leadersOnly = await ok(s.call('balance.plan', { leadersOnly: true }));
    expect(leadersOnly.bytesToMove).toBe(0);
  });
});

describe('plans pipe into reassignments.execute', () => {
  it("takes balance.plan's partitions and topics.setReplicationFactor's as they come, currentReplicas included", async () => {
    const s = service(4, 13);
    await ok(s.call('topics.create', { name: 'packed', assignments: Array.from({ length: 8 }, (_, p) => [1, 2, 3].map((_, j) => 1 + ((p + j) % 3))) }));
    await ok(s.call('topics.create', { name: 'single', assignments: [[1]] }));
    const plan = await ok(s.call('balance.plan', {}));
    expect(plan.partitions.length).toBeGreaterThan(0);
    expect(plan.partitions.every((p) => Array.isArray(p.currentReplicas))).toBe(true);
    const results = await ok(s.call('reassignments.execute', { partitions: plan.partitions }));
    expect(results.map((r) => r.errorCode)).toEqual(plan.partitions.map(() => 'NONE'));
    s.sim.waitFor(() => s.sim.engine.listReassignments().length === 0, 300_000, 'the moves');
    const moved = await ok(s.call('topics.describe', { name: 'packed' }));
    for (const target of plan.partitions.filter((p) => p.topic === 'packed')) {
      expect(moved.partitions[target.partition]!.replicas).toEqual(target.replicas);
    }
    const grow = await ok(s.call('topics.setReplicationFactor', { topic: 'single', replicationFactor: 2, validateOnly: true }));
    expect(grow.partitions[0]!.currentReplicas).toEqual([1]);
    const verified = await ok(s.call('reassignments.verify', { partitions: grow.partitions }));
    expect(verified[0]!.status).toBe('mismatch');
    expect((await ok(s.call('reassignments.execute', { partitions: grow.partitions })))[0]!.errorCode).toBe('NONE');
  });
});

describe('reassignment progress', () => {
  it('reports how far new replicas have caught up, as a list field and as events', async () => {
    const s = service(4, 21);
    await ok(s.call('topics.create', { name: 't', assignments: [[1, 2, 3]] }));
    const records = Array.from({ length: 10 }, () => ({ value: 'x'.repeat(1000) }));
    for (let i = 0; i < 300; i++) await ok(s.call('records.produce', { topic: 't', partition: 0, acks: 'all', records }));
    const percents: number[] = [];
    s.subscribe((e) => {
      if (e.type === 'reassignment.progress') percents.push(e.percent);
    });
    // 3 MB to copy at 50 kB/s, one 1 MiB fetch at a time: the move takes a while and shows progress.
    await ok(s.call('reassignments.execute', { partitions: [{ topic: 't', partition: 0, replicas: [1, 2, 4] }], throttleBytesPerSec: 50_000 }));
    const listed = await ok(s.call('reassignments.list', {}));
    expect(listed[0]!.progress.addingReplicas.map((a) => a.brokerId)).toEqual([4]);
    expect(listed[0]!.progress.leaderLogEndOffset).toBe(3000);
    s.sim.waitFor(() => s.sim.engine.listReassignments().length === 0, 600_000, 'the move');
    expect(percents.length).toBeGreaterThanOrEqual(2);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents); // never goes backwards
    expect(percents.some((p) => p > 0 && p < 100)).toBe(true);
  });
});

describe('topic preview and config changes that act at once', () => {
  it('previews a topic: placement per partition and leaders per broker, creating nothing', async () => {
    const s = service(3, 31);
    const preview = await ok(s.call('topics.create', { name: 'p', partitions: 6, replicationFactor: 2, validateOnly: true }));
    expect(preview.partitions).toHaveLength(6);
    const leaders = new Map<number, number>();
    for (const p of preview.partitions) {
      expect(p.replicas).toHaveLength(2);
      expect(p.leader).toBe(p.replicas[0]);
      leaders.set(p.leader, (leaders.get(p.leader) ?? 0) + 1);
    }
    expect([...leaders.values()].sort()).toEqual([2, 2, 2]); // leaders spread evenly
    expect(await ok(s.call('topics.list', {}))).toEqual([]);
  });

  it('a min.insync.replicas change takes effect in the engine at once', async () => {
    const s = service(3, 32);
    await ok(s.call('topics.create', { name: 'm', assignments: [[1, 2, 3]] }));
    await ok(s.call('brokers.kill', { brokerId: 3 }));
    s.sim.waitFor(() => s.sim.partition('m', 0).isr.length === 2, 30_000, 'broker 3 out of the ISR');
    const produce = () => ok(s.call('records.produce', { topic: 'm', partition: 0, acks: 'all', records: [{ value: 'v' }] }));
    expect((await produce()).errorCode).toBe('NONE');
    await ok(s.call('configs.alter', { resource: { type: 'topic', name: 'm' }, set: { 'min.insync.replicas': '3' } }));
    expect((await produce()).errorCode).toBe('NOT_ENOUGH_REPLICAS');
    await ok(s.call('configs.alter', { resource: { type: 'topic', name: 'm' }, set: { 'min.insync.replicas': null } }));
    expect((await produce()).errorCode).toBe('NONE');
    const described = await ok(s.call('configs.describe', { resource: { type: 'topic', name: 'm' } }));
    expect(described.find((c) => c.name === 'min.insync.replicas')).toMatchObject({ value: '1', source: 'DEFAULT_CONFIG' });
  });
});
