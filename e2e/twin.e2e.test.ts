/**
 * A twin of an external cluster: the console host (`npm run serve` with a config directory of its
 * own) reaches a second `serve` host only over the Kafka protocol, makes a local twin of it
 * (`connections.createTwin`), and the twin then has the source's brokers (ids and racks, one of
 * them down), topics, assignments, leaders, configs, feature levels, ACLs, quotas and offsets;
 * a stop and a reassignment plan predicted on the twin equal the same predictions on the source; the source's drift is
 * shown, applied, and gone; and the twin, with where it came from, is still there after the
 * console host restarts. Real SQLite files in temp directories, real Kafka listeners on free ports.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionView } from '../app/api/connections.js';
import type { PlanImpactView, StopImpactView } from '../app/api/impact-contract.js';
import type { AclListView, ClientQuotaView } from '../app/api/security-contract.js';
import type { TwinResultView } from '../app/api/twin-contract.js';
import type { BrokerView, ConfigEntryView, TopicView } from '../app/api/views.js';
import type { FeatureView } from '../app/api/feature-views.js';
import { api, removeDir, startServe, type ServedHost } from './support/harness.js';
import { startKafkaServe, until, type KafkaServe } from './support/kafka-serve.js';

const STANDARD = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const ELR = 'eligible.leader.replicas.version';

describe('a twin of an external cluster', () => {
  let external: KafkaServe;
  let console_: ServedHost;
  let configDir: string;
  let sourceId: string;
  let twin: TwinResultView;

  async function call<T>(method: string, input: unknown, timeoutMs = 180_000): Promise<T> {
    const res = await fetch(`${console_.origin}/api/${method}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${console_.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json()) as { ok: true; value: T } | { ok: false; error: { code: string; message: string } };
    if (!body.ok) throw new Error(`${method}: ${body.error.code} ${body.error.message}`);
    return body.value;
  }
  const onSource = <T>(method: string, input: Record<string, unknown> = {}): Promise<T> => api<T>(external.host, method, input);
  const onTwin = <T>(method: string, input: Record<string, unknown> = {}): Promise<T> => call<T>(method, { ...input, connection: twin.connection.id });

  /** What a twin must equal, read from `read` (the source's own host, or the twin through the console). */
  async function topology(read: <T>(method: string, input?: Record<string, unknown>) => Promise<T>, skipInternal = true) {
    const topics = (await read<TopicView[]>('topics.describeMany')).filter((t) => !skipInternal || !t.name.startsWith('__'));
    const brokers = await read<BrokerView[]>('brokers.list');
    const cluster = await read<ConfigEntryView[]>('configs.describe', { resource: { type: 'broker', name: '' } });
    const features = await read<FeatureView[]>('cluster.features');
    const acls = await read<AclListView>('acls.list');
    const quotas = await read<ClientQuotaView[]>('quotas.list');
    return {
      brokers: brokers.map((b) => ({ id: b.id, rack: b.rack, up: b.state === 'running' })),
      topics: topics.map((t) => ({
        name: t.name,
        configs: t.configs,
        partitions: t.partitions.map((p) => ({ partition: p.partition, replicas: p.replicas, leader: p.leader, logStartOffset: p.logStartOffset, highWatermark: p.highWatermark })),
      })),
      clusterConfigs: cluster.filter((e) => e.source === 'DYNAMIC_DEFAULT_BROKER_CONFIG').map((e) => [e.name, e.value]),
      features: features.map((f) => [f.name, f.finalizedLevel]),
      acls: acls.bindings.map((b) => JSON.stringify(b)).sort(),
      quotas: quotas.map((q) => JSON.stringify(q)).sort(),
    };
  }

  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'rs-twin-config-'));
    [console_, external] = await Promise.all([
      startServe({ extraArgs: ['--config', configDir] }),
      // The console's Kafka client connects as User:ANONYMOUS: a super user, so the authorizer lets it read everything.
      startKafkaServe({ extraArgs: ['--broker-config', `authorizer.class.name=${STANDARD}`, '--broker-config', 'super.users=User:ANONYMOUS'] }),
    ]);
    sourceId = (await call<ConnectionView>('connections.addExternal', { name: 'production', settings: { bootstrapServers: external.bootstrap.split(',') } })).id;

    // The source: the balanced profile's brokers 1–3 on rack-1..3, and broker 7 on rack-b (an id out of sequence).
    await onSource('clock.setScale', { scale: 10 });
    await onSource('brokers.add', { id: 7, rack: 'rack-b' });
    await onSource('cluster.updateFeatures', { updates: [{ feature: ELR, maxVersionLevel: 1 }] });
    await onSource('configs.alter', { resource: { type: 'broker', name: '' }, set: { 'log.retention.ms': '3600000' } });
    await onSource('topics.create', { name: 'orders', assignments: [[1, 2, 3], [2, 3, 7], [3, 7, 1], [7, 1, 2]], configs: { 'min.insync.replicas': '2', 'cleanup.policy': 'compact,delete' } });
    await onSource('topics.create', { name: 'audit', assignments: [[2, 1], [7, 3]], configs: { 'unclean.leader.election.enable': 'true' } });
    await onSource('topics.create', { name: 'spare', assignments: [[7]] });
    await until(async () => (await external.topic('orders')).partitions.every((p) => p.isr.length === 3), 60_000, 'orders fully replicated on the source');
    for (let p = 0; p < 4; p++) await onSource('records.produce', { topic: 'orders', partition: p, acks: 'all', records: Array.from({ length: 5 + p * 7 }, (_, i) => ({ value: `order ${i} of partition ${p}` })) });
    await onSource('records.produce', { topic: 'audit', partition: 1, acks: 'all', records: Array.from({ length: 30 }, () => ({ value: 'audit entry' })) });
    await onSource('records.delete', { partitions: [{ topic: 'orders', partition: 3, offset: 9 }, { topic: 'audit', partition: 1, offset: 12 }] });
    // orders-1 led by 3, not by its preferred replica 2: reorder the replicas (nothing moves), the leader stays.
    await onSource('reassignments.execute', { partitions: [{ topic: 'orders', partition: 1, replicas: [3, 2, 7] }] });
    await until(async () => (await onSource<unknown[]>('reassignments.list')).length === 0, 60_000, 'the reorder done');
    await onSource('leaders.elect', { type: 'preferred', partitions: [{ topic: 'orders', partition: 1 }] });
    await onSource('reassignments.execute', { partitions: [{ topic: 'orders', partition: 1, replicas: [2, 3, 7] }] });
    await until(async () => (await onSource<unknown[]>('reassignments.list')).length === 0, 60_000, 'the order back');
    await onSource('acls.create', {
      bindings: [
        { resourceType: 'TOPIC', resourceName: 'orders', patternType: 'LITERAL', principal: 'User:alice', host: '*', operation: 'WRITE', permissionType: 'ALLOW' },
        { resourceType: 'GROUP', resourceName: 'billing-', patternType: 'PREFIXED', principal: 'User:bob', host: '*', operation: 'READ', permissionType: 'ALLOW' },
      ],
    });
    await onSource('quotas.alter', { entity: { user: 'alice' }, set: { producer_byte_rate: 1_048_576 } });
    await until(async () => (await onSource<unknown[]>('reassignments.list')).length === 0 && (await external.topic('orders')).partitions.every((p) => p.isr.length === 3), 60_000, 'the source settled');
  }, 240_000);

  afterAll(async () => {
    await console_?.stop();
    await external?.stop();
    removeDir(configDir);
  });

  it('copies the source: brokers with ids and racks, topics, assignments, leaders, configs, features, ACLs, quotas and offsets', async () => {
    const source = await topology(onSource);
    expect(source.topics.find((t) => t.name === 'orders')!.partitions[1]).toMatchObject({ replicas: [2, 3, 7], leader: 3 });
    twin = await call<TwinResultView>('connections.createTwin', { name: 'production twin', source: sourceId });
    expect(twin.connection).toMatchObject({ kind: 'local', open: true, twinOf: { sourceId, sourceName: 'production' } });
    expect(twin.changes.map((c) => c.kind)).toEqual(expect.arrayContaining(['cluster-config', 'feature', 'topic-added', 'leader', 'offsets', 'acl-added', 'quota']));
    expect(twin.notes.join(' ')).toMatch(/SCRAM credentials/);
    expect(await topology(onTwin)).toEqual(source);
    // Its server.properties came along: the authorizer (so ACLs mean the same), with the source's super users.
    const b1 = await onTwin<ConfigEntryView[]>('configs.describe', { resource: { type: 'broker', name: '1' } });
    expect(b1.find((e) => e.name === 'authorizer.class.name')).toMatchObject({ value: STANDARD, source: 'STATIC_BROKER_CONFIG' });
  }, 240_000);

  it('predicts the same stop impact and reassignment plan impact on the twin as on the source', async () => {
    const predicted = async (read: <T>(m: string, i?: Record<string, unknown>) => Promise<T>) => {
      const v = await read<StopImpactView>('impact.ofStop', { racks: ['rack-2'] });
      return { before: v.before, after: v.after, partitions: v.partitions.filter((p) => !p.topic.startsWith('__')).map((p) => ({ tp: `${p.topic}-${p.partition}`, after: p.after.leader, outcome: p.after.outcome })) };
    };
    const viaKafka = <T>(method: string, input: Record<string, unknown> = {}) => call<T>(method, { ...input, connection: sourceId });
    expect(await predicted(onTwin)).toEqual(await predicted(viaKafka));
    // A plan rehearsed on the twin: the same moves, during and after, as asked of the source.
    const plan = { partitions: [{ topic: 'orders', partition: 0, replicas: [7, 2, 3] }, { topic: 'audit', partition: 1, replicas: [1, 3] }], throttleBytesPerSec: 1_000, racks: ['rack-2'] };
    const planned = async (read: <T>(m: string, i?: Record<string, unknown>) => Promise<T>) => {
      const v = await read<PlanImpactView>('impact.ofPlan', plan);
      return { during: v.during, after: v.after, moves: v.moves.map(({ bytesToCopy: _, ...m }) => m), stopAfter: v.stop!.after.after, copies: v.moves.map((m) => m.bytesToCopy > 0) };
    };
    expect(await planned(onTwin)).toEqual(await planned(viaKafka));
  });

  it('shows the source\'s drift, applies it, and then has none', async () => {
    await onSource('topics.create', { name: 'payments', assignments: [[3, 1]], configs: { 'retention.ms': '86400000' } });
    await onSource('partitions.add', { topic: 'audit', totalCount: 3, assignments: [[1, 7]] });
    await onSource('configs.alter', { resource: { type: 'topic', name: 'orders' }, set: { 'min.insync.replicas': '1' } });
    await onSource('reassignments.execute', { partitions: [{ topic: 'audit', partition: 0, replicas: [3, 1] }] });
    await onSource('topics.delete', { name: 'spare' });
    await until(async () => (await onSource<unknown[]>('reassignments.list')).length === 0, 60_000, 'the source reassignment done');

    const dry = await call<TwinResultView>('connections.refreshTwin', { id: twin.connection.id });
    const seen = dry.changes.map((c) => `${c.kind} ${c.subject}: ${c.twin} -> ${c.source}`);
    expect(seen).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^topic-added topic payments/),
        'partitions-added topic audit: 2 -> 3',
        'topic-config topic orders min.insync.replicas: 2 -> 1',
        'assignment audit-0: [2,1] -> [3,1]',
        expect.stringMatching(/^topic-removed topic spare/),
      ]),
    );
    expect(dry.dryRun).toBe(true);
    expect((await onTwin<TopicView[]>('topics.describeMany')).map((t) => t.name)).toContain('spare');

    await call<TwinResultView>('connections.refreshTwin', { id: twin.connection.id, dryRun: false });
    expect(await topology(onTwin)).toEqual(await topology(onSource));
    const again = await call<TwinResultView>('connections.refreshTwin', { id: twin.connection.id });
    expect(again.changes).toEqual([]);
  }, 240_000);

  it('keeps the twin and where it came from across a restart of the console host', async () => {
    // A restart is a whole cluster's controlled shutdown and start: leaders may move, as in Kafka; everything else stays.
    const withoutLeaders = (t: Awaited<ReturnType<typeof topology>>) => ({ ...t, topics: t.topics.map((x) => ({ ...x, partitions: x.partitions.map(({ leader: _, ...p }) => p) })) });
    const before = withoutLeaders(await topology(onTwin));
    await console_.stop();
    console_ = await startServe({ dataDir: console_.dataDir, extraArgs: ['--config', configDir] });
    const listed = (await call<ConnectionView[]>('connections.list', {})).find((c) => c.id === twin.connection.id);
    expect(listed).toMatchObject({ kind: 'local', twinOf: { sourceId, sourceName: 'production', sourceClusterId: (await external.describe()).clusterId } });
    await until(async () => (await onTwin<BrokerView[]>('brokers.list')).filter((b) => b.state === 'running').length === 4, 60_000, 'the twin\'s brokers back');
    expect(withoutLeaders(await topology(onTwin))).toEqual(before);
  }, 240_000);
});
