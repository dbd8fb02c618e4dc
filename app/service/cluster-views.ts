import type { KafkaErrorName } from '../api/errors.js';
/**
 * Mapping the engine's state to the contract's DTOs, and API strings to engine bytes.
 *
 * Health counts follow Kafka's metrics: offline = no leader; under-replicated = ISR smaller than
 * the replica set without the replicas a reassignment is adding; under-min-ISR = a partition
 * with a leader whose ISR is smaller than the topic's effective `min.insync.replicas` (leaders
 * report that metric, so offline partitions are not counted).
 */
import { KafkaError } from '../api/errors.js';
import type {
  BrokerView,
  ConfigEntryView,
  ConfigSourceView,
  ConsumedRecordView,
  PartitionView,
  ProduceBatchResultView,
  TopicSummaryView,
  TopicView,
} from '../api/contract.js';
import { configDef, validValuesText } from '../core/configs/catalogue.js';
import { topicConfigNumber, type ResolvedConfig } from '../core/configs/resolve.js';
import type { BrokerInfo, ConsumedRecord, Engine, PartitionDescription, ProduceResult } from '../core/engine.js';
import type { LogRecord } from '../core/log/records.js';
import type { TopicImage } from '../core/metadata/image.js';
import type { PartitionState } from '../core/metadata/records.js';

type ConfigMap = Readonly<Record<string, string>>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-8 bytes of an API string (null stays null). */
export function encodeText(text: string | null | undefined): Uint8Array | null {
  return text === null || text === undefined ? null : encoder.encode(text);
}

/** An API string from engine bytes, decoded as UTF-8 (invalid sequences become U+FFFD). */
export function decodeText(bytes: Uint8Array | null): string | null {
  return bytes === null ? null : decoder.decode(bytes);
}

/** An API record to produce as an engine record. */
export function toLogRecord(
  r: { key?: string | null | undefined; value: string | null; headers?: { key: string; value: string | null }[] | undefined; timestamp?: number | undefined },
  nowMs: number,
): LogRecord {
  return {
    key: encodeText(r.key),
    value: encodeText(r.value),
    headers: (r.headers ?? []).map((h) => ({ key: h.key, value: encodeText(h.value) })),
    timestamp: r.timestamp ?? nowMs,
  };
}

/** One partition's produce answer as the API shows it. */
export function produceBatchView(r: ProduceResult): ProduceBatchResultView {
  return {
    partition: r.partition,
    baseOffset: r.baseOffset,
    errorCode: r.errorCode,
    ...(r.errorMessage !== undefined ? { errorMessage: r.errorMessage } : {}),
    leaderEpoch: r.leaderEpoch ?? -1,
    appendedAtMs: r.appendTimeMs ?? -1,
  };
}

/** A consumed engine record as the API shows it. */
export function consumedRecordView(r: ConsumedRecord): ConsumedRecordView {
  return {
    offset: r.offset,
    key: decodeText(r.key),
    value: decodeText(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: decodeText(h.value) })),
    timestamp: r.timestamp,
    leaderEpoch: r.leaderEpoch,
  };
}

/** A broker as the API shows it. */
export function brokerView(b: BrokerInfo): BrokerView {
  return {
    id: b.id,
    rack: b.rack,
    state: b.state,
    partitionCount: b.partitionCount,
    leaderCount: b.leaderCount,
    isolated: b.isolated,
    fetcherStalled: b.fetcherStalled,
    isController: b.isController,
    brokerEpoch: b.brokerEpoch,
    logBytes: b.logBytes,
    listener: b.listener ? { ...b.listener } : null,
  };
}

/** The broker `id` from `engine.listBrokers()`, or BROKER_NOT_FOUND. */
export function findBroker(engine: Engine, id: number): BrokerView {
  const info = engine.listBrokers().find((b) => b.id === id);
  if (!info) throw new KafkaError('BROKER_NOT_FOUND', `Broker ${id} is not a member of this cluster.`);
  return brokerView(info);
}

/** Health counts of a set of partitions. */
export interface HealthCounts {
  offlinePartitions: number;
  underReplicatedPartitions: number;
  underMinIsrPartitions: number;
}

/** The effective `min.insync.replicas` of a topic. */
export function topicMinIsr(topic: TopicImage, clusterDefaults: ConfigMap, staticConfigs: ConfigMap): number {
  return topicConfigNumber('min.insync.replicas', topic.configs, clusterDefaults, staticConfigs);
}

/**
 * The effective `min.insync.replicas` of each topic, for one pass over many topics: the inherited
 * value is resolved once, and only topics that override it are resolved on their own (resolving
 * the config for each of 2,000 topics dominated `topics.list`).
 */
export function minIsrResolver(clusterDefaults: ConfigMap, staticConfigs: ConfigMap): (topic: TopicImage) => number {
  let inherited: number | undefined;
  return (topic) => {
    if (Object.hasOwn(topic.configs, 'min.insync.replicas')) return topicMinIsr(topic, clusterDefaults, staticConfigs);
    return (inherited ??= topicConfigNumber('min.insync.replicas', {}, clusterDefaults, staticConfigs));
  };
}

/** Offline, under-replicated and under-min-ISR counts of one topic's partitions, given its effective min ISR. */
export function topicHealth(topic: TopicImage, minIsr: number): HealthCounts {
  const counts: HealthCounts = { offlinePartitions: 0, underReplicatedPartitions: 0, underMinIsrPartitions: 0 };
  for (const state of topic.partitions.values()) {
    if (state.leader < 0) counts.offlinePartitions++;
    if (state.isr.length < state.replicas.length - state.addingReplicas.length) counts.underReplicatedPartitions++;
    // Kafka 3.7+ (Partition.effectiveMinIsr): min.insync.replicas is capped at the replica count.
    if (state.leader >= 0 && state.isr.length < Math.min(minIsr, state.replicas.length)) counts.underMinIsrPartitions++;
  }
  return counts;
}

/** Topic and partition counts and health of a cluster's topics (`cluster.describe`). */
export function clusterHealth(topics: Iterable<TopicImage>, minIsr: (topic: TopicImage) => number): { topicCount: number; partitionCount: number } & HealthCounts {
  const totals = { topicCount: 0, partitionCount: 0, offlinePartitions: 0, underReplicatedPartitions: 0, underMinIsrPartitions: 0 };
  for (const topic of topics) {
    const health = topicHealth(topic, minIsr(topic));
    totals.topicCount++;
    totals.partitionCount += topic.partitions.size;
    totals.offlinePartitions += health.offlinePartitions;
    totals.underReplicatedPartitions += health.underReplicatedPartitions;
    totals.underMinIsrPartitions += health.underMinIsrPartitions;
  }
  return totals;
}

/** A topic's line in `topics.list`, given its effective min ISR. */
export function topicSummaryView(topic: TopicImage, minIsr: number): TopicSummaryView {
  const p0 = topic.partitions.get(0);
  return {
    name: topic.name,
    topicId: topic.topicId,
    ...(topic.createdBy ? { createdBy: { ...topic.createdBy } } : {}),
    partitionCount: topic.partitions.size,
    replicationFactor: p0 ? p0.replicas.length - p0.addingReplicas.length : 0,
    ...topicHealth(topic, minIsr),
  };
}

/** An engine partition (with live replica states) as the API shows it. */
export function partitionView(p: PartitionDescription): PartitionView {
  return {
    partition: p.partition,
    leader: p.leader,
    leaderEpoch: p.leaderEpoch,
    partitionEpoch: p.partitionEpoch,
    replicas: [...p.replicas],
    isr: [...p.isr],
    addingReplicas: [...p.addingReplicas],
    removingReplicas: [...p.removingReplicas],
    leaderRecoveryState: p.leaderRecoveryState,
    eligibleLeaderReplicas: [...(p.elr ?? [])],
    lastKnownElr: [...(p.lastKnownElr ?? [])],
    highWatermark: p.highWatermark,
    logStartOffset: p.logStartOffset,
    replicaStates: p.replicaStates.map((r) => ({
      brokerId: r.brokerId,
      logEndOffset: r.logEndOffset,
      highWatermark: r.highWatermark,
      logStartOffset: r.logStartOffset,
      flushedOffset: r.flushedOffset,
    })),
  };
}

/** A partition that does not exist yet (validateOnly): empty logs on every replica. */
export function plannedPartitionView(state: PartitionState): PartitionView {
  return partitionView({
    ...state,
    highWatermark: 0,
    logStartOffset: 0,
    replicaStates: state.replicas.map((brokerId) => ({ brokerId, logEndOffset: 0, highWatermark: 0, logStartOffset: 0, flushedOffset: 0 })),
  });
}

/** The topic called `name` in the controller's image, or UNKNOWN_TOPIC_OR_PARTITION. */
export function requireTopic(engine: Engine, name: string): TopicImage {
  const topic = engine.metadata.topicsByName.get(name);
  if (!topic) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `This server does not host this topic: ${name}`);
  return topic;
}

/** A topic with every partition's replica log states, as `topics.describe` shows it. */
export function topicView(engine: Engine, topic: TopicImage, planned: PartitionState[] = []): TopicView {
  const partitions: PartitionView[] = [];
  for (const p of [...topic.partitions.keys()].sort((a, b) => a - b)) {
    const view = engine.describePartition(topic.name, p);
    if (view) partitions.push({ ...partitionView(view), sizeBytes: engine.partitionSizeBytes(topic.name, p) });
  }
  for (const state of planned) partitions.push(plannedPartitionView(state));
  return { name: topic.name, topicId: topic.topicId, ...(topic.createdBy ? { createdBy: { ...topic.createdBy } } : {}), configs: { ...topic.configs }, partitions };
}

/**
 * Described configs with their type, validity rule, Kafka's importance and their effect, and —
 * given `inherited` — the value and layer each would take without the resource's own setting.
 */
export function configEntryViews(scope: 'topic' | 'broker', resolved: ResolvedConfig[], inherited?: ReadonlyMap<string, { value: string; source: ConfigSourceView }>): ConfigEntryView[] {
  return resolved.map((c) => {
    const def = configDef(scope, c.name);
    const without = inherited?.get(c.name);
    return {
      name: c.name,
      value: c.value,
      default: c.default,
      source: c.source,
      readOnly: c.readOnly,
      sensitive: c.sensitive,
      doc: c.doc,
      type: def?.type ?? 'string',
      validValues: def ? validValuesText(def.rule) : '',
      importance: c.importance,
      ...(c.effect !== undefined ? { effect: { ...c.effect } } : {}),
      ...(without ? { inherited: { ...without } } : {}),
    };
  });
}

/** Apply an IncrementalAlterConfigs `set` (null deletes) to a map of overrides. */
export function mergeConfigs(current: ConfigMap, set: Readonly<Record<string, string | null>>): Record<string, string> {
  const out: Record<string, string> = { ...current };
  for (const [k, v] of Object.entries(set)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** One partition's reassignment outcome as the contract shows it. */
export function reassignmentResultView(r: { topic: string; partition: number; errorCode: KafkaErrorName; message?: string }) {
  return { topic: r.topic, partition: r.partition, errorCode: r.errorCode, ...(r.message !== undefined ? { message: r.message } : {}) };
}
