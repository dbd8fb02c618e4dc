/**
 * The in-app client: a producer and a consumer built on the same Kafka requests a wire-protocol
 * client sends (`kafka-requests.ts`), so faults (isolation, cut links, a dead leader) hit them as
 * they would hit a real client.
 *
 * Producer: one batch per request to the partition's leader as the controller records it (or to a
 * broker the caller names: a client with stale metadata), answered per Kafka's acks rules.
 * Consumer: read_uncommitted from the leader, only below the high watermark, without waiting. A
 * partition without a leader fails fast with LEADER_NOT_AVAILABLE, an unknown one with
 * UNKNOWN_TOPIC_OR_PARTITION.
 */
import { KafkaError, type KafkaErrorName } from '../../api/errors.js';
import { NO_LEADER_EPOCH } from '../broker/messages.js';
import type { BatchCompression } from '../log/produced-batch.js';
import { recordOffset, type LogRecord } from '../log/records.js';
import type { PartitionState } from '../metadata/records.js';
import { partitionForKey } from '../partitioner.js';
import type { ClusterContext } from './context.js';
import type { KafkaRequests } from './kafka-requests.js';
import type { ConsumedRecord, ConsumeResult, ProduceInput, ProduceResult } from './types.js';

/** What one broker answers a produce request with, as the client sees it. */
export type BrokerProduceResult = Omit<ProduceResult, 'topic' | 'partition'>;

export interface ConsumeInput {
  topic: string;
  partition: number;
  offset: number;
  maxRecords?: number;
  maxBytes?: number;
}

/** One partition's ListOffsets answer. */
export interface ListOffsetsResult {
  error: KafkaErrorName;
  offset: number;
  leaderEpoch: number;
}

const DEFAULT_MAX_BYTES = 1_048_576;

export class Client {
  private roundRobin = 0;
  /** Records the in-app consumer received (cumulative). */
  consumedRecords = 0;

  constructor(
    private readonly ctx: ClusterContext,
    private readonly requests: KafkaRequests,
  ) {}

  private resolvePartition(topic: string, partition: number | undefined, records: LogRecord[]): PartitionState {
    const t = this.ctx.controller.image.topicsByName.get(topic);
    if (!t) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic ${topic} does not exist.`);
    let p = partition;
    if (p === undefined) {
      const key = records[0]?.key;
      p = key ? partitionForKey(key, t.partitions.size) : this.roundRobin++ % t.partitions.size;
    }
    const state = t.partitions.get(p);
    if (!state) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Partition ${topic}-${p} does not exist.`);
    return state;
  }

  /** The in-app producer: one batch to the partition's leader, answered per Kafka's acks rules. */
  produce(input: ProduceInput, done: (result: ProduceResult) => void): void {
    const scheduler = this.ctx.scheduler;
    const acks = input.acks === 'all' ? -1 : input.acks;
    const timeoutMs = input.timeoutMs ?? 30_000;
    let state: PartitionState;
    try {
      state = this.resolvePartition(input.topic, input.partition, input.records);
    } catch (e) {
      const err = e as KafkaError;
      scheduler.schedule(0, () => done({ topic: input.topic, partition: input.partition ?? -1, baseOffset: -1, errorCode: err.code as KafkaErrorName, errorMessage: err.message }));
      return;
    }
    const partition = state.partition;
    const finish = (r: BrokerProduceResult): void => done({ topic: input.topic, partition, ...r });
    if (state.leader < 0) {
      scheduler.schedule(0, () => finish({ baseOffset: -1, errorCode: 'LEADER_NOT_AVAILABLE', errorMessage: `Partition ${input.topic}-${partition} has no leader (offline).` }));
      return;
    }
    this.produceTo(state.leader, { ...input, partition, acks, timeoutMs }, (r) => finish(r));
  }

  /** Send a produce request to one specific broker (tests and drills: stale-metadata clients). */
  produceTo(brokerId: number, input: { topic: string; partition: number; acks: number; records: LogRecord[]; timeoutMs?: number; compression?: BatchCompression }, done: (r: BrokerProduceResult) => void): void {
    const partition = { topic: input.topic, partition: input.partition, records: input.records, ...(input.compression && input.compression !== 'none' ? { compression: input.compression } : {}) };
    const request = { type: 'produce' as const, acks: input.acks, timeoutMs: input.timeoutMs ?? 30_000, partitions: [partition] };
    this.requests.produce(brokerId, request, (a) => {
      switch (a.kind) {
        case 'unreachable':
          return done({
            baseOffset: -1,
            errorCode: a.reason === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION',
            errorMessage: a.reason === 'timeout' ? 'No response from the broker within the request timeout.' : `Connection to broker ${brokerId} was closed.`,
          });
        // acks=0: the client hears nothing; an error shows only as a closed connection.
        case 'no-response':
          return done({ baseOffset: -1, errorCode: 'NONE' });
        case 'connection-closed':
          return done({ baseOffset: -1, errorCode: 'NONE', connectionClosed: true });
        case 'response': {
          const r = a.response.partitions[0]!;
          return done({
            baseOffset: r.baseOffset,
            errorCode: r.error,
            ...(r.message ? { errorMessage: r.message } : {}),
            ...(r.recordErrors ? { recordErrors: r.recordErrors } : {}),
            ...(r.leaderEpoch !== undefined ? { leaderEpoch: r.leaderEpoch, appendTimeMs: r.appendTimeMs } : {}),
          });
        }
      }
    });
  }

  /** The in-app consumer: read_uncommitted, from the leader, only below the HW. */
  consume(input: ConsumeInput, done: (r: ConsumeResult) => void): void {
    const state = this.ctx.controller.image.topicsByName.get(input.topic)?.partitions.get(input.partition);
    const empty = { records: [], nextOffset: input.offset, highWatermark: -1, logStartOffset: -1, logEndOffset: -1 };
    if (!state) {
      this.ctx.scheduler.schedule(0, () => done({ errorCode: 'UNKNOWN_TOPIC_OR_PARTITION', ...empty }));
      return;
    }
    if (state.leader < 0) {
      this.ctx.scheduler.schedule(0, () => done({ errorCode: 'LEADER_NOT_AVAILABLE', ...empty }));
      return;
    }
    this.consumeFrom(state.leader, input, done);
  }

  /** Fetch from one specific broker (tests and drills: a consumer with stale metadata). */
  consumeFrom(brokerId: number, input: ConsumeInput, done: (r: ConsumeResult) => void): void {
    const maxRecords = input.maxRecords ?? 500;
    const maxBytes = input.maxBytes ?? DEFAULT_MAX_BYTES;
    const request = {
      type: 'clientFetch' as const,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes,
      isolationLevel: 'read_uncommitted' as const,
      partitions: [{ topic: input.topic, partition: input.partition, fetchOffset: input.offset, currentLeaderEpoch: NO_LEADER_EPOCH, partitionMaxBytes: maxBytes }],
    };
    this.requests.fetch(brokerId, request, (a) => {
      if (a.kind === 'unreachable') {
        done({ errorCode: a.reason === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION', records: [], nextOffset: input.offset, highWatermark: -1, logStartOffset: -1, logEndOffset: -1 });
        return;
      }
      const r = a.response.partitions[0]!;
      const records: ConsumedRecord[] = [];
      let nextOffset = input.offset;
      for (const b of r.batches) {
        let cut = false;
        b.records.forEach((rec, i) => {
          const offset = recordOffset(b, i);
          if (offset < input.offset) return;
          if (records.length < maxRecords) records.push({ ...rec, offset, leaderEpoch: b.leaderEpoch });
          else cut = true;
        });
        if (cut) {
          nextOffset = records[records.length - 1]!.offset + 1;
          break;
        }
        nextOffset = Math.max(nextOffset, b.lastOffset + 1);
      }
      this.consumedRecords += records.length;
      done({ errorCode: r.error, records, nextOffset, highWatermark: r.highWatermark, logStartOffset: r.logStartOffset, logEndOffset: r.logEndOffset });
    });
  }

  /** ListOffsets against the leader: latest (HW), earliest (log start), or by timestamp. */
  listOffsets(input: { topic: string; partition: number; timestamp: number }, done: (r: ListOffsetsResult) => void): void {
    const state = this.ctx.controller.image.topicsByName.get(input.topic)?.partitions.get(input.partition);
    if (!state || state.leader < 0) {
      this.ctx.scheduler.schedule(0, () => done({ error: state ? 'LEADER_NOT_AVAILABLE' : 'UNKNOWN_TOPIC_OR_PARTITION', offset: -1, leaderEpoch: -1 }));
      return;
    }
    const request = { type: 'listOffsets' as const, isolationLevel: 'read_uncommitted' as const, partitions: [{ ...input, currentLeaderEpoch: NO_LEADER_EPOCH }] };
    this.requests.listOffsets(state.leader, request, (a) => {
      if (a.kind === 'unreachable') return done({ error: 'REQUEST_TIMED_OUT', offset: -1, leaderEpoch: -1 });
      const r = a.response.partitions[0]!;
      done({ error: r.error, offset: r.offset, leaderEpoch: r.leaderEpoch });
    });
  }
}
