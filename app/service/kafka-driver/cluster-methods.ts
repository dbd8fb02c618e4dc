/**
 * The Kafka driver's cluster, broker, topic, config and record methods. Each reads the cluster
 * fresh (snapshot.ts) and builds the same views the embedded service does; brokers, replicas and
 * offsets are Kafka's own answers. Faults and broker membership are refused by capability before
 * a method runs (kafka-driver.ts); their entries here only name the capability.
 */
import type { BrokerView, ClusterView, PartitionView, TopicView } from '../../api/contract.js';
import type { Capability } from '../../api/capabilities.js';
import { KafkaError } from '../../api/errors.js';
import { SUPPORTED_FEATURES } from '../../core/engine.js';
import { placeReplicas } from '../../core/placement/index.js';
import { seededRandom } from '../../core/random.js';
import type { KafkaAdminClient } from '../../kafka-client/admin-client.js';
import { FEATURE_UPDATES_UNAVAILABLE_REASON, updateFeatures, ZERO_TOPIC_ID } from '../../kafka-client/feature-requests.js';
import { unsupported } from '../cluster-driver.js';
import { clusterHealth, partitionView, topicSummaryView } from '../cluster-views.js';
import { ProducerPartitioner } from '../producer-partitioner.js';
import { kafkaConfigEntryViews } from './config-views.js';
import type { KafkaMethods } from './kafka-methods.js';
import { readSnapshot, TOPIC_ID_UNAVAILABLE_REASON, topicNumber, type KafkaSnapshot } from './snapshot.js';
import { lastOffsetPerPartition } from '../embedded-driver/records-delete.js';
import { fillBatchRecords } from '../embedded-driver/records-fill.js';
import type { FillResultView } from '../../api/records-fill-contract.js';
import { searchRecords } from '../workbench/search.js';
import { producedRecords, type EncodingRegistry } from '../workbench/produce-encoding.js';
import type { SchemaLookup } from '../workbench/payload.js';
import { kafkaRecordSource } from './kafka-record-source.js';

type KafkaClusterMethod =
  | 'cluster.describe'
  | 'cluster.snapshot'
  | 'brokers.list'
  | 'brokers.add'
  | 'brokers.remove'
  | 'brokers.stop'
  | 'brokers.start'
  | 'brokers.kill'
  | 'brokers.powerLoss'
  | 'brokers.isolate'
  | 'brokers.heal'
  | 'brokers.stallFollower'
  | 'brokers.cutLink'
  | 'topics.list'
  | 'topics.stats'
  | 'cluster.features'
  | 'cluster.updateFeatures'
  | 'consumers.start'
  | 'consumers.stop'
  | 'consumers.list'
  | 'topics.describe'
  | 'topics.describeMany'
  | 'topics.create'
  | 'topics.createMany'
  | 'topics.delete'
  | 'topics.deleteMany'
  | 'partitions.add'
  | 'configs.describe'
  | 'configs.alter'
  | 'records.produce'
  | 'records.consume'
  | 'topics.compaction'
  | 'records.delete'
  | 'records.fill'
  | 'records.search'
  | 'schemas.list'
  | 'schemas.check'
  | 'schemas.register'
  | 'schemas.usage'
  | 'metrics.get'
  | 'events.recent'
  | 'clock.get'
  | 'clock.setScale';

/** Partitions `records.fill` writes to at once over the Kafka protocol. */
const FILL_CONCURRENCY = 16;

const PARTITION_EPOCH_REASON = "Kafka's Metadata answer carries each partition's leader epoch but not its partition epoch (the controller's count of its changes).";

/** Why the active controller is not shown: what Metadata names is any live broker in KRaft. */
function controllerReason(named: number | null): string {
  return (
    `Over the Kafka protocol a KRaft cluster does not name its active controller: Metadata and DescribeCluster ${named === null ? 'name no broker' : `name broker ${named}`}, ` +
    'which in KRaft is any live broker (it forwards admin requests to the controller quorum). kafka-metadata-quorum.sh describe --status asks the quorum itself.'
  );
}

const REPLICA_STATES_REASON = 'The Kafka protocol does not report each replica’s log end offset, high watermark or flushed offset (brokers publish them as JMX metrics).';

function minIsrOf(s: KafkaSnapshot, topic: string): number {
  const n = topicNumber(s, topic, 'min.insync.replicas');
  return Number.isFinite(n) ? n : 1;
}

function brokerViews(s: KafkaSnapshot, logBytes: Map<number, number>): BrokerView[] {
  const replicas = new Map<number, number>();
  const leaders = new Map<number, number>();
  for (const { state } of s.image.allPartitions()) {
    for (const r of state.replicas) replicas.set(r, (replicas.get(r) ?? 0) + 1);
    if (state.leader >= 0) leaders.set(state.leader, (leaders.get(state.leader) ?? 0) + 1);
  }
  return [...s.image.brokers.values()]
    .sort((a, b) => a.id - b.id)
    .map((b) => ({
      id: b.id,
      rack: b.rack,
      // Metadata lists live brokers only: one that replicas name but Metadata does not is not running.
      state: b.fenced ? 'fenced' : 'running',
      partitionCount: replicas.get(b.id) ?? 0,
      leaderCount: leaders.get(b.id) ?? 0,
      listener: s.listeners.get(b.id) ?? null,
      isolated: false,
      fetcherStalled: false,
      // The active controller is not known over the Kafka protocol (controllerReason).
      isController: false,
      brokerEpoch: b.brokerEpoch,
      logBytes: logBytes.get(b.id) ?? -1,
    }));
}

/** What one DescribeLogDirs of some brokers says: bytes each stores, and each partition's leader replica's bytes by "topic\0partition". */
interface LogDirSizes {
  brokerBytes: Map<number, number>;
  leaderBytes: Map<string, number>;
}

/** One DescribeLogDirs of `brokers` (both maps empty when the brokers cannot say). */
async function logDirSizes(client: KafkaAdminClient, s: KafkaSnapshot, brokers: number[]): Promise<LogDirSizes> {
  const leaderOf = (topic: string, partition: number): number | undefined => s.image.topicsByName.get(topic)?.partitions.get(partition)?.leader;
  const brokerBytes = new Map<number, number>();
  const leaderBytes = new Map<string, number>();
  for (const d of await client.describeLogDirs(brokers).catch(() => [])) {
    let stored = 0;
    for (const dir of d.logDirs) {
      for (const r of dir.replicas) {
        if (r.isFuture) continue;
        stored += r.sizeBytes;
        if (leaderOf(r.topic, r.partition) === d.brokerId) leaderBytes.set(`${r.topic}\u0000${r.partition}`, r.sizeBytes);
      }
    }
    brokerBytes.set(d.brokerId, stored);
  }
  return { brokerBytes, leaderBytes };
}

const liveBrokers = (s: KafkaSnapshot): number[] => [...s.image.brokers.values()].filter((b) => !b.fenced).map((b) => b.id);

function leadersOf(s: KafkaSnapshot, topics: string[]): number[] {
  const leaders = new Set<number>();
  for (const name of topics) for (const p of s.image.topicsByName.get(name)?.partitions.values() ?? []) if (p.leader >= 0) leaders.add(p.leader);
  return [...leaders];
}

function clusterView(s: KafkaSnapshot, brokerBytes: Map<number, number>): ClusterView {
  return {
    clusterId: s.clusterId,
    controllerId: null,
    unreported: { controller: controllerReason(s.controllerId) },
    brokers: brokerViews(s, brokerBytes),
    bootstrapServers: [...s.listeners.entries()].sort(([a], [b]) => a - b).map(([, l]) => `${l.host}:${l.port}`).join(','),
    // Brokers that replicas name but Metadata does not list (not live: fenced or down).
    fencedBrokers: [...s.image.brokers.values()].filter((b) => b.fenced).length,
    ...clusterHealth(s.image.topicsByName.values(), (t) => minIsrOf(s, t.name)),
  };
}

type TopicOffsets = Awaited<ReturnType<KafkaAdminClient['offsetsOf']>>;

/**
 * The views of `names`: offsets from ListOffsets to each leader the snapshot's Metadata names and
 * sizes from one DescribeLogDirs of those leaders, or both as `read` gives them.
 */
async function topicViews(client: KafkaAdminClient, s: KafkaSnapshot, names: string[], read?: { sizes: LogDirSizes; offsets: TopicOffsets }): Promise<TopicView[]> {
  for (const name of names) if (!s.image.topicsByName.has(name)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `This server does not host this topic: ${name}`);
  const [{ leaderBytes }, offsetsOf] = read ? [read.sizes, read.offsets] : await Promise.all([logDirSizes(client, s, leadersOf(s, names)), client.offsetsOf(names, s.metadata)]);
  return names.map((name) => {
    const topic = s.image.topicsByName.get(name)!;
    const offsets = new Map(offsetsOf.get(name)!.map((o) => [o.partition, o]));
    // No replica states: the protocol does not report followers' logs (`unavailable` says so).
    const partitions: PartitionView[] = [...topic.partitions.values()]
      .sort((a, b) => a.partition - b.partition)
      .map((p) => {
        const view = partitionView({ ...p, highWatermark: offsets.get(p.partition)?.highWatermark ?? -1, logStartOffset: offsets.get(p.partition)?.logStartOffset ?? -1, replicaStates: [] });
        const size = leaderBytes.get(`${name}\u0000${p.partition}`);
        return size === undefined ? view : { ...view, sizeBytes: size };
      });
    return {
      name,
      topicId: topic.topicId,
      configs: { ...topic.configs },
      partitions,
      unavailable: { replicaStates: REPLICA_STATES_REASON, ...(s.elrUnavailable ? { eligibleLeaderReplicas: s.elrUnavailable } : {}) },
      unreported: { partitionEpoch: PARTITION_EPOCH_REASON, ...(topic.topicId === ZERO_TOPIC_ID ? { topicId: s.topicIdsUnavailable ?? TOPIC_ID_UNAVAILABLE_REASON } : {}) },
    };
  });
}

/** The placement a new topic would get, as a KRaft controller places it (its random start aside). */
function plannedTopic(s: KafkaSnapshot, input: { name: string; partitions?: number | undefined; replicationFactor?: number | undefined; assignments?: number[][] | undefined; configs?: Record<string, string> | undefined }): TopicView {
  const defaults = s.image.clusterConfigs();
  const numPartitions = input.assignments?.length ?? (input.partitions === undefined || input.partitions === -1 ? Number(defaults['num.partitions'] ?? 1) : input.partitions);
  const rf = input.replicationFactor === undefined || input.replicationFactor === -1 ? Number(defaults['default.replication.factor'] ?? 1) : input.replicationFactor;
  const brokers = [...s.image.brokers.values()].map((b) => ({ id: b.id, rack: b.rack, fenced: b.fenced, inControlledShutdown: false }));
  const assignments = input.assignments ?? placeReplicas({ brokers, numPartitions, replicationFactor: rf, strategy: 'striped', random: seededRandom(numPartitions * 31 + rf) });
  return {
    name: input.name,
    topicId: '',
    configs: { ...(input.configs ?? {}) },
    partitions: assignments.map((replicas, partition) =>
      partitionView({ topicId: '', partition, replicas, isr: replicas, leader: replicas[0] ?? -1, leaderEpoch: 0, partitionEpoch: 0, addingReplicas: [], removingReplicas: [], leaderRecoveryState: 'RECOVERED', highWatermark: 0, logStartOffset: 0, replicaStates: [] }),
    ),
    unavailable: { replicaStates: REPLICA_STATES_REASON },
  };
}

export function kafkaClusterMethods(
  client: KafkaAdminClient,
  missing: (capability: Capability) => never,
  connection?: string,
  schemas: { lookup: SchemaLookup; encoding: EncodingRegistry } | null = null,
): Pick<KafkaMethods, KafkaClusterMethod> {
  const lookup = schemas?.lookup ?? null;
  const partitioner = new ProducerPartitioner(seededRandom(Date.now()));
  /** Per topic, the high watermarks' sum at each read of topics.stats (the last minute's): the commit rate between reads. */
  const hwSamples = new Map<string, { atMs: number; sum: number }[]>();

  function commitRate(topic: string, sum: number, nowMs: number): number {
    const kept = (hwSamples.get(topic) ?? []).filter((x) => nowMs - x.atMs <= 60_000);
    kept.push({ atMs: nowMs, sum });
    hwSamples.set(topic, kept);
    const first = kept[0]!;
    // A real cluster reports no throughput over the Kafka protocol: the rate is the high watermarks' advance between the console's reads.
    return nowMs > first.atMs ? Math.max(0, ((sum - first.sum) * 1000) / (nowMs - first.atMs)) : 0;
  }

  async function create(input: { name: string; partitions?: number | undefined; replicationFactor?: number | undefined; assignments?: number[][] | undefined; configs?: Record<string, string> | undefined }, validateOnly: boolean): Promise<TopicView> {
    // Kafka validates (name, configs, counts) with validateOnly; the placement shown is ours, and
    // creating with it (the wizard passes the reviewed assignments) gives exactly that placement.
    await client.createTopic({ name: input.name, ...(input.partitions !== undefined ? { partitions: input.partitions } : {}), ...(input.replicationFactor !== undefined ? { replicationFactor: input.replicationFactor } : {}), ...(input.assignments ? { assignments: input.assignments } : {}), ...(input.configs ? { configs: input.configs } : {}) }, validateOnly);
    const s = await readSnapshot(client, validateOnly ? [] : [input.name]);
    if (validateOnly) return plannedTopic(s, input);
    return (await topicViews(client, s, [input.name]))[0]!;
  }

  async function outcome(name: string, fn: () => Promise<unknown>) {
    try {
      await fn();
      return { name, errorCode: 'NONE' as const };
    } catch (e) {
      if (e instanceof KafkaError && e.code !== 'INTERNAL') return { name, errorCode: e.code, message: e.message };
      throw e;
    }
  }

  return {
    'cluster.describe': async () => {
      const s = await readSnapshot(client);
      return clusterView(s, (await logDirSizes(client, s, liveBrokers(s))).brokerBytes);
    },
    // One snapshot and one DescribeLogDirs of every live broker serve both views (a twin's read of its source).
    'cluster.snapshot': async () => {
      const s = await readSnapshot(client);
      const names = [...s.image.topicsByName.keys()].sort();
      // The offsets, then the log dirs: at 100,000 partitions both at once kept the brokers past the client's request timeout.
      const offsets = await client.offsetsOf(names, s.metadata);
      const sizes = await logDirSizes(client, s, liveBrokers(s));
      return { cluster: clusterView(s, sizes.brokerBytes), topics: await topicViews(client, s, names, { sizes, offsets }) };
    },
    'brokers.list': async () => {
      const s = await readSnapshot(client);
      return brokerViews(s, (await logDirSizes(client, s, liveBrokers(s))).brokerBytes);
    },
    'brokers.add': () => missing('brokerMembership'),
    'brokers.remove': () => missing('brokerMembership'),
    'brokers.stop': () => missing('faults'),
    'brokers.start': () => missing('faults'),
    'brokers.kill': () => missing('faults'),
    'brokers.powerLoss': () => missing('faults'),
    'brokers.isolate': () => missing('faults'),
    'brokers.heal': () => missing('faults'),
    'brokers.stallFollower': () => missing('faults'),
    'brokers.cutLink': () => missing('faults'),

    'topics.list': async () => {
      const s = await readSnapshot(client);
      return [...s.image.topicsByName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((t) => topicSummaryView(t, minIsrOf(s, t.name)));
    },
    'topics.stats': async ({ names }) => {
      // Every topic's metadata: a name that does not exist is left out, as the embedded driver does.
      const s = await readSnapshot(client);
      const known = names.filter((n) => s.image.topicsByName.has(n));
      const leaders = [...new Set(known.flatMap((n) => [...s.image.topicsByName.get(n)!.partitions.values()].map((p) => p.leader).filter((l) => l >= 0)))];
      const dirs = await client.describeLogDirs(leaders).catch(() => []);
      const size = new Map<string, number>();
      for (const d of dirs) for (const dir of d.logDirs) for (const r of dir.replicas) {
        if (!r.isFuture && s.image.topicsByName.get(r.topic)?.partitions.get(r.partition)?.leader === d.brokerId) size.set(`${r.topic}\u0000${r.partition}`, r.sizeBytes);
      }
      const nowMs = Date.now();
      return Promise.all(
        known.map(async (name) => {
          const offsets = await client.offsets(name);
          const records = offsets.reduce((a, o) => a + Math.max(0, o.highWatermark - o.logStartOffset), 0);
          const sizeBytes = offsets.reduce((a, o) => a + (size.get(`${name}\u0000${o.partition}`) ?? 0), 0);
          const recordsPerSec = commitRate(name, offsets.reduce((a, o) => a + o.highWatermark, 0), nowMs);
          return { name, records, sizeBytes, recordsPerSec };
        }),
      );
    },
    'cluster.features': async () => {
      const { supported, finalized } = await client.features();
      const known = new Map(SUPPORTED_FEATURES.map((f) => [f.name, f.description]));
      return supported.map((f) => ({ name: f.name, minVersion: f.minVersion, maxVersion: f.maxVersion, finalizedLevel: finalized[f.name] ?? 0, description: known.get(f.name) ?? `Kafka feature ${f.name} (ApiVersions reports it; the console has no description of it).` }));
    },
    'cluster.updateFeatures': async ({ updates, validateOnly }) => {
      const results = await updateFeatures(client, updates, validateOnly ?? false);
      if (!results) throw unsupported('featureUpdates', FEATURE_UPDATES_UNAVAILABLE_REASON, connection);
      return results;
    },
    // Refused before they get here (METHOD_CAPABILITY): the reasons are in KAFKA_MISSING.
    'consumers.start': () => missing('inAppConsumers'),
    'consumers.stop': () => missing('inAppConsumers'),
    'consumers.list': () => missing('inAppConsumers'),
    'topics.describe': async ({ name }) => (await topicViews(client, await readSnapshot(client, [name]), [name]))[0]!,
    'topics.describeMany': async ({ names }) => {
      const s = await readSnapshot(client, names);
      return topicViews(client, s, names ?? [...s.image.topicsByName.keys()].sort());
    },
    'topics.create': (input) => create(input, input.validateOnly ?? false),
    'topics.createMany': ({ topics, validateOnly }) => Promise.all(topics.map((t) => outcome(t.name, () => create(t, validateOnly ?? false)))),
    'topics.delete': async ({ name }) => {
      const s = await readSnapshot(client, [name]);
      await client.deleteTopic(name);
      return { name, topicId: s.image.topicsByName.get(name)?.topicId ?? '' };
    },
    'topics.deleteMany': ({ names }) => Promise.all(names.map((name) => outcome(name, () => client.deleteTopic(name)))),

    'partitions.add': async ({ topic, totalCount, assignments, validateOnly }) => {
      await client.createPartitions(topic, totalCount, assignments, validateOnly ?? false);
      const s = await readSnapshot(client, [topic]);
      const view = (await topicViews(client, s, [topic]))[0]!;
      if (!validateOnly) return view;
      const current = view.partitions.length;
      const planned = plannedTopic(s, { name: topic, partitions: totalCount - current, replicationFactor: view.partitions[0]?.replicas.length ?? 1, ...(assignments ? { assignments } : {}) });
      return { ...view, partitions: [...view.partitions, ...planned.partitions.map((p, i) => ({ ...p, partition: current + i }))] };
    },

    'configs.describe': async ({ resource }) => {
      const [d] = await client.describeConfigs([resource]);
      if (d!.errorCode !== 'NONE') throw new KafkaError(d!.errorCode, d!.errorMessage ?? `Describing ${resource.type} '${resource.name}' failed.`);
      return kafkaConfigEntryViews(resource.type, d!.entries, resource.name);
    },
    'configs.alter': async ({ resource, set, validateOnly }) => {
      await client.incrementalAlterConfigs(resource, set, validateOnly ?? false);
      const [d] = await client.describeConfigs([resource]);
      const views = kafkaConfigEntryViews(resource.type, d!.entries, resource.name);
      if (!validateOnly) return views;
      // As the change would leave them: the set keys at their new value and layer.
      const layer = resource.type === 'topic' ? 'DYNAMIC_TOPIC_CONFIG' : resource.name === '' ? 'DYNAMIC_DEFAULT_BROKER_CONFIG' : 'DYNAMIC_BROKER_CONFIG';
      return views.map((v) => (Object.hasOwn(set, v.name) && set[v.name] !== null ? { ...v, value: set[v.name]!, source: layer } : v));
    },

    'records.produce': async (input) => {
      const s = await readSnapshot(client, [input.topic]);
      const t = s.image.topicsByName.get(input.topic)!;
      const now = Date.now();
      // Text, base64 bytes or JSON encoded with the connection's registry, as on a local cluster.
      const records = await producedRecords(input, now, schemas?.encoding ?? null);
      const groups = new Map<number, number[]>();
      const targets =
        input.partition !== undefined
          ? records.map(() => input.partition!)
          : partitioner.assign(input.topic, [...t.partitions.values()].sort((a, b) => a.partition - b.partition).map((p) => ({ partition: p.partition, hasLeader: p.leader >= 0 })), records);
      targets.forEach((p, i) => groups.set(p, [...(groups.get(p) ?? []), i]));
      const acks = input.acks === 'all' || input.acks === -1 ? -1 : input.acks;
      const batches = await Promise.all(
        [...groups].map(async ([partition, indexes]) => {
          const r = await client.records.produce(
            input.topic,
            partition,
            acks,
            indexes.map((i) => {
              const r = records[i]!;
              const bytes = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength));
              return { key: bytes(r.key), value: bytes(r.value), headers: r.headers.map((h) => ({ key: h.key, value: bytes(h.value) })), ...(input.records[i]!.timestamp !== undefined ? { timestamp: input.records[i]!.timestamp } : {}) };
            }),
            input.timeoutMs ?? 30_000,
            input.compression ?? 'none',
          );
          const leaderEpoch = r.errorCode === 'NONE' && acks !== 0 ? (t.partitions.get(partition)?.leaderEpoch ?? -1) : -1;
          return { partition, baseOffset: r.baseOffset, errorCode: r.errorCode, ...(r.errorMessage ? { errorMessage: r.errorMessage } : {}), leaderEpoch, appendedAtMs: -1, records: indexes };
        }),
      );
      const headline = batches.find((b) => b.errorCode !== 'NONE') ?? batches[0]!;
      const { records: _indexes, ...fields } = headline;
      return { ...fields, batches };
    },
    'records.consume': async ({ topic, partition, offset, maxRecords }) => {
      const r = await client.records.fetch(topic, partition, offset, maxRecords ?? 500);
      if (r.errorCode !== 'NONE') throw new KafkaError(r.errorCode, `Fetching ${topic}-${partition} at offset ${offset} failed with ${r.errorCode}.`, { highWatermark: r.highWatermark, logStartOffset: r.logStartOffset });
      // kafkajs hands over records, not batches: the next read starts after the last record.
      return { records: r.records, nextOffset: r.records.length > 0 ? r.records[r.records.length - 1]!.offset + 1 : offset, highWatermark: r.highWatermark, logStartOffset: r.logStartOffset };
    },

    // A producer's batches, partition by partition (a few at once): Kafka has no bulk write for synthetic records.
    'records.fill': async ({ partitions, timeoutMs }) => {
      // Partitions that do not exist are answered first: kafkajs's producer, asked for an unknown topic, fails the sends in flight with it.
      const known = new Map((await client.metadata([...new Set(partitions.map((p) => p.topic))])).topics.filter((t) => t.errorCode === 'NONE').map((t) => [t.name, new Set(t.partitions.map((p) => p.partition))]));
      const results: FillResultView[] = partitions.map((p) => ({ topic: p.topic, partition: p.partition, errorCode: known.get(p.topic)?.has(p.partition) ? 'NONE' : 'UNKNOWN_TOPIC_OR_PARTITION', records: 0, nextOffset: -1 }));
      let next = 0;
      const worker = async (): Promise<void> => {
        for (let i = next++; i < partitions.length; i = next++) {
          const p = partitions[i]!;
          const r = results[i]!;
          const value = Buffer.alloc(p.valueBytes, 0x78);
          while (r.records < p.records && r.errorCode === 'NONE') {
            const n = Math.min(p.records - r.records, fillBatchRecords(p.valueBytes));
            const a = await client.records.produce(p.topic, p.partition, -1, Array.from({ length: n }, () => ({ key: null, value, headers: [] })), timeoutMs ?? 30_000, 'none').catch((e: unknown) => {
              if (e instanceof KafkaError && e.code !== 'INTERNAL') return { errorCode: e.code, errorMessage: e.message, baseOffset: -1 };
              throw e;
            });
            if (a.errorCode !== 'NONE') Object.assign(r, { errorCode: a.errorCode, ...(a.errorMessage ? { message: a.errorMessage } : {}) });
            else Object.assign(r, { records: r.records + n, nextOffset: a.baseOffset + n });
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(FILL_CONCURRENCY, partitions.length) }, worker));
      return results;
    },
    'records.delete': ({ partitions, timeoutMs }) => client.deleteRecords([...lastOffsetPerPartition(partitions).values()], timeoutMs ?? 30_000),
    'records.search': (input) => searchRecords(kafkaRecordSource(client), input, lookup),
    'schemas.list': () => missing('schemaRegistry'),
    'schemas.check': () => missing('schemaRegistry'),
    'schemas.register': () => missing('schemaRegistry'),
    'schemas.usage': () => missing('schemaRegistry'),
    'topics.compaction': () => missing('compaction'),

    'metrics.get': () => missing('metrics'),
    'events.recent': () => missing('timeline'),
    'clock.get': () => ({ nowMs: Date.now(), scale: 1, mode: 'realtime' as const }),
    'clock.setScale': () => missing('clockScale'),
  };
}
