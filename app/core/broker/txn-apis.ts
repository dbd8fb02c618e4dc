/**
 * A partition leader's part in transactions (Kafka's KafkaApis.handleWriteTxnMarkersRequest,
 * handleDescribeProducersRequest and ReplicaManager's transaction verification):
 *
 * - WriteTxnMarkers: each marker becomes a control batch on each of its partitions, acks=all
 *   (request.timeout.ms); the answer waits for every partition. A marker written to
 *   `__consumer_offsets` then tells the group coordinator, which makes the transaction's offsets
 *   visible (COMMIT) or drops them (ABORT).
 * - DescribeProducers (KIP-664): the producers this leader's log knows, with the offset their open
 *   transaction started at.
 * - KIP-890 part 1 (`transaction.partition.verification.enable`): before a producer's first
 *   transactional write to a partition, the leader asks the producer's transaction coordinator
 *   (AddPartitionsToTxn v4, verifyOnly) whether the partition is in its transaction. A partition
 *   the transaction lacks is refused INVALID_TXN_STATE ("Partition was not added to the
 *   transaction"), a fenced producer INVALID_PRODUCER_EPOCH, and a coordinator that is loading,
 *   moving or unreachable NOT_ENOUGH_REPLICAS, which every client retries (Kafka's choice: it
 *   triggers no metadata refresh).
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { MarkerType } from '../log/control-records.js';
import type { VerificationGuard } from '../log/producer-state.js';
import type { MetadataImage } from '../metadata/image.js';
import type { Network } from '../network.js';
import { OFFSETS_TOPIC } from '../group/host.js';
import { offsetsPartitionFor } from '../group/partition-for.js';
import { TRANSACTION_STATE_TOPIC } from '../txn/host.js';
import type { AddPartitionsToTxnResponse, DescribeProducersRequest, DescribeProducersResponse, TxnNetworkRequest, WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../txn/messages.js';
import type { ClientProducePartition } from './messages.js';
import type { ReplicaPartition } from './partition.js';
import type { ReplicaManager } from './replica-manager.js';

/** Kafka's request.timeout.ms, which a marker append waits for its ISR at most. */
const MARKER_APPEND_TIMEOUT_MS = 30_000;
/** How long a leader waits for the coordinator's verification answer. */
const VERIFICATION_TIMEOUT_MS = 30_000;

export interface TxnApisHost {
  readonly brokerId: number;
  readonly image: MetadataImage;
  readonly network: Network;
  readonly generation: number;
  /** transaction.partition.verification.enable */
  verificationEnabled(): boolean;
  /** Markers were written to these `__consumer_offsets` partitions: the group coordinator completes the transaction's offsets. */
  onOffsetsTransactionCompleted(producerId: number, partitions: readonly number[], result: MarkerType): void;
}

/** WriteTxnMarkers on this broker: one control batch per marker and partition. */
export function writeTxnMarkers(host: TxnApisHost, replicas: ReplicaManager, req: WriteTxnMarkersRequest, reply: (r: WriteTxnMarkersResponse) => void): void {
  const markers: WriteTxnMarkersResponse['markers'] = req.markers.map((m) => ({ producerId: m.producerId, topics: m.topics.map((t) => ({ name: t.name, partitions: [] })) }));
  let pending = req.markers.reduce((n, m) => n + m.topics.reduce((k, t) => k + t.partitions.length, 0), 0);
  if (pending === 0) return reply({ markers });
  req.markers.forEach((m, i) => {
    const offsetsDone: number[] = [];
    let left = m.topics.reduce((k, t) => k + t.partitions.length, 0);
    m.topics.forEach((t, j) => {
      for (const partition of t.partitions) {
        const settle = (errorCode: KafkaErrorName): void => {
          markers[i]!.topics[j]!.partitions.push({ partition, errorCode });
          if (errorCode === 'NONE' && t.name === OFFSETS_TOPIC) offsetsDone.push(partition);
          if (--left === 0 && offsetsDone.length > 0) host.onOffsetsTransactionCompleted(m.producerId, offsetsDone, m.result);
          if (--pending === 0) reply({ markers });
        };
        const found = replicas.leaderReplica(t.name, partition, -1, false);
        if (!found.ok) {
          settle(found.error);
          continue;
        }
        found.replica.appendMarkerAsLeader({ producerId: m.producerId, producerEpoch: m.producerEpoch }, { type: m.result, coordinatorEpoch: m.coordinatorEpoch }, MARKER_APPEND_TIMEOUT_MS, (o) => settle(o.errorCode));
      }
    });
  });
}

/** DescribeProducers (KIP-664) on this broker: each partition it leads, with its log's producers. */
export function describeProducers(replicas: ReplicaManager, req: DescribeProducersRequest): DescribeProducersResponse {
  return {
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((partition) => {
        const found = replicas.leaderReplica(t.name, partition, -1, true);
        if (!found.ok) return { partition, errorCode: found.error, errorMessage: null, activeProducers: [] };
        const activeProducers = found.replica.log
          .producerState()
          .describe()
          .map((d) => ({ producerId: d.producerId, producerEpoch: d.epoch, lastSequence: d.lastSequence, lastTimestamp: d.lastTimestamp, coordinatorEpoch: d.coordinatorEpoch, currentTxnStartOffset: d.currentTxnStartOffset }));
        return { partition, errorCode: 'NONE' as const, errorMessage: null, activeProducers };
      }),
    })),
  };
}

/** What verification decided for one partition entry of a Produce: go ahead (with a guard, if one is needed), or refuse. */
export type Verdict = { ok: true; guard?: VerificationGuard } | { ok: false; error: KafkaErrorName; message: string };

/** The coordinator's verification errors as a Produce answers them (ReplicaManager, AddPartitionsToTxnManager). */
function produceErrorOf(error: KafkaErrorName): { error: KafkaErrorName; message: string } {
  switch (error) {
    case 'TRANSACTION_ABORTABLE':
    case 'INVALID_TXN_STATE':
      return { error: 'INVALID_TXN_STATE', message: 'Partition was not added to the transaction' };
    case 'PRODUCER_FENCED':
      return { error: 'INVALID_PRODUCER_EPOCH', message: 'The producer was fenced by a newer producer with the same transactional id' };
    case 'CONCURRENT_TRANSACTIONS':
    case 'NETWORK_EXCEPTION':
    case 'COORDINATOR_LOAD_IN_PROGRESS':
    case 'COORDINATOR_NOT_AVAILABLE':
    case 'NOT_COORDINATOR':
      return { error: 'NOT_ENOUGH_REPLICAS', message: `Unable to verify the partition has been added to the transaction. Underlying error: ${error}` };
    default:
      return { error, message: `Transaction verification failed: ${error}` };
  }
}

/**
 * KIP-890: decide each partition entry of a transactional Produce. Entries that need no
 * verification (not transactional, or the producer's transaction is already open there) go ahead
 * at once; the others wait for one verifyOnly AddPartitionsToTxn to the coordinator.
 */
export function verifyTransactionalProduce(
  host: TxnApisHost,
  replicas: ReplicaManager,
  transactionalId: string | null | undefined,
  entries: readonly ClientProducePartition[],
  done: (verdicts: Verdict[]) => void,
): void {
  const verdicts: Verdict[] = entries.map(() => ({ ok: true }));
  if (!transactionalId || !host.verificationEnabled()) return done(verdicts);
  const waiting: { index: number; replica: ReplicaPartition; guard: VerificationGuard }[] = [];
  const producers: { producerId: number; producerEpoch: number }[] = [];
  entries.forEach((e, index) => {
    const info = 'wire' in e ? e.producer : undefined;
    if (!info?.transactional) return;
    const found = replicas.leaderReplica(e.topic, e.partition, -1, false);
    if (!found.ok) return; // the append answers why
    const guard = found.replica.startTxnVerification(info.producerId, info.producerEpoch);
    if (guard === null) return;
    if (producers.length === 0) producers.push({ producerId: info.producerId, producerEpoch: info.producerEpoch });
    waiting.push({ index, replica: found.replica, guard });
  });
  const producer = producers[0];
  if (waiting.length === 0 || !producer) return done(verdicts);
  const refuseAll = (error: KafkaErrorName): void => {
    const e = produceErrorOf(error);
    for (const w of waiting) verdicts[w.index] = { ok: false, ...e };
    done(verdicts);
  };
  const topics = new Map<string, number[]>();
  for (const w of waiting) topics.set(entries[w.index]!.topic, [...(topics.get(entries[w.index]!.topic) ?? []), entries[w.index]!.partition]);
  askCoordinator(host, transactionalId, producer, topics, (errorOf) => {
    if (typeof errorOf === 'string') return refuseAll(errorOf);
    for (const w of waiting) {
      const e = entries[w.index]!;
      const error = errorOf(e.topic, e.partition);
      verdicts[w.index] = error === 'NONE' ? { ok: true, guard: w.guard } : { ok: false, ...produceErrorOf(error) };
    }
    done(verdicts);
  });
}

/**
 * KIP-890 for a coordinator's write inside a producer's transaction (TxnOffsetCommit to
 * `__consumer_offsets`): the guard to write with, or the error the group coordinator answers.
 */
export function verifyCoordinatorWrite(
  host: TxnApisHost,
  replicas: ReplicaManager,
  transactionalId: string,
  producer: { producerId: number; producerEpoch: number },
  topic: string,
  partition: number,
  done: (r: { ok: true; guard?: VerificationGuard } | { ok: false; error: KafkaErrorName }) => void,
): void {
  if (!host.verificationEnabled()) return done({ ok: true });
  const found = replicas.leaderReplica(topic, partition, -1, false);
  if (!found.ok) return done({ ok: false, error: found.error });
  const guard = found.replica.startTxnVerification(producer.producerId, producer.producerEpoch);
  if (guard === null) return done({ ok: true });
  askCoordinator(host, transactionalId, producer, new Map([[topic, [partition]]]), (errorOf) => {
    const error = typeof errorOf === 'string' ? errorOf : errorOf(topic, partition);
    if (error === 'NONE') return done({ ok: true, guard });
    // TxnOffsetCommit answers the coordinator's own errors (Kafka's GroupCoordinator maps them to offset commit errors).
    done({ ok: false, error: error === 'TRANSACTION_ABORTABLE' ? 'INVALID_TXN_STATE' : error === 'NETWORK_EXCEPTION' ? 'COORDINATOR_NOT_AVAILABLE' : error });
  });
}

/** One verifyOnly AddPartitionsToTxn (v4) to the transactional id's coordinator: each partition's answer, or one error for all. */
function askCoordinator(
  host: TxnApisHost,
  transactionalId: string,
  producer: { producerId: number; producerEpoch: number },
  topics: ReadonlyMap<string, number[]>,
  done: (answer: KafkaErrorName | ((topic: string, partition: number) => KafkaErrorName)) => void,
): void {
  const coordinator = txnCoordinatorOf(host.image, transactionalId);
  if (coordinator < 0) return done('COORDINATOR_NOT_AVAILABLE');
  const request: TxnNetworkRequest = {
    type: 'txn',
    api: 'addPartitionsToTxn',
    apiVersion: 4,
    transactions: [{ transactionalId, ...producer, verifyOnly: true, topics: [...topics].map(([name, partitions]) => ({ name, partitions })) }],
  };
  const gen = host.generation;
  host.network.request(
    host.brokerId,
    coordinator,
    request,
    VERIFICATION_TIMEOUT_MS,
    (res) => {
      if (gen !== host.generation) return;
      const result = (res as AddPartitionsToTxnResponse).results[0];
      done((topic, partition) => result?.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partition === partition)?.errorCode ?? 'UNKNOWN_SERVER_ERROR');
    },
    () => {
      if (gen === host.generation) done('NETWORK_EXCEPTION');
    },
  );
}

/** The live leader of the transactional id's `__transaction_state` partition, per this broker's metadata; -1 when none. */
export function txnCoordinatorOf(image: MetadataImage, transactionalId: string): number {
  const topic = image.topicsByName.get(TRANSACTION_STATE_TOPIC);
  if (!topic) return -1;
  const leader = topic.partitions.get(offsetsPartitionFor(transactionalId, topic.partitions.size))?.leader ?? -1;
  const broker = image.brokers.get(leader);
  return leader >= 0 && broker && !broker.fenced ? leader : -1;
}
