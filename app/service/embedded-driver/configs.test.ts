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
