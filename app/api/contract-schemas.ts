/**
 * The schemas the contract's methods share (contract.ts): broker ids, topic names and
 * partitions, config resources, acks, records to produce, reassignment entries, the event names.
 * In a file of their own so a feature's `*-contract.ts` can use them without importing the method
 * table that imports it.
 */
import { z } from 'zod';
import type { EventName } from './events.js';

/** A broker id: a non-negative integer. */
export const brokerIdSchema = z.int().min(0);

/** A topic name (Kafka's naming rules are checked by the engine, with Kafka's errors). */
export const topicNameSchema = z.string().min(1);

/** One partition of a topic. */
export const topicPartitionSchema = z.strictObject({ topic: topicNameSchema, partition: z.int().min(0) });

/** A config resource: a topic by name, or a broker by id ('' = the cluster-wide default). */
export const configResourceSchema = z.strictObject({
  type: z.enum(['broker', 'topic']),
  name: z.string(),
});

/** `acks`: 0, 1 or "all" (-1 accepted as Kafka's synonym of "all"). */
export const acksSchema = z.union([z.literal(0), z.literal(1), z.literal(-1), z.literal('all')]);

/** A record header for produce: string key, UTF-8 value or null. */
export const headerSchema = z.strictObject({ key: z.string(), value: z.string().nullable() });

/**
 * A record to produce: key and value (null for none / a tombstone), optional headers. Key and
 * value are UTF-8 text, or base64 of any bytes with `keyFormat`/`valueFormat` `base64`; with a
 * schema for the value (or key) in `records.produce`'s `schemas`, the text is the JSON to encode.
 */
export const produceRecordSchema = z.strictObject({
  key: z.string().nullable().optional(),
  value: z.string().nullable(),
  headers: z.array(headerSchema).optional(),
  /** CreateTime in ms; the engine's clock when absent. */
  timestamp: z.int().min(0).optional(),
  keyFormat: z.enum(['text', 'base64']).optional(),
  valueFormat: z.enum(['text', 'base64']).optional(),
});

/** A produced batch's codec (a producer's compression.type). */
export const produceCompressionSchema = z.enum(['none', 'gzip', 'snappy', 'lz4', 'zstd']);

/**
 * A schema of the cluster's Schema Registry to encode with, in Confluent's wire format: a
 * subject's version (default the latest) or a schema id; `message` picks a Protobuf message by
 * full name (default the file's first).
 */
export const produceSchemaChoice = z.union([
  z.strictObject({ subject: z.string().min(1), version: z.union([z.int().min(1), z.literal('latest')]).optional(), message: z.string().min(1).optional() }),
  z.strictObject({ id: z.int().min(1), message: z.string().min(1).optional() }),
]);

/**
 * One entry of the `partitions` list of Kafka's reassignment JSON
 * (`kafka-reassign-partitions.sh --reassignment-json-file`). `log_dirs` is accepted verbatim so a
 * Kafka file pastes as-is; when present its length must equal the replica count, as Kafka checks.
 * Only `"any"` is meaningful here: replicas are not placed on particular log dirs.
 * `currentReplicas` is the list a plan replaces (`balance.plan` and `topics.setReplicationFactor`
 * give it), accepted so a plan pipes into `reassignments.execute` unchanged; the target is
 * `replicas` whatever the current list is, as with Kafka's tool.
 */
export const reassignmentPartitionSchema = z
  .strictObject({
    topic: topicNameSchema,
    partition: z.int().min(0),
    replicas: z.array(brokerIdSchema),
    log_dirs: z.array(z.string()).optional(),
    currentReplicas: z.array(brokerIdSchema).optional(),
  })
  .refine((p) => p.log_dirs === undefined || p.log_dirs.length === p.replicas.length, {
    message: 'log_dirs must have one entry per replica',
    path: ['log_dirs'],
  });

/** What `topics.create` takes (without validateOnly), shared with `topics.createMany`. */
export const createTopicSchema = z.strictObject({
  name: topicNameSchema,
  partitions: z.int().optional(),
  replicationFactor: z.int().optional(),
  configs: z.record(z.string(), z.string()).optional(),
  assignments: z.array(z.array(brokerIdSchema)).optional(),
});

/** Every event name once (a `Record` over `EventName`, so adding an event without naming it here fails to compile). */
const eventNameSet: Record<EventName, true> = {
  'broker.stateChanged': true,
  'feature.updated': true,
  'security.changed': true,
  'controller.changed': true,
  'isr.shrunk': true,
  'isr.expanded': true,
  'leader.changed': true,
  'highWatermark.advanced': true,
  'replica.truncated': true,
  'replica.offline': true,
  'log.cleaned': true,
  'log.uncleanable': true,
  'broker.storageFailed': true,
  'topic.created': true,
  'topic.deleted': true,
  'partitions.added': true,
  'config.changed': true,
  'reassignment.progress': true,
  'reassignment.changed': true,
  'group.stateChanged': true,
  'coordinator.loaded': true,
  'transaction.stateChanged': true,
  'txnCoordinator.loaded': true,
  'metrics.sampled': true,
  'balance.progress': true,
  'cluster.opening': true,
  'twin.progress': true,
};

/** Every event name, for inputs that filter the event stream. */
export const eventNames = Object.keys(eventNameSet) as [EventName, ...EventName[]];

/** Most events `events.recent` keeps (and returns). */
export const RECENT_EVENTS_CAPACITY = 5000;

/** A method that takes no input. */
export const empty = z.strictObject({});
/** A consumer group id: any string Kafka accepts, not empty (Kafka refuses "" for group management). */
export const groupIdSchema = z.string().min(1).max(32_767);
/** A broker fault's input: which broker. */
export const brokerTarget = z.strictObject({ brokerId: brokerIdSchema });
