/**
 * A kafkajs 2.2.4 consumer group against `npm run serve` on a real data directory: an idempotent
 * acks=all producer writes to a 12-partition topic while three consumers in one group read it;
 * the group coordinator's broker is killed (and started again), then the leader of a partition.
 * Every acknowledged record is consumed, the log holds no duplicate, the group's committed offsets
 * are where the consumers stopped and survive another coordinator failover, and the lag
 * groups.describe reports is exactly what was produced after the consumers stopped.
 */
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsumeResultView, GroupView, TopicView } from '../app/api/contract.js';
import { api } from './support/harness.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';

const TOPIC = 'orders';
const GROUP = 'orders-app';
const PARTITIONS = 12;
const SENDS = 60;
const COORDINATOR_KILL_AT = 15;
const LEADER_KILL_AT = 40;

describe('a kafkajs consumer group against the local cluster', () => {
  let k: KafkaServe;
  beforeAll(async () => {
    k = await startKafkaServe();
    await api(k.host, 'topics.create', { name: TOPIC, partitions: PARTITIONS, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } });
  });
  afterAll(async () => {
    await k?.stop();
  });

  const describeGroup = () => api<GroupView>(k.host, 'groups.describe', { groupId: GROUP });
  const topic = () => api<TopicView>(k.host, 'topics.describe', { name: TOPIC });
  const kafka = (clientId: string) =>
    new Kafka({ clientId, brokers: k.bootstrap.split(','), logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 30_000, retry: { retries: 12, initialRetryTime: 300, maxRetryTime: 3_000 } });

  /** Every value in the topic's log, read through the contract (leader, up to the high watermark). */
  async function logValues(): Promise<string[]> {
    const values: string[] = [];
    for (let p = 0; p < PARTITIONS; p++) {
      for (let offset = 0; ; ) {
        const r = await api<ConsumeResultView>(k.host, 'records.consume', { topic: TOPIC, partition: p, offset, maxRecords: 500 });
        if (r.records.length === 0) break;
        values.push(...r.records.map((x) => x.value ?? ''));
        offset = r.records[r.records.length - 1]!.offset + 1;
      }
    }
    return values;
  }

  async function fullyReplicated(): Promise<boolean> {
    return (await topic()).partitions.every((p) => p.isr.length === 3 && p.leader !== -1);
  }

  it('consumes every acknowledged record across a coordinator and a leader failover, and the committed offsets and lag match the clients', async () => {
    const seen: { member: number; partition: number; offset: number; value: string }[] = [];
    const crashes: string[] = [];
    const consumers: Consumer[] = [];
    // kafkajs restarts a crashed consumer from a timer it sets after its own disconnect; a
    // disconnect() of ours that lands while it decides clears no timer yet, and the consumer then
    // rejoins for good (one clean-clone run saw a member restarted that way keep the group Stable
    // for 150 s after the clients left). Once the test leaves, a crash restarts nothing.
    let leaving = false;
    const retry = { retries: 12, initialRetryTime: 300, maxRetryTime: 3_000, restartOnFailure: async () => !leaving };
    for (const i of [1, 2, 3]) {
      const c = kafka(`kafkajs-group-${i}`).consumer({ groupId: GROUP, sessionTimeout: 12_000, heartbeatInterval: 1_000, rebalanceTimeout: 20_000, retry });
      c.on(c.events.CRASH, (e) => crashes.push(`member ${i}: ${String((e.payload as { error?: Error }).error?.message)}`));
      await c.connect();
      await c.subscribe({ topic: TOPIC, fromBeginning: true });
      await c.run({
        eachMessage: async ({ partition, message }) => {
          seen.push({ member: i, partition, offset: Number(message.offset), value: message.value?.toString() ?? '' });
        },
      });
      consumers.push(c);
    }
    // The assignment checked is the one the group had when it was seen Stable with three members.
    let first: GroupView | null = null;
    await until(async () => {
      const g = await describeGroup().catch(() => null);
      if (g !== null && g.state === 'Stable' && g.members.length === 3) first = g;
      return first !== null;
    }, 90_000, 'a stable group of three');
    expect(first!.members.flatMap((m) => m.assignment.flatMap((a) => a.partitions)).sort((a, b) => a - b)).toEqual([...Array(PARTITIONS).keys()]);

    const producer = kafka('kafkajs-group-producer').producer({ idempotent: true, maxInFlightRequests: 5 });
    await producer.connect();
    const acknowledged: string[] = [];
    const killed: number[] = [];
    const deadline = Date.now() + 240_000;
    try {
      for (let s = 0; s < SENDS && Date.now() < deadline; s++) {
        if (s === COORDINATOR_KILL_AT) {
          const coordinator = (await describeGroup()).coordinatorId;
          await api(k.host, 'brokers.kill', { brokerId: coordinator });
          killed.push(coordinator);
        }
        if (s === LEADER_KILL_AT) {
          // Both back in the ISR before the second failure, so acks=all (min.insync.replicas 2) can go on.
          await api(k.host, 'brokers.start', { brokerId: killed[0]! });
          await until(fullyReplicated, 90_000, 'every partition back to three in-sync replicas');
          const coordinator = (await describeGroup()).coordinatorId;
          const leader = (await topic()).partitions.map((p) => p.leader).find((l) => l !== coordinator)!;
          await api(k.host, 'brokers.kill', { brokerId: leader });
          killed.push(leader);
        }
        const messages = Array.from({ length: PARTITIONS }, (_, p) => ({ key: `k${s}-${p}`, value: `v${s}-${p}`, partition: p }));
        await producer.send({ topic: TOPIC, acks: -1, messages });
        acknowledged.push(...messages.map((m) => m.value));
      }
    } finally {
      await producer.disconnect();
    }
    expect(acknowledged).toHaveLength(SENDS * PARTITIONS);
    expect(killed).toHaveLength(2);
    await api(k.host, 'brokers.start', { brokerId: killed[1]! });

    // Every acknowledged record reaches the group (at least once: a rebalance may hand a partition
    // over before its last batch was committed, and Kafka's consumers then read it again).
    const consumed = () => new Set(seen.map((r) => r.value));
    await until(() => acknowledged.every((v) => consumed().has(v)), 120_000, 'the group to consume every acknowledged record');
    // Their offsets committed (kafkajs commits after each batch), then the members leave.
    await until(async () => (await describeGroup()).totalLag === 0, 60_000, 'the group to commit up to the log end');
    leaving = true;
    for (const c of consumers) await c.disconnect();
    // A restart already scheduled fires within maxRetryTime: leave again once it has.
    await new Promise((r) => setTimeout(r, 3_500));
    for (const c of consumers) await c.disconnect();
    console.info(`kafkajs group: ${seen.length} records consumed for ${acknowledged.length} produced; crashes and restarts: ${crashes.length ? crashes.join(' | ') : 'none'}; requests: ${JSON.stringify(k.versions('kafkajs-group'))}`);

    // The idempotent producer's retries across both failovers wrote nothing twice.
    const log = await logValues();
    const counts = new Map<string, number>();
    for (const v of log) counts.set(v, (counts.get(v) ?? 0) + 1);
    expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
    expect(acknowledged.filter((v) => !counts.has(v))).toEqual([]);

    // The committed offset of each partition is just past the last record a client consumed there.
    const lastSeen = new Map<number, number>();
    for (const r of seen) lastSeen.set(r.partition, Math.max(lastSeen.get(r.partition) ?? -1, r.offset));
    // A member whose disconnect came while it was rejoining sends no LeaveGroup: as in Kafka, the
    // group then waits out the rebalance timeout (20 s) before it drops that member and is Empty,
    // and a member that crashed and was restarted by kafkajs may be left to its session timeout
    // (12 s) first. A coordinator that moves meanwhile loads the group and starts those timers
    // again, so this may take several rounds (one CI run took over 60 s); it returns once Empty.
    let empty = await describeGroup();
    await until(async () => (empty = await describeGroup()).state === 'Empty', 150_000, 'the group to be empty once its members left').catch((e: unknown) => {
      // Say what the group was stuck in: its state, generation and who it still waited for.
      throw new Error(`${e instanceof Error ? e.message : String(e)}; the group last read: ${JSON.stringify({ ...empty, partitions: undefined })}`);
    });
    expect(empty.state).toBe('Empty');
    const committed = new Map(empty.partitions.map((p) => [p.partition, p.committedOffset]));
    expect(new Map([...Array(PARTITIONS).keys()].map((p) => [p, committed.get(p)]))).toEqual(new Map([...Array(PARTITIONS).keys()].map((p) => [p, lastSeen.get(p)! + 1])));

    // Records produced after the consumers stopped are exactly the lag groups.describe reports.
    await api(k.host, 'records.produce', { topic: TOPIC, partition: 0, acks: 'all', records: [1, 2, 3, 4, 5].map((n) => ({ value: `late-${n}` })) });
    await api(k.host, 'records.produce', { topic: TOPIC, partition: 7, acks: 'all', records: [{ value: 'late-a' }, { value: 'late-b' }] });
    const lagging = await describeGroup();
    const lag = Object.fromEntries(lagging.partitions.filter((p) => p.lag !== 0).map((p) => [p.partition, p.lag]));
    expect(lag).toEqual({ 0: 5, 7: 2 });
    expect(lagging.totalLag).toBe(7);

    // The committed offsets survive one more coordinator failover.
    const before = lagging.coordinatorId;
    await until(fullyReplicated, 90_000, 'every partition back to three in-sync replicas');
    await api(k.host, 'brokers.kill', { brokerId: before });
    let after: GroupView | null = null;
    await until(async () => {
      after = await describeGroup().catch(() => null);
      return after !== null && after.coordinatorId !== before;
    }, 60_000, 'a new coordinator for the group');
    expect(new Map(after!.partitions.map((p) => [p.partition, p.committedOffset]))).toEqual(committed);
    await api(k.host, 'brokers.start', { brokerId: before });

    const sent = k.versions('kafkajs-group');
    expect(sent['JoinGroup']).toEqual([5]);
    expect(sent['SyncGroup']).toEqual([3]);
    expect(sent['OffsetCommit']).toEqual([5]);
  }, 480_000);
});
