import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoreHost, until, type StoreHost } from '../test-support/store-host.js';
import { useEventStreamStore } from './event-stream.js';
import { useTopicPageStore } from './topic-page.js';

describe('topic detail store against a real host', () => {
  let h: StoreHost;
  beforeAll(async () => {
    h = await startStoreHost();
    useEventStreamStore().start();
    await until(() => useEventStreamStore().status === 'open');
    await h.client.call('clock.setScale', { scale: 60 });
    await h.client.call('topics.create', { name: 'orders', assignments: [[1, 2, 3], [2, 3, 1]] });
    await h.client.call('topics.create', { name: 'solo', assignments: [[3]] });
  });
  afterAll(async () => {
    useTopicPageStore().close();
    await h?.close();
  });

  it('opens a topic with its partitions, RF, configs and the broker’s replica.lag.time.max.ms', async () => {
    const store = useTopicPageStore();
    await store.open('orders');
    expect(store.notFound).toBe(false);
    expect(store.topic?.name).toBe('orders');
    expect(store.partitionCount).toBe(2);
    expect(store.replicationFactor).toBe(3);
    expect(store.topic?.partitions[0]?.leader).toBe(1);
    expect(store.configs?.find((c) => c.name === 'min.insync.replicas')?.value).toBe('1');
    expect(store.replicaLagTimeMaxMs).toBe(30_000);
    expect(store.health.healthy).toBe(true);
    expect(store.explanations.get(0)?.status).toBe('healthy');
    expect(store.events.some((e) => e.type === 'topic.created')).toBe(true);
  });

  it('says a topic that does not exist is not found (UNKNOWN_TOPIC_OR_PARTITION)', async () => {
    const store = useTopicPageStore();
    await store.open('no-such-topic');
    expect(store.notFound).toBe(true);
    expect(store.topic).toBeNull();
    await store.open('orders');
    expect(store.notFound).toBe(false);
  });

  it('follows produced records live: the high watermark and every replica’s log end move', async () => {
    const store = useTopicPageStore();
    await store.open('orders');
    store.live(true);
    const r = await h.client.call('records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
    expect(r.errorCode).toBe('NONE');
    await until(() => store.topic?.partitions[0]?.highWatermark === 3);
    await until(() => store.topic?.partitions[0]?.replicaStates.every((s) => s.logEndOffset === 3));
  });

  it('after the leader’s broker is killed, says the leader is gone until the controller fences it, then shows the new leader, the shrunk ISR and why', async () => {
    const store = useTopicPageStore();
    await store.open('orders');
    store.live(true);
    // Real time: the ~9 s between the kill and the fencing is long enough to read.
    await h.client.call('clock.setScale', { scale: 1 });
    await until(() => store.topic?.partitions[0]?.leader === 1 && store.brokerMap.get(1)?.state === 'running');
    const controllerWas = (await h.client.call('cluster.describe', {})).controllerId;
    expect(await store.killBroker(1)).toBe(true);
    const killed = await until(() => (store.explanations.get(0)?.status === 'leader-unreachable' ? store.explanations.get(0) : null), 8_000);
    // Kafka's metadata still names broker 1 leader with a full ISR: the explainer adds what is true.
    expect(store.topic?.partitions[0]?.leader).toBe(1);
    expect(killed.severity).toBe('error');
    expect(killed.headline).not.toContain('healthy');
    const said = killed.details.join(' ');
    expect(said).toContain("The leader's process is gone (broker 1 is killed (its process died)); produce and fetch to it fail until");
    // The controller fences a broker silent for broker.session.timeout.ms; a lost controller is replaced first.
    expect(said).toContain(
      controllerWas === 1
        ? 'the brokers elect a new controller (broker 1 hosted the active one), broker.session.timeout.ms (9 s) passes after it takes over'
        : 'broker.session.timeout.ms (9 s) passes without a heartbeat',
    );
    expect(said).toContain('a new leader is elected (broker 2, the first live ISR member in replica order)');
    expect(said).not.toContain('acks=all writes succeed');
    // Partition 1 (leader 2) has broker 1 as an in-sync follower that is gone.
    expect(store.explanations.get(1)?.status).toBe('follower-unreachable');
    expect(store.health.healthy).toBe(false);
    expect(store.health.leaderUnreachable).toBe(1);
    // Once a controller is known to be counting, the explainer names the time of the fencing.
    const timed = await until(() => store.explanations.get(0)?.details.find((d) => d.includes('at about')), 8_000);
    expect(timed).toMatch(/, at about .*\d\d:\d\d\.\d{3}/);
    await h.client.call('clock.setScale', { scale: 60 });
    const p0 = await until(() => {
      const p = store.topic?.partitions[0];
      return p && p.leader !== 1 && p.leader !== -1 && !p.isr.includes(1) ? p : null;
    });
    expect(p0.isr.sort()).toEqual([2, 3]);
    const x = await until(() => (store.explanations.get(0)?.status === 'under-replicated' ? store.explanations.get(0) : null));
    expect(x.headline).toContain('under-replicated');
    const text = x.details.join(' ');
    expect(text).toContain('broker 1 is killed');
    expect(text).toContain('replica.lag.time.max.ms = 30000');
    expect(text).toContain('acks=all writes succeed');
    expect(store.health.underReplicated).toBe(2);
    await until(() => store.events.some((e) => e.type === 'isr.shrunk' && e.partition === 0 && e.removed.includes(1)));
    expect(store.events.some((e) => e.type === 'leader.changed' && e.partition === 0 && e.previousLeader === 1)).toBe(true);
  });

  it('explains NOT_ENOUGH_REPLICAS when the ISR is smaller than min.insync.replicas, as acks=all producers see it', async () => {
    const store = useTopicPageStore();
    await store.open('orders');
    expect(await store.validateConfig('min.insync.replicas', 'three')).toMatch(/^INVALID_CONFIG: .*min\.insync\.replicas/);
    expect(await store.validateConfig('min.insync.replicas', '3')).toBeNull();
    expect(await store.alterConfig('min.insync.replicas', '3')).toBe(true);
    expect(store.configs?.find((c) => c.name === 'min.insync.replicas')).toMatchObject({ value: '3', source: 'DYNAMIC_TOPIC_CONFIG' });
    const x = await until(() => (store.explanations.get(0)?.flags.includes('under-min-isr') ? store.explanations.get(0) : null));
    expect(x.details.join(' ')).toContain('acks=all writes fail with NOT_ENOUGH_REPLICAS: the ISR has 2 members but min.insync.replicas is 3');
    const produced = await h.client.call('records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ value: 'refused' }] });
    expect(produced.errorCode).toBe('NOT_ENOUGH_REPLICAS');
    await store.loadDurability('all');
    expect(store.durability?.minInsyncReplicas).toBe(3);
    expect(await store.alterConfig('min.insync.replicas', null)).toBe(true);
    expect(store.configs?.find((c) => c.name === 'min.insync.replicas')).toMatchObject({ value: '1', source: 'DEFAULT_CONFIG' });
  });

  it('explains a stalled follower: it holds the high watermark, then the leader drops it after replica.lag.time.max.ms', async () => {
    const store = useTopicPageStore();
    await store.open('orders');
    store.live(true);
    await h.client.call('brokers.start', { brokerId: 1 });
    await until(() => store.topic?.partitions[1]?.isr.length === 3, 20_000);
    const follower = store.topic!.partitions[1]!.isr.find((id) => id !== store.topic!.partitions[1]!.leader)!;
    await h.client.call('clock.setScale', { scale: 1 });
    await h.client.call('brokers.stallFollower', { brokerId: follower, stalled: true });
    await h.client.call('records.produce', { topic: 'orders', partition: 1, acks: 1, records: [{ value: 'x' }, { value: 'y' }] });
    const held = await until(() => (store.explanations.get(1)?.status === 'lagging' ? store.explanations.get(1) : null));
    expect(held.details.join(' ')).toContain(`broker ${follower}'s replica fetchers are stalled`);
    expect(held.details.join(' ')).toContain('The high watermark');
    await h.client.call('clock.setScale', { scale: 60 });
    const dropped = await until(() => (store.explanations.get(1)?.flags.includes('under-replicated') ? store.explanations.get(1) : null), 30_000);
    expect(store.topic?.partitions[1]?.isr).not.toContain(follower);
    await until(() => store.events.some((e) => e.type === 'isr.shrunk' && e.partition === 1 && e.reason === 'isr-shrink'));
    const text = store.explanations.get(1)!.details.join(' ');
    expect(dropped.headline).toContain('under-replicated');
    expect(text).toContain('because the leader found it had not caught up within replica.lag.time.max.ms');
    await h.client.call('brokers.stallFollower', { brokerId: follower, stalled: false });
    await until(() => store.topic?.partitions[1]?.isr.includes(follower), 30_000);
  });

  it('explains an offline partition: no live ISR member, unclean election off', async () => {
    const store = useTopicPageStore();
    await store.open('solo');
    store.live(true);
    await h.client.call('brokers.kill', { brokerId: 3 });
    const x = await until(() => (store.explanations.get(0)?.status === 'offline' ? store.explanations.get(0) : null), 20_000);
    expect(store.topic?.partitions[0]?.leader).toBe(-1);
    expect(x.details.join(' ')).toContain('unclean.leader.election.enable is false');
    expect(x.details.join(' ')).toContain('broker 3 is killed');
    await h.client.call('brokers.start', { brokerId: 3 });
    await until(() => store.topic?.partitions[0]?.leader === 3, 20_000);
  });

  it('previews and runs a replication-factor change, grows partitions, and refuses to shrink them', async () => {
    const store = useTopicPageStore();
    await store.open('solo');
    await until(() => store.brokers.every((b) => b.state === 'running'), 20_000);
    const plan = await store.changeReplicationFactor(2, true);
    expect(plan.partitions[0]?.currentReplicas).toEqual([3]);
    expect(plan.partitions[0]?.replicas).toHaveLength(2);
    expect(store.replicationFactor).toBe(1);
    await store.changeReplicationFactor(2, false);
    await until(async () => {
      await store.refresh();
      return store.replicationFactor === 2 && store.topic?.partitions[0]?.isr.length === 2;
    }, 20_000);
    const grown = await store.addPartitions(3, true);
    expect(grown.partitions).toHaveLength(3);
    expect(store.partitionCount).toBe(1);
    await store.addPartitions(3);
    expect(store.partitionCount).toBe(3);
    await expect(store.addPartitions(2)).rejects.toMatchObject({ code: 'INVALID_PARTITIONS' });
  });

  it('explains an unclean election: RECOVERING, then the old leader truncating what the new one never had', async () => {
    const store = useTopicPageStore();
    await until(async () => (await h.client.call('brokers.list', {})).every((b) => b.state === 'running'), 20_000);
    await h.client.call('topics.create', { name: 'fragile', assignments: [[2, 3]] });
    await store.open('fragile');
    store.live(true);
    await until(() => store.topic?.partitions[0]?.isr.length === 2);
    // Broker 3 stops fetching and leaves the ISR; broker 2 then acknowledges records alone.
    await h.client.call('brokers.stallFollower', { brokerId: 3, stalled: true });
    await h.client.call('records.produce', { topic: 'fragile', partition: 0, acks: 1, records: [{ value: 'a' }] });
    await until(() => store.topic?.partitions[0]?.isr.join() === '2', 30_000);
    await h.client.call('records.produce', { topic: 'fragile', partition: 0, acks: 'all', records: [{ value: 'b' }, { value: 'c' }] });
    await h.client.call('brokers.kill', { brokerId: 2 });
    await h.client.call('brokers.stallFollower', { brokerId: 3, stalled: false });
    const offline = await until(() => (store.explanations.get(0)?.status === 'offline' ? store.explanations.get(0) : null), 20_000);
    expect(offline.details.join(' ')).toContain('run an unclean election to make broker 3 the leader and accept losing the 3 records (offsets 0–2) it lacks');
    const elected = await h.client.call('leaders.elect', { type: 'unclean', partitions: [{ topic: 'fragile', partition: 0 }] });
    expect(elected[0]).toMatchObject({ leader: 3, errorCode: 'NONE' });
    const recovering = await until(() => (store.explanations.get(0)?.flags.includes('recovering') ? store.explanations.get(0) : null));
    expect(store.topic?.partitions[0]?.leaderRecoveryState).toBe('RECOVERING');
    expect(recovering.details.join(' ')).toContain('elected uncleanly');
    await h.client.call('brokers.start', { brokerId: 2 });
    const truncated = await until(
      () => store.events.find((e) => e.type === 'replica.truncated' && e.topic === 'fragile' && e.brokerId === 2),
      30_000,
    );
    expect(truncated.type === 'replica.truncated' && truncated.fromOffset > truncated.toOffset).toBe(true);
    await until(() => store.explanations.get(0)?.details.some((d) => d.startsWith('Broker 2 truncated its log from offset')));
  });

  it('deletes the topic and then shows it as not found', async () => {
    const store = useTopicPageStore();
    await store.open('solo');
    await store.deleteTopic();
    expect(store.notFound).toBe(true);
    await store.refresh();
    expect(store.notFound).toBe(true);
  });
});
