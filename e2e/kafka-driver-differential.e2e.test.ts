/**
 * Differential: the same admin scenario through the embedded driver (the console host's own
 * cluster) and through the Kafka driver (an external connection to a second `npm run serve`
 * host's Kafka listener, reached only over the Kafka protocol) gives the same observable results.
 * Both clusters start alike (the `balanced` profile: brokers 1-3 on racks a-c). What is compared
 * is what a user sees: created topics, Kafka's errors, configs with their source layers, partition
 * counts, a throttled reassignment to its end, one cancelled in flight, a preferred election, balance.plan, health counts,
 * produce, consume, the workbench's search and DeleteRecords, consumer groups (committed offsets, lag, a reset preview,
 * delete); and a kafkajs consumer group on the second host reads the same through the Kafka
 * driver as through that host's own (embedded) service;
 * and what the Kafka driver cannot do answers UNSUPPORTED_FOR_CONNECTION with its reason.
 */
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionTestView } from '../app/api/connections.js';
import type { GroupListingView, GroupView } from '../app/api/groups.js';
import type { ClusterView, ConfigEntryView, ReassignmentView, TopicView } from '../app/api/views.js';
import type { RecordsSearchView } from '../app/api/records-search-contract.js';
import { api } from './support/harness.js';
import { until } from './support/kafka-serve.js';
import { code, startTwoHosts, value, type Envelope, type Side, type TwoHosts } from './support/two-hosts.js';

describe('the same admin scenario through the embedded driver and the Kafka driver', () => {
  let hosts: TwoHosts;
  beforeAll(async () => {
    hosts = await startTwoHosts();
  });
  afterAll(async () => {
    await hosts?.stop();
  });
  const call = <T>(method: string, input: unknown) => hosts.call<T>(method, input);
  const on = (side: Side) => hosts.on(side);
  /** A group call, retried while the group coordinator is still coming up (__consumer_offsets is created on first use). */
  async function retrying<T>(attempt: () => Promise<Envelope<T>>): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const r = await attempt();
      if (r.ok) return r.value;
      if (!['COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS', 'NOT_COORDINATOR'].includes(r.error.code) || Date.now() > deadline) throw new Error(`${r.error.code}: ${r.error.message}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** The scenario; returns what a user observes, free of ids, timings and placement choices. */
  async function scenario(side: 'embedded' | 'kafka') {
    const run = on(side);
    const out: Record<string, unknown> = {};
    const created = await value(run<TopicView>('topics.create', { name: 'diff', partitions: 3, replicationFactor: 2, configs: { 'retention.ms': '3600000' } }));
    out.created = { partitions: created.partitions.length, rf: created.partitions.map((p) => p.replicas.length) };
    out.createAgain = code(await run('topics.create', { name: 'diff', partitions: 1, replicationFactor: 1 }));
    out.createTooWide = code(await run('topics.create', { name: 'wide', partitions: 1, replicationFactor: 9 }));
    out.createValidateOnly = code(await run('topics.create', { name: 'dry', partitions: 2, replicationFactor: 3, validateOnly: true }));
    out.alterInvalid = code(await run('configs.alter', { resource: { type: 'topic', name: 'diff' }, set: { 'min.insync.replicas': '-1' } }));
    await value(run('configs.alter', { resource: { type: 'topic', name: 'diff' }, set: { 'min.insync.replicas': '2' } }));
    const configs = await value(run<ConfigEntryView[]>('configs.describe', { resource: { type: 'topic', name: 'diff' } }));
    const pick = (name: string) => {
      const c = configs.find((x) => x.name === name)!;
      return [c.value, c.source, c.default];
    };
    out.configs = { retention: pick('retention.ms'), minIsr: pick('min.insync.replicas'), segment: pick('segment.bytes'), roll: pick('segment.ms'), cleanup: pick('cleanup.policy') };
    await value(run('partitions.add', { topic: 'diff', totalCount: 4 }));
    await until(async () => (await value(run<TopicView>('topics.describe', { name: 'diff' }))).partitions.length === 4, 30_000, 'four partitions');

    // A throttled move of partition 0 to the broker it lacks, kept first (the preferred leader).
    const p0 = (await value(run<TopicView>('topics.describe', { name: 'diff' }))).partitions[0]!;
    const target = [p0.replicas[0]!, [1, 2, 3].find((b) => !p0.replicas.includes(b))!];
    const executed = await value(run<{ errorCode: string }[]>('reassignments.execute', { partitions: [{ topic: 'diff', partition: 0, replicas: target }], throttleBytesPerSec: 10_000_000 }));
    out.executed = executed.map((r) => r.errorCode);
    await until(async () => (await value(run<TopicView>('topics.describe', { name: 'diff' }))).partitions[0]!.replicas.join() === target.join(), 60_000, 'the move to complete');
    out.listedAfter = (await value(run<unknown[]>('reassignments.list', {}))).length;
    out.cancelNothing = (await value(run<{ errorCode: string }[]>('reassignments.cancel', { partitions: [{ topic: 'diff', partition: 0 }] }))).map((r) => r.errorCode);
    // A move cancelled while in flight: partition 3 holds four batches of ~400 KB; the new replica's
    // first fetch copies up to replica.fetch.max.bytes (1 MiB) and the 1 KB/s throttle then holds it
    // back (Kafka checks the quota before a fetch, not within one). The cancel puts the partition
    // back on its replicas and nothing is listed.
    for (let batch = 0; batch < 4; batch++) {
      await value(run('records.produce', { topic: 'diff', partition: 3, acks: 'all', records: Array.from({ length: 10 }, (_, i) => ({ value: `${batch}.${i}:${'x'.repeat(40_000)}` })) }));
    }
    const p3 = (await value(run<TopicView>('topics.describe', { name: 'diff' }))).partitions[3]!;
    const joining = [1, 2, 3].find((b) => !p3.replicas.includes(b))!;
    const slow = await value(run<{ errorCode: string }[]>('reassignments.execute', { partitions: [{ topic: 'diff', partition: 3, replicas: [p3.replicas[0]!, joining] }], throttleBytesPerSec: 1_000 }));
    out.slowExecuted = slow.map((r) => r.errorCode);
    let moving: ReassignmentView | undefined;
    await until(async () => (moving = (await value(run<ReassignmentView[]>('reassignments.list', {}))).find((r) => r.topic === 'diff' && r.partition === 3)) !== undefined, 30_000, 'the slow move to be listed');
    out.inFlight = { adding: moving!.addingReplicas.length, joiningAdded: moving!.addingReplicas.includes(joining), removing: moving!.removingReplicas.length };
    out.cancelInFlight = (await value(run<{ errorCode: string }[]>('reassignments.cancel', { partitions: [{ topic: 'diff', partition: 3 }] }))).map((r) => r.errorCode);
    await until(async () => (await value(run<TopicView>('topics.describe', { name: 'diff' }))).partitions[3]!.replicas.join() === p3.replicas.join(), 60_000, 'the cancelled move to be undone');
    out.listedAfterCancel = (await value(run<ReassignmentView[]>('reassignments.list', {}))).length;
    const elected = await value(run<{ partition: number; errorCode: string }[]>('leaders.elect', { type: 'preferred', partitions: [{ topic: 'diff', partition: 0 }] }));
    out.elected = elected.map((e) => e.errorCode);
    const plan = await value(run<{ partitions: unknown[]; balancedness: { before: number; after: number } }>('balance.plan', { leadersOnly: true }));
    out.planShape = { hasScore: typeof plan.balancedness.before === 'number' && typeof plan.balancedness.after === 'number' };
    const cluster = await value(run<ClusterView>('cluster.describe', {}));
    // The controller: known on the embedded side; over the Kafka protocol it is not (compared apart, below).
    out.cluster = { brokers: cluster.brokers.map((b) => [b.id, b.rack]), offline: cluster.offlinePartitions, underMinIsr: cluster.underMinIsrPartitions };
    const produced = await value(run<{ errorCode: string; baseOffset: number }>('records.produce', { topic: 'diff', partition: 1, acks: 'all', records: [1, 2, 3, 4, 5].map((i) => ({ key: `k${i}`, value: `v${i}` })) }));
    out.produced = [produced.errorCode, produced.baseOffset];
    const consumed = await value(run<{ records: { offset: number; value: string | null }[]; highWatermark: number }>('records.consume', { topic: 'diff', partition: 1, offset: 0 }));
    out.consumed = { values: consumed.records.map((r) => [r.offset, r.value]), highWatermark: consumed.highWatermark };
    // The workbench's read, newest first with a CEL filter, through each driver.
    const searched = await value(run<RecordsSearchView>('records.search', { topic: 'diff', partitions: [1], from: { beginning: true }, order: 'newest-first', filter: { cel: 'key != "k3" && offset >= 1' } }));
    out.searched = {
      records: searched.records.map((r) => [r.partition, r.offset, r.key?.text, r.value?.text, r.timestampType, r.producerId]),
      scanned: searched.scanned,
      next: searched.next.map((n) => [n.partition, n.offset, n.done]),
    };
    // DeleteRecords: below offset 2, then up to the high watermark; past it and on no such topic, Kafka's errors.
    const deleted = await value(
      run<{ topic: string; partition: number; lowWatermark: number; errorCode: string }[]>('records.delete', {
        partitions: [
          { topic: 'diff', partition: 1, offset: 2 },
          { topic: 'diff', partition: 2, offset: 99 },
          { topic: 'never-was', partition: 0, offset: 0 },
        ],
      }),
    );
    out.deleted = deleted.map((d) => [d.topic, d.partition, d.lowWatermark, d.errorCode]);
    const afterDelete = await value(run<{ records: { offset: number }[]; logStartOffset: number }>('records.consume', { topic: 'diff', partition: 1, offset: 2 }));
    out.afterDelete = { first: afterDelete.records[0]?.offset, logStart: afterDelete.logStartOffset };
    out.consumeDeleted = code(await run('records.consume', { topic: 'diff', partition: 1, offset: 0 }));
    out.deletedAll = (await value(run<{ lowWatermark: number; errorCode: string }[]>('records.delete', { partitions: [{ topic: 'diff', partition: 1, offset: -1 }] }))).map((d) => [d.lowWatermark, d.errorCode]);
    const stats = await value(run<{ name: string; records: number; sizeBytes: number }[]>('topics.stats', { names: ['diff', 'never-was'] }));
    out.stats = stats.map((x) => [x.name, x.records, x.sizeBytes > 0]);
    // Synthetic records (a twin's fill): 1,500 records of 10 B in two batches, and a topic that does not exist.
    const filled = await value(run<{ topic: string; partition: number; errorCode: string; records: number; nextOffset: number }[]>('records.fill', { partitions: [{ topic: 'diff', partition: 0, records: 1_500, valueBytes: 10 }, { topic: 'never-was', partition: 0, records: 1, valueBytes: 1 }] }));
    out.filled = filled.map((f) => [f.topic, f.partition, f.errorCode, f.records, f.nextOffset]);
    out.filledEnd = (await value(run<TopicView>('topics.describe', { name: 'diff' }))).partitions[0]!.highWatermark;
    // Consumer groups: offsets committed by an admin (a group without members), its lag, a reset preview, delete.
    await value(run('records.produce', { topic: 'diff', partition: 2, acks: 'all', records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] }));
    const committed = await retrying(() => run<{ partitions: { partition: number; newOffset: number }[] }>('groups.resetOffsets', { groupId: 'diff-group', topics: [{ topic: 'diff', partitions: [1, 2] }], to: { offset: 1 }, dryRun: false }));
    out.groupCommitted = committed.partitions.map((p) => [p.partition, p.newOffset]);
    const listed = (await value(run<{ groupId: string; state: string; protocolType: string; members: number; totalLag: number | null }[]>('groups.list', {}))).filter((g) => g.groupId === 'diff-group');
    out.groupListed = listed.map((g) => [g.groupId, g.state, g.protocolType, g.members, g.totalLag]);
    const described = await value(run<{ state: string; members: unknown[]; partitions: { topic: string; partition: number; committedOffset: number | null; logEndOffset: number; lag: number | null }[]; totalLag: number; offsetsPartition: number }>('groups.describe', { groupId: 'diff-group' }));
    out.groupDescribed = { state: described.state, members: described.members.length, partitions: described.partitions.map((p) => [p.topic, p.partition, p.committedOffset, p.logEndOffset, p.lag]), totalLag: described.totalLag, offsetsPartition: described.offsetsPartition };
    const preview = await value(run<{ dryRun: boolean; partitions: { partition: number; previousOffset: number | null; newOffset: number }[] }>('groups.resetOffsets', { groupId: 'diff-group', to: { latest: true } }));
    out.groupPreview = { dryRun: preview.dryRun, partitions: preview.partitions.map((p) => [p.partition, p.previousOffset, p.newOffset]) };
    out.groupUnknownTopic = code(await run('groups.resetOffsets', { groupId: 'diff-group', topics: [{ topic: 'never-was' }], to: { earliest: true } }));
    out.groupDeleted = code(await run('groups.delete', { groupId: 'diff-group' }));
    out.groupGone = code(await run('groups.describe', { groupId: 'diff-group' }));
    out.deleteMissing = code(await run('topics.delete', { name: 'never-was' }));
    return out;
  }

  it('tests the external connection: the second host’s cluster id, controller and brokers', async () => {
    const tested = await value(call<ConnectionTestView>('connections.test', { id: hosts.connection }));
    const theirs = await hosts.external.describe();
    expect(tested).toMatchObject({ ok: true, clusterId: theirs.clusterId, brokerCount: 3 });
    // Each local cluster has its own id: the Kafka driver reads the second host's from Metadata, and it is not the console's own.
    expect((await value(call<ClusterView>('cluster.describe', { connection: hosts.connection }))).clusterId).toBe(theirs.clusterId);
    expect((await value(call<ClusterView>('cluster.describe', {}))).clusterId).not.toBe(theirs.clusterId);
  });

  it('gives the same observable results on both sides', async () => {
    const embedded = await scenario('embedded');
    const kafka = await scenario('kafka');
    console.info(`both drivers observed: ${JSON.stringify(embedded)}`);
    expect(kafka).toEqual(embedded);
    // And what each side did, it did to its own cluster: the second host sees the topic as created over the wire.
    const seen = await hosts.external.topic('diff');
    expect(seen.partitions).toHaveLength(4);
    expect(seen.configs).toMatchObject({ 'retention.ms': '3600000', 'min.insync.replicas': '2' });
  });

  it('a kafkajs consumer group on the second host reads the same through the Kafka driver as through that host’s own service: members, assignment, offsets, lag', async () => {
    await api(hosts.external.host, 'topics.create', { name: 'live', partitions: 2, replicationFactor: 3 });
    await until(async () => (await hosts.external.topic('live')).partitions.every((p) => p.isr.length === 3), 30_000, 'live in sync');
    await api(hosts.external.host, 'records.produce', { topic: 'live', partition: 0, acks: 'all', records: [1, 2, 3].map((i) => ({ value: `l${i}` })) });
    await api(hosts.external.host, 'records.produce', { topic: 'live', partition: 1, acks: 'all', records: [1, 2].map((i) => ({ value: `m${i}` })) });
    const kafka = new Kafka({ clientId: 'diff-consumer', brokers: hosts.external.bootstrap.split(','), logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: 'live-group', sessionTimeout: 12_000, heartbeatInterval: 1_000 });
    let seen = 0;
    try {
      await consumer.connect();
      await consumer.subscribe({ topic: 'live', fromBeginning: true });
      await consumer.run({ autoCommitInterval: 200, eachMessage: async () => void seen++ });
      await until(async () => {
        const g = await api<GroupView>(hosts.external.host, 'groups.describe', { groupId: 'live-group' }).catch(() => null);
        return seen === 5 && g?.state === 'Stable' && g.partitions.every((p) => p.committedOffset === p.logEndOffset);
      }, 60_000, 'the consumer to read and commit everything');
      const own = await api<GroupView>(hosts.external.host, 'groups.describe', { groupId: 'live-group' });
      const viaKafka = await value(call<GroupView>('groups.describe', { groupId: 'live-group', connection: hosts.connection }));
      expect(viaKafka).toEqual(own);
      expect(own.members).toHaveLength(1);
      expect(own.members[0]!.assignment).toEqual([{ topic: 'live', partitions: [0, 1] }]);
      expect(own.partitions.map((p) => [p.partition, p.committedOffset, p.lag])).toEqual([[0, 3, 0], [1, 2, 0]]);
      const ownList = (await api<GroupListingView[]>(hosts.external.host, 'groups.list', {})).filter((g) => g.groupId === 'live-group');
      const listVia = (await value(call<GroupListingView[]>('groups.list', { connection: hosts.connection }))).filter((g) => g.groupId === 'live-group');
      expect(listVia).toEqual(ownList);
      // A group with a member cannot be reset or deleted, on either side, with Kafka's error.
      expect(code(await call('groups.resetOffsets', { groupId: 'live-group', to: { earliest: true }, connection: hosts.connection }))).toBe('NON_EMPTY_GROUP');
      expect(code(await call('groups.delete', { groupId: 'live-group', connection: hosts.connection }))).toBe('NON_EMPTY_GROUP');
    } finally {
      await consumer.disconnect();
    }
  });

  it('says what Kafka does not tell instead of inventing it: the active controller, the partition epoch; the topic id comes from DescribeTopicPartitions', async () => {
    const own = await hosts.external.describe();
    expect(own.controllerId).not.toBeNull();
    const via = await value(call<ClusterView>('cluster.describe', { connection: hosts.connection }));
    // Metadata names some live broker as controller; in KRaft that is not the active controller, so none is claimed.
    expect(via.controllerId).toBeNull();
    expect(via.brokers.some((b) => b.isController)).toBe(false);
    expect(via.unreported?.controller).toMatch(/does not name its active controller/);
    expect(own.unreported).toBeUndefined();
    await api(hosts.external.host, 'topics.create', { name: 'ids', partitions: 1, replicationFactor: 1 });
    const ownTopic = await hosts.external.topic('ids');
    const viaTopic = await value(call<TopicView>('topics.describe', { name: 'ids', connection: hosts.connection }));
    // The second host serves Metadata up to v8 (no topic ids) but DescribeTopicPartitions, which carries the id.
    expect(viaTopic.topicId).toBe(ownTopic.topicId);
    expect(viaTopic.unreported?.topicId).toBeUndefined();
    expect(viaTopic.partitions[0]!.partitionEpoch).toBe(-1);
    expect(viaTopic.unreported?.partitionEpoch).toMatch(/partition epoch/);
    expect(ownTopic.unreported).toBeUndefined();
  });

  it('answers what a real cluster cannot do with UNSUPPORTED_FOR_CONNECTION and the reason', async () => {
    const killed = await on('kafka')('brokers.kill', { brokerId: 1 });
    expect(killed.ok).toBe(false);
    if (!killed.ok) {
      expect(killed.error.code).toBe('UNSUPPORTED_FOR_CONNECTION');
      expect(killed.error.message).toMatch(/.{20,}/);
    }
    expect((await hosts.external.describe()).brokers.every((b) => b.state === 'running')).toBe(true);
  });
});
