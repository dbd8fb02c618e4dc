/**
 * The admin client of an external Kafka cluster: kafkajs for what it does (connections, TLS and
 * SASL, controller lookup, CreateTopics, DeleteTopics, CreatePartitions, AlterPartitionReassignments,
 * ListPartitionReassignments, ListOffsets, Produce, Fetch), our generated codecs on kafkajs's
 * connections for what it lacks:
 *
 *   Metadata v1+            kafkajs keeps neither racks nor leader epochs
 *   DescribeConfigs v1+     kafkajs stops at v2 (no documentation or type) and refuses the
 *                           cluster-wide default resource ('')
 *   IncrementalAlterConfigs kafkajs has only the legacy AlterConfigs (which resets what it omits)
 *   ElectLeaders            not in kafkajs
 *   DescribeLogDirs         not in kafkajs (replica sizes for the balancer)
 *   AlterPartitionReassignments with null replicas: kafkajs cannot cancel a reassignment
 *
 * Every method answers Kafka's data (plain numbers and strings) or throws a KafkaError with
 * Kafka's code (errors.ts); the service's Kafka driver turns them into the contract's views.
 */
import type { Admin, Broker, Cluster, RetryOptions } from 'kafkajs';
import createAdmin from 'kafkajs/src/admin/index.js';
import { KafkaError, type KafkaErrorName } from '../api/errors.js';
import { ApiKey, type ApiKeyNumber, type ApiMessages } from '../protocol/generated/index.js';
import type { Init } from '../protocol/runtime/index.js';
import { sendCodecRequest, type BrokerInternals } from './codec-request.js';
import { createKafkajsCluster, quietLogger, type KafkaConnectionConfig } from './config.js';
import { errorName, toKafkaError } from './errors.js';
import { RecordsClient } from './records-client.js';
import type { ClusterMetadataData, ConfigResourceData, DescribedConfigsData, LogDirsData, OngoingReassignmentData, PartitionOutcomeData, TopicSpecData } from './types.js';

/** Kafka's ConfigResource types. */
const RESOURCE_TYPE = { topic: 2, broker: 4 } as const;

export class KafkaAdminClient {
  readonly records: RecordsClient;
  private readonly cluster: Cluster;
  private readonly admin: Admin;
  private readonly requestTimeoutMs: number;
  private readonly destroySockets: () => void;

  constructor(readonly config: KafkaConnectionConfig) {
    const logger = quietLogger();
    const { cluster, retry, destroySockets } = createKafkajsCluster(config, logger);
    this.destroySockets = destroySockets;
    this.cluster = cluster;
    this.admin = createAdmin({ logger, retry: retry as RetryOptions, cluster });
    this.requestTimeoutMs = config.requestTimeoutMs ?? 30_000;
    this.records = new RecordsClient(cluster, logger, retry);
  }

  /** Connect (TLS, SASL, ApiVersions, first Metadata). */
  async connect(): Promise<void> {
    await this.run('Connecting', () => this.admin.connect());
  }

  isConnected(): boolean {
    return this.cluster.isConnected();
  }

  async close(): Promise<void> {
    try {
      await this.records.close();
      await this.admin.disconnect();
    } finally {
      this.destroySockets();
    }
  }

  /** A connected broker: `id`, else the controller (any live broker in KRaft: it forwards). */
  private async broker(id?: number): Promise<Broker> {
    await this.cluster.refreshMetadataIfNecessary();
    return id === undefined ? this.cluster.findControllerBroker() : this.cluster.findBroker({ nodeId: String(id) });
  }

  /**
   * One request in our generated codecs to broker `brokerId` (the controller when absent), at the
   * highest version both sides support within `wanted`; kafkajs's errors as KafkaErrors.
   */
  async send<K extends ApiKeyNumber>(brokerId: number | undefined, apiKey: K, wanted: readonly [number, number], body: Init<ApiMessages[K]['request']>, doing: string): Promise<ApiMessages[K]['response']> {
    return this.run(doing, async () => sendCodecRequest(await this.broker(brokerId), apiKey, wanted, body, this.requestTimeoutMs));
  }

  private async run<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw toKafkaError(e, doing);
    }
  }

  /** The ApiVersions answer of the broker that answers admin requests. */
  async apiVersions(): Promise<{ apiKey: number; minVersion: number; maxVersion: number }[]> {
    return this.run('Reading ApiVersions', async () => {
      const versions = ((await this.broker()) as unknown as BrokerInternals).versions ?? {};
      return Object.entries(versions).map(([k, v]) => ({ apiKey: Number(k), minVersion: v.minVersion, maxVersion: v.maxVersion }));
    });
  }

  /**
   * Feature levels (KIP-584) as ApiVersions v3+ reports them: what the broker supports, and the
   * finalized level of each feature (one not listed is at level 0).
   */
  async features(): Promise<{ supported: { name: string; minVersion: number; maxVersion: number }[]; finalized: Record<string, number> }> {
    return this.run('Reading the feature levels', async () => {
      const r = await sendCodecRequest(await this.broker(), ApiKey.ApiVersions, [3, 4], { clientSoftwareName: 'replica-studio', clientSoftwareVersion: '0' }, this.requestTimeoutMs);
      return {
        supported: r.supportedFeatures.map((f) => ({ name: f.name, minVersion: f.minVersion, maxVersion: f.maxVersion })),
        finalized: Object.fromEntries(r.finalizedFeatures.map((f) => [f.name, f.maxVersionLevel])),
      };
    });
  }

  /** Brokers with racks, the controller, the cluster id, and every (or the named) topic's partitions. */
  async metadata(topics?: string[]): Promise<ClusterMetadataData> {
    return this.run('Reading the cluster metadata', async () => {
      const m = await sendCodecRequest(await this.broker(), ApiKey.Metadata, [1, 12], { topics: topics ? topics.map((name) => ({ name })) : null, allowAutoTopicCreation: false }, this.requestTimeoutMs);
      return {
        clusterId: m.clusterId,
        controllerId: m.controllerId,
        brokers: m.brokers.map((b) => ({ id: b.nodeId, host: b.host, port: b.port, rack: b.rack })).sort((a, b) => a.id - b.id),
        topics: m.topics.map((t) => ({
          name: t.name ?? '',
          topicId: t.topicId,
          isInternal: t.isInternal,
          errorCode: errorName(t.errorCode),
          partitions: t.partitions
            .map((p) => ({ partition: p.partitionIndex, leader: p.leaderId, leaderEpoch: p.leaderEpoch, replicas: p.replicaNodes, isr: p.isrNodes, offlineReplicas: p.offlineReplicas, errorCode: errorName(p.errorCode) }))
            .sort((a, b) => a.partition - b.partition),
        })),
      };
    });
  }

  /**
   * Every config of each resource with its source and synonyms (and docs where the broker sends
   * them): one request per broker a resource must be asked of (a broker's own configs from that
   * broker, topics and the cluster-wide default from any), answers in the order asked.
   */
  async describeConfigs(resources: ConfigResourceData[]): Promise<DescribedConfigsData[]> {
    return this.run('Describing configs', async () => {
      const groups = new Map<string, ConfigResourceData[]>();
      for (const r of resources) {
        const target = r.type === 'broker' && r.name !== '' ? r.name : '';
        groups.set(target, [...(groups.get(target) ?? []), r]);
      }
      const answered = new Map<string, DescribedConfigsData>();
      await Promise.all(
        [...groups].map(async ([target, group]) => {
          const broker = await this.broker(target === '' ? undefined : Number(target));
          const res = await sendCodecRequest(
            broker,
            ApiKey.DescribeConfigs,
            [1, 4],
            { resources: group.map((r) => ({ resourceType: RESOURCE_TYPE[r.type], resourceName: r.name, configurationKeys: null })), includeSynonyms: true, includeDocumentation: true },
            this.requestTimeoutMs,
          );
          for (const result of res.results) {
            const type = result.resourceType === RESOURCE_TYPE.topic ? 'topic' : 'broker';
            answered.set(`${type}:${result.resourceName}`, {
              resource: { type, name: result.resourceName },
              errorCode: errorName(result.errorCode),
              errorMessage: result.errorMessage,
              entries: result.configs.map((c) => ({
                name: c.name,
                value: c.value,
                readOnly: c.readOnly,
                source: c.configSource,
                isDefault: c.isDefault,
                sensitive: c.isSensitive,
                synonyms: c.synonyms.map((s) => ({ name: s.name, value: s.value, source: s.source })),
                documentation: c.documentation,
              })),
            });
          }
        }),
      );
      return resources.map(
        (r) => answered.get(`${r.type}:${r.name}`) ?? { resource: r, errorCode: 'UNKNOWN_SERVER_ERROR', errorMessage: `No answer for ${r.type} '${r.name}'.`, entries: [] },
      );
    });
  }

  /** IncrementalAlterConfigs: `set[key]` = value sets, null deletes (back to the inherited value). */
  async incrementalAlterConfigs(resource: ConfigResourceData, set: Readonly<Record<string, string | null>>, validateOnly: boolean): Promise<void> {
    const res = await this.run('Altering configs', async () =>
      sendCodecRequest(
        await this.broker(resource.type === 'broker' && resource.name !== '' ? Number(resource.name) : undefined),
        ApiKey.IncrementalAlterConfigs,
        [0, 1],
        {
          resources: [{ resourceType: RESOURCE_TYPE[resource.type], resourceName: resource.name, configs: Object.entries(set).map(([name, value]) => ({ name, configOperation: value === null ? 1 : 0, value })) }],
          validateOnly,
        },
        this.requestTimeoutMs,
      ),
    );
    const r = res.responses[0];
    if (r && r.errorCode !== 0) throw new KafkaError(errorName(r.errorCode), r.errorMessage ?? `Altering the configs of ${resource.type} '${resource.name}' failed.`);
  }

  async createTopic(spec: TopicSpecData, validateOnly: boolean): Promise<void> {
    const created = await this.run(`Creating topic ${spec.name}`, () =>
      this.admin.createTopics({
        validateOnly,
        waitForLeaders: !validateOnly,
        timeout: this.requestTimeoutMs,
        topics: [
          {
            topic: spec.name,
            ...(spec.assignments ? { replicaAssignment: spec.assignments.map((replicas, partition) => ({ partition, replicas })) } : { numPartitions: spec.partitions ?? -1, replicationFactor: spec.replicationFactor ?? -1 }),
            configEntries: Object.entries(spec.configs ?? {}).map(([name, value]) => ({ name, value })),
          },
        ],
      }),
    );
    // kafkajs answers false instead of failing when the topic exists.
    if (!created) throw new KafkaError('TOPIC_ALREADY_EXISTS', `Topic '${spec.name}' already exists.`);
  }

  async deleteTopic(name: string): Promise<void> {
    await this.run(`Deleting topic ${name}`, () => this.admin.deleteTopics({ topics: [name], timeout: this.requestTimeoutMs }));
  }

  async createPartitions(topic: string, count: number, assignments: number[][] | undefined, validateOnly: boolean): Promise<void> {
    await this.run(`Adding partitions to ${topic}`, () =>
      this.admin.createPartitions({ validateOnly, timeout: this.requestTimeoutMs, topicPartitions: [{ topic, count, ...(assignments ? { assignments } : {}) }] }),
    );
  }

  /** ElectLeaders (v1+ for unclean): per-partition outcome; `null` partitions = every partition. */
  async electLeaders(type: 'preferred' | 'unclean', partitions: { topic: string; partition: number }[] | null): Promise<PartitionOutcomeData[]> {
    const res = await this.run('Electing leaders', async () =>
      sendCodecRequest(await this.broker(), ApiKey.ElectLeaders, type === 'unclean' ? [1, 2] : [0, 2], { electionType: type === 'unclean' ? 1 : 0, topicPartitions: partitions === null ? null : groupByTopic(partitions), timeoutMs: this.requestTimeoutMs }, this.requestTimeoutMs),
    );
    if (res.errorCode !== 0) throw new KafkaError(errorName(res.errorCode), `ElectLeaders failed with ${errorName(res.errorCode)}.`);
    return res.replicaElectionResults.flatMap((t) => t.partitionResult.map((p) => ({ topic: t.topic, partition: p.partitionId, errorCode: errorName(p.errorCode), message: p.errorMessage })));
  }

  /** Start reassignments (kafkajs); per-partition outcome. */
  async alterReassignments(moves: { topic: string; partition: number; replicas: number[] }[]): Promise<PartitionOutcomeData[]> {
    const topics = new Map<string, { partition: number; replicas: number[] }[]>();
    for (const m of moves) topics.set(m.topic, [...(topics.get(m.topic) ?? []), { partition: m.partition, replicas: m.replicas }]);
    try {
      await this.admin.alterPartitionReassignments({ timeout: this.requestTimeoutMs, topics: [...topics].map(([topic, partitionAssignment]) => ({ topic, partitionAssignment })) });
      return moves.map((m) => ({ topic: m.topic, partition: m.partition, errorCode: 'NONE', message: null }));
    } catch (e) {
      // kafkajs throws one aggregate naming each failed partition; the others started.
      const failed = (e as { errors?: { topic?: string; partition?: number; code?: number; message?: string }[] }).errors;
      if (!Array.isArray(failed)) throw toKafkaError(e, 'Reassigning partitions');
      return moves.map((m) => {
        const f = failed.find((x) => x.topic === m.topic && x.partition === m.partition);
        return f ? { topic: m.topic, partition: m.partition, errorCode: errorName(f.code ?? -1), message: f.message ?? null } : { topic: m.topic, partition: m.partition, errorCode: 'NONE', message: null };
      });
    }
  }

  /** Cancel reassignments (AlterPartitionReassignments with null replicas, which kafkajs cannot send). */
  async cancelReassignments(partitions: { topic: string; partition: number }[]): Promise<PartitionOutcomeData[]> {
    const res = await this.run('Cancelling reassignments', async () =>
      sendCodecRequest(
        await this.broker(),
        ApiKey.AlterPartitionReassignments,
        [0, 0],
        { timeoutMs: this.requestTimeoutMs, topics: groupByTopic(partitions).map((t) => ({ name: t.topic, partitions: t.partitions.map((p) => ({ partitionIndex: p, replicas: null })) })) },
        this.requestTimeoutMs,
      ),
    );
    if (res.errorCode !== 0) throw new KafkaError(errorName(res.errorCode), res.errorMessage ?? 'Cancelling reassignments failed.');
    return res.responses.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, errorCode: errorName(p.errorCode), message: p.errorMessage })));
  }

  /**
   * ListPartitionReassignments in our codec: kafkajs's refreshes the metadata of every topic first
   * and fails with LEADER_NOT_AVAILABLE while any partition has no leader, so a cluster with an
   * offline partition could not be read at all.
   */
  async listReassignments(): Promise<OngoingReassignmentData[]> {
    const res = await this.run('Listing reassignments', async () =>
      sendCodecRequest(await this.broker(), ApiKey.ListPartitionReassignments, [0, 0], { timeoutMs: this.requestTimeoutMs, topics: null }, this.requestTimeoutMs),
    );
    if (res.errorCode !== 0) throw new KafkaError(errorName(res.errorCode), res.errorMessage ?? 'Listing reassignments failed.');
    return res.topics.flatMap((t) =>
      t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas, addingReplicas: p.addingReplicas, removingReplicas: p.removingReplicas })),
    );
  }

  /** Each broker's log directories with every replica's size and its lag behind the high watermark. */
  async describeLogDirs(brokerIds: number[]): Promise<LogDirsData[]> {
    return this.run('Describing log directories', () =>
      Promise.all(
        brokerIds.map(async (brokerId) => {
          const res = await sendCodecRequest(await this.broker(brokerId), ApiKey.DescribeLogDirs, [1, 4], { topics: null }, this.requestTimeoutMs);
          return {
            brokerId,
            logDirs: res.results.map((d) => ({
              logDir: d.logDir,
              errorCode: errorName(d.errorCode),
              replicas: d.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, sizeBytes: Number(p.partitionSize), offsetLag: Number(p.offsetLag), isFuture: p.isFutureKey }))),
            })),
          };
        }),
      ),
    );
  }

  /**
   * DeleteRecords, as Kafka's admin client sends it: each partition to its leader (from a fresh
   * Metadata), one request per leader; per partition its low watermark or Kafka's error. A topic or
   * partition the metadata lacks is UNKNOWN_TOPIC_OR_PARTITION, one without a leader LEADER_NOT_AVAILABLE.
   */
  async deleteRecords(partitions: { topic: string; partition: number; offset: number }[], timeoutMs: number): Promise<{ topic: string; partition: number; lowWatermark: number; errorCode: KafkaErrorName }[]> {
    const meta = await this.metadata([...new Set(partitions.map((p) => p.topic))]);
    const leaderOf = (topic: string, partition: number): number | undefined => meta.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.leader;
    const out = new Map<string, { topic: string; partition: number; lowWatermark: number; errorCode: KafkaErrorName }>();
    const byLeader = new Map<number, typeof partitions>();
    for (const p of partitions) {
      const leader = leaderOf(p.topic, p.partition);
      if (leader === undefined || leader < 0) out.set(`${p.topic}\u0000${p.partition}`, { ...p, lowWatermark: -1, errorCode: leader === undefined ? 'UNKNOWN_TOPIC_OR_PARTITION' : 'LEADER_NOT_AVAILABLE' });
      else byLeader.set(leader, [...(byLeader.get(leader) ?? []), p]);
    }
    await this.run('Deleting records', () =>
      Promise.all(
        [...byLeader].map(async ([leader, ps]) => {
          const topics = groupByTopic(ps).map(({ topic, partitions: idx }) => ({ name: topic, partitions: idx.map((i) => ({ partitionIndex: i, offset: BigInt(ps.find((p) => p.topic === topic && p.partition === i)!.offset) })) }));
          const res = await sendCodecRequest(await this.broker(leader), ApiKey.DeleteRecords, [0, 2], { topics, timeoutMs }, timeoutMs + this.requestTimeoutMs);
          for (const t of res.topics) for (const p of t.partitions) out.set(`${t.name}\u0000${p.partitionIndex}`, { topic: t.name, partition: p.partitionIndex, lowWatermark: Number(p.lowWatermark), errorCode: errorName(p.errorCode) });
        }),
      ),
    );
    return partitions.map((p) => out.get(`${p.topic}\u0000${p.partition}`) ?? { ...p, lowWatermark: -1, errorCode: 'UNKNOWN_SERVER_ERROR' as KafkaErrorName }).map(({ topic, partition, lowWatermark, errorCode }) => ({ topic, partition, lowWatermark, errorCode }));
  }

  /** Per partition of `topic`, the first offset at or after `timestamp` (kafkajs gives the high watermark where none is). */
  async offsetsForTime(topic: string, timestamp: number): Promise<{ partition: number; offset: number }[]> {
    const res = await this.run(`Reading the offsets of ${topic} at ${timestamp}`, () => this.admin.fetchTopicOffsetsByTimestamp(topic, timestamp));
    return res.map((p) => ({ partition: p.partition, offset: Number(p.offset) }));
  }

  /**
   * Log start and high watermark of every partition of `topic`: ListOffsets (earliest, then latest
   * read_uncommitted) to each leader named by a fresh Metadata, as Kafka's admin client sends it.
   * (kafkajs's fetchTopicOffsets asks the leaders of its cached metadata, which it does not renew
   * on NOT_LEADER_OR_FOLLOWER: after partitions were added or leaders moved it kept failing.)
   * A partition without a leader is LEADER_NOT_AVAILABLE; a refused one fails with its error.
   */
  async offsets(topic: string): Promise<{ partition: number; logStartOffset: number; highWatermark: number }[]> {
    return (await this.offsetsOf([topic])).get(topic)!;
  }

  /**
   * `offsets` of many topics at once: one Metadata, then one ListOffsets per leader for each of
   * earliest and latest, covering all of that leader's partitions of every topic (as Kafka's admin
   * client batches listOffsets by leader), so a cluster of 100,000 partitions is read in a hundred
   * requests rather than a hundred per topic. `read`: a Metadata answer just read that names
   * `topics` (a caller's own), to route by instead of reading it again.
   */
  async offsetsOf(topics: readonly string[], read?: ClusterMetadataData): Promise<Map<string, { partition: number; logStartOffset: number; highWatermark: number }[]>> {
    const doing = `Reading the offsets of ${topics.length === 1 ? topics[0] : `${topics.length} topics`}`;
    const metadata = new Map((read ?? (await this.metadata([...topics]))).topics.map((t) => [t.name, t]));
    const byLeader = new Map<number, Map<string, number[]>>();
    for (const name of topics) {
      const meta = metadata.get(name);
      if (!meta || meta.errorCode !== 'NONE') throw new KafkaError(meta?.errorCode ?? 'UNKNOWN_TOPIC_OR_PARTITION', `${doing}: ${name} ${meta?.errorCode ?? 'UNKNOWN_TOPIC_OR_PARTITION'}`);
      for (const p of meta.partitions) {
        if (p.leader < 0) throw new KafkaError('LEADER_NOT_AVAILABLE', `${doing}: ${name} partition ${p.partition} has no leader.`);
        const leader = byLeader.get(p.leader) ?? new Map<string, number[]>();
        byLeader.set(p.leader, leader);
        const list = leader.get(name) ?? [];
        leader.set(name, list);
        list.push(p.partition);
      }
    }
    const out = new Map<string, Map<number, { partition: number; logStartOffset: number; highWatermark: number }>>(topics.map((t) => [t, new Map()]));
    await Promise.all(
      [...byLeader].map(async ([leader, partitionsOf]) => {
        const [earliest, latest] = await Promise.all(
          [-2n, -1n].map((timestamp) =>
            this.send(leader, ApiKey.ListOffsets, [1, 7], { replicaId: -1, isolationLevel: 0, topics: [...partitionsOf].map(([name, partitions]) => ({ name, partitions: partitions.map((partitionIndex) => ({ partitionIndex, timestamp })) })) }, doing),
          ),
        );
        const offsetsOf = (r: typeof earliest): Map<string, number> => {
          const m = new Map<string, number>();
          for (const t of r!.topics) {
            for (const p of t.partitions) {
              const code = errorName(p.errorCode);
              if (code !== 'NONE') throw new KafkaError(code, `${doing}: ${t.name} partition ${p.partitionIndex} answered ${code}.`);
              m.set(`${t.name}\u0000${p.partitionIndex}`, Number(p.offset));
            }
          }
          return m;
        };
        const [starts, ends] = [offsetsOf(earliest), offsetsOf(latest)];
        for (const [name, partitions] of partitionsOf) {
          for (const partition of partitions) {
            const key = `${name}\u0000${partition}`;
            if (!starts.has(key) || !ends.has(key)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `${doing}: ${name} partition ${partition} answered UNKNOWN_TOPIC_OR_PARTITION.`);
            out.get(name)!.set(partition, { partition, logStartOffset: starts.get(key)!, highWatermark: ends.get(key)! });
          }
        }
      }),
    );
    return new Map([...out].map(([name, m]) => [name, [...m.values()].sort((a, b) => a.partition - b.partition)]));
  }
}

function groupByTopic(partitions: { topic: string; partition: number }[]): { topic: string; partitions: number[] }[] {
  const by = new Map<string, number[]>();
  for (const p of partitions) by.set(p.topic, [...(by.get(p.topic) ?? []), p.partition]);
  return [...by].map(([topic, ps]) => ({ topic, partitions: ps }));
}
