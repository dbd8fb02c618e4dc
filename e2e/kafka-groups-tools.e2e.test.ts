/**
 * Consumer groups of Debian's Kafka tools against `npm run serve`: kcat's balanced consumer
 * (`-G`, librdkafka 2.0.2) and two kafka-python 2.0.2 KafkaConsumers in one group. Each reads
 * every record, commits where it stopped (groups.describe shows the offsets at the log end), and
 * a later member of the group resumes from the committed offsets. Each test is skipped with one
 * line where its tool is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupView } from '../app/api/contract.js';
import { api } from './support/harness.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';
import { checkTool, OPTIONAL_TOOLS } from './support/optional-tools.js';
import { runTool } from './support/run-tool.js';

const kcatTool = checkTool(OPTIONAL_TOOLS.kcat);
const pythonTool = checkTool(OPTIONAL_TOOLS.kafkaPython);

/** One kafka-python group member: reads until nothing came for 20 s, commits, leaves; prints [partition, offset, value] rows. */
const PY_MEMBER = `
import json, sys
from kafka import KafkaConsumer
bootstrap, topic, group, client = sys.argv[1].split(','), sys.argv[2], sys.argv[3], sys.argv[4]
consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, client_id=client, auto_offset_reset='earliest',
                         enable_auto_commit=False, consumer_timeout_ms=20000, request_timeout_ms=40000, session_timeout_ms=10000)
got = []
for m in consumer:
    got.append([m.partition, m.offset, m.value.decode()])
    consumer.commit()
consumer.close()
print(json.dumps(got))
`;

describe('consumer groups of kcat and kafka-python against the local cluster', () => {
  let k: KafkaServe;
  beforeAll(async () => {
    k = await startKafkaServe();
  });
  afterAll(async () => {
    await k?.stop();
  });

  async function topicWith(name: string, partitions: number, perPartition: number, prefix = 'v'): Promise<string[]> {
    await api(k.host, 'topics.create', { name, partitions, replicationFactor: 3 }).catch(() => undefined);
    const values: string[] = [];
    for (let p = 0; p < partitions; p++) {
      const records = Array.from({ length: perPartition }, (_, i) => ({ value: `${prefix}${p}-${i}` }));
      await api(k.host, 'records.produce', { topic: name, partition: p, acks: 'all', records });
      values.push(...records.map((r) => r.value));
    }
    return values;
  }

  const describeGroup = (groupId: string) => api<GroupView>(k.host, 'groups.describe', { groupId });
  const committedAtLogEnd = (g: GroupView) => g.partitions.every((p) => p.committedOffset !== null && p.committedOffset === p.logEndOffset);
  /**
   * The group once its last member has left. A client may exit before the coordinator handled its
   * LeaveGroup (librdkafka does not wait for the answer), and a member that left while the group
   * rebalanced is only dropped at its session timeout, as in Kafka: wait for Empty, then look.
   */
  async function emptyGroup(groupId: string): Promise<GroupView> {
    let g = await describeGroup(groupId);
    await until(async () => (g = await describeGroup(groupId)).state === 'Empty', 60_000, `${groupId} to be Empty once its members left`);
    return g;
  }

  it.skipIf(!kcatTool.available)('kcat -G consumes every record as a group member, commits at the end, and a second run resumes from the committed offsets', async () => {
    const values = await topicWith('kcat-g', 3, 10);
    // auto.offset.reset, not -o beginning: kcat applies -o to every assigned partition, over the committed offsets.
    const consume = () => runTool('kcat', ['-b', k.bootstrap, '-G', 'kcat-group', 'kcat-g', '-X', 'auto.offset.reset=earliest', '-e', '-f', '%p %o %s\n', '-X', 'client.id=kcat-group-e2e'], { ms: 90_000 });
    const first = await consume();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim().split('\n').map((l) => l.split(' ')[2]).sort()).toEqual([...values].sort());
    expect(first.stderr).toMatch(/Group kcat-group rebalanced/);
    const g = await emptyGroup('kcat-group');
    expect(g.state).toBe('Empty');
    expect(g.protocolType).toBe('consumer');
    expect(g.partitions.map((p) => [p.partition, p.committedOffset, p.lag])).toEqual([[0, 10, 0], [1, 10, 0], [2, 10, 0]]);

    const more = await topicWith('kcat-g', 3, 1, 'late');
    const second = await consume();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim().split('\n').map((l) => l.split(' ').slice(1).join(' ')).sort()).toEqual(more.map((v) => `10 ${v}`).sort());

    const sent = k.versions('kcat-group-e2e');
    console.info(`kcat -G sent: ${JSON.stringify(sent)}`);
    expect(sent).toMatchObject({ FindCoordinator: [2], JoinGroup: [5], SyncGroup: [3], OffsetCommit: [7], OffsetFetch: [5], LeaveGroup: [1] });
  }, 240_000);

  it.skipIf(!pythonTool.available)('two kafka-python consumers share a group: together they read every record, commit, and the group ends with offsets at the log end', async () => {
    await api(k.host, 'topics.create', { name: 'py-g', partitions: 6, replicationFactor: 3 });
    const member = (client: string) => runTool('/usr/bin/python3', ['-c', PY_MEMBER, k.bootstrap, 'py-g', 'py-group', client], { ms: 120_000 });
    const both = Promise.all([member('kafka-python-group-a'), member('kafka-python-group-b')]);
    // The records arrive once both members share a generation: had one process started more than
    // group.initial.rebalance.delay.ms after the other (a loaded machine), the first could have read
    // everything alone before the second was given partitions.
    await until(
      async () => {
        const g = await describeGroup('py-group').catch(() => null);
        return g !== null && g.state === 'Stable' && g.members.length === 2;
      },
      60_000,
      'both kafka-python members in one generation of py-group',
    );
    const values = await topicWith('py-g', 6, 5);
    const [a, b] = await both;
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    const rowsA = JSON.parse(a.stdout) as [number, number, string][];
    const rowsB = JSON.parse(b.stdout) as [number, number, string][];
    console.info(`kafka-python group: member a read ${rowsA.length} records, member b ${rowsB.length}`);
    // Both were in the generation that read the records, each with partitions of its own.
    expect(rowsA.length).toBeGreaterThan(0);
    expect(rowsB.length).toBeGreaterThan(0);
    expect(new Set([...rowsA, ...rowsB].map((r) => r[2]))).toEqual(new Set(values));
    const g = await emptyGroup('py-group');
    expect(g.state).toBe('Empty');
    expect(g.partitions).toHaveLength(6);
    expect(committedAtLogEnd(g)).toBe(true);

    // A later member resumes from the committed offsets: only what was produced since.
    const more = await topicWith('py-g', 6, 1, 'late');
    const c = await member('kafka-python-group-c');
    expect(c.code, c.stderr).toBe(0);
    expect((JSON.parse(c.stdout) as [number, number, string][]).map((r) => r[2]).sort()).toEqual([...more].sort());

    const sent = k.versions('kafka-python-group');
    console.info(`kafka-python group sent: ${JSON.stringify(sent)}`);
    expect(sent).toMatchObject({ FindCoordinator: [0], JoinGroup: [2], SyncGroup: [1], OffsetCommit: [2], OffsetFetch: [1], LeaveGroup: [1] });
  }, 240_000);
});
