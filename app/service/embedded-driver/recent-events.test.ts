import { describe, expect, it } from 'vitest';
import type { EngineEvent, Result } from '../../api/contract.js';
import { createVirtualClusterService } from '../../sim/virtual-service.js';
import { RecentEvents } from './recent-events.js';

function ok<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

function topicCreated(i: number): EngineEvent {
  return { type: 'topic.created', atMs: i, topic: `t${i}`, topicId: `id${i}`, partitions: 1, replicationFactor: 1 };
}

describe('the recent-events buffer', () => {
  it('keeps the newest events up to its capacity and returns them oldest first', () => {
    const buffer = new RecentEvents(5);
    expect(buffer.recent(10)).toEqual([]);
    for (let i = 1; i <= 3; i++) buffer.push(topicCreated(i));
    expect(buffer.recent(10).map((e) => e.atMs)).toEqual([1, 2, 3]);
    for (let i = 4; i <= 12; i++) buffer.push(topicCreated(i));
    expect(buffer.recent(10).map((e) => e.atMs)).toEqual([8, 9, 10, 11, 12]);
    expect(buffer.recent(2).map((e) => e.atMs)).toEqual([11, 12]);
  });

  it('leaves out high-watermark moves and metrics samples, and filters by type', () => {
    const buffer = new RecentEvents(100);
    buffer.push(topicCreated(1));
    buffer.push({ type: 'highWatermark.advanced', atMs: 2, topic: 't1', partition: 0, brokerId: 1, highWatermark: 1, previous: 0 });
    buffer.push({ type: 'metrics.sampled', atMs: 3, intervalMs: 1_000, produceRecordsPerSec: 0, produceBytesPerSec: 0, consumeRecordsPerSec: 0, replicationBytesPerSec: 0, brokers: [] });
    buffer.push({ type: 'topic.deleted', atMs: 4, topic: 't1', topicId: 'id1' });
    buffer.push(topicCreated(5));
    expect(buffer.recent(10).map((e) => e.type)).toEqual(['topic.created', 'topic.deleted', 'topic.created']);
    // The limit counts the events returned, not the ones looked at.
    expect(buffer.recent(1, ['topic.deleted']).map((e) => e.atMs)).toEqual([4]);
    expect(buffer.recent(10, ['topic.created']).map((e) => e.atMs)).toEqual([1, 5]);
    expect(buffer.recent(10, ['highWatermark.advanced'])).toEqual([]);
  });
});

describe('events.recent', () => {
  it("returns the cluster's timeline oldest first, from its start, without high-watermark moves", async () => {
    const svc = createVirtualClusterService({ seed: 9 });
    ok(await svc.call('topics.create', { name: 'audit', partitions: 2, replicationFactor: 3 }));
    svc.sim.advance(2_000);
    for (let i = 0; i < 5; i++) ok(await svc.call('records.produce', { topic: 'audit', partition: 0, acks: 'all', records: [{ value: `v${i}` }] }));
    ok(await svc.call('brokers.stop', { brokerId: 3 }));
    svc.sim.waitFor(() => svc.engine.brokerState(3) === 'stopped', 60_000, 'broker 3 stopped');
    svc.sim.advance(3_000);
    expect(svc.sim.eventsOf('highWatermark.advanced').length).toBeGreaterThan(0);
    expect(svc.sim.eventsOf('metrics.sampled').length).toBeGreaterThan(0);

    const all = ok(await svc.call('events.recent', {}));
    const kept = svc.sim.events.filter((e) => e.type !== 'highWatermark.advanced' && e.type !== 'metrics.sampled');
    expect(all).toEqual(kept);
    // From the very start: the first controller (a combined node starts its controller before its
    // broker), then the brokers starting.
    expect(all[0]).toMatchObject({ type: 'controller.changed', controllerId: 1, previousControllerId: null });
    expect(all[1]).toMatchObject({ type: 'broker.stateChanged' });
    expect(all.map((e) => e.atMs)).toEqual([...all.map((e) => e.atMs)].sort((a, b) => a - b));
    expect(all.filter((e) => e.type === 'topic.created')).toMatchObject([{ topic: 'audit', partitions: 2, replicationFactor: 3 }]);
    expect(all.at(-1)).toMatchObject({ type: 'broker.stateChanged', brokerId: 3, state: 'stopped' });

    expect(ok(await svc.call('events.recent', { limit: 2 }))).toEqual(kept.slice(-2));
    const moves = ok(await svc.call('events.recent', { types: ['leader.changed', 'isr.shrunk'] }));
    expect(moves.length).toBeGreaterThan(0);
    expect(moves).toEqual(kept.filter((e) => e.type === 'leader.changed' || e.type === 'isr.shrunk'));
    expect(ok(await svc.call('events.recent', { types: ['highWatermark.advanced', 'metrics.sampled'] }))).toEqual([]);
  });

  it('keeps the last 5000 events and answers at most 5000', async () => {
    const svc = createVirtualClusterService({ seed: 2 });
    ok(await svc.call('topics.create', { name: 'tuned', partitions: 1, replicationFactor: 3 }));
    // Each alter changes 6 configs (6 config.changed events): run well past the buffer.
    for (let i = 0; i < 900; i++) {
      const set = {
        'retention.ms': String(60_000 + i),
        'segment.ms': String(60_000 + i),
        'flush.ms': String(1_000 + i),
        'flush.messages': String(1 + i),
        'max.message.bytes': String(100_000 + i),
        'retention.bytes': String(1_000_000 + i),
      };
      ok(await svc.call('configs.alter', { resource: { type: 'topic', name: 'tuned' }, set }));
    }
    const kept = svc.sim.events.filter((e) => e.type !== 'highWatermark.advanced' && e.type !== 'metrics.sampled');
    expect(kept.length).toBeGreaterThan(5_000);
    expect(ok(await svc.call('events.recent', { limit: 5_000 }))).toEqual(kept.slice(-5_000));
    expect(ok(await svc.call('events.recent', {}))).toEqual(kept.slice(-500));
  });

  it('rejects a limit outside 1–5000 and an unknown event type with INVALID_INPUT', async () => {
    const svc = createVirtualClusterService({ seed: 1 });
    for (const input of [{ limit: 0 }, { limit: 5_001 }, { limit: 1.5 }, { types: ['topic.renamed'] }]) {
      const r = await svc.call('events.recent', input);
      expect(r.ok ? 'ok' : r.error.code).toBe('INVALID_INPUT');
    }
  });
});
