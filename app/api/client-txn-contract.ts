/**
 * Clients of their own with transactions (spread into `contract` in contract.ts): a transactional
 * producer the console keeps open between calls (so a drill can leave its transaction open, let it
 * die, or start a second producer with the same transactional.id), and a consumer's Fetch with an
 * isolation level, answered as the client sees it: the leader's high watermark and last stable
 * offset, the aborted transactions it listed, and the records the client hands its application.
 * Each is a kafkajs client on its own connections to the cluster's bootstrap servers, so the
 * cluster treats it as it treats any application. A client's refusal is its result (Kafka's error
 * name and message as the client got them), not a failed call.
 */
import { z } from 'zod';
import type { KafkaErrorName } from './errors.js';
import { method, returns } from './contract-kit.js';
import { topicNameSchema } from './contract-schemas.js';

/** One transactional producer and where its transaction stands. */
export interface ClientTransactionView {
  /** The console's name for the client (its client.id). */
  name: string;
  transactionalId: string;
  /** NONE, or the refusal the client got (INVALID_PRODUCER_EPOCH when a newer producer fenced it). */
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  /** The broker that coordinates its transactional id (-1: not known). */
  coordinatorId: number;
  /** Whether its transaction is open now (begun and neither committed, aborted nor abandoned). */
  open: boolean;
  /** The records this call sent, per partition: the offset of the first one and how many. */
  sent: { topic: string; partition: number; baseOffset: number; count: number }[];
}

/** One partition as a consumer's Fetch found it (`clients.fetch`). */
export interface ClientFetchView {
  errorCode: KafkaErrorName;
  errorMessage: string | null;
  /** The leader that answered (-1: none). */
  leader: number;
  highWatermark: number;
  /** What read_committed reads up to: below the first offset of the oldest open transaction. */
  lastStableOffset: number;
  /** Transactions the leader listed as aborted in the range fetched (read_committed only). */
  abortedTransactions: { producerId: number; firstOffset: number }[];
  /** The records the client hands its application: no markers and, read_committed, no aborted records. */
  records: { offset: number; key: string | null; value: string | null }[];
}

const clientName = z.string().min(1).max(255);

export const clientTxnMethods = {
  /**
   * Begin a transaction on the transactional producer `name` and send `records` in it; the
   * producer starts first if it is not running (its own connections; InitProducerId for
   * `transactionalId`, which fences an older producer of the id and aborts what it left open).
   * The transaction stays open until `clients.endTransaction` or `clients.crash`; another call
   * while it is open sends more records in it.
   */
  'clients.beginTransaction': method(
    z.strictObject({
      name: clientName,
      transactionalId: z.string().min(1).max(255),
      transactionTimeoutMs: z.int().min(1).max(3_600_000).optional(),
      records: z.array(z.strictObject({ topic: topicNameSchema, partition: z.int().min(0), key: z.string().nullable().optional(), value: z.string().nullable() })).min(1).max(1000),
    }),
    returns<ClientTransactionView>(),
  ),
  /** Commit or abort the open transaction of producer `name` (EndTxn); the producer then closes. */
  'clients.endTransaction': method(z.strictObject({ name: clientName, commit: z.boolean() }), returns<ClientTransactionView>()),
  /** The producer `name` dies: its connections drop with no EndTxn, its transaction left open for the coordinator to time out. */
  'clients.crash': method(z.strictObject({ name: clientName }), returns<ClientTransactionView>()),
  /** One Fetch of a partition from `offset` as a consumer of that isolation level sends it (max 1 MiB). */
  'clients.fetch': method(
    z.strictObject({
      topic: topicNameSchema,
      partition: z.int().min(0),
      offset: z.int().min(0),
      isolation: z.enum(['read_committed', 'read_uncommitted']),
      clientId: clientName.optional(),
    }),
    returns<ClientFetchView>(),
  ),
} as const;
