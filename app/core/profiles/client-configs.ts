/**
 * The Java client settings a profile may carry: the producer and consumer configs that decide
 * durability, ordering, batching and delivery semantics, with Kafka 4.x defaults and validators
 * (apache/kafka `ProducerConfig.java`, `ConsumerConfig.java`; Kafka docs, "Producer Configs" and
 * "Consumer Configs"). Connection, security and serializer settings are deployment matters, not
 * profile matters, and are refused as unknown so that a typo (`linger_ms`) is caught instead of
 * silently ignored.
 *
 * Values are checked with the broker catalogue's own parser (`parseConfigValue`), so the wording
 * and the exact 64-bit range checks are Kafka's. That parser reads only a definition's name, type
 * and rule; `asConfigDef` fills the broker-catalogue fields it does not read.
 */
import type { ConfigDef, ConfigRule, ConfigType } from '../configs/catalogue.js';

export type ClientKind = 'producer' | 'consumer';

export interface ClientConfigDef {
  name: string;
  client: ClientKind;
  type: ConfigType;
  rule: ConfigRule;
  default: string;
  doc: string;
  /** Values the rule cannot express (e.g. `by_duration:P1D`), accepted in addition to it. */
  alsoMatches?: RegExp;
}

const atLeast = (min: number): ConfigRule => ({ kind: 'range', min });
const between = (min: number, max: number): ConfigRule => ({ kind: 'range', min, max });
const oneOf = (...values: string[]): ConfigRule => ({ kind: 'enum', values });
const ANY: ConfigRule = { kind: 'any' };

function def(client: ClientKind, name: string, type: ConfigType, dflt: string, rule: ConfigRule, doc: string, alsoMatches?: RegExp): ClientConfigDef {
  return alsoMatches === undefined ? { name, client, type, rule, default: dflt, doc } : { name, client, type, rule, default: dflt, doc, alsoMatches };
}

const P = (name: string, type: ConfigType, dflt: string, rule: ConfigRule, doc: string) => def('producer', name, type, dflt, rule, doc);
const C = (name: string, type: ConfigType, dflt: string, rule: ConfigRule, doc: string, alsoMatches?: RegExp) =>
  def('consumer', name, type, dflt, rule, doc, alsoMatches);

export const PRODUCER_CONFIGS: readonly ClientConfigDef[] = [
  P('acks', 'string', 'all', oneOf('all', '-1', '0', '1'),
    'Acknowledgements the leader waits for: 0 none, 1 the leader\'s own write, all (= -1) every in-sync replica, gated by min.insync.replicas.'),
  P('batch.size', 'int', '16384', atLeast(0), 'Upper bound in bytes of one partition\'s record batch.'),
  P('buffer.memory', 'long', '33554432', atLeast(0), 'Bytes the producer may buffer for records not yet sent.'),
  P('compression.gzip.level', 'int', '-1', { kind: 'range', min: 1, max: 9, alsoAllowed: -1 }, 'Gzip level when compression.type is gzip.'),
  P('compression.lz4.level', 'int', '9', between(1, 17), 'LZ4 level when compression.type is lz4.'),
  P('compression.type', 'string', 'none', oneOf('none', 'gzip', 'snappy', 'lz4', 'zstd'), 'Codec the producer compresses batches with.'),
  P('compression.zstd.level', 'int', '3', between(-131072, 22), 'Zstandard level when compression.type is zstd.'),
  P('delivery.timeout.ms', 'int', '120000', atLeast(0),
    'Total time a send may take, retries included; must be at least linger.ms + request.timeout.ms.'),
  P('enable.idempotence', 'boolean', 'true', ANY,
    'Sequence numbers let the broker drop duplicates from retries; needs acks=all, retries > 0 and at most 5 requests in flight.'),
  P('linger.ms', 'long', '5', atLeast(0), 'How long a batch waits for more records before it is sent (5 from Kafka 4.0).'),
  P('max.block.ms', 'long', '60000', atLeast(0), 'How long send() may block when the buffer is full or metadata is missing.'),
  P('max.in.flight.requests.per.connection', 'int', '5', atLeast(1),
    'Unacknowledged requests per connection; at most 5 keeps ordering with idempotence.'),
  P('max.request.size', 'int', '1048576', atLeast(0), 'Largest produce request in bytes.'),
  P('partitioner.adaptive.partitioning.enable', 'boolean', 'true', ANY, 'Send more records to faster brokers when records have no key.'),
  P('partitioner.ignore.keys', 'boolean', 'false', ANY, 'Ignore record keys when choosing a partition.'),
  P('request.timeout.ms', 'int', '30000', atLeast(0), 'How long the producer waits for a response; sent to the broker as the produce timeout.'),
  P('retries', 'int', '2147483647', atLeast(0), 'Resends of a failed batch, bounded in practice by delivery.timeout.ms.'),
  P('retry.backoff.max.ms', 'long', '1000', atLeast(0), 'Longest pause between retries (the backoff grows exponentially up to it).'),
  P('retry.backoff.ms', 'long', '100', atLeast(0), 'First pause between retries.'),
  P('transaction.timeout.ms', 'int', '60000', ANY, 'Longest a transaction may stay open before the coordinator aborts it.'),
];

export const CONSUMER_CONFIGS: readonly ClientConfigDef[] = [
  C('allow.auto.create.topics', 'boolean', 'true', ANY, 'Whether subscribing to a missing topic may create it (if the broker allows).'),
  C('auto.commit.interval.ms', 'int', '5000', atLeast(0), 'How often offsets are committed when enable.auto.commit is true.'),
  C('auto.offset.reset', 'string', 'latest', oneOf('earliest', 'latest', 'none'),
    'Where to start without a committed offset: earliest, latest, none (fail) or by_duration:<ISO-8601 duration> (Kafka 4.0+).',
    /^by_duration:P\S+$/),
  C('check.crcs', 'boolean', 'true', ANY, 'Verify the CRC32C of fetched batches.'),
  C('client.rack', 'string', '', ANY, 'The consumer\'s rack, for fetching from the closest replica (KIP-392).'),
  C('enable.auto.commit', 'boolean', 'true', ANY,
    'Commit offsets in the background; false lets the application commit after processing (at-least-once).'),
  C('fetch.max.bytes', 'int', '52428800', atLeast(0), 'Largest fetch response in bytes.'),
  C('fetch.max.wait.ms', 'int', '500', atLeast(0), 'How long the broker may hold a fetch waiting for fetch.min.bytes.'),
  C('fetch.min.bytes', 'int', '1', atLeast(0), 'Bytes a fetch waits for before the broker answers; larger values trade latency for fewer requests.'),
  C('group.protocol', 'string', 'classic', oneOf('classic', 'consumer'), 'Consumer group protocol: classic or the KIP-848 consumer protocol.'),
  C('heartbeat.interval.ms', 'int', '3000', ANY, 'How often the consumer heartbeats to its group coordinator.'),
  C('isolation.level', 'string', 'read_uncommitted', oneOf('read_committed', 'read_uncommitted'),
    'read_committed hides records of open and aborted transactions; read_uncommitted returns everything up to the high watermark.'),
  C('max.partition.fetch.bytes', 'int', '1048576', atLeast(0), 'Bytes per partition in one fetch.'),
  C('max.poll.interval.ms', 'int', '300000', atLeast(1), 'Longest gap between polls before the consumer leaves its group.'),
  C('max.poll.records', 'int', '500', atLeast(1), 'Records one poll() returns at most.'),
  C('partition.assignment.strategy', 'list',
    'org.apache.kafka.clients.consumer.RangeAssignor,org.apache.kafka.clients.consumer.CooperativeStickyAssignor', ANY,
    'Assignor classes of the classic group protocol, in order of preference.'),
  C('request.timeout.ms', 'int', '30000', atLeast(0), 'How long the consumer waits for a response.'),
  C('session.timeout.ms', 'int', '45000', ANY, 'How long the coordinator waits without heartbeats before removing the consumer.'),
];

const BY_NAME: Record<ClientKind, ReadonlyMap<string, ClientConfigDef>> = {
  producer: new Map(PRODUCER_CONFIGS.map((d) => [d.name, d])),
  consumer: new Map(CONSUMER_CONFIGS.map((d) => [d.name, d])),
};

/** The producer or consumer setting called `name`, or undefined. */
export function clientConfigDef(client: ClientKind, name: string): ClientConfigDef | undefined {
  return BY_NAME[client].get(name);
}

/** The definition in the shape `parseConfigValue` takes (it reads name, type and rule only). */
export function asConfigDef(d: ClientConfigDef): ConfigDef {
  return { name: d.name, scope: 'broker', type: d.type, rule: d.rule, default: d.default, updateMode: 'read-only', doc: d.doc, sensitive: false };
}
