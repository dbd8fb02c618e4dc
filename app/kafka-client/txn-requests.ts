/**
 * The transaction admin APIs of KIP-664 on a Kafka cluster, in our generated codecs over the admin
 * client's connections (kafkajs has none of them), answered in plain data the Kafka driver maps:
 *
 *   ListTransactions v0–1      to each broker (each answers for the coordinator it hosts)
 *   DescribeTransactions v0    to the transactional id's coordinator
 *   DescribeProducers v0       to the partition's leader
 *   WriteTxnMarkers v0–1       to the partition's leader: one ABORT marker, as Kafka's
 *                              Admin.abortTransaction sends it (a broker authorizes it with
 *                              CLUSTER_ACTION on the cluster)
 *   ListOffsets v2+            read_committed (the LSO) and read_uncommitted (the high watermark)
 *
 * Errors keep Kafka's names; a broker that cannot be reached throws a KafkaError.
 */
import { type KafkaErrorName } from '../api/errors.js';
import { ApiKey } from '../protocol/generated/index.js';
import type { KafkaAdminClient } from './admin-client.js';
import { errorName } from './errors.js';

type Sender = Pick<KafkaAdminClient, 'send'>;

const LATEST = -1n;

export interface ListedTxnData {
  errorCode: KafkaErrorName;
  transactionStates: { transactionalId: string; producerId: number; state: string }[];
}

export async function listTransactions(client: Sender, brokerId: number, stateFilters: string[], producerIdFilters: number[]): Promise<ListedTxnData> {
  const r = await client.send(brokerId, ApiKey.ListTransactions, [0, 1], { stateFilters, producerIdFilters: producerIdFilters.map(BigInt), durationFilter: -1n }, 'ListTransactions');
  return { errorCode: errorName(r.errorCode), transactionStates: r.transactionStates.map((t) => ({ transactionalId: t.transactionalId, producerId: Number(t.producerId), state: t.transactionState })) };
}

export interface DescribedTxnData {
  errorCode: KafkaErrorName;
  transactionalId: string;
  state: string;
  transactionTimeoutMs: number;
  transactionStartTimeMs: number;
  producerId: number;
  producerEpoch: number;
  topics: { name: string; partitions: number[] }[];
}

export async function describeTransactions(client: Sender, brokerId: number, transactionalIds: string[]): Promise<DescribedTxnData[]> {
  const r = await client.send(brokerId, ApiKey.DescribeTransactions, [0, 0], { transactionalIds }, 'DescribeTransactions');
  return r.transactionStates.map((t) => ({
    errorCode: errorName(t.errorCode),
    transactionalId: t.transactionalId,
    state: t.transactionState,
    transactionTimeoutMs: t.transactionTimeoutMs,
    transactionStartTimeMs: Number(t.transactionStartTimeMs),
    producerId: Number(t.producerId),
    producerEpoch: t.producerEpoch,
    topics: t.topics.map((x) => ({ name: x.topic, partitions: x.partitions })),
  }));
}

export interface PartitionProducersData {
  partition: number;
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  activeProducers: { producerId: number; producerEpoch: number; lastSequence: number; lastTimestamp: number; coordinatorEpoch: number; currentTxnStartOffset: number }[];
}

export async function describeProducers(client: Sender, brokerId: number, topic: string, partitions: number[]): Promise<PartitionProducersData[]> {
  const r = await client.send(brokerId, ApiKey.DescribeProducers, [0, 0], { topics: [{ name: topic, partitionIndexes: partitions }] }, 'DescribeProducers');
  return r.topics.flatMap((t) =>
    t.partitions.map((p) => ({
      partition: p.partitionIndex,
      errorCode: errorName(p.errorCode),
      errorMessage: p.errorMessage,
      activeProducers: p.activeProducers.map((a) => ({
        producerId: Number(a.producerId),
        producerEpoch: a.producerEpoch,
        lastSequence: a.lastSequence,
        lastTimestamp: Number(a.lastTimestamp),
        coordinatorEpoch: a.coordinatorEpoch,
        currentTxnStartOffset: Number(a.currentTxnStartOffset),
      })),
    })),
  );
}

/** One ABORT marker (transaction_result false) for one partition: the partition's error. */
export async function writeAbortMarker(
  client: Sender,
  brokerId: number,
  m: { topic: string; partition: number; producerId: number; producerEpoch: number; coordinatorEpoch: number },
): Promise<KafkaErrorName> {
  const r = await client.send(
    brokerId,
    ApiKey.WriteTxnMarkers,
    [0, 1],
    { markers: [{ producerId: BigInt(m.producerId), producerEpoch: m.producerEpoch, transactionResult: false, coordinatorEpoch: m.coordinatorEpoch, topics: [{ name: m.topic, partitionIndexes: [m.partition] }] }] },
    'WriteTxnMarkers',
  );
  const code = r.markers[0]?.topics.find((t) => t.name === m.topic)?.partitions.find((p) => p.partitionIndex === m.partition)?.errorCode;
  return code === undefined ? 'UNKNOWN_SERVER_ERROR' : errorName(code);
}

/** The latest offset of each partition for an isolation level (1: read_committed, the LSO; 0: the high watermark). */
export async function latestOffsets(client: Sender, brokerId: number, topic: string, partitions: number[], isolationLevel: 0 | 1): Promise<Map<number, { errorCode: KafkaErrorName; offset: number }>> {
  const r = await client.send(
    brokerId,
    ApiKey.ListOffsets,
    [2, 7],
    { replicaId: -1, isolationLevel, topics: [{ name: topic, partitions: partitions.map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp: LATEST, maxNumOffsets: 1 })) }] },
    'ListOffsets',
  );
  const out = new Map<number, { errorCode: KafkaErrorName; offset: number }>();
  for (const t of r.topics) for (const p of t.partitions) out.set(p.partitionIndex, { errorCode: errorName(p.errorCode), offset: Number(p.offset) });
  return out;
}
