/**
 * THE contract: every public method `noun.verb` mapped to its input schema (zod) and its result
 * type, plus the result envelope and the event map. The IPC bridge, the HTTP host, the CLI and
 * the renderer client are all typed from `contract`; nothing re-declares a payload shape.
 *
 * Grammar: a call is `(method, input)`; `input` must parse with `contract[method].input`
 * (objects are strict: an unknown key is an INVALID_INPUT, so a typo never passes silently);
 * the answer is a `Result<MethodResult<method>>`. Schemas check shapes and types only; Kafka's
 * own rules (a replication factor larger than the broker count, an invalid config value, …) are
 * the engine's to enforce, so they come back with Kafka's error codes.
 *
 * The method table stays one object literal, so a method's schema, its result type and its
 * neighbours are read and reviewed in one place; the schemas methods share are in
 * contract-schemas.ts, a feature's methods in its own `*-contract.ts`.
 */
import { z } from 'zod';
import type { ErrorView } from './errors.js';
import type { EngineEvent, EventMap } from './events.js';
import type {
  BrokerView,
  ClockView,
  ClusterView,
  ClusterSnapshotView,
  ConfigEntryView,
  ConsumeResultView,
  ApplyPlanView,
  DeletedTopicView,
  DurabilityView,
  ElectionPreviewView,
  ExportedFileView,
  ProfileIssueView,
  ProfileSummaryView,
  ProfileView,
  SettingChangeView,
  ElectionResultView,
  LeaderBalanceView,
  MetricsWithHistoryView,
  TopicStatsView,
  ReassignmentJsonView,
  ReplicationFactorChangeView,
  TopicBulkResultView,
  ProduceResultView,
  ReassignmentResultView,
  ReassignmentVerifyView,
  ReassignmentView,
  TopicSummaryView,
  TopicView,
} from './views.js';
import type { BalancePlanView } from './balance-views.js';
import type { FeatureUpdateResultView, FeatureView } from './feature-views.js';
import { method, returns, type ResultMarker } from './contract-kit.js';
import {
  brokerIdSchema,
  topicNameSchema,
  topicPartitionSchema,
  configResourceSchema,
  acksSchema,
  produceRecordSchema,
  produceCompressionSchema,
  produceSchemaChoice,
  reassignmentPartitionSchema,
  createTopicSchema,
  eventNames,
  RECENT_EVENTS_CAPACITY,
  empty,
  brokerTarget,
} from './contract-schemas.js';
import { connectionMethods } from './connections-contract.js';
import { recordsDeleteMethods } from './records-delete-contract.js';
import { recordsFillMethods } from './records-fill-contract.js';
import { recordsSearchMethods } from './records-search-contract.js';
import { schemasMethods } from './schemas-contract.js';
import { securityMethods } from './security-contract.js';
import { clientTxnMethods } from './client-txn-contract.js';
import { compactionMethods } from './compaction-contract.js';
import { impactMethods } from './impact-contract.js';
import { groupsMethods } from './groups-contract.js';
import { transactionsMethods } from './transactions-contract.js';

/** The DTOs (`…View`) every result is made of; see `views.ts` and `balance-views.ts`. */
export type * from './views.js';
export type * from './balance-views.js';
export type * from './feature-views.js';
export type * from './connections.js';
export type * from './capabilities.js';
export type * from './impact-contract.js';
export type * from './records-search-contract.js';
export type * from './schemas-contract.js';
export type * from './security-contract.js';
export type * from './twin-contract.js';
export type * from './rehearsal-contract.js';
export type * from './transactions-contract.js';
export type * from './client-txn-contract.js';

// ================================================================ envelope

/** The envelope every method answers with, across every process boundary. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ErrorView };

// ================================================================ shared schemas (contract-schemas.ts)

export {
  brokerIdSchema,
  topicNameSchema,
  topicPartitionSchema,
  configResourceSchema,
  acksSchema,
  headerSchema,
  produceRecordSchema,
  produceCompressionSchema,
  produceSchemaChoice,
  reassignmentPartitionSchema,
  createTopicSchema,
  eventNames,
  RECENT_EVENTS_CAPACITY,
} from './contract-schemas.js';

// ================================================================ result markers

export type { ResultMarker } from './contract-kit.js';

// ================================================================ the contract

/** Every public method: its input schema and (type-only) result. Names are public: keep them. */
export const contract = {
  /** Id, controller, brokers, counts and health of the cluster. */
  'cluster.describe': method(empty, returns<ClusterView>()),
  /**
   * `cluster.describe` and every topic as `topics.describeMany` shows it, from one read of the
   * cluster (on an external one: one Metadata, one DescribeLogDirs per broker, …), so the two agree.
   */
  'cluster.snapshot': method(empty, returns<ClusterSnapshotView>()),
  /** Every feature the controller supports with its finalized level (`kafka-features.sh describe`). */
  'cluster.features': method(empty, returns<FeatureView[]>()),
  /**
   * UpdateFeatures (`kafka-features.sh upgrade|downgrade --feature name=level`): per feature,
   * NONE or INVALID_UPDATE_VERSION (unknown feature, level out of range, a downgrade asked as an
   * upgrade). All or nothing, as Kafka's controller: one refusal and no level changes (the other
   * features then say so). `eligible.leader.replicas.version=1` turns on eligible leader replicas
   * (KIP-966). On an external cluster this is Kafka's UpdateFeatures request.
   */
  'cluster.updateFeatures': method(
    z.strictObject({
      updates: z
        .array(
          z.strictObject({
            feature: z.string().min(1),
            maxVersionLevel: z.int().min(0),
            upgradeType: z.enum(['upgrade', 'safe-downgrade', 'unsafe-downgrade']).optional(),
          }),
        )
        .min(1),
      validateOnly: z.boolean().optional(),
    }),
    returns<FeatureUpdateResultView[]>(),
  ),

  /** Every broker with its rack, state and replica/leader counts. */
  'brokers.list': method(empty, returns<BrokerView[]>()),
  /** Add a broker (next free id when `id` is absent); it starts and registers. */
  'brokers.add': method(z.strictObject({ id: brokerIdSchema.optional(), rack: z.string().nullable().optional() }), returns<BrokerView>()),
  /** Remove a stopped broker that hosts no replicas (it unregisters). */
  'brokers.remove': method(brokerTarget, returns<{ brokerId: number }>()),
  /** Controlled shutdown: leadership moves away first, then the process stops. */
  'brokers.stop': method(brokerTarget, returns<BrokerView>()),
  /** Start a stopped, killed or powered-off broker (a new incarnation). */
  'brokers.start': method(brokerTarget, returns<BrokerView>()),
  /** SIGKILL: the process dies; what it wrote survives. */
  'brokers.kill': method(brokerTarget, returns<BrokerView>()),
  /** Power loss: the process dies and every log loses its unflushed tail. */
  'brokers.powerLoss': method(brokerTarget, returns<BrokerView>()),
  /** Cut every network link of the broker; it keeps running. */
  'brokers.isolate': method(brokerTarget, returns<BrokerView>()),
  /** Restore the broker's links and resume its fetchers. */
  'brokers.heal': method(brokerTarget, returns<BrokerView>()),
  /** Stall (or resume) the broker's replica fetchers while it keeps heartbeating. */
  'brokers.stallFollower': method(z.strictObject({ brokerId: brokerIdSchema, stalled: z.boolean() }), returns<BrokerView>()),
  /** Cut (or restore) the network link between two brokers; each keeps its other links. `brokers.heal` restores every link of a broker. */
  'brokers.cutLink': method(z.strictObject({ brokerId: brokerIdSchema, peerId: brokerIdSchema, cut: z.boolean() }), returns<{ brokerId: number; peerId: number; cut: boolean }>()),

  /** Every topic with its partition count, RF and health counts. */
  'topics.list': method(empty, returns<TopicSummaryView[]>()),
  /** One topic: its overrides and every partition's replicas, leader, ISR, epochs, LEO and HW. */
  'topics.describe': method(z.strictObject({ name: topicNameSchema }), returns<TopicView>()),
  /**
   * Several topics as `topics.describe` shows each, in one call (a page showing every partition
   * asks once, not once per topic): every topic sorted by name when `names` is absent, else the
   * named ones in that order. A name that does not exist fails the call with
   * UNKNOWN_TOPIC_OR_PARTITION (`details.names` lists them), as `topics.describe` does.
   */
  'topics.describeMany': method(z.strictObject({ names: z.array(topicNameSchema).optional() }), returns<TopicView[]>()),
  /**
   * Records, size and committed rate of the named topics (at most 500: the rows a list shows);
   * names that are not topics are left out. Cheaper than `topics.describeMany` for a list.
   */
  'topics.stats': method(z.strictObject({ names: z.array(topicNameSchema).max(500) }), returns<TopicStatsView[]>()),
  /**
   * CreateTopics. `partitions`/`replicationFactor` absent (or -1) take the broker defaults;
   * `assignments[p]` is partition p's replica list (then leave both counts out, as Kafka requires).
   * `validateOnly` checks and shows the topic without creating it.
   */
  'topics.create': method(createTopicSchema.extend({ validateOnly: z.boolean().optional() }), returns<TopicView>()),
  /** Create many topics at once (each validated and created on its own; one failure does not stop the rest). */
  'topics.createMany': method(z.strictObject({ topics: z.array(createTopicSchema).min(1), validateOnly: z.boolean().optional() }), returns<TopicBulkResultView[]>()),
  /** Delete many topics at once; per-topic outcome. */
  'topics.deleteMany': method(z.strictObject({ names: z.array(topicNameSchema).min(1) }), returns<TopicBulkResultView[]>()),
  /**
   * Change a topic's replication factor through a reassignment (Kafka has no other way): new
   * replicas go to the brokers with the fewest replicas, on racks the partition lacks first;
   * a decrease drops followers from the end. `validateOnly` returns the plan only.
   */
  'topics.setReplicationFactor': method(
    z.strictObject({
      topic: topicNameSchema,
      replicationFactor: z.int().min(1),
      throttleBytesPerSec: z.int().min(0).optional(),
      validateOnly: z.boolean().optional(),
    }),
    returns<ReplicationFactorChangeView>(),
  ),
  /** DeleteTopics (needs `delete.topic.enable`). */
  'topics.delete': method(z.strictObject({ name: topicNameSchema }), returns<DeletedTopicView>()),

  /** CreatePartitions: grow a topic to `totalCount` partitions; returns the topic as it (would) become. */
  'partitions.add': method(
    z.strictObject({
      topic: topicNameSchema,
      totalCount: z.int(),
      assignments: z.array(z.array(brokerIdSchema)).optional(),
      validateOnly: z.boolean().optional(),
    }),
    returns<TopicView>(),
  ),

  /** Every config of a broker or topic with value, default, source, docs and validity. */
  'configs.describe': method(z.strictObject({ resource: configResourceSchema }), returns<ConfigEntryView[]>()),
  /**
   * IncrementalAlterConfigs: `set[key] = value` sets, `null` deletes (back to the inherited
   * value). Returns the configs as they are after the change (or would be, with validateOnly).
   */
  'configs.alter': method(
    z.strictObject({
      resource: configResourceSchema,
      set: z.record(z.string(), z.string().nullable()),
      validateOnly: z.boolean().optional(),
    }),
    returns<ConfigEntryView[]>(),
  ),

  /** ElectLeaders: `preferred` or `unclean`, for every partition or the chosen ones; per-partition outcome. */
  'leaders.elect': method(
    z.strictObject({
      type: z.enum(['preferred', 'unclean']),
      partitions: z.array(topicPartitionSchema).optional(),
      validateOnly: z.boolean().optional(),
    }),
    returns<ElectionResultView[]>(),
  ),

  /**
   * The durability/availability explainer for a topic: from its RF, min.insync.replicas, unclean
   * election and the producer's acks (default all), how many broker failures it tolerates.
   */
  'topics.durability': method(
    z.strictObject({
      name: topicNameSchema,
      acks: acksSchema.optional(),
      /** As if these topic configs were set (null: back to the inherited value); nothing changes. Check values with `configs.alter` validateOnly first. */
      set: z.record(z.string(), z.string().nullable()).optional(),
    }),
    returns<DurabilityView>(),
  ),

  /** Built-in and imported config profiles. */
  'profiles.list': method(empty, returns<ProfileSummaryView[]>()),
  /** One profile as JSON. */
  'profiles.get': method(z.strictObject({ name: z.string() }), returns<ProfileView>()),
  /**
   * Export a profile: its JSON, `server-N.properties` per broker, the kafka-topics.sh /
   * kafka-configs.sh commands, producer/consumer properties, and its ACLs, SCRAM users and quotas
   * as kafka-acls.sh / kafka-configs.sh commands (`security-commands`).
   */
  'profiles.export': method(
    z.strictObject({
      name: z.string(),
      formats: z.array(z.enum(['profile', 'server-properties', 'topic-commands', 'client-properties', 'security-commands'])).optional(),
      bootstrapServers: z.string().optional(),
    }),
    returns<ExportedFileView[]>(),
  ),
  /**
   * Import a profile from its JSON text; it is validated against the schema and the config
   * catalogue (INVALID_INPUT lists every problem with its field path) and kept in the data directory.
   */
  'profiles.import': method(z.strictObject({ json: z.string(), overwrite: z.boolean().optional() }), returns<{ name: string; warnings: ProfileIssueView[] }>()),
  /** Differences from profile `from` to profile `to`, or (without `to`) from the live cluster to the profile `from`. */
  'profiles.diff': method(z.strictObject({ from: z.string(), to: z.string().optional() }), returns<SettingChangeView[]>()),
  /** Apply a profile's configs to the live cluster: `dryRun` (the default) only plans. */
  'profiles.apply': method(
    z.strictObject({ name: z.string(), dryRun: z.boolean().optional(), includeExistingTopics: z.boolean().optional() }),
    returns<ApplyPlanView>(),
  ),

  /**
   * Plan a rebalance (Cruise-Control-style goals in priority, bands, veto by higher goals):
   * partition moves (exactly `reassignments.execute`'s input), leader changes, bytes to move,
   * before/after distributions and a 0–100 balancedness score. Nothing is moved. Deterministic.
   * `excludeBrokers` drains brokers (before removing them); `leadersOnly` only reorders replicas.
   */
  'balance.plan': method(
    z.strictObject({
      excludeBrokers: z.array(brokerIdSchema).optional(),
      leadersOnly: z.boolean().optional(),
      /**
       * Name this plan to follow and stop it: it then runs a goal at a time, emits
       * `balance.progress` after each, and `balance.cancel` with the same id ends it with
       * CANCELLED. Two running plans may not share an id (INVALID_REQUEST).
       */
      planId: z.string().min(1).max(64).optional(),
    }),
    returns<BalancePlanView>(),
  ),
  /** Stop the running `balance.plan` of this id (it answers CANCELLED); `cancelled` false when none runs. */
  'balance.cancel': method(z.strictObject({ planId: z.string().min(1).max(64) }), returns<{ cancelled: boolean }>()),

  /** Per-broker leader counts, the partitions not led by their preferred replica, and the auto-rebalance settings. */
  'leaders.balance': method(empty, returns<LeaderBalanceView>()),
  /** What `leaders.elect` would do: per-partition outcomes and leader counts per broker before and after. */
  'leaders.preview': method(
    z.strictObject({ type: z.enum(['preferred', 'unclean']), partitions: z.array(topicPartitionSchema).optional() }),
    returns<ElectionPreviewView>(),
  ),
  /** The current assignment of the given topics (all when absent) as Kafka's reassignment JSON, e.g. to roll back. */
  'reassignments.export': method(z.strictObject({ topics: z.array(topicNameSchema).optional() }), returns<ReassignmentJsonView>()),

  /**
   * Start moving replicas: `partitions` is the list of Kafka's reassignment JSON (a pasted file's
   * `version: 1` is accepted); `throttleBytesPerSec` throttles the moving replicas like `--throttle`.
   */
  'reassignments.execute': method(
    z.strictObject({
      version: z.literal(1).optional(),
      partitions: z.array(reassignmentPartitionSchema),
      throttleBytesPerSec: z.int().min(0).optional(),
    }),
    returns<ReassignmentResultView[]>(),
  ),
  /** Ongoing reassignments (Kafka's ListPartitionReassignments). */
  'reassignments.list': method(empty, returns<ReassignmentView[]>()),
  /** Cancel ongoing reassignments: the chosen partitions, or every one. */
  'reassignments.cancel': method(z.strictObject({ partitions: z.array(topicPartitionSchema).optional() }), returns<ReassignmentResultView[]>()),
  /** Where each partition of a reassignment stands (like `--verify`); drops the throttles once all are done. */
  'reassignments.verify': method(
    z.strictObject({ version: z.literal(1).optional(), partitions: z.array(reassignmentPartitionSchema) }),
    returns<ReassignmentVerifyView[]>(),
  ),

  /**
   * Produce to a named partition (one batch), or partition each record as Kafka's producer does
   * (murmur2 of its key; sticky for records without a key) with one batch per partition; answered per acks.
   */
  'records.produce': method(
    z.strictObject({
      topic: topicNameSchema,
      partition: z.int().min(0).optional(),
      acks: acksSchema,
      records: z.array(produceRecordSchema).min(1),
      timeoutMs: z.int().min(0).optional(),
      /** Encode each record's value (key) text as JSON with this schema of the cluster's registry. */
      schemas: z.strictObject({ key: produceSchemaChoice.optional(), value: produceSchemaChoice.optional() }).optional(),
      /** Each batch's codec, as a producer's compression.type (default none); the topic's compression.type then applies as Kafka's LogValidator does. */
      compression: produceCompressionSchema.optional(),
    }),
    returns<ProduceResultView>(),
  ),
  /** Read from the leader, from `offset` up to the high watermark (read_uncommitted). */
  'records.consume': method(
    z.strictObject({
      topic: topicNameSchema,
      partition: z.int().min(0),
      offset: z.int().min(0),
      maxRecords: z.int().min(1).optional(),
    }),
    returns<ConsumeResultView>(),
  ),
  // records.delete: Kafka's DeleteRecords (records-delete-contract.ts).
  ...recordsDeleteMethods,
  // records.fill: synthetic records for many partitions at once (records-fill-contract.ts).
  ...recordsFillMethods,
  // records.search: the Messages workbench's bounded, filtered read (records-search-contract.ts).
  ...recordsSearchMethods,
  // schemas.*: the cluster's Schema Registry for the Schemas page (schemas-contract.ts).
  ...schemasMethods,
  // topics.compaction: the log cleaner's view of a compacted topic (compaction-contract.ts).
  ...compactionMethods,
  // impact.ofStop: what stopping brokers or racks would do, by the controller's rules (impact-contract.ts).
  ...impactMethods,

  // groups.* and the in-app consumers.* (groups-contract.ts).
  ...groupsMethods,

  /** Throughput over the last second of engine time and every broker's disk use (the latest `metrics.sampled`; zeros before the first). */
  'metrics.get': method(
    z.strictObject({
      /** Also return the samples of this much engine time before the latest (up to 10 min), so a console opened late draws its chart at once. */
      historyMs: z.int().min(1).max(600_000).optional(),
    }),
    returns<MetricsWithHistoryView>(),
  ),
  /**
   * The most recent engine events, oldest first, from a buffer of the last 5000 the service kept,
   * so a UI opened (or reloaded) late can show the recent timeline. `highWatermark.advanced` and
   * `metrics.sampled` are not kept (too frequent; they are on the live stream only). `types`
   * keeps only those event types; `limit` (1–5000, default 500) counts what is returned.
   */
  'events.recent': method(
    z.strictObject({ limit: z.int().min(1).max(RECENT_EVENTS_CAPACITY).optional(), types: z.array(z.enum(eventNames)).optional() }),
    returns<EngineEvent[]>(),
  ),

  /** The engine's clock and how it is driven. */
  'clock.get': method(empty, returns<ClockView>()),
  /** Real-time mode: set how many virtual ms pass per real ms (1–60). */
  'clock.setScale': method(z.strictObject({ scale: z.number().min(1).max(60) }), returns<ClockView>()),

  // ACLs, SCRAM users and client quotas (security-contract.ts).
  ...securityMethods,
  // transactions.*: kafka-transactions.sh's list, describe-producers, find-hanging and abort (transactions-contract.ts).
  ...transactionsMethods,
  // Transactional producers and consumers' fetches as clients of their own (client-txn-contract.ts).
  ...clientTxnMethods,

  // The connections.* methods: the list of clusters, not a cluster (connections-contract.ts).
  ...connectionMethods,
} as const;

// ================================================================ helper types

/** The contract's type. */
export type Contract = typeof contract;

/** Every public method name. */
export type MethodName = keyof Contract;

/** The list of method names, for bridges that expose one function per method. */
export const methodNames = Object.keys(contract) as MethodName[];

/** Methods that act on the list of connections rather than on a cluster (they take no `connection`). */
export type ConnectionMethodName = Extract<MethodName, `connections.${string}`>;

/** Methods that target a cluster: what a driver (embedded engine or Kafka client) serves. */
export type ClusterMethodName = Exclude<MethodName, ConnectionMethodName>;

/** Whether `method` targets a cluster (and so takes an optional `connection`). */
export function targetsCluster(method: MethodName): boolean {
  return !method.startsWith('connections.');
}

/** What every method that targets a cluster takes beside its own input: which connection (default: the host's own cluster). */
export interface ConnectionTarget {
  connection?: string;
}

/** What a caller sends for method `M` (before schema defaults/transforms). */
export type MethodInput<M extends MethodName> = M extends ConnectionMethodName
  ? z.input<Contract[M]['input']>
  : z.input<Contract[M]['input']> extends Record<string, never>
    ? ConnectionTarget
    : z.input<Contract[M]['input']> & ConnectionTarget;

/** What the service receives for method `M` after parsing. */
export type MethodParsedInput<M extends MethodName> = z.output<Contract[M]['input']>;

/** What method `M` answers with inside `{ ok: true, value }`. */
export type MethodResult<M extends MethodName> = Contract[M]['result'] extends ResultMarker<infer T> ? T : never;

/** A typed client: one async function per method, as the preload bridge and HTTP client expose them. */
export type ContractClient = {
  [M in MethodName]: (input: MethodInput<M>) => Promise<Result<MethodResult<M>>>;
};

/** Whether `name` is a public method name (for transports that receive arbitrary strings). */
export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(contract, name);
}

/** Every event name mapped to its payload (`noun.pastTense`), as the one event stream carries them. */
export type ContractEvents = EventMap;
/** The event stream's types (`EngineEvent` is one event with its `type` and `atMs`), re-exported for one import site. */
export type { EngineEvent, EventMap, EventName, TwinStep } from './events.js';
