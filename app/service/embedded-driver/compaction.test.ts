/**
 * `topics.compaction`, `records.consume` and the workbench's `records.search` across compaction's gaps, through the service (the
 * contract's envelopes) on a simulated cluster; and the Kafka driver's answer for an external
 * cluster, which cannot show its cleaner.
 */
import { describe, expect, it } from 'vitest';
import { createVirtualClusterService } from '../../sim/virtual-service.js';
import { kafkaDriverOver } from '../kafka-driver/kafka-driver.js';
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';

const ok = <T>(r: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

describe('topics.compaction on the embedded cluster', () => {
  it("shows each replica's cleaner: waiting for the active segment, then cleaned with its checkpoint and last cleaning; a reader pages across the gaps", async () => {
    const svc = createVirtualClusterService({ seed: 30, staticConfigs: { 'log.cleaner.backoff.ms': '1000' } });
    const sim = svc.sim;
    sim.createTopic('profiles', 1, 3, { 'cleanup.policy': 'compact', 'segment.ms': '10000', 'min.cleanable.dirty.ratio': '0.01', 'delete.retention.ms': '3600000' });
    const plain = ok(await svc.call('topics.compaction', { name: 'profiles' }));
    expect(plain).toMatchObject({ topic: 'profiles', cleanupPolicy: ['compact'], compacted: true, settings: { minCleanableDirtyRatio: 0.01, segmentMs: 10_000, deleteRetentionMs: 3_600_000, maxCompactionLagMs: null } });
    expect(plain.partitions[0]!.replicas.map((r) => r.state)).toEqual(['empty', 'empty', 'empty']);

    const produce = (entries: [string, string | null][]) =>
      sim.await<{ errorCode: string }>((done) => sim.engine.produce({ topic: 'profiles', partition: 0, acks: 'all', timeoutMs: 10_000, records: entries.map(([k, v]) => ({ key: new TextEncoder().encode(k), value: v === null ? null : new TextEncoder().encode(v), headers: [], timestamp: 0 })) }, done));
    for (let round = 0; round < 5; round++) {
      // The last round rewrites half the keys: the cleaned batch before it keeps the other half at their own offsets.
      produce(Array.from({ length: round === 4 ? 5 : 10 }, (_, i) => [`k${i}`, `v${round}`] as [string, string]));
      sim.advance(11_000);
    }
    const cleanedBefore = sim.eventsOf('log.cleaned').length;
    produce([['k0', null]]);
    const waiting = ok(await svc.call('topics.compaction', { name: 'profiles' }));
    expect(waiting.partitions[0]!.replicas.map((r) => r.leader)).toContain(true);
    sim.waitFor(() => sim.eventsOf('log.cleaned').length >= cleanedBefore + 3, 60_000, 'every replica cleaned after the last round');
    const view = ok(await svc.call('topics.compaction', { name: 'profiles' }));
    for (const r of view.partitions[0]!.replicas) {
      expect(r.cleanerCheckpoint).toBeGreaterThan(0);
      expect(r.lastClean!.recordsRead).toBeGreaterThan(r.lastClean!.recordsWritten);
      expect(r.segments.map((s) => s.section)).toContain('clean');
      expect(r.segments.at(-1)!.section).toBe('active');
    }
    // records.consume with a small page: each page ends where the next starts, across the gaps.
    const seen: number[] = [];
    const consumed: [number, string | null, string | null][] = [];
    let offset = 0;
    for (let i = 0; i < 100; i++) {
      const page = ok(await svc.call('records.consume', { topic: 'profiles', partition: 0, offset, maxRecords: 3 }));
      seen.push(...page.records.map((r) => r.offset));
      consumed.push(...page.records.map((r): [number, string | null, string | null] => [r.offset, r.key, r.value]));
      if (page.nextOffset >= page.highWatermark) break;
      expect(page.nextOffset).toBeGreaterThan(offset);
      offset = page.nextOffset;
    }
    expect(seen.length).toBeLessThan(51);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // The workbench reads the cleaned batches at the offsets the records kept, oldest or newest first.
    const searched = ok(await svc.call('records.search', { topic: 'profiles', partitions: [0], from: { beginning: true }, limit: 100 }));
    expect(searched.records.map((r) => [r.offset, r.key?.text ?? null, r.value?.text ?? null])).toEqual(consumed);
    const backwards = ok(await svc.call('records.search', { topic: 'profiles', partitions: [0], from: { end: true }, order: 'newest-first', limit: 100 }));
    expect(backwards.records.map((r) => r.offset)).toEqual(seen.toReversed());
    expect(failed(await svc.call('topics.compaction', { name: 'nope' })).code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });

  it('a topic that is not compacted says so, with nothing per replica', async () => {
    const svc = createVirtualClusterService({ seed: 31 });
    ok(await svc.call('topics.create', { name: 'events', partitions: 2, replicationFactor: 1 }));
    const view = ok(await svc.call('topics.compaction', { name: 'events' }));
    expect(view).toMatchObject({ compacted: false, cleanupPolicy: ['delete'] });
    expect(view.partitions.map((p) => p.replicas)).toEqual([[], []]);
  });
});

describe('topics.compaction on an external cluster', () => {
  it('answers UNSUPPORTED_FOR_CONNECTION naming the capability and why', async () => {
    const driver = kafkaDriverOver({} as KafkaAdminClient, { connection: 'prod' });
    const r = await driver.call('topics.compaction', { name: 'events' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('UNSUPPORTED_FOR_CONNECTION');
    expect(r.error.details).toMatchObject({ capability: 'compaction', connection: 'prod' });
    expect(r.error.message).toContain('JMX');
    expect(driver.capabilities().find((c) => c.name === 'compaction')).toMatchObject({ available: false });
  });
});

function failed(r: { ok: boolean; error?: { code: string } }): { code: string } {
  if (r.ok) throw new Error('expected a failure');
  return r.error!;
}
