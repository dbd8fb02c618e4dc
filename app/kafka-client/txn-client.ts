/**
 * Clients of their own for the transaction drills: a kafkajs transactional producer kept open
 * between calls, and one Fetch as a consumer of either isolation level sends it.
 *
 * The producer is kafkajs's own (InitProducerId, AddPartitionsToTxn, transactional batches,
 * EndTxn with its retries), on its own connections; "crashing" it destroys its sockets without an
 * EndTxn, as a process killed mid-transaction leaves its coordinator. The Fetch keeps what
 * kafkajs's consumer keeps of a response (its Batch: records below the fetched offset, markers
 * and, read_committed, the aborted transactions' records dropped), beside the leader's HW and LSO.
 */
import type { Cluster, Transaction } from 'kafkajs';
import Batch from 'kafkajs/src/consumer/batch.js';
import createProducer from 'kafkajs/src/producer/index.js';
import type { KafkaErrorName } from '../api/errors.js';
import { createKafkajsCluster, quietLogger, type KafkaConnectionConfig } from './config.js';
import { errorName, rootCause, toKafkaError } from './errors.js';

/** FindCoordinator's key type for transactional ids. */
const TRANSACTION_COORDINATOR = 1;
const FETCH_MAX_BYTES = 1 << 20;

export interface TxnRecord {
  topic: string;
  partition: number;
  key: string | null;
  value: string | null;
}

export interface TxnClientOutcome {
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  coordinatorId: number;
  open: boolean;
  sent: { topic: string; partition: number; baseOffset: number; count: number }[];
}

/** Kafka's error a client got, or null when the failure is not one (unreachable cluster, our bug). */
function refusal(e: unknown): { errorCode: KafkaErrorName; errorMessage: string | null } | null {
  const cause = rootCause(e) as { code?: number; message?: string };
  return typeof cause?.code === 'number' ? { errorCode: errorName(cause.code), errorMessage: cause.message ?? null } : null;
}

export class TransactionalClient {
  private readonly cluster: Cluster;
  private readonly destroySockets: () => void;
  private readonly producer;
  private transaction: Transaction | null = null;
  private coordinatorId = -1;
  private connected = false;

  constructor(
    readonly name: string,
    readonly transactionalId: string,
    config: KafkaConnectionConfig,
    transactionTimeoutMs: number | undefined,
  ) {
    const logger = quietLogger();
    const made = createKafkajsCluster({ ...config, clientId: name }, logger);
    this.cluster = made.cluster;
    this.destroySockets = made.destroySockets;
    // Retries as an idempotent producer needs them (CONCURRENT_TRANSACTIONS while a fenced transaction is aborted), bounded.
    this.producer = createProducer({
      cluster: this.cluster,
      logger,
      idempotent: true,
      transactionalId,
      ...(transactionTimeoutMs !== undefined ? { transactionTimeout: transactionTimeoutMs } : {}),
      retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1_000 },
    });
  }

  get open(): boolean {
    return this.transaction?.isActive() ?? false;
  }

  private outcome(sent: TxnClientOutcome['sent'] = [], error: { errorCode: KafkaErrorName; errorMessage: string | null } | null = null): TxnClientOutcome {
    return { errorCode: error?.errorCode ?? 'NONE', errorMessage: error?.errorMessage ?? null, coordinatorId: this.coordinatorId, open: this.open, sent };
  }

  /** Begin a transaction if none is open (initialising the producer id first) and send `records` in it. */
  async begin(records: TxnRecord[]): Promise<TxnClientOutcome> {
    try {
      if (!this.connected) {
        await this.producer.connect();
        this.connected = true;
      }
      if (!this.open) this.transaction = await this.producer.transaction();
      await this.findCoordinator();
      const byTopic = new Map<string, TxnRecord[]>();
      for (const r of records) byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), r]);
      const metadata = await this.transaction!.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, rs]) => ({ topic, messages: rs.map((r) => ({ partition: r.partition, key: r.key, value: r.value })) })),
      });
      const sent = metadata.map((m) => ({
        topic: m.topicName,
        partition: m.partition,
        baseOffset: Number(m.baseOffset ?? -1),
        count: records.filter((r) => r.topic === m.topicName && r.partition === m.partition).length,
      }));
      return this.outcome(sent.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1)));
    } catch (e) {
      const r = refusal(e);
      if (r) return this.outcome([], r);
      throw toKafkaError(e, `Transactional producer ${this.name} (${this.transactionalId})`);
    }
  }

  /** Commit or abort the open transaction, then close the producer. */
  async end(commit: boolean): Promise<TxnClientOutcome> {
    try {
      if (!this.transaction || !this.open) return this.outcome([], { errorCode: 'INVALID_TXN_STATE', errorMessage: `Producer ${this.name} has no open transaction.` });
      if (commit) await this.transaction.commit();
      else await this.transaction.abort();
      return this.outcome();
    } catch (e) {
      const r = refusal(e);
      if (r) return this.outcome([], r);
      throw toKafkaError(e, `Ending the transaction of ${this.name} (${this.transactionalId})`);
    } finally {
      await this.close();
    }
  }

  /** The process dies: its connections drop and nothing more is sent. */
  crash(): TxnClientOutcome {
    const open = this.open;
    this.destroySockets();
    return { ...this.outcome(), open };
  }

  async close(): Promise<void> {
    await this.producer.disconnect().catch(() => {});
    this.destroySockets();
  }

  private async findCoordinator(): Promise<void> {
    if (this.coordinatorId >= 0) return;
    const find = this.cluster.findGroupCoordinatorMetadata as (q: { groupId: string; coordinatorType: number }) => Promise<{ coordinator: { nodeId: number } }>;
    this.coordinatorId = (await find.call(this.cluster, { groupId: this.transactionalId, coordinatorType: TRANSACTION_COORDINATOR })).coordinator.nodeId;
  }
}

export interface ClientFetchOutcome {
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  leader: number;
  highWatermark: number;
  lastStableOffset: number;
  abortedTransactions: { producerId: number; firstOffset: number }[];
  records: { offset: number; key: string | null; value: string | null }[];
}

interface FetchedPartition {
  partition: number;
  errorCode: number;
  highWatermark: string;
  lastStableOffset: string;
  abortedTransactions?: { producerId: string; firstOffset: string }[];
  messages: unknown[];
}

/** One Fetch of `topic`-`partition` from `offset` at its leader, as a consumer of that isolation level. */
export async function fetchAsClient(config: KafkaConnectionConfig, input: { topic: string; partition: number; offset: number; readCommitted: boolean }): Promise<ClientFetchOutcome> {
  // A few retries: a bootstrap server that refuses (its broker is down) sends kafkajs to another.
  const { cluster, destroySockets } = createKafkajsCluster({ ...config, retries: 3 }, quietLogger());
  let leader = -1;
  const failed = (errorCode: KafkaErrorName, errorMessage: string | null): ClientFetchOutcome => ({ errorCode, errorMessage, leader, highWatermark: -1, lastStableOffset: -1, abortedTransactions: [], records: [] });
  try {
    await cluster.connect();
    await cluster.addTargetTopic(input.topic);
    const leaders = cluster.findLeaderForPartitions(input.topic, [input.partition]);
    const id = Object.keys(leaders)[0];
    if (id === undefined || Number(id) < 0) return failed('LEADER_NOT_AVAILABLE', `${input.topic}-${input.partition} has no leader.`);
    leader = Number(id);
    const broker = await cluster.findBroker({ nodeId: id });
    const response = (await broker.fetch({
      replicaId: -1,
      isolationLevel: input.readCommitted ? 1 : 0,
      maxWaitTime: 0,
      minBytes: 0,
      maxBytes: FETCH_MAX_BYTES,
      topics: [{ topic: input.topic, partitions: [{ partition: input.partition, fetchOffset: String(input.offset), maxBytes: FETCH_MAX_BYTES }] }],
    })) as { responses: { topicName: string; partitions: FetchedPartition[] }[] };
    const p = response.responses[0]?.partitions.find((x) => x.partition === input.partition);
    if (!p) return failed('UNKNOWN_TOPIC_OR_PARTITION', `The leader did not answer for ${input.topic}-${input.partition}.`);
    const batch = new Batch(input.topic, String(input.offset), p);
    return {
      errorCode: 'NONE',
      errorMessage: null,
      leader,
      highWatermark: Number(p.highWatermark),
      lastStableOffset: Number(p.lastStableOffset),
      abortedTransactions: (p.abortedTransactions ?? []).map((a) => ({ producerId: Number(a.producerId), firstOffset: Number(a.firstOffset) })),
      records: batch.messages.map((m) => ({ offset: Number(m.offset), key: m.key ? m.key.toString() : null, value: m.value ? m.value.toString() : null })),
    };
  } catch (e) {
    const r = refusal(e);
    if (r) return failed(r.errorCode, r.errorMessage);
    throw toKafkaError(e, `Fetching ${input.topic}-${input.partition} as a client`);
  } finally {
    await cluster.disconnect().catch(() => {});
    destroySockets();
  }
}
