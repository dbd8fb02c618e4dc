/**
 * What the transaction coordinator needs from the broker it runs on, and how it treats its
 * internal topic. The coordinator of a transactional id is the leader of the id's
 * `__transaction_state` partition (Kafka's partitionFor: the id's Java hash modulo the partition
 * count); its coordinator epoch is that partition's leader epoch. Every state change is a record
 * of that partition written with acks=all before it takes effect, so a new leader replays the
 * log and finishes what its predecessor left in flight.
 *
 * `__transaction_state` is created on the first FindCoordinator for a transactional id, with
 * `transaction.state.log.num.partitions` partitions and `transaction.state.log.replication.factor`
 * replicas and the configs Kafka's TransactionStateManager gives it: compacted, uncompressed,
 * `min.insync.replicas` = `transaction.state.log.min.isr`, no unclean election.
 */
import type { EngineEvent } from '../../api/events.js';
import type { ProducerIdAnswer } from '../broker/producer-ids.js';
import type { OffsetsPartition } from '../group/host.js';
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerRuntimeConfig } from '../runtime-config.js';
import type { Scheduler, TimerHandle } from '../time.js';
import type { TxnRecordCodec } from './record-codec.js';
import type { TxnApiRequest, TxnResponseOf } from './messages.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';

/** The configs `__transaction_state` is created with (Kafka's TransactionStateManager.transactionTopicConfigs). */
export function transactionTopicConfigs(minIsr: number, segmentBytes: number): Record<string, string> {
  return {
    'unclean.leader.election.enable': 'false',
    'compression.type': 'uncompressed',
    'cleanup.policy': 'compact',
    'min.insync.replicas': String(minIsr),
    'segment.bytes': String(segmentBytes),
  };
}

/** How a request to another broker ended: its answer, or no answer (the broker is down or cut off). */
export type PeerAnswer<T> = { kind: 'response'; response: T } | { kind: 'unreachable' };

export interface TxnCoordinatorHost {
  readonly brokerId: number;
  readonly scheduler: Scheduler;
  readonly image: MetadataImage;
  /** Absent: this engine cannot read or write transaction records, and serves no transactional id. */
  readonly txnRecords: TxnRecordCodec | undefined;
  brokerConfig(): BrokerRuntimeConfig;
  /** Run `fn` after `delayMs` as this broker process's work (not at all once it ended). */
  after(delayMs: number, fn: () => void): TimerHandle;
  /** This broker's replica of `__transaction_state-partition`, if it hosts one. */
  txnPartition(partition: number): OffsetsPartition | undefined;
  /** Ask the controller to create `__transaction_state` for this client (Kafka's AutoTopicCreationManager); fire and forget. */
  requestTransactionTopic(clientId: string): void;
  /** A new producer id from this broker's block. */
  generateProducerId(done: (answer: ProducerIdAnswer) => void): void;
  /** Send a transaction request to another broker (WriteTxnMarkers to a partition leader). */
  send<R extends TxnApiRequest>(brokerId: number, request: R, timeoutMs: number, done: (answer: PeerAnswer<TxnResponseOf<R>>) => void): void;
  emit(event: EngineEvent): void;
}
