/**
 * Topic auto-creation through Metadata and FindCoordinator, in Kafka's bytes against a simulated
 * cluster: which requests create a topic (the flag per version, `auto.create.topics.enable`), with
 * what shape (`num.partitions`, `default.replication.factor`, `__consumer_offsets`' own), what the
 * client is told meanwhile and when Kafka refuses.
 */
import { describe, expect, it } from 'vitest';
import type { Delivery } from '../../core/network.js';
import type { ManualScheduler } from '../../core/time.js';
import { ApiKey } from '../generated/index.js';
import { WireSim } from '../test-support/wire-sim.js';

const UNKNOWN_TOPIC_OR_PARTITION = 3;
const LEADER_NOT_AVAILABLE = 5;
const INVALID_TOPIC_EXCEPTION = 17;
const INVALID_REPLICATION_FACTOR = 38;

async function metadata(w: WireSim, brokerId: number, version: number, names: string[], allow = true, clientId = 'app-1') {
  const a = await w.request(brokerId, ApiKey.Metadata, version, { topics: names.map((name) => ({ name })), ...(version >= 4 ? { allowAutoTopicCreation: allow } : {}) }, { header: { clientId } });
  if (a.kind !== 'respond') throw new Error(`no answer: ${JSON.stringify(a)}`);
  return a.body;
}

describe('topic auto-creation (Metadata, FindCoordinator)', () => {
  it('a Metadata naming a missing topic creates it with num.partitions and default.replication.factor, and records the client that did', async () => {
    const w = new WireSim({ seed: 3, staticConfigs: { 'num.partitions': '4', 'default.replication.factor': '3' } });
    const m = await metadata(w, 2, 8, ['clicks'], true, 'checkout-service');
    const clicks = m.topics[0]!;
    expect(clicks).toMatchObject({ name: 'clicks', errorCode: 0, isInternal: false });
    expect(clicks.partitions).toHaveLength(4);
    for (const p of clicks.partitions) expect(p).toMatchObject({ errorCode: 0, replicaNodes: expect.arrayContaining([1, 2, 3]) as unknown });
    const topic = w.sim.engine.metadata.topicsByName.get('clicks')!;
    expect(topic.partitions.size).toBe(4);
    expect(topic.createdBy).toEqual({ api: 'Metadata', clientId: 'checkout-service', brokerId: 2, atMs: expect.any(Number) as unknown });
    const created = w.sim.events.find((e) => e.type === 'topic.created' && e.topic === 'clicks');
    expect(created).toMatchObject({ partitions: 4, replicationFactor: 3, createdBy: { api: 'Metadata', clientId: 'checkout-service', brokerId: 2 } });
  });

  it('allow_auto_topic_creation: always below v4, the request flag from v4; listing every topic never creates', async () => {
    const w = new WireSim({ seed: 5 });
    expect((await metadata(w, 1, 4, ['no-flag'], false)).topics[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);
    expect((await metadata(w, 1, 8, ['no-flag-v8'], false)).topics[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);
    expect(w.sim.engine.metadata.topicsByName.has('no-flag')).toBe(false);
    expect(w.sim.engine.metadata.topicsByName.has('no-flag-v8')).toBe(false);
    // Below v4 the field does not exist and is true: kafka-python's v1 Metadata creates.
    expect((await metadata(w, 1, 1, ['old-client'], false)).topics[0]!.errorCode).toBe(0);
    expect(w.sim.engine.metadata.topicsByName.has('old-client')).toBe(true);
    // v0 with no topics = every topic: nothing to create.
    const before = w.sim.engine.metadata.topicsByName.size;
    await w.respond(1, ApiKey.Metadata, 0, { topics: [] });
    expect(w.sim.engine.metadata.topicsByName.size).toBe(before);
  });

  it('auto.create.topics.enable=false: nothing is created, the topic is UNKNOWN_TOPIC_OR_PARTITION in every version', async () => {
    const w = new WireSim({ seed: 7, staticConfigs: { 'auto.create.topics.enable': 'false' } });
    expect((await metadata(w, 1, 1, ['orders'])).topics[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);
    expect((await metadata(w, 1, 8, ['orders'])).topics[0]!.errorCode).toBe(UNKNOWN_TOPIC_OR_PARTITION);
    expect(w.sim.engine.metadata.topicsByName.has('orders')).toBe(false);
  });

  it('default.replication.factor above the registered brokers: INVALID_REPLICATION_FACTOR for that topic, nothing created, the other topics answered', async () => {
    const w = new WireSim({ seed: 9, staticConfigs: { 'default.replication.factor': '4' } });
    w.sim.createTopic('audit', 1, 2, {}, [[1, 2]]);
    const m = await metadata(w, 1, 8, ['audit', 'payments']);
    expect(m.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['audit', 0],
      ['payments', INVALID_REPLICATION_FACTOR],
    ]);
    expect(w.sim.engine.metadata.topicsByName.has('payments')).toBe(false);
  });

  it('a fenced broker counts, as KRaft placement counts registered brokers: the topic is created, the fenced replica placed last', async () => {
    const w = new WireSim({ seed: 9, staticConfigs: { 'default.replication.factor': '3' } });
    w.sim.engine.killBroker(3);
    w.sim.waitFor(() => w.sim.engine.metadata.brokers.get(3)!.fenced, 60_000, 'broker 3 fenced');
    const m = await metadata(w, 1, 8, ['payments']);
    expect(m.topics[0]).toMatchObject({ name: 'payments', errorCode: 0 });
    const p = w.sim.engine.metadata.topicsByName.get('payments')!.partitions.get(0)!;
    expect(p.replicas).toHaveLength(3);
    expect(p.replicas[2]).toBe(3);
    expect(p.isr).not.toContain(3);
  });

  it('names Kafka refuses and internal topics of coordinators this cluster lacks are never created', async () => {
    const w = new WireSim({ seed: 11 });
    const m = await metadata(w, 1, 8, ['bad name!', '__share_group_state']);
    expect(m.topics.map((t) => [t.name, t.errorCode, t.isInternal])).toEqual([
      ['bad name!', INVALID_TOPIC_EXCEPTION, false],
      ['__share_group_state', UNKNOWN_TOPIC_OR_PARTITION, true],
    ]);
    expect(w.sim.engine.metadata.topicsByName.size).toBe(0);
  });

  it('answers LEADER_NOT_AVAILABLE while the created topic has not reached this broker, then the topic', async () => {
    // Metadata pushes to broker 2 arrive 300 ms late: the controller's answer comes first.
    let slowPushes = false;
    const deliveries = (scheduler: ManualScheduler) => ({
      post(delayMs: number, d: Delivery, run: () => void) {
        const late = slowPushes && d.to === 2 && d.kind === 'message' && (d.payload as { type?: string }).type === 'metadataPush';
        scheduler.schedule(delayMs + (late ? 300 : 0), run);
      },
    });
    const w = new WireSim({ seed: 13, deliveries });
    slowPushes = true;
    const first = await metadata(w, 2, 8, ['late']);
    expect(first.topics[0]).toMatchObject({ name: 'late', errorCode: LEADER_NOT_AVAILABLE, partitions: [] });
    expect(w.sim.engine.metadata.topicsByName.has('late')).toBe(true);
    // Asked again before the push: created already (TOPIC_ALREADY_EXISTS at the controller), still not led here.
    expect((await metadata(w, 2, 8, ['late'])).topics[0]!.errorCode).toBe(LEADER_NOT_AVAILABLE);
    w.sim.advance(400);
    const later = await metadata(w, 2, 8, ['late']);
    expect(later.topics[0]).toMatchObject({ errorCode: 0, partitions: [expect.objectContaining({ errorCode: 0 })] });
    expect(w.sim.events.filter((e) => e.type === 'topic.created' && e.topic === 'late')).toHaveLength(1);
  });

  it('__consumer_offsets: the first FindCoordinator creates it with offsets.topic.*, recording the client; COORDINATOR_NOT_AVAILABLE meanwhile', async () => {
    const w = new WireSim({ seed: 17, staticConfigs: { 'offsets.topic.num.partitions': '5', 'offsets.topic.replication.factor': '3' } });
    const a = await w.request(1, ApiKey.FindCoordinator, 2, { key: 'g1', keyType: 0 }, { header: { clientId: 'consumer-g1-1' } });
    if (a.kind !== 'respond') throw new Error('no answer');
    expect(a.body.errorCode).toBe(15);
    w.sim.waitFor(() => w.sim.engine.metadata.topicsByName.has('__consumer_offsets'), 10_000, '__consumer_offsets');
    const t = w.sim.engine.metadata.topicsByName.get('__consumer_offsets')!;
    expect(t.partitions.size).toBe(5);
    expect([...t.partitions.values()].every((p) => p.replicas.length === 3)).toBe(true);
    expect(t.createdBy).toMatchObject({ api: 'FindCoordinator', clientId: 'consumer-g1-1', brokerId: 1 });
    // Kafka's GroupMetadataManager.offsetsTopicConfigs: compacted, the producer's codec kept.
    expect(t.configs).toMatchObject({ 'cleanup.policy': 'compact', 'compression.type': 'producer' });
  });

  it('a Metadata for __consumer_offsets creates it with its own shape, not num.partitions', async () => {
    const w = new WireSim({ seed: 19, staticConfigs: { 'offsets.topic.num.partitions': '3', 'num.partitions': '7' } });
    const m = await metadata(w, 3, 8, ['__consumer_offsets']);
    expect(m.topics[0]).toMatchObject({ name: '__consumer_offsets', isInternal: true });
    expect(w.sim.engine.metadata.topicsByName.get('__consumer_offsets')!.partitions.size).toBe(3);
  });
});
