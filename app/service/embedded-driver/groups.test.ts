/**
 * Consumer groups through the contract: an in-app group consuming, what `groups.list` and
 * `groups.describe` report about it (members, assignment, committed offsets, log end and lag),
 * and the admin operations Kafka allows only on an empty group (reset offsets, delete).
 */
import { describe, expect, it } from 'vitest';
import type { Result } from '../../api/contract.js';
import { createVirtualClusterService, type VirtualClusterService } from '../../sim/virtual-service.js';

async function ok<T>(r: Promise<Result<T>>): Promise<T> {
  const v = await r;
  if (!v.ok) throw new Error(`${v.error.code}: ${v.error.message}`);
  return v.value;
}
async function failed<T>(r: Promise<Result<T>>): Promise<{ code: string; message: string }> {
  const v = await r;
  if (v.ok) throw new Error('expected a failure');
  return v.error;
}

/** A topic of 6 partitions with 10 records each, and three in-app consumers of group g that read them all. */
async function consumingGroup(): Promise<VirtualClusterService> {
  const s = createVirtualClusterService({ seed: 21 });
  await ok(s.call('topics.create', { name: 't', partitions: 6, replicationFactor: 3 }));
  for (let p = 0; p < 6; p++) await ok(s.call('records.produce', { topic: 't', partition: p, acks: 'all', records: Array.from({ length: 10 }, (_, i) => ({ value: `r${i}` })) }));
  await ok(s.call('consumers.start', { groupId: 'g', topics: ['t'], members: 3 }));
  s.sim.waitFor(() => s.sim.engine.metadata.topicsByName.has('__consumer_offsets'), 30_000, 'the offsets topic');
  for (let i = 0; i < 60; i++) {
    const d = await s.call('groups.describe', { groupId: 'g' });
    if (d.ok && d.value.state === 'Stable' && d.value.partitions.every((p) => p.committedOffset === 10)) return s;
    s.sim.advance(1_000);
  }
  throw new Error('the group did not consume and commit everything within 60 s of virtual time');
}

describe('consumer groups through the contract', () => {
  it('describes a consuming group: members with client id, host and assignment; committed offset, log end and lag per partition', async () => {
    const s = await consumingGroup();
    const list = await ok(s.call('groups.list', {}));
    expect(list).toEqual([{ groupId: 'g', state: 'Stable', protocolType: 'consumer', coordinatorId: expect.any(Number), members: 3, totalLag: 0 }]);
    const g = await ok(s.call('groups.describe', { groupId: 'g' }));
    expect(g).toMatchObject({ groupId: 'g', state: 'Stable', protocolType: 'consumer', protocol: 'range', coordinatorId: list[0]!.coordinatorId, totalLag: 0 });
    expect(g.offsetsPartition).toBe(s.sim.engine.offsetsPartitionFor('g'));
    expect(g.coordinatorId).toBe(s.sim.partition('__consumer_offsets', g.offsetsPartition).leader);
    expect(g.members.map((m) => m.clientId).sort()).toEqual(['g-consumer-1', 'g-consumer-2', 'g-consumer-3']);
    expect(g.members.every((m) => m.host === '/127.0.0.1' && m.assignment.length === 1)).toBe(true);
    expect(g.members.flatMap((m) => m.assignment[0]!.partitions).sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(g.partitions.map((p) => [p.partition, p.committedOffset, p.logEndOffset, p.lag])).toEqual([0, 1, 2, 3, 4, 5].map((p) => [p, 10, 10, 0]));
    const owner = g.partitions.find((p) => p.partition === 0)!;
    expect(g.members.find((m) => m.memberId === owner.memberId)!.assignment[0]!.partitions).toContain(0);

    await ok(s.call('records.produce', { topic: 't', partition: 2, acks: 'all', records: [{ value: 'x' }, { value: 'y' }] }));
    await ok(s.call('consumers.stop', { groupId: 'g', leave: false })); // gone without committing
    const lagging = await ok(s.call('groups.describe', { groupId: 'g' }));
    expect(lagging.partitions.find((p) => p.partition === 2)).toMatchObject({ committedOffset: 10, logEndOffset: 12, lag: 2 });
    expect(lagging.totalLag).toBe(2);
  });

  it('refuses to reset offsets or delete while the group has members, as Kafka does', async () => {
    const s = await consumingGroup();
    const reset = await failed(s.call('groups.resetOffsets', { groupId: 'g', to: { earliest: true }, dryRun: true }));
    expect(reset.code).toBe('NON_EMPTY_GROUP');
    expect(reset.message).toContain("Assignments can only be reset if the group 'g' is inactive, but the current state is Stable");
    expect((await failed(s.call('groups.delete', { groupId: 'g' }))).code).toBe('NON_EMPTY_GROUP');
  });

  it('previews and applies each kind of reset on an empty group, within [log start, log end]', async () => {
    const s = await consumingGroup();
    await ok(s.call('consumers.stop', { groupId: 'g' }));
    s.sim.waitFor(() => s.sim.eventsOf('group.stateChanged').some((e) => e.groupId === 'g' && e.state === 'Empty'), 30_000, 'the group to empty');
    const committed = async () => (await ok(s.call('groups.describe', { groupId: 'g' }))).partitions.map((p) => p.committedOffset);

    const preview = await ok(s.call('groups.resetOffsets', { groupId: 'g', to: { earliest: true } }));
    expect(preview.dryRun).toBe(true);
    expect(preview.partitions.map((p) => [p.partition, p.previousOffset, p.newOffset])).toEqual([0, 1, 2, 3, 4, 5].map((p) => [p, 10, 0]));
    expect(await committed()).toEqual([10, 10, 10, 10, 10, 10]); // a preview changes nothing

    await ok(s.call('groups.resetOffsets', { groupId: 'g', to: { earliest: true }, dryRun: false }));
    expect(await committed()).toEqual([0, 0, 0, 0, 0, 0]);
    expect((await ok(s.call('groups.describe', { groupId: 'g' }))).totalLag).toBe(60);

    await ok(s.call('groups.resetOffsets', { groupId: 'g', topics: [{ topic: 't', partitions: [1] }], to: { shiftBy: 3 }, dryRun: false }));
    await ok(s.call('groups.resetOffsets', { groupId: 'g', topics: [{ topic: 't', partitions: [2] }], to: { offset: 500 }, dryRun: false }));
    await ok(s.call('groups.resetOffsets', { groupId: 'g', topics: [{ topic: 't', partitions: [3] }], to: { shiftBy: -50 }, dryRun: false }));
    await ok(s.call('groups.resetOffsets', { groupId: 'g', topics: [{ topic: 't', partitions: [4] }], to: { latest: true }, dryRun: false }));
    expect(await committed()).toEqual([0, 3, 10, 0, 10, 0]);

    s.sim.advance(5_000);
    const since = s.sim.now;
    await ok(s.call('records.produce', { topic: 't', partition: 5, acks: 'all', records: [{ value: 'late' }] }));
    const byTime = await ok(s.call('groups.resetOffsets', { groupId: 'g', topics: [{ topic: 't', partitions: [5, 0] }], to: { timestamp: since }, dryRun: false }));
    expect(byTime.partitions.map((p) => [p.partition, p.newOffset])).toEqual([
      [5, 10], // the first record at or after that time
      [0, 10], // none there: the log end
    ]);
    expect((await failed(s.call('groups.resetOffsets', { groupId: 'g', topics: [{ topic: 'nope' }], to: { earliest: true } }))).code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });

  it('deletes an empty group with its offsets; afterwards it does not exist', async () => {
    const s = await consumingGroup();
    await ok(s.call('consumers.stop', { groupId: 'g' }));
    s.sim.waitFor(() => s.sim.eventsOf('group.stateChanged').some((e) => e.groupId === 'g' && e.state === 'Empty'), 30_000, 'the group to empty');
    expect(await ok(s.call('groups.delete', { groupId: 'g' }))).toEqual({ groupId: 'g' });
    expect((await failed(s.call('groups.describe', { groupId: 'g' }))).code).toBe('GROUP_ID_NOT_FOUND');
    expect((await failed(s.call('groups.delete', { groupId: 'g' }))).code).toBe('GROUP_ID_NOT_FOUND');
    expect(await ok(s.call('groups.list', {}))).toEqual([]);
  });

  it('lists the in-app consumers and refuses a second start of the same group', async () => {
    const s = await consumingGroup();
    const [g] = await ok(s.call('consumers.list', {}));
    expect(g!.members.every((m) => m.state === 'stable' && m.generationId === g!.members[0]!.generationId)).toBe(true);
    expect(g!.members.reduce((n, m) => n + m.consumedRecords, 0)).toBe(60);
    expect((await failed(s.call('consumers.start', { groupId: 'g', topics: ['t'] }))).code).toBe('INVALID_STATE');
    expect((await failed(s.call('consumers.start', { groupId: 'h', topics: ['missing'] }))).code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });
});
