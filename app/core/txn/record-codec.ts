/**
 * The port through which the transaction coordinator reads and writes its records in
 * `__transaction_state` (Kafka's TransactionLog): the key is the transactional id, the value the
 * transaction's state as its last transition left it, a null value (a tombstone) an expired id.
 * The bytes follow Kafka's TransactionLogKey / TransactionLogValue schemas, which app/protocol
 * generates; the hosts inject its implementation (`app/protocol/txn-records.ts`) as
 * `EngineOptions.txnRecords`.
 */
import type { TopicPartitions } from '../group/record-codec.js';

/** Kafka's TransactionState ids (TransactionState.fromId). */
export const TXN_STATE_IDS = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'] as const;
export type TxnStateName = (typeof TXN_STATE_IDS)[number];

/** One transaction's stored state (TransactionLogValue). */
export interface StoredTxn {
  producerId: number;
  producerEpoch: number;
  transactionTimeoutMs: number;
  state: TxnStateName;
  /** The partitions in the transaction (none while Empty). */
  partitions: TopicPartitions[];
  lastUpdateTimestampMs: number;
  /** -1 while no transaction has started. */
  startTimestampMs: number;
}

export interface TxnRecordCodec {
  key(transactionalId: string): Uint8Array;
  /** The transactional id of a key; throws on a key this coordinator cannot read (skipped on load). */
  readKey(key: Uint8Array): string;
  value(txn: StoredTxn): Uint8Array;
  readValue(value: Uint8Array): StoredTxn;
}
