/**
 * Transactions (spread into `contract` in contract.ts): what `kafka-transactions.sh` shows and
 * does (KIP-664), on the cluster the console runs and on any Kafka cluster alike — ListTransactions
 * to every broker and DescribeTransactions to each coordinator, DescribeProducers to a partition's
 * leader, the tool's `find-hanging` search, and `abort`: an ABORT marker written by
 * WriteTxnMarkers to the partition's leader, as Kafka's Admin.abortTransaction sends it, after a
 * preview of what moves. Kafka's names and errors throughout.
 *
 * Each partition's offsets are the four a transaction separates: log start, last stable offset
 * (LSO: a read_committed consumer reads below it), high watermark (read_uncommitted reads below
 * it) and log end offset (what the leader holds, replicated or not).
 */
import { z } from 'zod';
import type { KafkaErrorName } from './errors.js';
import { method, returns } from './contract-kit.js';
import { brokerIdSchema, topicNameSchema } from './contract-schemas.js';

/** Kafka's transaction states (TransactionState), as DescribeTransactions and ListTransactions name them. */
export const TXN_STATES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'] as const;
export type TxnStateView = (typeof TXN_STATES)[number];

/** kafka-transactions.sh find-hanging's default --max-transaction-timeout (transaction.max.timeout.ms's default). */
export const DEFAULT_MAX_TRANSACTION_TIMEOUT_MS = 900_000;

export interface TxnPartitionView {
  topic: string;
  partition: number;
}

/** One transactional id as its coordinator describes it. */
export interface TransactionView {
  transactionalId: string;
  /** The broker whose transaction coordinator owns the id (the leader of its `__transaction_state` partition). */
  coordinatorId: number;
  producerId: number;
  producerEpoch: number;
  state: TxnStateView | string;
  timeoutMs: number;
  /** When the current transaction started (the coordinator's clock); null when none is in progress. */
  startTimeMs: number | null;
  /** How long the current transaction has been open, by the same clock; null when none. */
  durationMs: number | null;
  /** Open (Ongoing, or markers not yet written) longer than its timeout: the coordinator should be aborting it. */
  pastTimeout: boolean;
  /** The partitions in the transaction (in PrepareCommit/PrepareAbort: those still waiting for their marker). */
  partitions: TxnPartitionView[];
}

export interface TransactionListView {
  /** The clock durations are measured with: the engine's for a cluster the console runs, this machine's for an external one. */
  nowMs: number;
  transactions: TransactionView[];
  /** Brokers whose coordinator did not answer (their transactional ids are missing from the list). */
  unanswered: { brokerId: number; errorCode: KafkaErrorName; message: string }[];
}

/** A partition's four offsets. `logEndOffset` is null where the cluster does not say it (an external cluster's leader). */
export interface PartitionOffsetsView {
  logStartOffset: number;
  lastStableOffset: number;
  highWatermark: number;
  logEndOffset: number | null;
}

/** One producer a partition's leader knows (DescribeProducers), with what its coordinator says when it has a transactional id. */
export interface ProducerStateView {
  producerId: number;
  producerEpoch: number;
  lastSequence: number;
  /** The timestamp of its last batch on this partition. */
  lastTimestamp: number;
  /** The coordinator epoch of its last marker here (-1: none yet). */
  coordinatorEpoch: number;
  /** Where its open transaction starts on this partition; null when it has none open here. */
  currentTxnStartOffset: number | null;
  /** The transactional id whose producer id this is, when a coordinator lists one. */
  transactionalId: string | null;
  /** Its coordinator's view: state, timeout and start of its current transaction (null when unknown). */
  transaction: { state: string; timeoutMs: number; startTimeMs: number | null; includesPartition: boolean } | null;
}

export interface PartitionTransactionsView {
  topic: string;
  partition: number;
  leader: number;
  /** NONE, or why the leader could not describe the partition. */
  errorCode: KafkaErrorName;
  offsets: PartitionOffsetsView | null;
  producers: ProducerStateView[];
  /** The producer whose open transaction starts at the LSO (holding read_committed consumers there), null when none does. */
  lsoHeldBy: number | null;
}

export interface HangingTransactionView {
  topic: string;
  partition: number;
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  startOffset: number;
  lastTimestamp: number;
  durationMs: number;
  transactionalId: string | null;
  /** What the coordinator says of the transactional id (null: no coordinator lists this producer id). */
  coordinatorState: string | null;
  /** Why it hangs, in words. */
  reason: string;
}

export interface HangingTransactionsView {
  nowMs: number;
  maxTransactionTimeoutMs: number;
  partitionsSearched: number;
  hanging: HangingTransactionView[];
}

/** What aborting one partition's open transaction does (the preview), or did. */
export interface TransactionAbortView {
  dryRun: boolean;
  topic: string;
  partition: number;
  leader: number;
  producerId: number;
  producerEpoch: number;
  /** The coordinator epoch sent with the marker (kafka-transactions.sh sends 0 for a producer with none). */
  coordinatorEpoch: number;
  startOffset: number | null;
  before: PartitionOffsetsView;
  /** The LSO once the marker is written: the next open transaction's start, else the end of the log. */
  lastStableOffsetAfter: number;
  /** The producer's records from its start offset that become aborted (read_committed consumers skip them). */
  abortedRecords: number;
  /** Other records between the LSO before and after that read_committed consumers reach once it moves. */
  releasedRecords: number;
  /** False when the partition held more records than a preview reads (200,000): the counts are then lower bounds. */
  countsExact: boolean;
  /** Open transactions of other producers that keep holding the LSO. */
  stillOpen: { producerId: number; startOffset: number }[];
  /** After the abort (not in a preview): the partition's offsets as read again. */
  after: PartitionOffsetsView | null;
}

const partitionsSchema = z.array(z.int().min(0)).min(1).max(10_000);

export const transactionsMethods = {
  /**
   * Every transactional id every broker's coordinator knows (ListTransactions to each broker,
   * then DescribeTransactions to its coordinator), with its state, producer, partitions and how
   * long its transaction has been open against its timeout; `states` keeps only those states.
   */
  'transactions.list': method(z.strictObject({ states: z.array(z.enum(TXN_STATES)).optional() }), returns<TransactionListView>()),
  /**
   * Each partition of `topic` (or the chosen ones): its log start, LSO, high watermark and log end
   * offset, and the producers its leader knows (DescribeProducers, KIP-664) with the transactional
   * id and coordinator state behind each open transaction.
   */
  'transactions.producers': method(z.strictObject({ topic: topicNameSchema, partitions: partitionsSchema.optional() }), returns<PartitionTransactionsView[]>()),
  /**
   * `kafka-transactions.sh find-hanging`: open transactions on the partitions of `topic` (or those
   * with a replica on `brokerId`, or every topic) whose producer wrote nothing for longer than
   * `maxTransactionTimeoutMs` (default 15 min) and that no coordinator is going to end — no
   * transactional id has the producer id, or its transaction no longer includes the partition.
   */
  'transactions.findHanging': method(
    z.strictObject({
      topic: topicNameSchema.optional(),
      partitions: partitionsSchema.optional(),
      brokerId: brokerIdSchema.optional(),
      maxTransactionTimeoutMs: z.int().min(0).optional(),
    }),
    returns<HangingTransactionsView>(),
  ),
  /**
   * `kafka-transactions.sh abort`: end one partition's open transaction with an ABORT marker
   * (WriteTxnMarkers to its leader, Admin.abortTransaction's request), the transaction named by
   * its start offset or by producer id, epoch and coordinator epoch. `dryRun` (the default) only
   * previews: the LSO before and after, the records aborted and released. A start offset no open
   * transaction starts at is INVALID_REQUEST with the tool's message; the leader's own refusals
   * (INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED, CLUSTER_AUTHORIZATION_FAILED) come back as Kafka's.
   */
  'transactions.abort': method(
    z
      .strictObject({
        topic: topicNameSchema,
        partition: z.int().min(0),
        startOffset: z.int().min(0).optional(),
        producerId: z.int().min(0).optional(),
        producerEpoch: z.int().min(0).max(32_767).optional(),
        coordinatorEpoch: z.int().min(-1).optional(),
        dryRun: z.boolean().optional(),
      })
      .refine((v) => v.startOffset !== undefined || (v.producerId !== undefined && v.producerEpoch !== undefined && v.coordinatorEpoch !== undefined), {
        message: 'The transaction to abort must be identified either with startOffset or with producerId, producerEpoch and coordinatorEpoch',
      }),
    returns<TransactionAbortView>(),
  ),
} as const;
