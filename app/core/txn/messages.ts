/**
 * The transaction APIs as a broker answers them, in one shape per API whatever the wire version
 * (the wire handlers map versions onto these; Kafka's names for errors):
 *
 * - to the transaction coordinator of a transactional id: AddPartitionsToTxn (also its v4+
 *   broker-to-broker form with `verifyOnly`, KIP-890), AddOffsetsToTxn, EndTxn,
 *   DescribeTransactions, ListTransactions (InitProducerId with a transactional id arrives as the
 *   client request `initProducerId`);
 * - to a partition leader: WriteTxnMarkers (from a coordinator, or an admin's abort of a hanging
 *   transaction) and DescribeProducers (KIP-664).
 *
 * Every request travels to one broker over the in-process network as `{ type: 'txn', api, … }`.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import type { MarkerType } from '../log/control-records.js';
import type { TxnStateName } from './record-codec.js';

export interface TxnTopicPartitions {
  name: string;
  partitions: number[];
}

export interface AddPartitionsToTxnTransaction {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  /** KIP-890: only check that the partitions are in the transaction (a partition leader asks). */
  verifyOnly: boolean;
  topics: TxnTopicPartitions[];
}

export interface AddPartitionsToTxnRequest {
  api: 'addPartitionsToTxn';
  /** The request's version: below 2 PRODUCER_FENCED is answered INVALID_PRODUCER_EPOCH, as Kafka does for old clients. */
  apiVersion: number;
  transactions: AddPartitionsToTxnTransaction[];
}

export interface PartitionErrors {
  name: string;
  partitions: { partition: number; errorCode: KafkaErrorName }[];
}

export interface AddPartitionsToTxnResponse {
  results: { transactionalId: string; topics: PartitionErrors[] }[];
}

export interface AddOffsetsToTxnRequest {
  api: 'addOffsetsToTxn';
  apiVersion: number;
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  groupId: string;
}

export interface EndTxnRequest {
  api: 'endTxn';
  apiVersion: number;
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  committed: boolean;
}

/** AddOffsetsToTxn and EndTxn answer one error. */
export interface TxnErrorResponse {
  errorCode: KafkaErrorName;
}

export interface DescribeTransactionsRequest {
  api: 'describeTransactions';
  transactionalIds: string[];
}

export interface DescribedTransaction {
  errorCode: KafkaErrorName;
  transactionalId: string;
  state: TxnStateName | '';
  transactionTimeoutMs: number;
  /** -1 while no transaction has started. */
  transactionStartTimeMs: number;
  producerId: number;
  producerEpoch: number;
  topics: TxnTopicPartitions[];
}

export interface DescribeTransactionsResponse {
  transactionStates: DescribedTransaction[];
}

export interface ListTransactionsRequest {
  api: 'listTransactions';
  /** State names to keep (empty: all); an unknown name comes back in `unknownStateFilters`. */
  stateFilters: string[];
  producerIdFilters: number[];
  /** ListTransactions v1 (KIP-994): only transactions running longer than this (-1: all). */
  durationFilterMs: number;
}

export interface ListedTransaction {
  transactionalId: string;
  producerId: number;
  state: TxnStateName;
}

export interface ListTransactionsResponse {
  errorCode: KafkaErrorName;
  unknownStateFilters: string[];
  transactionStates: ListedTransaction[];
}

export interface TxnMarkerEntry {
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  result: MarkerType;
  topics: TxnTopicPartitions[];
}

export interface WriteTxnMarkersRequest {
  api: 'writeTxnMarkers';
  markers: TxnMarkerEntry[];
}

export interface WriteTxnMarkersResponse {
  markers: { producerId: number; topics: PartitionErrors[] }[];
}

export interface DescribeProducersRequest {
  api: 'describeProducers';
  topics: TxnTopicPartitions[];
}

export interface ActiveProducer {
  producerId: number;
  producerEpoch: number;
  lastSequence: number;
  lastTimestamp: number;
  coordinatorEpoch: number;
  currentTxnStartOffset: number;
}

export interface DescribeProducersResponse {
  topics: { name: string; partitions: { partition: number; errorCode: KafkaErrorName; errorMessage: string | null; activeProducers: ActiveProducer[] }[] }[];
}

export interface TxnApis {
  addPartitionsToTxn: { request: AddPartitionsToTxnRequest; response: AddPartitionsToTxnResponse };
  addOffsetsToTxn: { request: AddOffsetsToTxnRequest; response: TxnErrorResponse };
  endTxn: { request: EndTxnRequest; response: TxnErrorResponse };
  describeTransactions: { request: DescribeTransactionsRequest; response: DescribeTransactionsResponse };
  listTransactions: { request: ListTransactionsRequest; response: ListTransactionsResponse };
  writeTxnMarkers: { request: WriteTxnMarkersRequest; response: WriteTxnMarkersResponse };
  describeProducers: { request: DescribeProducersRequest; response: DescribeProducersResponse };
}

export type TxnApiName = keyof TxnApis;
export type TxnApiRequest = TxnApis[TxnApiName]['request'];
/** The response to a transaction request, by the request's `api`. */
export type TxnResponseOf<R extends TxnApiRequest> = TxnApis[R['api']]['response'];
/** A transaction request as it crosses the network to a broker. */
export type TxnNetworkRequest = { type: 'txn' } & TxnApiRequest;
