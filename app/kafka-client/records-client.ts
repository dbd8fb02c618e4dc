/**
 * Produce and consume on an external cluster with kafkajs, sharing the admin client's cluster
 * (its connections and metadata).
 *
 * produce: one batch to one named partition (the caller partitions records, as the embedded
 * service does, so it knows which record went where), with the caller's acks and no retries: the
 * outcome the console shows is the broker's own answer, not what a retry loop made of it.
 * consume: one Fetch to the partition's leader from an offset, read_uncommitted, records below
 * the high watermark, as `records.consume` does on the embedded cluster.
 */
import type { Broker, Cluster, CompressionTypes, Producer, RetryOptions } from 'kafkajs';
import createProducer from 'kafkajs/src/producer/index.js';
import { CompressionError, type CompressionCodec } from '../protocol/records/compression.js';
import { installKafkajsCodecs, kafkajsCompression } from './kafkajs-codecs.js';
import { errorName, rootCause, toKafkaError } from './errors.js';
import { KafkaError, type KafkaErrorName } from '../api/errors.js';
import { ApiKey } from '../protocol/generated/index.js';
import { sendCodecRequest } from './codec-request.js';
import { recordsOfFetch, type RawFetchedRecord } from './fetched-batches.js';

export type { RawFetchedRecord };

/**
 * Fetch v4 (the first with read_uncommitted/read_committed and magic 2 batches) to v12 (the last
 * naming topics rather than their ids): every Kafka from 0.11 to 4.x serves some of these.
 */
const FETCH_VERSIONS = [4, 12] as const;

export interface ProduceRecordData {
  key: string | Buffer | null;
  value: string | Buffer | null;
  headers: { key: string; value: string | Buffer | null }[];
  timestamp?: number;
}

export interface ProduceOutcomeData {
  partition: number;
  baseOffset: number;
  errorCode: KafkaErrorName;
  errorMessage?: string;
}

export interface FetchedRecordData {
  offset: number;
  key: string | null;
  value: string | null;
  headers: { key: string; value: string | null }[];
  timestamp: number;
  leaderEpoch: number;
}

export interface FetchOutcomeData {
  errorCode: KafkaErrorName;
  highWatermark: number;
  logStartOffset: number;
  records: FetchedRecordData[];
}

interface KafkajsFetchedMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, Buffer | Buffer[] | null | undefined>;
  timestamp: string;
  /** kafkajs keeps a control batch's record (a transaction marker) and says so here. */
  isControlRecord?: boolean;
  batchContext?: { partitionLeaderEpoch?: number; producerId?: string };
}

const text = (b: Buffer | null | undefined): string | null => (b === null || b === undefined ? null : b.toString('utf8'));

installKafkajsCodecs();

export class RecordsClient {
  /** Connecting or connected: concurrent first produces (one per partition) share one connect. */
  private producer: Promise<Producer> | undefined;

  constructor(
    private readonly cluster: Cluster,
    private readonly logger: unknown,
    private readonly retry: RetryOptions,
  ) {}

  private connectedProducer(): Promise<Producer> {
    this.producer ??= (async () => {
      const producer = createProducer({ cluster: this.cluster, logger: this.logger, retry: { ...this.retry, retries: 0 } });
      await producer.connect();
      return producer;
    })().catch((e: unknown) => {
      this.producer = undefined; // the next produce tries again
      throw e;
    });
    return this.producer;
  }

  async produce(topic: string, partition: number, acks: 0 | 1 | -1, records: ProduceRecordData[], timeoutMs: number, compression: CompressionCodec = 'none'): Promise<ProduceOutcomeData> {
    try {
      const producer = await this.connectedProducer();
      const sent = await producer.send({
        topic,
        acks,
        timeout: timeoutMs,
        compression: kafkajsCompression(compression) as CompressionTypes,
        messages: records.map((r) => ({
          partition,
          key: r.key,
          value: r.value,
          headers: Object.fromEntries(r.headers.filter((h) => h.value !== null).map((h) => [h.key, h.value!])),
          ...(r.timestamp !== undefined ? { timestamp: String(r.timestamp) } : {}),
        })),
      });
      const meta = sent.find((m) => m.partition === partition);
      if (!meta || acks === 0) return { partition, baseOffset: -1, errorCode: 'NONE' };
      return { partition, baseOffset: Number(meta.baseOffset ?? meta.offset ?? -1), errorCode: errorName(meta.errorCode) };
    } catch (e) {
      const cause = rootCause(e) as { code?: number; message?: string };
      if (typeof cause?.code === 'number') return { partition, baseOffset: -1, errorCode: errorName(cause.code), ...(cause.message ? { errorMessage: cause.message } : {}) };
      // Our codec could not compress (zstd before the host's compressor loaded): nothing was sent.
      if (cause instanceof CompressionError) return { partition, baseOffset: -1, errorCode: 'UNSUPPORTED_COMPRESSION_TYPE', errorMessage: cause.message };
      throw toKafkaError(e, `Producing to ${topic}-${partition}`);
    }
  }

  /**
   * One Fetch (read_uncommitted) from `offset` to the partition's leader in our codecs, its
   * batches decoded by ours (fetched-batches.ts): records as bytes with each one's batch fields,
   * the codec included, which kafkajs's decoder does not expose.
   */
  async fetchRaw(topic: string, partition: number, offset: number, maxBytes: number): Promise<{ errorCode: KafkaErrorName; highWatermark: number; records: RawFetchedRecord[] }> {
    const where = `${topic}-${partition}`;
    try {
      const broker = await this.leaderOf(topic, partition);
      const res = await sendCodecRequest(broker, ApiKey.Fetch, FETCH_VERSIONS, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic, partitions: [{ partition, fetchOffset: BigInt(offset), partitionMaxBytes: maxBytes, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
      });
      if (res.errorCode !== 0) return { errorCode: errorName(res.errorCode), highWatermark: -1, records: [] };
      const p = res.responses.find((t) => t.topic === topic)?.partitions.find((x) => x.partitionIndex === partition);
      if (!p) return { errorCode: 'UNKNOWN_TOPIC_OR_PARTITION', highWatermark: -1, records: [] };
      const highWatermark = Number(p.highWatermark);
      if (p.errorCode !== 0) return { errorCode: errorName(p.errorCode), highWatermark, records: [] };
      return { errorCode: 'NONE', highWatermark, records: recordsOfFetch(p.records, offset, highWatermark, where) };
    } catch (e) {
      if (e instanceof KafkaError) throw e;
      const cause = rootCause(e) as { code?: number };
      if (typeof cause?.code === 'number') return { errorCode: errorName(cause.code), highWatermark: -1, records: [] };
      throw toKafkaError(e, `Fetching ${where}`);
    }
  }

  /** Each record's offset, producer id and whether it is a transaction marker (a control record), from one Fetch at `offset`, below the high watermark. */
  async fetchProducers(topic: string, partition: number, offset: number, maxBytes: number): Promise<{ offset: number; producerId: number; control: boolean }[]> {
    try {
      const p = await this.fetchPartition(topic, partition, offset, maxBytes);
      if (!p) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${topic} has no partition ${partition}.`);
      if (p.errorCode !== 0) throw new KafkaError(errorName(p.errorCode), `Fetching ${topic}-${partition} at offset ${offset} failed with ${errorName(p.errorCode)}.`);
      return p.messages
        .filter((m) => Number(m.offset) >= offset && Number(m.offset) < Number(p.highWatermark))
        .map((m) => ({ offset: Number(m.offset), producerId: Number(m.batchContext?.producerId ?? -1), control: m.isControlRecord === true }));
    } catch (e) {
      throw toKafkaError(e, `Fetching ${topic}-${partition}`);
    }
  }

  /** The partition's leader as kafkajs's metadata knows it; no leader is LEADER_NOT_AVAILABLE (code 5). */
  private async leaderOf(topic: string, partition: number): Promise<Broker> {
    await this.cluster.addTargetTopic(topic);
    await this.cluster.refreshMetadataIfNecessary();
    const leaders = this.cluster.findLeaderForPartitions(topic, [partition]);
    const leader = Object.keys(leaders)[0];
    if (leader === undefined) throw Object.assign(new Error(`${topic}-${partition} has no leader`), { code: 5 });
    return this.cluster.findBroker({ nodeId: leader });
  }

  private async fetchPartition(topic: string, partition: number, offset: number, maxBytes: number) {
    const broker = await this.leaderOf(topic, partition);
    const res = (await broker.fetch({
      isolationLevel: 0,
      maxWaitTime: 0,
      minBytes: 0,
      maxBytes,
      topics: [{ topic, partitions: [{ partition, fetchOffset: String(offset), maxBytes }] }],
    })) as { responses: { partitions: { partition: number; errorCode: number; highWatermark: string; lastStartOffset?: string; messages: KafkajsFetchedMessage[] }[] }[] };
    return res.responses[0]?.partitions.find((x) => x.partition === partition);
  }

  async fetch(topic: string, partition: number, offset: number, maxRecords: number): Promise<FetchOutcomeData> {
    try {
      await this.cluster.addTargetTopic(topic);
      await this.cluster.refreshMetadataIfNecessary();
      const leaders = this.cluster.findLeaderForPartitions(topic, [partition]);
      const leader = Object.keys(leaders)[0];
      if (leader === undefined) return { errorCode: 'LEADER_NOT_AVAILABLE', highWatermark: -1, logStartOffset: -1, records: [] };
      const broker = await this.cluster.findBroker({ nodeId: leader });
      const res = (await broker.fetch({
        isolationLevel: 0,
        maxWaitTime: 0,
        minBytes: 0,
        maxBytes: 4 * 1024 * 1024,
        topics: [{ topic, partitions: [{ partition, fetchOffset: String(offset), maxBytes: 4 * 1024 * 1024 }] }],
      })) as { responses: { partitions: { partition: number; errorCode: number; highWatermark: string; lastStartOffset?: string; messages: KafkajsFetchedMessage[] }[] }[] };
      // kafkajs names Fetch v5+'s log_start_offset `lastStartOffset` (sic).
      const p = res.responses[0]?.partitions.find((x) => x.partition === partition);
      if (!p) return { errorCode: 'UNKNOWN_TOPIC_OR_PARTITION', highWatermark: -1, logStartOffset: -1, records: [] };
      const highWatermark = Number(p.highWatermark);
      const records = p.messages
        .filter((m) => Number(m.offset) >= offset && Number(m.offset) < highWatermark)
        .slice(0, maxRecords)
        .map((m) => ({
          offset: Number(m.offset),
          key: text(m.key),
          value: text(m.value),
          headers: Object.entries(m.headers ?? {}).flatMap(([key, v]) => (Array.isArray(v) ? v : [v]).map((one) => ({ key, value: text(one ?? null) }))),
          timestamp: Number(m.timestamp),
          leaderEpoch: m.batchContext?.partitionLeaderEpoch ?? -1,
        }));
      return { errorCode: errorName(p.errorCode), highWatermark, logStartOffset: p.lastStartOffset !== undefined ? Number(p.lastStartOffset) : -1, records };
    } catch (e) {
      const cause = rootCause(e) as { code?: number };
      if (typeof cause?.code === 'number') return { errorCode: errorName(cause.code), highWatermark: -1, logStartOffset: -1, records: [] };
      throw toKafkaError(e, `Fetching ${topic}-${partition}`);
    }
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer) await (await producer.catch(() => null))?.disconnect();
  }
}
