/**
 * A twin: a local cluster made from another connection's topology (usually an external Kafka
 * cluster) to rehearse on — its brokers with their ids and racks, topics with their partitions,
 * replica assignments and leaders, topic and cluster-wide configs, the static broker configs, the
 * finalized feature levels, ACLs and client quotas; no record of the source is copied, but each
 * partition gets synthetic records up to the source's offsets (within a budget). Secrets are never
 * copied (no SCRAM credential, no sensitive config). The twin remembers its source and is
 * refreshed from it, with the drift shown first. Spread into the `connections.*` methods: they act
 * on two connections, not on one cluster.
 */
import { z } from 'zod';
import { method, returns } from './contract-kit.js';
import { connectionIdSchema, connectionNameSchema, type ConnectionView, type TwinOriginView } from './connections.js';

/** What differs between a twin and its source, one thing each: the drift a refresh applies. */
export type TwinChangeKind =
  | 'broker-added'
  | 'broker-removed'
  | 'broker-rack'
  | 'broker-down'
  | 'broker-up'
  | 'static-configs'
  | 'cluster-config'
  | 'feature'
  | 'topic-added'
  | 'topic-removed'
  | 'partitions-added'
  | 'topic-config'
  | 'assignment'
  | 'leader'
  | 'offsets'
  | 'acl-added'
  | 'acl-removed'
  | 'quota';

export interface TwinChangeView {
  kind: TwinChangeKind;
  /** What it is about: `broker 3`, `topic orders`, `orders-2`, `min.insync.replicas`, an ACL binding. */
  subject: string;
  /** The twin's value now ('' when it has none). */
  twin: string;
  /** The source's value ('' when it has none). */
  source: string;
  /**
   * Why a refresh cannot apply it, when it cannot (a broker's rack or the static configs are read
   * at start only: a new twin takes them; a record-less twin cannot move its log start back).
   */
  notApplied?: string;
}

/** What `connections.createTwin` and `connections.refreshTwin` did (or, dry, would do). */
export interface TwinResultView {
  connection: ConnectionView;
  origin: TwinOriginView;
  /** The drift found, in the order it is applied; after a create: everything the twin was given. */
  changes: TwinChangeView[];
  /** What was not copied and why (internal topics, secrets, records above the budget). */
  notes: string[];
  /** Synthetic records written to reach the source's offsets. */
  recordsWritten: number;
  dryRun: boolean;
}

/** The drift kinds a twin's refresh reports, for the console's filters. */
export const TWIN_CHANGE_KINDS: readonly TwinChangeKind[] = [
  'broker-added',
  'broker-removed',
  'broker-rack',
  'broker-down',
  'broker-up',
  'static-configs',
  'cluster-config',
  'feature',
  'topic-added',
  'topic-removed',
  'partitions-added',
  'topic-config',
  'assignment',
  'leader',
  'offsets',
  'acl-added',
  'acl-removed',
  'quota',
];

/** Most synthetic records a twin writes by default to reach its source's offsets. */
export const TWIN_DEFAULT_RECORD_BUDGET = 100_000;

const recordBudget = z.int().min(0).max(10_000_000).optional();

export const twinMethods = {
  /**
   * Make a local cluster (a data directory of its own in the app's folder) from the topology of
   * connection `source`, as described in twin-contract.ts; `recordBudget` bounds the synthetic
   * records (default TWIN_DEFAULT_RECORD_BUDGET; above it the offsets are scaled down, said in
   * `notes`). The twin starts, registers, and remembers its source.
   */
  'connections.createTwin': method(z.strictObject({ name: connectionNameSchema, source: connectionIdSchema, recordBudget }), returns<TwinResultView>()),
  /**
   * Re-read a twin's source and show the drift (`dryRun`, the default), or apply it: brokers
   * added or stopped, topics created or deleted, partitions added, replicas reassigned, leaders
   * moved, configs, features, ACLs and quotas set, offsets advanced.
   */
  'connections.refreshTwin': method(z.strictObject({ id: connectionIdSchema, dryRun: z.boolean().optional(), recordBudget }), returns<TwinResultView>()),
} as const;
