/**
 * Every topic-level config Replica Studio knows, with Kafka 4.x defaults, validators and broker
 * synonyms (apache/kafka `LogConfig.java`, `ServerTopicConfigSynonyms.java`; docs/semantics.md#configs).
 *
 * Guarantees: names are spelled as Kafka spells them; `default` is Kafka's default string; the
 * synonym chain is in Kafka's order of precedence, with the unit conversion Kafka applies;
 * `importance` is the one Kafka's `LogConfig` ConfigDef declares (MEDIUM for every topic config,
 * even where the broker synonym is HIGH); `effect` comes from `effects.ts`.
 * Not listed (so refused as unknown): tiered-storage configs (`remote.storage.enable`,
 * `local.retention.*`, `remote.log.*`), which the simulator does not model, and configs removed
 * in Kafka 4.0 (see `REMOVED_TOPIC_CONFIGS`).
 */
import { TOPIC_EFFECTS } from './effects.js';
import { LONG_MAX } from './types.js';
import type { BrokerSynonym, ConfigImportance, ConfigRule, ConfigType, TopicConfigDef } from './types.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

function topic(
  name: string,
  importance: ConfigImportance,
  type: ConfigType,
  def: string,
  rule: ConfigRule,
  synonyms: readonly (string | BrokerSynonym)[],
  doc: string,
): TopicConfigDef {
  const brokerSynonyms = synonyms.map((s) => (typeof s === 'string' ? { name: s } : s));
  return {
    name,
    scope: 'topic',
    type,
    default: def,
    rule,
    brokerSynonym: brokerSynonyms[0]?.name ?? null,
    brokerSynonyms,
    doc,
    importance,
    ...(Object.hasOwn(TOPIC_EFFECTS, name) ? { effect: TOPIC_EFFECTS[name] } : {}),
    sensitive: false,
  };
}

/** Every topic config in Kafka's `LogConfig` ConfigDef is MEDIUM, the ones modelled here included. */
const MEDIUM: ConfigImportance = 'medium';

const atLeast = (min: number): ConfigRule => ({ kind: 'range', min });
const between = (min: number, max: number): ConfigRule => ({ kind: 'range', min, max });
const ANY: ConfigRule = { kind: 'any' };
const THROTTLED: ConfigRule = { kind: 'throttled-replicas' };

export const COMPRESSION_TYPES: readonly string[] = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'];
export const CLEANUP_POLICIES: readonly string[] = ['compact', 'delete'];
export const TIMESTAMP_TYPES: readonly string[] = ['CreateTime', 'LogAppendTime'];

export const TOPIC_CONFIGS: readonly TopicConfigDef[] = [
  topic('cleanup.policy', MEDIUM, 'list', 'delete', { kind: 'list-subset', values: CLEANUP_POLICIES }, ['log.cleanup.policy'],
    'What happens to old segments: "delete" removes them by time or size; "compact" has the log cleaner keep only the last record of each key (at its original offset) and drop tombstones once delete.retention.ms has passed; "compact,delete" does both. Records of a compacted topic need a key (INVALID_RECORD otherwise).'),
  topic('compression.type', MEDIUM, 'string', 'producer', { kind: 'enum', values: COMPRESSION_TYPES }, ['compression.type'],
    'Codec the broker stores batches in; "producer" keeps whatever codec the producer used.'),
  topic('compression.gzip.level', MEDIUM, 'int', '-1', { kind: 'range', min: 1, max: 9, alsoAllowed: -1 }, ['compression.gzip.level'],
    'Gzip level used when compression.type is gzip (-1 = the codec default).'),
  topic('compression.lz4.level', MEDIUM, 'int', '9', between(1, 17), ['compression.lz4.level'],
    'LZ4 level used when compression.type is lz4.'),
  topic('compression.zstd.level', MEDIUM, 'int', '3', between(-131072, 22), ['compression.zstd.level'],
    'Zstandard level used when compression.type is zstd.'),
  topic('delete.retention.ms', MEDIUM, 'long', '86400000', atLeast(0), ['log.cleaner.delete.retention.ms'],
    'How long a tombstone (a record with a key and a null value) stays on a compacted topic after the cleaning that first reached it; the next cleaning after that removes it. A consumer reading from the start must finish within this time to see every deletion.'),
  topic('file.delete.delay.ms', MEDIUM, 'long', '60000', atLeast(0), ['log.segment.delete.delay.ms'],
    'Grace period between a segment leaving the log and its file being removed from disk.'),
  topic('flush.messages', MEDIUM, 'long', LONG_MAX, atLeast(1), ['log.flush.interval.messages'],
    'Force an fsync after this many messages; the default leaves flushing to the OS and to replication.'),
  topic('flush.ms', MEDIUM, 'long', LONG_MAX, atLeast(0), ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'],
    'Force an fsync when the oldest unflushed message is this old; the default never forces one.'),
  topic('follower.replication.throttled.replicas', MEDIUM, 'list', '', THROTTLED, [],
    'Replicas ("partition:broker" or "*") whose follower fetches count against follower.replication.throttled.rate.'),
  topic('index.interval.bytes', MEDIUM, 'int', '4096', atLeast(0), ['log.index.interval.bytes'],
    'Bytes appended between two offset-index entries.'),
  topic('leader.replication.throttled.replicas', MEDIUM, 'list', '', THROTTLED, [],
    'Replicas ("partition:broker" or "*") whose leader-side serving counts against leader.replication.throttled.rate.'),
  topic('max.compaction.lag.ms', MEDIUM, 'long', LONG_MAX, atLeast(1), ['log.cleaner.max.compaction.lag.ms'],
    'Longest a record may stay uncompacted: once the first batch of the oldest dirty segment is older than this, the cleaner takes the log whatever its dirty ratio (still never the active segment, so segment.ms bounds it too).'),
  topic('max.message.bytes', MEDIUM, 'int', '1048588', atLeast(0), ['message.max.bytes'],
    'Largest record batch the topic accepts; a larger one fails with MESSAGE_TOO_LARGE.'),
  topic('message.timestamp.after.max.ms', MEDIUM, 'long', '3600000', atLeast(0), ['log.message.timestamp.after.max.ms'],
    'How far in the future a CreateTime timestamp may be before the batch is refused with INVALID_TIMESTAMP.'),
  topic('message.timestamp.before.max.ms', MEDIUM, 'long', LONG_MAX, atLeast(0), ['log.message.timestamp.before.max.ms'],
    'How far in the past a CreateTime timestamp may be before the batch is refused with INVALID_TIMESTAMP.'),
  topic('message.timestamp.type', MEDIUM, 'string', 'CreateTime', { kind: 'enum', values: TIMESTAMP_TYPES }, ['log.message.timestamp.type'],
    'Whether records keep the producer\'s timestamp (CreateTime) or get the broker\'s append time (LogAppendTime).'),
  topic('min.cleanable.dirty.ratio', MEDIUM, 'double', '0.5', between(0, 1), ['log.cleaner.min.cleanable.ratio'],
    'The cleaner takes a compacted log once its dirty (not yet cleaned) bytes are more than this share of its clean plus cleanable bytes; the dirtiest log goes first.'),
  topic('min.compaction.lag.ms', MEDIUM, 'long', '0', atLeast(0), ['log.cleaner.min.compaction.lag.ms'],
    'Shortest time a record stays uncompacted: a dirty segment whose newest record is younger than this is not cleaned, nor is anything after it.'),
  topic('min.insync.replicas', MEDIUM, 'int', '1', atLeast(1), ['min.insync.replicas'],
    'ISR size an acks=all write needs; no upper bound, the effective value is capped at the replica count.'),
  topic('preallocate', MEDIUM, 'boolean', 'false', ANY, ['log.preallocate'],
    'Whether a new segment file is allocated at full size up front.'),
  topic('retention.bytes', MEDIUM, 'long', '-1', ANY, ['log.retention.bytes'],
    'Size each partition may reach before its oldest segments are deleted (-1 = no size limit).'),
  topic('retention.ms', MEDIUM, 'long', '604800000', atLeast(-1),
    ['log.retention.ms', { name: 'log.retention.minutes', toMs: MINUTE_MS }, { name: 'log.retention.hours', toMs: HOUR_MS }],
    'Age past which a segment whose records are all older is deleted, the active one too once fully replicated (-1 = no time limit).'),
  topic('segment.bytes', MEDIUM, 'int', '1073741824', atLeast(1048576), ['log.segment.bytes'],
    'Size at which the active segment is rolled (at least 1 MiB from Kafka 4.1).'),
  topic('segment.index.bytes', MEDIUM, 'int', '10485760', atLeast(4), ['log.index.size.max.bytes'],
    'Maximum size of a segment\'s offset index; a full index rolls the segment.'),
  topic('segment.jitter.ms', MEDIUM, 'long', '0', atLeast(0),
    ['log.roll.jitter.ms', { name: 'log.roll.jitter.hours', toMs: HOUR_MS }],
    'Random amount subtracted from segment.ms so that partitions do not all roll at once.'),
  topic('segment.ms', MEDIUM, 'long', '604800000', atLeast(1),
    ['log.roll.ms', { name: 'log.roll.hours', toMs: HOUR_MS }],
    'Age at which the active segment is rolled even if it is not full.'),
  topic('unclean.leader.election.enable', MEDIUM, 'boolean', 'false', ANY, ['unclean.leader.election.enable'],
    'Whether a replica outside the ISR may become leader when no ISR member is available, losing data.'),
];

/** Topic configs Kafka 4.0 removed; they are unknown names now, with this hint. */
export const REMOVED_TOPIC_CONFIGS: Readonly<Record<string, string>> = {
  'message.format.version': 'removed in Kafka 4.0',
  'message.downconversion.enable': 'removed in Kafka 4.0',
  'message.timestamp.difference.max.ms':
    'removed in Kafka 4.0; use message.timestamp.before.max.ms and message.timestamp.after.max.ms',
};
