import { describe, expect, it } from 'vitest';
import type { Result } from '../../api/contract.js';
import { createVirtualClusterService } from '../../sim/virtual-service.js';

function ok<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

describe('configs.describe through the service', () => {
  it("shows Kafka's importance and the durability/availability effect of each topic config", async () => {
    const svc = createVirtualClusterService({ seed: 11 });
    ok(await svc.call('topics.create', { name: 'payments', partitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }));
    const entries = ok(await svc.call('configs.describe', { resource: { type: 'topic', name: 'payments' } }));
    const byName = new Map(entries.map((c) => [c.name, c]));

    const minIsr = byName.get('min.insync.replicas');
    expect(minIsr).toMatchObject({ value: '2', importance: 'medium' });
    expect(minIsr?.effect?.durability).toContain('acks=all');
    expect(minIsr?.effect?.availability).toContain('NOT_ENOUGH_REPLICAS');
    expect(byName.get('unclean.leader.election.enable')?.effect?.durability).toMatch(/lost/);
    expect(byName.get('retention.ms')?.effect?.durability).toMatch(/deleted/);
    expect(entries.every((c) => c.importance === 'medium')).toBe(true);
  });

  it('says what each config would be without the resource’s own setting, and deleting the override gives exactly that', async () => {
    const svc = createVirtualClusterService({ seed: 12 });
    // The cluster-wide default says 2 (as the balanced profile sets it); the topic overrides it with 1.
    ok(await svc.call('configs.alter', { resource: { type: 'broker', name: '' }, set: { 'min.insync.replicas': '2', 'log.retention.ms': '86400000' } }));
    ok(await svc.call('topics.create', { name: 'orders', partitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '1', 'retention.ms': '3600000' } }));
    const entries = ok(await svc.call('configs.describe', { resource: { type: 'topic', name: 'orders' } }));
    const byName = new Map(entries.map((c) => [c.name, c]));
    // Kafka's own default is 1; without its override the topic would take the cluster default, 2.
    expect(byName.get('min.insync.replicas')).toMatchObject({ value: '1', default: '1', source: 'DYNAMIC_TOPIC_CONFIG', inherited: { value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' } });
    expect(byName.get('retention.ms')!.inherited).toEqual({ value: '86400000', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect(byName.get('segment.bytes')!.inherited).toEqual({ value: byName.get('segment.bytes')!.value, source: 'DEFAULT_CONFIG' });
    const after = ok(await svc.call('configs.alter', { resource: { type: 'topic', name: 'orders' }, set: { 'min.insync.replicas': null, 'retention.ms': null } }));
    expect(after.find((c) => c.name === 'min.insync.replicas')).toMatchObject({ value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect(after.find((c) => c.name === 'retention.ms')).toMatchObject({ value: '86400000', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    // A broker's dynamic config: without it, the cluster-wide default.
    ok(await svc.call('configs.alter', { resource: { type: 'broker', name: '1' }, set: { 'min.insync.replicas': '3' } }));
    const broker = ok(await svc.call('configs.describe', { resource: { type: 'broker', name: '1' } }));
    expect(broker.find((c) => c.name === 'min.insync.replicas')).toMatchObject({ value: '3', inherited: { value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' } });
  });

  it('shows them for broker configs, where synonyms of topic configs rank as Kafka ranks them', async () => {
    const svc = createVirtualClusterService({ seed: 11 });
    const entries = ok(await svc.call('configs.describe', { resource: { type: 'broker', name: '1' } }));
    const byName = new Map(entries.map((c) => [c.name, c]));

    expect(byName.get('replica.lag.time.max.ms')).toMatchObject({ importance: 'high', readOnly: true });
    expect(byName.get('replica.lag.time.max.ms')?.effect?.availability).toContain('ISR');
    expect(byName.get('min.insync.replicas')?.importance).toBe('high');
    expect(byName.get('num.partitions')?.importance).toBe('medium');
    expect(byName.get('log.retention.hours')?.importance).toBe('high');
    expect(byName.get('broker.session.timeout.ms')?.effect?.availability).toMatch(/heartbeat/);
    expect(entries.every((c) => ['high', 'medium', 'low'].includes(c.importance))).toBe(true);
  });
});
