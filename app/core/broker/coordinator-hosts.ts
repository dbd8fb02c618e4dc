/**
 * What a broker's two coordinators see of it: the group coordinator (`__consumer_offsets`) and
 * the transaction coordinator (`__transaction_state`). Both lead their internal topic's
 * partitions through the broker's own replicas, run their timers as the broker process's work
 * (retired when the process ends) and ask the controller to create their topic on first use.
 */
import type { EngineEvent } from '../../api/events.js';
import type { CoordinatorHost, OffsetsPartition } from '../group/host.js';
import { OFFSETS_TOPIC } from '../group/host.js';
import type { GroupRecordCodec } from '../group/record-codec.js';
import type { MetadataImage } from '../metadata/image.js';
import type { Network } from '../network.js';
import type { Random } from '../random.js';
import type { BrokerRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import { TRANSACTION_STATE_TOPIC, type TxnCoordinatorHost } from '../txn/host.js';
import type { TxnApiRequest, TxnNetworkRequest, TxnResponseOf } from '../txn/messages.js';
import type { TxnRecordCodec } from '../txn/record-codec.js';
import type { RecordBatch } from '../log/records.js';
import type { ReplicaPartition } from './partition.js';
import type { ProducerIdAnswer } from './producer-ids.js';

export interface CoordinatorHostsDeps {
  readonly brokerId: number;
  readonly scheduler: Scheduler;
  readonly random: Random;
  readonly network: Network;
  readonly groupRecords: GroupRecordCodec;
  readonly txnRecords: TxnRecordCodec | undefined;
  image(): MetadataImage;
  brokerConfig(): BrokerRuntimeConfig;
  emit(event: EngineEvent): void;
  /** Run `fn` after `ms` while this broker process lives. */
  after(ms: number, fn: () => void): TimerHandle;
  /** This broker's replica of an internal topic's partition, as its coordinator uses it. */
  internalPartition(topic: string, partition: number): OffsetsPartition | undefined;
  /** Ask the controller to create an internal topic for a client's FindCoordinator (auto-topic-creation.ts gives it its shape); fire and forget. */
  createInternalTopic(name: string, clientId: string): void;
  generateProducerId(done: (answer: ProducerIdAnswer) => void): void;
  /** KIP-890 for a coordinator's transactional write: is this partition in the producer's transaction? */
  verifyTxnPartition: CoordinatorHost['verifyTxnPartition'];
}

export function groupCoordinatorHost(d: CoordinatorHostsDeps): CoordinatorHost {
  return {
    brokerId: d.brokerId,
    scheduler: d.scheduler,
    random: d.random,
    groupRecords: d.groupRecords,
    get image() {
      return d.image();
    },
    brokerConfig: () => d.brokerConfig(),
    emit: (e) => d.emit(e),
    after: (ms, fn) => d.after(ms, fn),
    offsetsPartition: (partition) => d.internalPartition(OFFSETS_TOPIC, partition),
    requestOffsetsTopic: (clientId) => d.createInternalTopic(OFFSETS_TOPIC, clientId),
    verifyTxnPartition: (transactionalId, producer, partition, done) => d.verifyTxnPartition(transactionalId, producer, partition, done),
  };
}

export function txnCoordinatorHost(d: CoordinatorHostsDeps): TxnCoordinatorHost {
  return {
    brokerId: d.brokerId,
    scheduler: d.scheduler,
    txnRecords: d.txnRecords,
    get image() {
      return d.image();
    },
    brokerConfig: () => d.brokerConfig(),
    emit: (e) => d.emit(e),
    after: (ms, fn) => d.after(ms, fn),
    txnPartition: (partition) => d.internalPartition(TRANSACTION_STATE_TOPIC, partition),
    requestTransactionTopic: (clientId) => d.createInternalTopic(TRANSACTION_STATE_TOPIC, clientId),
    generateProducerId: (done) => d.generateProducerId(done),
    send: <R extends TxnApiRequest>(brokerId: number, request: R, timeoutMs: number, done: (answer: { kind: 'response'; response: TxnResponseOf<R> } | { kind: 'unreachable' }) => void) => {
      const message: TxnNetworkRequest = { type: 'txn', ...request };
      d.network.request(
        d.brokerId,
        brokerId,
        message,
        timeoutMs,
        (response) => done({ kind: 'response', response: response as TxnResponseOf<R> }),
        () => done({ kind: 'unreachable' }),
      );
    },
  };
}

/**
 * A replica as its coordinator uses it: leader only while it is the broker's current replica
 * (not one a newer metadata image replaced), appends as the leader with the caller's acks.
 */
export function coordinatorPartitionView(p: ReplicaPartition, isCurrent: () => boolean, read: (from: number, maxBytes: number) => RecordBatch[] | null): OffsetsPartition {
  return {
    get isLeader() {
      return p.isLeader && isCurrent();
    },
    get leaderEpoch() {
      return p.leaderEpoch;
    },
    get logStartOffset() {
      return p.log.logStartOffset;
    },
    get logEndOffset() {
      return p.log.logEndOffset;
    },
    read,
    append: (records, acks, timeoutMs, done) => p.appendAsLeader(records, acks, timeoutMs, (o) => done({ errorCode: o.errorCode, baseOffset: o.baseOffset })),
    appendTransactional: (records, producer, timeoutMs, done, guard) =>
      p.appendTxnRecordsAsLeader(records, producer, timeoutMs, (o) => done({ errorCode: o.errorCode, baseOffset: o.baseOffset }), guard),
  };
}
