/**
 * `impact.ofStop` through the embedded driver (the console host's own cluster) and through the
 * Kafka driver (an external connection to a second `npm run serve` host, read only over the Kafka
 * protocol: Metadata, DescribeTopicPartitions, DescribeConfigs, ApiVersions' features, ListGroups):
 * the same cluster state gives the same prediction, and when the external cluster's broker is then
 * killed (a drill on that host's own HTTP API: the Kafka protocol has no request for it), its
 * partitions end as predicted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StopImpactView } from '../app/api/impact-contract.js';
import type { BrokerView, TopicView } from '../app/api/views.js';
import { api } from './support/harness.js';
import { until } from './support/kafka-serve.js';
import { startTwoHosts, value, type Side, type TwoHosts } from './support/two-hosts.js';

const ELR = 'eligible.leader.replicas.version';
/** Topic → [min.insync.replicas, unclean.leader.election.enable, assignments]. */
const TOPICS: Record<string, [string, string, number[][]]> = {
  'rf3-min2': ['2', 'false', [[1, 2, 3], [2, 3, 1], [3, 1, 2]]],
  'rf2-min2': ['2', 'false', [[2, 3], [3, 2]]],
  'rf2-unclean': ['1', 'true', [[2, 3]]],
  'rf1': ['1', 'false', [[2], [1]]],
};

describe('impact.ofStop through the embedded driver and the Kafka driver', () => {
  let hosts: TwoHosts;
  beforeAll(async () => {
    hosts = await startTwoHosts();
  }, 120_000);
  afterAll(async () => {
    await hosts?.stop();
  });
  const on = (side: Side) => hosts.on(side);
  /** A drill on the host that runs that side's cluster. */
  const drill = (side: Side) => (method: string, input: Record<string, unknown>) => (side === 'kafka' ? api(hosts.external.host, method, input) : value(hosts.call(method, input)));

  /** Every partition of TOPICS as `side` reads it, or (`truth`) as the external host's own engine holds it. */
  const partitionsOf = async (side: Side, truth = false): Promise<{ topic: string; partition: number; leader: number; isr: number[]; elr: number[] }[]> => {
    const input = { names: Object.keys(TOPICS) };
    const topics = truth ? await api<TopicView[]>(hosts.external.host, 'topics.describeMany', input) : await value(on(side)<TopicView[]>('topics.describeMany', input));
    return topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition, leader: p.leader, isr: [...p.isr].sort(), elr: [...p.eligibleLeaderReplicas].sort() })));
  };

  /** ELR on, the topics, and broker 3 out of the ISRs it follows in (it stops fetching). */
  async function prepare(side: Side): Promise<void> {
    const run = on(side);
    await drill(side)('clock.setScale', { scale: 60 });
    await value(run('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 1 }] }));
    for (const [name, [minIsr, unclean, assignments]] of Object.entries(TOPICS)) {
      await value(run('topics.create', { name, assignments, configs: { 'min.insync.replicas': minIsr, 'unclean.leader.election.enable': unclean } }));
    }
    await until(async () => (await partitionsOf(side)).every((p) => p.isr.length === TOPICS[p.topic]![2][p.partition]!.length), 30_000, `${side}: every ISR full`);
    await drill(side)('brokers.stallFollower', { brokerId: 3, stalled: true });
    for (const [name, [, , assignments]] of Object.entries(TOPICS)) {
      for (let p = 0; p < assignments.length; p++) await value(run('records.produce', { topic: name, partition: p, acks: 1, records: [{ value: 'x' }] }));
    }
    await until(async () => (await partitionsOf(side)).every((p) => p.leader === 3 || !p.isr.includes(3)), 60_000, `${side}: broker 3 out of the ISRs it follows in`);
  }

  const predictions: Partial<Record<Side, StopImpactView>> = {};

  it('predicts the same for the same cluster state, on either driver', async () => {
    for (const side of ['embedded', 'kafka'] as const) {
      await prepare(side);
      const brokers = await value(on(side)<BrokerView[]>('brokers.list', {}));
      const rack = brokers.find((b) => b.id === 2)!.rack;
      // Through the Kafka driver a read may come from a broker whose metadata trails: ask until two reads agree.
      let previous = '';
      await until(
        async () => {
          const input = rack === null ? { brokers: [2] } : { racks: [rack] };
          predictions[side] = await value(on(side)<StopImpactView>('impact.ofStop', input));
          const now = JSON.stringify(predictions[side]);
          const same = now === previous;
          previous = now;
          return same;
        },
        30_000,
        `${side}: a settled prediction`,
      );
    }
    const strip = (v: StopImpactView) => ({ ...v, partitions: v.partitions.filter((p) => p.topic in TOPICS), racks: v.racks.map((r) => ({ rack: r.rack, brokers: r.brokers, stopped: r.stopped })) });
    expect(strip(predictions.kafka!)).toEqual(strip(predictions.embedded!));
    const mine = predictions.kafka!.partitions.filter((p) => p.topic in TOPICS);
    expect(predictions.kafka!.stopped).toEqual([2]);
    expect(predictions.kafka!.elrEnabled).toBe(true);
    // The cases the rules differ on, named: a clean move, an ELR member elected, an unclean election, offline.
    const of = (topic: string, partition: number) => mine.find((p) => p.topic === topic && p.partition === partition)!;
    expect(of('rf3-min2', 1)).toMatchObject({ after: { leader: 1, outcome: 'under-min-isr' }, electedFrom: 'isr' });
    expect(of('rf2-min2', 0)).toMatchObject({ before: { isr: [2], elr: [3] }, after: { leader: 3, isr: [3], outcome: 'under-min-isr' }, electedFrom: 'elr' });
    expect(of('rf2-unclean', 0)).toMatchObject({ after: { leader: 3, outcome: 'unclean-elected' }, electedFrom: 'unclean' });
    expect(of('rf1', 0).after).toMatchObject({ leader: -1, outcome: 'offline' });
    // A partition broker 2 holds no replica of is not listed.
    expect(mine.some((p) => p.topic === 'rf1' && p.partition === 1)).toBe(false);
  }, 240_000);

  it('the external cluster ends as predicted once its broker 2 is killed', async () => {
    const predicted = predictions.kafka!;
    await drill('kafka')('brokers.kill', { brokerId: 2 });
    const expected = predicted.partitions
      .filter((p) => p.topic in TOPICS)
      .map((p) => ({ topic: p.topic, partition: p.partition, leader: p.after.leader, isr: [...p.after.isr].sort(), elr: [...p.after.elr].sort() }))
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    let observed: typeof expected = [];
    await until(
      async () => {
        // Its engine's own state (the Kafka driver reads offsets through kafkajs, which refuses a
        // topic list with a leaderless partition).
        const all = await partitionsOf('kafka', true);
        observed = all.filter((p) => expected.some((e) => e.topic === p.topic && e.partition === p.partition)).sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
        return JSON.stringify(observed) === JSON.stringify(expected);
      },
      30_000,
      'the external cluster to match the prediction',
    ).catch(() => undefined);
    expect(observed).toEqual(expected);
    // The Kafka driver still answers on a cluster with an offline partition (rf1-0), from what it reads now.
    let next: StopImpactView | undefined;
    await until(
      async () => {
        const r = await on('kafka')<StopImpactView>('impact.ofStop', { brokers: [1] });
        next = r.ok ? r.value : undefined;
        return next !== undefined && next.before.offline === 1;
      },
      30_000,
      'a prediction over the degraded cluster',
    );
    expect(next!.racks.flatMap((r) => r.stopped)).toEqual([1]);
    expect(next!.partitions.find((p) => p.topic === 'rf3-min2' && p.partition === 0)).toMatchObject({ before: { leader: 1, isr: [1], elr: [2] }, after: { leader: -1 } });
  }, 120_000);
});
