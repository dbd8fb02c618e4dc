/**
 * The contract's `transactions.*` methods, done as `kafka-transactions.sh` and Kafka's Admin do
 * them (KIP-664), over a `TxnBackend` that each cluster driver gives: the embedded engine's door
 * (embedded-driver/txn-backend.ts) or a real cluster's brokers in our codecs
 * (kafka-driver/txn-backend.ts). So a local and a real cluster in the same state answer the same.
 *
 * - list: ListTransactions to every broker (each answers for the coordinator it hosts), then
 *   DescribeTransactions to that broker for the ids it listed.
 * - producers: DescribeProducers to each partition's leader, ListOffsets for the LSO and high
 *   watermark, and the coordinator's view of every open transaction's producer id.
 * - find-hanging (the tool's rules): an open transaction whose producer wrote nothing on the
 *   partition for longer than the max transaction timeout is a candidate; it hangs when no
 *   coordinator lists its producer id, or its transactional id is not described, or the
 *   described transaction does not include the partition (the coordinator will never write its
 *   marker there).
 * - abort: the producer found by its start offset (else the tool's error), then an ABORT marker
 *   with its producer epoch and coordinator epoch (0 when it has none, as the tool sends) through
 *   WriteTxnMarkers to the leader. The preview reads the partition to count what the marker
 *   aborts and what the LSO releases; the LSO after it is the next open transaction's start, or
 *   the end of the log with the marker.
 */
import { KafkaError, type KafkaErrorName } from '../api/errors.js';
import type { MethodParsedInput, MethodResult } from '../api/contract.js';
import {
  DEFAULT_MAX_TRANSACTION_TIMEOUT_MS,
  type HangingTransactionView,
  type PartitionOffsetsView,
  type PartitionTransactionsView,
  type ProducerStateView,
  type TransactionView,
} from '../api/transactions-contract.js';
import type { ActiveProducer, DescribedTransaction, DescribeTransactionsResponse, ListTransactionsResponse } from '../core/engine.js';

type TxnMethod = 'transactions.list' | 'transactions.producers' | 'transactions.findHanging' | 'transactions.abort';
export type TxnMethods = { [M in TxnMethod]: (input: MethodParsedInput<M>) => Promise<MethodResult<M>> };

export interface TxnPartitionInfo {
  topic: string;
  partition: number;
  leader: number;
  replicas: number[];
}

/** A partition's producers as its leader answers DescribeProducers. */
export interface DescribedPartitionProducers {
  partition: number;
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  activeProducers: ActiveProducer[];
}

/** Where the transaction logic reads and writes a cluster. */
export interface TxnBackend {
  /** The clock a coordinator's start times and a producer's timestamps are compared with. */
  now(): number;
  /** The brokers ListTransactions goes to. */
  brokers(): Promise<number[]>;
  listTransactions(brokerId: number, filter: { stateFilters: string[]; producerIdFilters: number[] }): Promise<ListTransactionsResponse>;
  describeTransactions(brokerId: number, transactionalIds: string[]): Promise<DescribeTransactionsResponse>;
  describeProducers(brokerId: number, topic: string, partitions: number[]): Promise<DescribedPartitionProducers[]>;
  /** One ABORT marker for one partition through WriteTxnMarkers to `brokerId`: the partition's error. */
  writeAbortMarker(brokerId: number, m: { topic: string; partition: number; producerId: number; producerEpoch: number; coordinatorEpoch: number }): Promise<KafkaErrorName>;
  /** The partitions of `topic` (every topic when absent); UNKNOWN_TOPIC_OR_PARTITION when the topic does not exist. */
  partitions(topic?: string): Promise<TxnPartitionInfo[]>;
  /** The four offsets of each partition (read_committed and read_uncommitted ListOffsets, the leader's log end where known). */
  offsets(topic: string, partitions: number[]): Promise<Map<number, PartitionOffsetsView>>;
  /** The offset and producer id of each data record at and after `from` below `to` (control records left out), in offset order; at most `maxRecords`. */
  recordProducers(topic: string, partition: number, from: number, to: number, maxRecords: number): Promise<{ offset: number; producerId: number }[]>;
}

/** The most records a preview reads to count what an abort changes. */
const PREVIEW_MAX_RECORDS = 200_000;
const OPEN_STATES: ReadonlySet<string> = new Set(['Ongoing', 'PrepareCommit', 'PrepareAbort', 'PrepareEpochFence']);

const errorText = (e: unknown): { errorCode: KafkaErrorName; message: string } =>
  e instanceof KafkaError ? { errorCode: e.code as KafkaErrorName, message: e.message } : { errorCode: 'UNKNOWN_SERVER_ERROR', message: e instanceof Error ? e.message : String(e) };

function transactionView(d: DescribedTransaction, coordinatorId: number, now: number): TransactionView {
  const open = OPEN_STATES.has(d.state);
  const startTimeMs = d.transactionStartTimeMs >= 0 ? d.transactionStartTimeMs : null;
  const durationMs = open && startTimeMs !== null ? Math.max(0, now - startTimeMs) : null;
  return {
    transactionalId: d.transactionalId,
    coordinatorId,
    producerId: d.producerId,
    producerEpoch: d.producerEpoch,
    state: d.state,
    timeoutMs: d.transactionTimeoutMs,
    startTimeMs,
    durationMs,
    pastTimeout: durationMs !== null && durationMs > d.transactionTimeoutMs,
    partitions: d.topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition }))).sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition),
  };
}

export function txnMethodsOver(b: TxnBackend): TxnMethods {
  /** ListTransactions to every broker: what each listed, and the brokers that failed. */
  async function listAll(filter: { stateFilters: string[]; producerIdFilters: number[] }) {
    const unanswered: { brokerId: number; errorCode: KafkaErrorName; message: string }[] = [];
    const listed = await Promise.all(
      (await b.brokers()).map(async (brokerId) => {
        try {
          const r = await b.listTransactions(brokerId, filter);
          if (r.errorCode !== 'NONE') unanswered.push({ brokerId, errorCode: r.errorCode, message: `Broker ${brokerId} answered ListTransactions with ${r.errorCode}.` });
          return { brokerId, ids: r.errorCode === 'NONE' ? r.transactionStates : [] };
        } catch (e) {
          unanswered.push({ brokerId, ...errorText(e) });
          return { brokerId, ids: [] };
        }
      }),
    );
    return { listed, unanswered };
  }

  /** DescribeTransactions at each coordinator for the ids it listed: id → (coordinator, description). */
  async function describeListed(listed: { brokerId: number; ids: { transactionalId: string }[] }[]) {
    const out = new Map<string, { coordinatorId: number; description: DescribedTransaction }>();
    await Promise.all(
      listed
        .filter((l) => l.ids.length > 0)
        .map(async (l) => {
          const r = await b.describeTransactions(
            l.brokerId,
            l.ids.map((i) => i.transactionalId),
          ).catch(() => null);
          for (const d of r?.transactionStates ?? []) if (d.errorCode === 'NONE') out.set(d.transactionalId, { coordinatorId: l.brokerId, description: d });
        }),
    );
    return out;
  }

  /** The coordinators' view of these producer ids: producer id → transactional id and its description (when described). */
  async function coordinatorsOf(producerIds: number[]) {
    const byProducer = new Map<number, { transactionalId: string; coordinatorId: number; description: DescribedTransaction | null }>();
    if (producerIds.length === 0) return byProducer;
    const { listed } = await listAll({ stateFilters: [], producerIdFilters: producerIds });
    const described = await describeListed(listed);
    for (const l of listed) {
      for (const t of l.ids) byProducer.set(t.producerId, { transactionalId: t.transactionalId, coordinatorId: l.brokerId, description: described.get(t.transactionalId)?.description ?? null });
    }
    return byProducer;
  }

  const includes = (d: DescribedTransaction | null, topic: string, partition: number): boolean => d?.topics.some((t) => t.name === topic && t.partitions.includes(partition)) ?? false;

  /** DescribeProducers for `parts`, one request per leader; partitions without a leader answer LEADER_NOT_AVAILABLE. */
  async function describeProducersOf(parts: TxnPartitionInfo[], brokerId?: number): Promise<Map<string, DescribedPartitionProducers>> {
    const byBroker = new Map<number, TxnPartitionInfo[]>();
    const out = new Map<string, DescribedPartitionProducers>();
    for (const p of parts) {
      const target = brokerId ?? p.leader;
      if (target < 0) out.set(`${p.topic}-${p.partition}`, { partition: p.partition, errorCode: 'LEADER_NOT_AVAILABLE', errorMessage: null, activeProducers: [] });
      else byBroker.set(target, [...(byBroker.get(target) ?? []), p]);
    }
    await Promise.all(
      [...byBroker].map(async ([broker, ps]) => {
        const byTopic = new Map<string, number[]>();
        for (const p of ps) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
        for (const [topic, partitions] of byTopic) {
          try {
            for (const d of await b.describeProducers(broker, topic, partitions)) out.set(`${topic}-${d.partition}`, d);
          } catch (e) {
            const { errorCode, message } = errorText(e);
            for (const partition of partitions) out.set(`${topic}-${partition}`, { partition, errorCode, errorMessage: message, activeProducers: [] });
          }
        }
      }),
    );
    return out;
  }

  async function partitionsOf(topic: string | undefined, partitions: number[] | undefined): Promise<TxnPartitionInfo[]> {
    const all = await b.partitions(topic);
    if (!partitions) return all;
    const missing = partitions.filter((p) => !all.some((x) => x.partition === p));
    if (missing.length > 0) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `This server does not host this topic-partition: ${topic}-${missing[0]}`);
    return all.filter((x) => partitions.includes(x.partition));
  }

  return {
    async 'transactions.list'({ states }) {
      const { listed, unanswered } = await listAll({ stateFilters: states ?? [], producerIdFilters: [] });
      const described = await describeListed(listed);
      const now = b.now();
      const transactions: TransactionView[] = [];
      for (const l of listed) {
        for (const t of l.ids) {
          const d = described.get(t.transactionalId);
          transactions.push(
            d
              ? transactionView(d.description, l.brokerId, now)
              : { transactionalId: t.transactionalId, coordinatorId: l.brokerId, producerId: t.producerId, producerEpoch: -1, state: t.state, timeoutMs: -1, startTimeMs: null, durationMs: null, pastTimeout: false, partitions: [] },
          );
        }
      }
      transactions.sort((x, y) => x.transactionalId.localeCompare(y.transactionalId));
      return { nowMs: now, transactions, unanswered };
    },

    async 'transactions.producers'({ topic, partitions }) {
      const parts = await partitionsOf(topic, partitions);
      const [described, offsets] = await Promise.all([describeProducersOf(parts), b.offsets(topic, parts.map((p) => p.partition))]);
      const open = [...described.values()].flatMap((d) => d.activeProducers.filter((a) => a.currentTxnStartOffset >= 0).map((a) => a.producerId));
      const coordinators = await coordinatorsOf([...new Set(open)]);
      return parts.map((p): PartitionTransactionsView => {
        const d = described.get(`${p.topic}-${p.partition}`);
        const o = offsets.get(p.partition) ?? null;
        const producers = (d?.activeProducers ?? []).map((a): ProducerStateView => {
          const c = coordinators.get(a.producerId);
          const desc = c?.description ?? null;
          return {
            producerId: a.producerId,
            producerEpoch: a.producerEpoch,
            lastSequence: a.lastSequence,
            lastTimestamp: a.lastTimestamp,
            coordinatorEpoch: a.coordinatorEpoch,
            currentTxnStartOffset: a.currentTxnStartOffset >= 0 ? a.currentTxnStartOffset : null,
            transactionalId: c?.transactionalId ?? null,
            transaction: desc
              ? { state: desc.state, timeoutMs: desc.transactionTimeoutMs, startTimeMs: desc.transactionStartTimeMs >= 0 ? desc.transactionStartTimeMs : null, includesPartition: includes(desc, p.topic, p.partition) }
              : null,
          };
        });
        const holder = o ? producers.find((x) => x.currentTxnStartOffset === o.lastStableOffset && o.lastStableOffset < o.highWatermark) : undefined;
        return { topic: p.topic, partition: p.partition, leader: p.leader, errorCode: d?.errorCode ?? 'NONE', offsets: o, producers, lsoHeldBy: holder?.producerId ?? null };
      });
    },

    async 'transactions.findHanging'({ topic, partitions, brokerId, maxTransactionTimeoutMs }) {
      if (partitions && topic === undefined) throw new KafkaError('INVALID_REQUEST', 'The partitions argument requires topic to be provided');
      const max = maxTransactionTimeoutMs ?? DEFAULT_MAX_TRANSACTION_TIMEOUT_MS;
      const parts = (await partitionsOf(topic, partitions)).filter((p) => brokerId === undefined || p.replicas.includes(brokerId));
      const described = await describeProducersOf(parts);
      const now = b.now();
      const candidates: { topic: string; partition: number; a: ActiveProducer }[] = [];
      for (const p of parts) {
        for (const a of described.get(`${p.topic}-${p.partition}`)?.activeProducers ?? []) {
          if (a.currentTxnStartOffset >= 0 && now - a.lastTimestamp > max) candidates.push({ topic: p.topic, partition: p.partition, a });
        }
      }
      const coordinators = await coordinatorsOf([...new Set(candidates.map((c) => c.a.producerId))]);
      const hanging: HangingTransactionView[] = [];
      for (const { topic: t, partition, a } of candidates) {
        const c = coordinators.get(a.producerId);
        const reason = !c
          ? `No coordinator lists producer ${a.producerId}: no transactional id will ever write this transaction's marker.`
          : !c.description
            ? `The coordinator of ${c.transactionalId} could not describe it.`
            : !includes(c.description, t, partition)
              ? `${c.transactionalId} is ${c.description.state} at its coordinator without ${t}-${partition}: its marker will never be written there.`
              : null;
        if (reason === null) continue;
        hanging.push({
          topic: t,
          partition,
          producerId: a.producerId,
          producerEpoch: a.producerEpoch,
          coordinatorEpoch: a.coordinatorEpoch,
          startOffset: a.currentTxnStartOffset,
          lastTimestamp: a.lastTimestamp,
          durationMs: Math.max(0, now - a.lastTimestamp),
          transactionalId: c?.transactionalId ?? null,
          coordinatorState: c?.description?.state ?? null,
          reason,
        });
      }
      return { nowMs: now, maxTransactionTimeoutMs: max, partitionsSearched: parts.length, hanging };
    },

    async 'transactions.abort'(input) {
      const { topic, partition } = input;
      const [p] = await partitionsOf(topic, [partition]);
      if (!p || p.leader < 0) throw new KafkaError('LEADER_NOT_AVAILABLE', `Partition ${topic}-${partition} has no leader.`);
      const d = (await describeProducersOf([p])).get(`${topic}-${partition}`)!;
      if (d.errorCode !== 'NONE') throw new KafkaError(d.errorCode, d.errorMessage ?? `Describing the producers of ${topic}-${partition} failed with ${d.errorCode}.`);
      const producer =
        input.startOffset !== undefined
          ? d.activeProducers.find((a) => a.currentTxnStartOffset === input.startOffset)
          : (d.activeProducers.find((a) => a.producerId === input.producerId) ?? null);
      if (input.startOffset !== undefined && !producer) throw new KafkaError('INVALID_REQUEST', `Could not find any open transactions starting at offset ${input.startOffset} on partition ${topic}-${partition}`);
      const producerId = input.producerId ?? producer!.producerId;
      const producerEpoch = input.producerEpoch ?? producer!.producerEpoch;
      // The tool's rule: a producer that never got a marker here (-1) is aborted with coordinator epoch 0.
      const coordinatorEpoch = Math.max(0, input.coordinatorEpoch ?? producer!.coordinatorEpoch);
      const startOffset = producer && producer.currentTxnStartOffset >= 0 ? producer.currentTxnStartOffset : null;
      const before = (await b.offsets(topic, [partition])).get(partition)!;
      const others = d.activeProducers.filter((a) => a.producerId !== producerId && a.currentTxnStartOffset >= 0).map((a) => ({ producerId: a.producerId, startOffset: a.currentTxnStartOffset }));
      const end = before.logEndOffset ?? before.highWatermark;
      // The marker goes at the log end; an earlier open transaction of another producer keeps the LSO at its start.
      const lastStableOffsetAfter = Math.min(end + 1, ...others.map((o) => o.startOffset));
      const from = Math.min(startOffset ?? before.lastStableOffset, before.lastStableOffset);
      const read = from < before.highWatermark ? await b.recordProducers(topic, partition, from, before.highWatermark, PREVIEW_MAX_RECORDS) : [];
      const abortedRecords = read.filter((r) => r.producerId === producerId && startOffset !== null && r.offset >= startOffset).length;
      const releasedRecords = read.filter((r) => r.producerId !== producerId && r.offset >= before.lastStableOffset && r.offset < lastStableOffsetAfter).length;
      const preview = {
        topic,
        partition,
        leader: p.leader,
        producerId,
        producerEpoch,
        coordinatorEpoch,
        startOffset,
        before,
        lastStableOffsetAfter,
        abortedRecords,
        releasedRecords,
        countsExact: read.length < PREVIEW_MAX_RECORDS,
        stillOpen: others,
      };
      if (input.dryRun ?? true) return { dryRun: true, ...preview, after: null };
      const errorCode = await b.writeAbortMarker(p.leader, { topic, partition, producerId, producerEpoch, coordinatorEpoch });
      if (errorCode !== 'NONE') throw new KafkaError(errorCode, `Aborting producer ${producerId}'s transaction on ${topic}-${partition} failed with ${errorCode}.`);
      const after = (await b.offsets(topic, [partition])).get(partition)!;
      return { dryRun: false, ...preview, after };
    },
  };
}
