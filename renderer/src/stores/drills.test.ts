import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useEventStreamStore } from './event-stream.js';
import { useDrillRunnerStore } from './drill-runner.js';
import { useDrillsStore } from './drills.js';
import { lossBreakdown } from '../lib/drills/data-loss.js';

describe('drills store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    await until(async () => (await h.client.call('brokers.list', {})).every((b) => b.state === 'running'));
    await h.client.call('clock.setScale', { scale: 60 });
    const stream = useEventStreamStore();
    stream.start();
    await until(() => stream.status === 'open');
    await useDrillsStore().start();
  }, 90_000);
  afterAll(async () => {
    useDrillsStore().stop();
    await h?.close();
  });

  it('creates drill-1 (RF 3, min.insync.replicas 2) with one click and watches its partition 0', async () => {
    const store = useDrillsStore();
    expect(await store.createDrillTopic()).toBe('drill-1');
    expect(store.watched).toEqual({ topic: 'drill-1', partition: 0 });
    expect(store.settings?.minInsyncReplicas).toBe('2');
    expect(store.settings?.uncleanLeaderElection).toBe('false');
    expect(store.replicas).toHaveLength(3);
    expect(store.replicas.filter((r) => r.leader)).toHaveLength(1);
    expect(store.replicas.every((r) => r.inIsr && r.broker?.state === 'running')).toBe(true);
    expect(store.topics.map((t) => t.name)).toContain('drill-1');
  });

  it('produces with acks=all and shows every replica’s log end offset and the high watermark move', async () => {
    const store = useDrillsStore();
    const r = await store.produce('all', 4);
    expect(r).toMatchObject({ partition: 0, baseOffset: 0, errorCode: 'NONE' });
    expect(store.acknowledgedHere.map((a) => a.offset)).toEqual([0, 1, 2, 3]);
    await until(() => store.replicas.every((x) => x.log?.logEndOffset === 4 && x.log.highWatermark === 4));
    expect(store.partition?.highWatermark).toBe(4);
  });

  it('kills the leader and hears the controller fence it: ISR shrink and a new leader on the timeline', async () => {
    const store = useDrillsStore();
    const oldLeader = store.partition!.leader;
    expect(await store.fault(oldLeader, 'kill')).toBe(true);
    await until(() => store.timeline.some((e) => e.type === 'leader.changed' && e.previousLeader === oldLeader));
    const changed = store.timeline.find((e) => e.type === 'leader.changed' && e.previousLeader === oldLeader);
    expect(changed).toMatchObject({ topic: 'drill-1', reason: 'broker-fenced', unclean: false });
    expect(store.timeline.some((e) => e.type === 'isr.shrunk' && e.topic === 'drill-1' && e.removed.includes(oldLeader))).toBe(true);
    expect(store.timeline.some((e) => e.type === 'broker.stateChanged' && e.brokerId === oldLeader && e.state === 'killed')).toBe(true);
    // Newest first.
    const times = store.timeline.map((e) => e.atMs);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    await until(() => store.replicas.find((r) => r.brokerId === oldLeader)?.inIsr === false && store.partition!.leader !== oldLeader);
    expect(store.replicas.find((r) => r.brokerId === oldLeader)?.broker?.state).toBe('killed');
    expect(await store.fault(oldLeader, 'start')).toBe(true);
    await until(() => store.replicas.every((r) => r.inIsr), 30_000);
  });

  it('steps through "Leader failover" with Next, showing each step’s result in cluster time', async () => {
    const store = useDrillsStore();
    const runner = useDrillRunnerStore();
    runner.selectScenario('leader-failover');
    const first = await runner.next();
    expect(first?.status).toBe('ok');
    expect(runner.stepIndex).toBe(1);
    expect(runner.stepResults[0]!.endedAtMs).toBeGreaterThanOrEqual(runner.stepResults[0]!.startedAtMs);
    await runner.runAll();
    expect(runner.scenarioDone).toBe(true);
    expect(runner.stepResults.map((r) => r?.status)).toEqual(runner.scenario.steps.map(() => 'ok'));
    expect(store.watched?.topic).toBe('drill-2');
    // An action is timed in real time (a round trip at 60× would read as many seconds of cluster time).
    const produce = runner.scenario.steps.findIndex((st) => st.title.startsWith('Produce'));
    expect(runner.stepResults[produce]!.realMs).toBeLessThan(5_000);
    expect(runner.stepResults[produce]!.realMs).toBeGreaterThanOrEqual(0);
    // The run is over: the clock is back to real time instead of racing on an hour per minute.
    expect(runner.restoredFrom).toBe(60);
    expect((await h.client.call('clock.get', {})).scale).toBe(1);
    // The timeline starts with the watched topic, and an effect never shows below its cause.
    const created = (await h.client.call('events.recent', { types: ['topic.created'] })).find((e) => e.type === 'topic.created' && e.topic === 'drill-2')!;
    await until(() => store.timeline.length > 0 && store.timeline.every((e) => e.atMs >= created.atMs));
    const emitted = await h.client.call('events.recent', { limit: 5000 });
    const position = new Map(emitted.map((e, i) => [JSON.stringify(e), i]));
    const shown = store.timeline.filter((e) => position.has(JSON.stringify(e)));
    for (let i = 1; i < shown.length; i++) {
      if (shown[i - 1]!.atMs === shown[i]!.atMs) expect(position.get(JSON.stringify(shown[i - 1]))!).toBeGreaterThan(position.get(JSON.stringify(shown[i]))!);
    }
    await h.client.call('clock.setScale', { scale: 60 });
  });

  it('after an unclean election lists the offsets truncated on the old leader and which acknowledged records they held', async () => {
    const store = useDrillsStore();
    const runner = useDrillRunnerStore();
    runner.selectScenario('unclean-election');
    await runner.runAll();
    expect(runner.stepResults.every((r) => r?.status === 'ok')).toBe(true);
    expect(store.uncleanElections.length).toBeGreaterThan(0);
    await until(() => store.truncations.length > 0 && store.lossCheck !== null);
    const t = store.truncations[0]!;
    expect(t.event).toMatchObject({ reason: 'diverging-epoch', fromOffset: 11, toOffset: 5 });
    expect(t.acknowledged.map((a) => a.offset)).toEqual([5, 6, 7, 8, 9, 10]);
    await store.checkLoss();
    expect([...store.lostOffsets].sort((a, b) => a - b)).toEqual([5, 6, 7, 8, 9, 10]);
    // The new leader's 3 records took offsets 5–7 again: same offsets, other records.
    expect(store.lossCheck!.present.map((a) => a.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // The acks=1 record and the acks=all ones are told apart; reused offsets are named as such.
    expect(lossBreakdown(store.lossCheck!)).toEqual({
      byAcks: [
        { acks: 1, offsets: [5] },
        { acks: 'all', offsets: [6, 7, 8, 9, 10] },
      ],
      replaced: [5, 6, 7],
      missing: [8, 9, 10],
    });
    await h.client.call('clock.setScale', { scale: 60 });
  });

  it('after a power loss of every replica shows each replica truncated to its flushed offset (named by topic id) and every acknowledged record lost', async () => {
    const store = useDrillsStore();
    const runner = useDrillRunnerStore();
    runner.selectScenario('power-loss-default-flush');
    await runner.runAll();
    expect(runner.stepResults.every((r) => r?.status === 'ok')).toBe(true);
    await until(() => store.truncations.filter((t) => t.event.reason === 'power-loss').length >= 4);
    const powerLoss = store.truncations.filter((t) => t.event.reason === 'power-loss');
    expect(new Set(powerLoss.map((t) => t.event.brokerId)).size).toBe(3);
    expect(powerLoss.every((t) => t.event.toOffset === 0)).toBe(true);
    await store.checkLoss();
    expect(store.lossCheck!.lost.map((a) => a.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
