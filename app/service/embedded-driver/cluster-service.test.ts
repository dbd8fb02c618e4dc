import { describe, expect, it, vi } from 'vitest';
import type { Result } from '../../api/contract.js';
import type { EngineEvent } from '../../api/events.js';
import { createEngine } from '../../core/engine.js';
import { MemoryStorage } from '../../core/log/memory-log-store.js';
import { ManualScheduler } from '../../core/time.js';
import { createClusterService, type ServiceLogger } from './cluster-service.js';
import { createVirtualClusterService } from '../../sim/virtual-service.js';
import { RealtimeClock } from './realtime-clock.js';
import { seededRandom } from '../../core/random.js';
import { partitionForKey } from '../../core/partitioner.js';
import { groupRecordCodec } from '../../protocol/group-records.js';

function ok<T>(r: Result<T>): T {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.value;
}

function failed<T>(r: Result<T>) {
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.value)}`);
  return r.error;
}

function quietLogger() {
  const logged: { message: string; error: unknown }[] = [];
  const logger: ServiceLogger = { error: (message, error) => logged.push({ message, error }) };
  return { logger, logged };
}

/** A service over a started 3-broker simulation, with a topic whose leaders are in place. */
async function withTopic(name = 'orders', partitions = 3, configs: Record<string, string> = {}) {
  const { logger, logged } = quietLogger();
  const svc = createVirtualClusterService({ seed: 7, logger });
  ok(await svc.call('topics.create', { name, partitions, replicationFactor: 3, configs }));
  svc.sim.advance(2_000);
  return { svc, logged };
}

describe('the cluster service', () => {
  it('rejects input that fails the schema with INVALID_INPUT and the zod issues', async () => {
    const { svc } = await withTopic();
    const wrongType = failed(await svc.call('topics.create', { name: 'x', partitions: 'three', replicationFactor: 1 }));
    expect(wrongType.code).toBe('INVALID_INPUT');
    expect(wrongType.retriable).toBe(false);
    expect(wrongType.details).toEqual([expect.objectContaining({ path: ['partitions'] })]);

    const typo = failed(await svc.call('topics.create', { name: 'x', partitions: 1, replicationfactor: 1 }));
    expect(typo.code).toBe('INVALID_INPUT');
    expect(typo.message).toContain('replicationfactor');

    const badAcks = failed(await svc.call('records.produce', { topic: 'orders', acks: 2, records: [{ value: 'a' }] }));
    expect(badAcks.code).toBe('INVALID_INPUT');

    const unknown = failed(await svc.call('topics.rename', {}));
    expect(unknown.code).toBe('INVALID_REQUEST');
    expect(ok(await svc.call('topics.list', {})).map((t) => t.name)).toEqual(['orders']);
  });

  it("answers Kafka's error for a replication factor larger than the broker count", async () => {
    const svc = createVirtualClusterService({ seed: 1 });
    const error = failed(await svc.call('topics.create', { name: 'big', partitions: 1, replicationFactor: 4 }));
    expect(error.code).toBe('INVALID_REPLICATION_FACTOR');
    expect(error.retriable).toBe(false);
    expect(ok(await svc.call('topics.list', {}))).toEqual([]);
  });

  it('creates a topic as topics.describe shows it, and validateOnly creates nothing', async () => {
    const svc = createVirtualClusterService({ seed: 2 });
    const preview = ok(await svc.call('topics.create', { name: 'preview', partitions: 2, replicationFactor: 2, validateOnly: true }));
    expect(preview.partitions.map((p) => p.replicas.length)).toEqual([2, 2]);
    expect(ok(await svc.call('topics.list', {}))).toEqual([]);

    const created = ok(await svc.call('topics.create', { name: 'payments', partitions: 2, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }));
    svc.sim.advance(1_000);
    const described = ok(await svc.call('topics.describe', { name: 'payments' }));
    expect(described.topicId).toBe(created.topicId);
    expect(described.configs).toEqual({ 'min.insync.replicas': '2' });
    expect(described.partitions).toHaveLength(2);
    for (const p of described.partitions) {
      expect(p.leader).toBe(p.replicas[0]);
      expect([...p.isr].sort()).toEqual([1, 2, 3]);
      expect(p.replicaStates.map((r) => r.brokerId)).toEqual(p.replicas);
    }
  });

  it("partitions each record by its own key, as Kafka's default partitioner (murmur2) does, one batch per partition", async () => {
    const { svc } = await withTopic('orders', 12);
    const keys = ['order-0', 'order-1', 'order-2', 'order-3', 'order-4'];
    const alone: number[] = [];
    for (const key of keys) alone.push(ok(await svc.call('records.produce', { topic: 'orders', acks: 'all', records: [{ key, value: 'one' }] })).partition);
    // The Java client's murmur2 of these keys, toPositive, % 12 (the partitioner's own test pins murmur2 itself).
    expect(alone).toEqual([4, 10, 3, 3, 2]);
    expect(alone).toEqual(keys.map((k) => partitionForKey(new TextEncoder().encode(k), 12)));
    expect(new Set(alone).size).toBeGreaterThan(1);

    const together = ok(await svc.call('records.produce', { topic: 'orders', acks: 'all', records: keys.map((key) => ({ key, value: 'many' })) }));
    expect(together.errorCode).toBe('NONE');
    const where = new Map<number, number>();
    for (const b of together.batches) b.records.forEach((i) => where.set(i, b.partition));
    expect(keys.map((_, i) => where.get(i))).toEqual(alone);
    // Each record is readable on its key's partition, at the offset its batch names.
    for (const b of together.batches) {
      const read = ok(await svc.call('records.consume', { topic: 'orders', partition: b.partition, offset: b.baseOffset }));
      expect(read.records.slice(0, b.records.length).map((r) => r.key)).toEqual(b.records.map((i) => keys[i]));
    }
  });

  it('sends records without a key to one sticky partition until batch.size (16384) bytes have gone to it', async () => {
    const { svc } = await withTopic('clicks', 6);
    const small = ok(await svc.call('records.produce', { topic: 'clicks', acks: 1, records: Array.from({ length: 20 }, (_, i) => ({ value: `click-${i}` })) }));
    expect(small.batches).toHaveLength(1);
    expect(small.batches[0]!.records).toHaveLength(20);
    // 40 records of 1 KiB: the sticky partition switches after 16 of them (16 KiB).
    const big = ok(await svc.call('records.produce', { topic: 'clicks', acks: 1, records: Array.from({ length: 40 }, () => ({ value: 'x'.repeat(1024) })) }));
    expect(big.batches.length).toBeGreaterThan(1);
    expect(big.batches.every((b) => b.errorCode === 'NONE')).toBe(true);
    expect(big.batches.flatMap((b) => b.records).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('produces strings and consumes the same strings back, with keys, headers and nulls', async () => {
    const { svc } = await withTopic();
    const produced = ok(
      await svc.call('records.produce', {
        topic: 'orders',
        partition: 1,
        acks: 'all',
        records: [
          { key: 'k1', value: 'héllo wörld ✓', headers: [{ key: 'trace', value: 'abc' }] },
          { value: 'second' },
          { key: 'gone', value: null },
        ],
      }),
    );
    const batch = { partition: 1, baseOffset: 0, errorCode: 'NONE', leaderEpoch: 0, appendedAtMs: expect.any(Number) };
    expect(produced).toEqual({ ...batch, batches: [{ ...batch, records: [0, 1, 2] }] });

    const again = ok(await svc.call('records.produce', { topic: 'orders', partition: 1, acks: -1, records: [{ value: 'third' }] }));
    expect(again.baseOffset).toBe(3);

    const consumed = ok(await svc.call('records.consume', { topic: 'orders', partition: 1, offset: 0 }));
    expect(consumed.highWatermark).toBe(4);
    expect(consumed.logStartOffset).toBe(0);
    expect(consumed.records.map((r) => [r.offset, r.key, r.value])).toEqual([
      [0, 'k1', 'héllo wörld ✓'],
      [1, null, 'second'],
      [2, 'gone', null],
      [3, null, 'third'],
    ]);
    expect(consumed.records[0]!.headers).toEqual([{ key: 'trace', value: 'abc' }]);
    expect(consumed.records.every((r) => r.leaderEpoch === 0)).toBe(true);

    const partial = ok(await svc.call('records.consume', { topic: 'orders', partition: 1, offset: 2, maxRecords: 1 }));
    expect(partial.records.map((r) => r.value)).toEqual([null]);
  });

  it('reports a consume past the log end as OFFSET_OUT_OF_RANGE', async () => {
    const { svc } = await withTopic();
    const error = failed(await svc.call('records.consume', { topic: 'orders', partition: 0, offset: 50 }));
    expect(error.code).toBe('OFFSET_OUT_OF_RANGE');
  });

  it('resolves a produce only when the hand-stepped virtual clock delivers the answer', async () => {
    const svc = createVirtualClusterService({ seed: 5, fastForwardMs: null });
    ok(await svc.call('topics.create', { name: 'slow', partitions: 1, replicationFactor: 3 }));
    svc.sim.advance(2_000);
    let answered = false;
    const pending = svc.call('records.produce', { topic: 'slow', partition: 0, acks: 'all', records: [{ value: 'x' }] }).then((r) => {
      answered = true;
      return r;
    });
    await Promise.resolve();
    expect(answered).toBe(false);
    svc.sim.advance(1_000);
    expect(ok(await pending).errorCode).toBe('NONE');
  });

  it('describes configs with Kafka defaults and the layer each value comes from', async () => {
    const svc = createVirtualClusterService({ seed: 3, staticConfigs: { 'log.retention.hours': '24' } });
    ok(await svc.call('topics.create', { name: 'audit', partitions: 1, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } }));
    const topic = ok(await svc.call('configs.describe', { resource: { type: 'topic', name: 'audit' } }));
    const byName = new Map(topic.map((c) => [c.name, c]));
    expect(byName.get('min.insync.replicas')).toMatchObject({ value: '2', default: '1', source: 'DYNAMIC_TOPIC_CONFIG', type: 'int', validValues: '[1,...]' });
    expect(byName.get('retention.ms')).toMatchObject({ value: '86400000', default: '604800000', source: 'STATIC_BROKER_CONFIG' });
    expect(byName.get('unclean.leader.election.enable')).toMatchObject({ value: 'false', default: 'false', source: 'DEFAULT_CONFIG' });
    expect(byName.get('segment.bytes')?.doc).not.toBe('');

    const broker = ok(await svc.call('configs.describe', { resource: { type: 'broker', name: '1' } }));
    const sessionTimeout = broker.find((c) => c.name === 'broker.session.timeout.ms');
    expect(sessionTimeout).toMatchObject({ value: '9000', source: 'DEFAULT_CONFIG', readOnly: true });

    expect(failed(await svc.call('configs.describe', { resource: { type: 'broker', name: '9' } })).code).toBe('BROKER_NOT_FOUND');
    expect(failed(await svc.call('configs.describe', { resource: { type: 'topic', name: 'nope' } })).code).toBe('UNKNOWN_TOPIC_OR_PARTITION');
  });

  it("describes each broker's broker.rack as its own static config, takes compaction, and refuses read-only catalogue configs clearly", async () => {
    const svc = createVirtualClusterService({ seed: 4, brokers: [{ id: 1, rack: 'eu-1a' }, { id: 2, rack: 'eu-1b' }, { id: 3 }] });
    const rackOf = async (id: string) => ok(await svc.call('configs.describe', { resource: { type: 'broker', name: id } })).find((c) => c.name === 'broker.rack');
    expect(await rackOf('1')).toMatchObject({ value: 'eu-1a', source: 'STATIC_BROKER_CONFIG', readOnly: true, importance: 'medium' });
    expect(await rackOf('2')).toMatchObject({ value: 'eu-1b', source: 'STATIC_BROKER_CONFIG' });
    expect(await rackOf('3')).toMatchObject({ value: '', source: 'DEFAULT_CONFIG' });
    // Read-only in Kafka: not changeable at runtime.
    const rack = failed(await svc.call('configs.alter', { resource: { type: 'broker', name: '' }, set: { 'broker.rack': 'x' } }));
    expect(rack.code).toBe('INVALID_CONFIG');
    const tx = failed(await svc.call('configs.alter', { resource: { type: 'broker', name: '' }, set: { 'transaction.state.log.min.isr': '1' } }));
    expect(tx.code).toBe('INVALID_CONFIG');
    // Cluster-wide in Kafka, accepted, as is compaction.
    ok(await svc.call('configs.alter', { resource: { type: 'broker', name: '' }, set: { 'log.cleaner.threads': '2', 'num.recovery.threads.per.data.dir': '4' } }));
    ok(await svc.call('topics.create', { name: 'events', partitions: 1, replicationFactor: 1 }));
    ok(await svc.call('configs.alter', { resource: { type: 'topic', name: 'events' }, set: { 'cleanup.policy': 'compact' } }));
    const tooSmall = failed(await svc.call('configs.alter', { resource: { type: 'broker', name: '' }, set: { 'log.cleaner.dedupe.buffer.size': '1048576' } }));
    expect(tooSmall).toMatchObject({ code: 'INVALID_CONFIG', message: 'log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.' });
  });

  it('shows what configs.alter with validateOnly would do without changing anything', async () => {
    const { svc } = await withTopic('audit', 1);
    const events: EngineEvent[] = [];
    svc.subscribe((e) => events.push(e));
    const resource = { type: 'topic' as const, name: 'audit' };

    const preview = ok(await svc.call('configs.alter', { resource, set: { 'retention.ms': '3600000' }, validateOnly: true }));
    expect(preview.find((c) => c.name === 'retention.ms')).toMatchObject({ value: '3600000', source: 'DYNAMIC_TOPIC_CONFIG' });
    const after = ok(await svc.call('configs.describe', { resource }));
    expect(after.find((c) => c.name === 'retention.ms')).toMatchObject({ value: '604800000', source: 'DEFAULT_CONFIG' });
    expect(events.filter((e) => e.type === 'config.changed')).toEqual([]);

    const invalid = failed(await svc.call('configs.alter', { resource, set: { 'retention.ms': 'soon' }, validateOnly: true }));
    expect(invalid.code).toBe('INVALID_CONFIG');

    const applied = ok(await svc.call('configs.alter', { resource, set: { 'retention.ms': '3600000' } }));
    expect(applied.find((c) => c.name === 'retention.ms')?.value).toBe('3600000');
    expect(events.filter((e) => e.type === 'config.changed')).toHaveLength(1);
  });

  it('reports no Kafka listeners where no host serves them, and the bootstrap servers once a host recorded them', async () => {
    const { svc } = await withTopic();
    const none = ok(await svc.call('cluster.describe', {}));
    expect(none.bootstrapServers).toBe('');
    expect(none.brokers.map((b) => b.listener)).toEqual([null, null, null]);
    for (const id of [1, 2, 3]) svc.sim.engine.setListenerAddress(id, { host: '127.0.0.1', port: 29_090 + id });
    const served = ok(await svc.call('cluster.describe', {}));
    expect(served.bootstrapServers).toBe('127.0.0.1:29091,127.0.0.1:29092,127.0.0.1:29093');
    expect(ok(await svc.call('brokers.list', {}))[1]!.listener).toEqual({ host: '127.0.0.1', port: 29_092 });
  });

  it('counts under-replicated and under-min-ISR partitions once a killed broker is fenced', async () => {
    const { svc } = await withTopic('orders', 3, { 'min.insync.replicas': '2' });
    const healthy = ok(await svc.call('cluster.describe', {}));
    expect(healthy).toMatchObject({ controllerId: 1, topicCount: 1, partitionCount: 3, offlinePartitions: 0, underReplicatedPartitions: 0, underMinIsrPartitions: 0 });
    expect(healthy.brokers.map((b) => b.state)).toEqual(['running', 'running', 'running']);

    expect(ok(await svc.call('brokers.kill', { brokerId: 3 })).state).toBe('killed');
    // The controller notices only when the session times out (broker.session.timeout.ms = 9 s).
    expect(ok(await svc.call('cluster.describe', {})).underReplicatedPartitions).toBe(0);
    svc.sim.advance(10_000);
    const degraded = ok(await svc.call('cluster.describe', {}));
    expect(degraded.underReplicatedPartitions).toBe(3);
    expect(degraded.underMinIsrPartitions).toBe(0);
    expect(degraded.offlinePartitions).toBe(0);

    ok(await svc.call('brokers.kill', { brokerId: 2 }));
    svc.sim.advance(10_000);
    const critical = ok(await svc.call('cluster.describe', {}));
    expect(critical.underMinIsrPartitions).toBe(3);
    const produce = ok(await svc.call('records.produce', { topic: 'orders', partition: 0, acks: 'all', records: [{ value: 'x' }] }));
    expect(produce.errorCode).toBe('NOT_ENOUGH_REPLICAS');

    expect(failed(await svc.call('brokers.kill', { brokerId: 2 })).code).toBe('INVALID_STATE');
    expect(failed(await svc.call('brokers.kill', { brokerId: 42 })).code).toBe('BROKER_NOT_FOUND');
  });

  it('counts a partition under min ISR against min.insync.replicas capped at its replica count, as Kafka 3.7+ does', async () => {
    const svc = createVirtualClusterService({ seed: 5, staticConfigs: { 'min.insync.replicas': '2' } });
    ok(await svc.call('topics.create', { name: 'single', partitions: 2, replicationFactor: 1 }));
    ok(await svc.call('topics.create', { name: 'triple', partitions: 1, replicationFactor: 3 }));
    svc.sim.advance(2_000);
    // RF 1 with min.insync.replicas 2: the effective minimum is 1, and the lone replica meets it.
    expect(ok(await svc.call('cluster.describe', {})).underMinIsrPartitions).toBe(0);
    expect(ok(await svc.call('topics.list', {})).map((t) => [t.name, t.underMinIsrPartitions])).toEqual([
      ['single', 0],
      ['triple', 0],
    ]);
  });

  it('answers ELECTION_NOT_NEEDED when preferred leaders already lead', async () => {
    const { svc } = await withTopic('orders', 2);
    const results = ok(await svc.call('leaders.elect', { type: 'preferred' }));
    expect(results.map((r) => [r.topic, r.partition, r.errorCode])).toEqual([
      ['orders', 0, 'ELECTION_NOT_NEEDED'],
      ['orders', 1, 'ELECTION_NOT_NEEDED'],
    ]);
    const chosen = ok(await svc.call('leaders.elect', { type: 'unclean', partitions: [{ topic: 'orders', partition: 1 }], validateOnly: true }));
    expect(chosen[0]?.errorCode).toBe('ELECTION_NOT_NEEDED');
  });

  it('moves a replica with a pasted Kafka reassignment file, lists it, and verifies it completed', async () => {
    const svc = createVirtualClusterService({ seed: 9, brokers: 4 });
    ok(await svc.call('topics.create', { name: 'moves', assignments: [[1, 2, 3]] }));
    svc.sim.advance(2_000);
    ok(await svc.call('records.produce', { topic: 'moves', partition: 0, acks: 'all', records: [{ value: 'a' }, { value: 'b' }] }));
    const file = { version: 1, partitions: [{ topic: 'moves', partition: 0, replicas: [4, 2, 3], log_dirs: ['any', 'any', 'any'] }] };

    expect(failed(await svc.call('reassignments.execute', { partitions: [{ ...file.partitions[0], log_dirs: ['any'] }] })).code).toBe('INVALID_INPUT');
    expect(ok(await svc.call('reassignments.execute', { ...file, throttleBytesPerSec: 10_000_000 }))).toEqual([{ topic: 'moves', partition: 0, errorCode: 'NONE' }]);
    expect(ok(await svc.call('reassignments.list', {}))).toMatchObject([{ topic: 'moves', partition: 0, replicas: [4, 2, 3, 1], addingReplicas: [4], removingReplicas: [1] }]);
    expect(ok(await svc.call('reassignments.verify', file))[0]?.status).toBe('in-progress');

    svc.sim.advance(5_000);
    expect(ok(await svc.call('reassignments.list', {}))).toEqual([]);
    const verified = ok(await svc.call('reassignments.verify', file));
    expect(verified).toEqual([{ topic: 'moves', partition: 0, status: 'completed', replicas: [4, 2, 3], message: 'Reassignment of partition moves-0 is completed.' }]);
    const partition = ok(await svc.call('topics.describe', { name: 'moves' })).partitions[0]!;
    expect(partition.replicas).toEqual([4, 2, 3]);
    expect(partition.replicaStates.find((r) => r.brokerId === 4)?.logEndOffset).toBe(2);
    expect(failed(await svc.call('reassignments.execute', { partitions: [] })).code).toBe('INVALID_REPLICA_ASSIGNMENT');
    expect(ok(await svc.call('reassignments.cancel', { partitions: [{ topic: 'moves', partition: 0 }] }))[0]?.errorCode).toBe('NO_REASSIGNMENT_IN_PROGRESS');
  });

  it('turns an unexpected exception into INTERNAL and logs it with its stack', async () => {
    const { svc, logged } = await withTopic();
    vi.spyOn(svc.engine, 'listBrokers').mockImplementation(() => {
      throw new TypeError('cannot read properties of undefined');
    });
    const error = failed(await svc.call('brokers.list', {}));
    expect(error.code).toBe('INTERNAL');
    expect(error.retriable).toBe(false);
    expect(error.message).toContain('cannot read properties of undefined');
    expect(logged).toHaveLength(1);
    expect((logged[0]!.error as Error).stack).toContain('TypeError');
  });

  it('delivers engine events to a subscriber until it unsubscribes', async () => {
    const { svc } = await withTopic();
    const events: EngineEvent[] = [];
    const unsubscribe = svc.subscribe((e) => events.push(e));
    ok(await svc.call('topics.create', { name: 'clicks', partitions: 1, replicationFactor: 1 }));
    ok(await svc.call('brokers.stop', { brokerId: 2 }));
    svc.sim.advance(5_000);
    expect(events.find((e) => e.type === 'topic.created')).toMatchObject({ topic: 'clicks', partitions: 1, replicationFactor: 1 });
    expect(events.some((e) => e.type === 'broker.stateChanged' && e.brokerId === 2 && e.state === 'stopped')).toBe(true);
    unsubscribe();
    const seen = events.length;
    ok(await svc.call('topics.delete', { name: 'clicks' }));
    expect(events).toHaveLength(seen);
  });

  it('reports the manual clock and refuses a time scale without a real-time clock', async () => {
    const svc = createVirtualClusterService({ seed: 1 });
    expect(ok(await svc.call('clock.get', {}))).toEqual({ nowMs: svc.sim.now, scale: null, mode: 'manual' });
    expect(failed(await svc.call('clock.setScale', { scale: 10 })).code).toBe('INVALID_STATE');
  });

  it('answers produce and consume in real-time mode as the clock advances the clock', async () => {
    let realNow = 0;
    const timers: { at: number; fn: () => void }[] = [];
    const scheduler = new ManualScheduler(0);
    const engine = createEngine({ scheduler, random: seededRandom(11), storage: new MemoryStorage(), brokers: [{ id: 1 }, { id: 2 }, { id: 3 }], groupRecords: groupRecordCodec });
    const clock = new RealtimeClock({
      scheduler,
      realNow: () => realNow,
      setTimer: (fn, ms) => {
        const t = { at: realNow + ms, fn };
        timers.push(t);
        return t;
      },
      clearTimer: (t) => timers.splice(timers.indexOf(t as (typeof timers)[number]), 1),
    });
    const elapse = (ms: number): void => {
      const target = realNow + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > target) break;
        timers.shift();
        realNow = Math.max(realNow, next.at);
        next.fn();
      }
      realNow = target;
    };
    const svc = createClusterService({ engine, scheduler, clock });
    engine.start();
    clock.start();
    elapse(3_000);
    expect(ok(await svc.call('clock.setScale', { scale: 60 }))).toEqual({ nowMs: 3_000, scale: 60, mode: 'realtime' });
    ok(await svc.call('topics.create', { name: 'live', partitions: 1, replicationFactor: 3 }));
    elapse(100);

    const produced = svc.call('records.produce', { topic: 'live', partition: 0, acks: 'all', records: [{ value: 'now' }] });
    elapse(100);
    expect(ok(await produced).errorCode).toBe('NONE');
    const consumed = svc.call('records.consume', { topic: 'live', partition: 0, offset: 0 });
    elapse(100);
    expect(ok(await consumed).records.map((r) => r.value)).toEqual(['now']);
    expect(ok(await svc.call('clock.get', {})).nowMs).toBe(3_000 + 300 * 60);
    clock.stop();
  });

  it('reports the time the engine has reached while it catches up with a 60× clock: nothing that follows a clock.get is stamped before it', async () => {
    let realNow = 0;
    const scheduler = new ManualScheduler(0);
    const engine = createEngine({ scheduler, random: seededRandom(12), storage: new MemoryStorage(), brokers: [{ id: 1 }, { id: 2 }, { id: 3 }], groupRecords: groupRecordCodec });
    // Real timers never fire here: only the service calls move the engine, as on a machine too busy to run the clock's timer.
    const clock = new RealtimeClock({ scheduler, scale: 60, realNow: () => realNow, setTimer: () => ({}), clearTimer: () => {} });
    const svc = createClusterService({ engine, scheduler, clock });
    const events: EngineEvent[] = [];
    svc.subscribe((e) => events.push(e));
    engine.start();
    clock.start();
    // A second of real time (a virtual minute) whose work takes longer than the clock's step: each task costs 5 real ms.
    for (let t = 1_000; t <= 60_000; t += 1_000) scheduler.schedule(t, () => (realNow += 5));
    realNow += 1_000;
    const { nowMs } = ok(await svc.call('clock.get', {}));
    // The state this is about: the engine is still behind the time real time has reached.
    expect(scheduler.now()).toBeLessThan(clock.now());
    ok(await svc.call('topics.create', { name: 'after', partitions: 1, replicationFactor: 3 }));
    const created = events.find((e) => e.type === 'topic.created');
    expect(created!.atMs).toBeGreaterThanOrEqual(nowMs);
    clock.stop();
  });
});
