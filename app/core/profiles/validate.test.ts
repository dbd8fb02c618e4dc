import { describe, expect, it } from 'vitest';
import { formatProfileIssue, parseProfileJson, validateProfile } from './validate.js';
import { sampleDocument } from './test-support/profiles.js';

function errorsOf(doc: unknown): string[] {
  const r = validateProfile(doc);
  return r.ok ? [] : r.errors.map(formatProfileIssue);
}

function warningsOf(doc: unknown): string[] {
  return validateProfile(doc).warnings.map(formatProfileIssue);
}

const withSection = (section: string, value: unknown) => ({ ...sampleDocument(), [section]: value });

describe('validateProfile', () => {
  it('accepts a valid profile and fills the optional sections', () => {
    const r = validateProfile({ version: 1, name: 'minimal', cluster: { brokers: 1 }, topicDefaults: { partitions: 1, replicationFactor: 1 } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.profile).toEqual({
      version: 1,
      name: 'minimal',
      cluster: { brokers: 1 },
      brokerConfigs: {},
      features: {},
      topicDefaults: { partitions: 1, replicationFactor: 1, configs: {} },
      producer: {},
      consumer: {},
      notes: {},
      security: { acls: [], scramUsers: [], quotas: [] },
    });
    expect(validateProfile(sampleDocument())).toMatchObject({ ok: true, warnings: [] });
  });

  it('names the broker config and quotes the catalogue rule when a value is out of range', () => {
    expect(errorsOf(withSection('brokerConfigs', { 'min.insync.replicas': '0' }))).toEqual([
      'brokerConfigs["min.insync.replicas"]: Invalid value 0 for configuration min.insync.replicas: Value must be at least 1',
    ]);
  });

  it('refuses an acks Kafka does not know, naming producer.acks', () => {
    expect(errorsOf(withSection('producer', { acks: '2' }))).toEqual(['producer.acks: must be 0, 1, -1 or "all", got "2"']);
  });

  it('collects every error instead of stopping at the first', () => {
    const doc = {
      ...sampleDocument(),
      version: 2,
      name: 'bad name!',
      cluster: { brokers: 2, racks: ['a'], extra: true },
      brokerConfigs: { 'min.insync.replicas': 2, 'no.such.config': '1' },
      topicDefaults: { partitions: 0, replicationFactor: 3, configs: { 'message.format.version': '3.0', 'segment.bytes': '1000' } },
      consumer: { 'max.poll.records': '0', 'isolation.level': 'committed', linger_ms: '5' },
    };
    expect(errorsOf(doc)).toEqual([
      'version: must be 1 (the only profile format version), got number 2',
      "name: must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit, got string \"bad name!\"",
      'cluster.extra: unknown field; expected one of brokers, racks',
      'cluster.racks: lists 1 rack(s) for 2 broker(s); give one rack name per broker, or a rack count',
      'brokerConfigs["min.insync.replicas"]: must be a string, as in a .properties file (write "2"), got number 2',
      'brokerConfigs["no.such.config"]: Unknown broker config name: no.such.config',
      'topicDefaults.partitions: must be at least 1, got 0',
      'topicDefaults.configs["message.format.version"]: Unknown topic config name: message.format.version (removed in Kafka 4.0)',
      'topicDefaults.configs["segment.bytes"]: Invalid value 1000 for configuration segment.bytes: Value must be at least 1048576',
      'consumer["max.poll.records"]: Invalid value 0 for configuration max.poll.records: Value must be at least 1',
      'consumer["isolation.level"]: Invalid value committed for configuration isolation.level: String must be one of: read_committed, read_uncommitted',
      'consumer.linger_ms: Unknown consumer config name: linger_ms (a profile holds the consumer settings listed in its JSON Schema)',
    ]);
  });

  it('allows read-only broker configs, which go to server.properties, and checks them against the catalogue', () => {
    expect(errorsOf(withSection('brokerConfigs', { 'auto.create.topics.enable': 'false', 'num.replica.fetchers': '2' }))).toEqual([]);
    expect(errorsOf(withSection('brokerConfigs', { 'auto.create.topics.enable': 'maybe' }))).toEqual([
      'brokerConfigs["auto.create.topics.enable"]: Invalid value maybe for configuration auto.create.topics.enable: Expected value to be either true or false',
    ]);
  });

  it('points broker.rack and node.id to the cluster section', () => {
    expect(errorsOf(withSection('brokerConfigs', { 'broker.rack': 'r1' }))).toEqual([
      'brokerConfigs["broker.rack"]: broker.rack does not belong in brokerConfigs: racks are set per broker in cluster.racks',
    ]);
  });

  it('takes feature levels as kafka-features.sh does, and points the 3.9 ELR config to the feature', () => {
    const ok = validateProfile({ ...sampleDocument(), features: { 'eligible.leader.replicas.version': 1 }, notes: { 'features.eligible.leader.replicas.version': 'KIP-966.' } });
    expect(ok.ok && ok.profile.features).toEqual({ 'eligible.leader.replicas.version': 1 });
    expect(errorsOf(withSection('features', { 'eligible.leader.replicas.version': 2, 'metadata.versions': 1 }))).toEqual([
      'features["eligible.leader.replicas.version"]: must be a level from 0 to 1, got number 2',
      'features["metadata.versions"]: Unknown feature metadata.versions (supported: eligible.leader.replicas.version, metadata.version)',
    ]);
    expect(errorsOf(withSection('brokerConfigs', { 'eligible.leader.replicas.enable': 'true' }))).toEqual([
      'brokerConfigs["eligible.leader.replicas.enable"]: eligible.leader.replicas.enable does not belong in brokerConfigs: Kafka 4.x has no such broker config (it was a 3.9 controller config): eligible leader replicas are the feature eligible.leader.replicas.version, set in features and exported as kafka-features.sh upgrade --feature eligible.leader.replicas.version=1',
    ]);
  });

  it("keeps the catalogue's cross-key rules, and takes a compacted topic default", () => {
    expect(errorsOf(withSection('topicDefaults', { partitions: 1, replicationFactor: 1, configs: { 'cleanup.policy': 'compact' } }))).toEqual([]);
    expect(errorsOf(withSection('brokerConfigs', { 'log.cleaner.dedupe.buffer.size': '1048576' }))).toEqual([
      'brokerConfigs["log.cleaner.dedupe.buffer.size"]: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.',
    ]);
    const lags = { 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' };
    expect(errorsOf(withSection('topicDefaults', { partitions: 1, replicationFactor: 1, configs: lags }))).toEqual([
      'topicDefaults.configs: conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)',
    ]);
  });

  it('refuses a replication factor larger than the cluster, in Kafka words', () => {
    expect(errorsOf({ ...sampleDocument(), cluster: { brokers: 2 } })).toEqual([
      'topicDefaults.replicationFactor: Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 2 broker(s) are registered.',
    ]);
  });

  it('checks racks given as a count', () => {
    expect(errorsOf({ ...sampleDocument(), cluster: { brokers: 3, racks: 4 } })).toEqual(['cluster.racks: 4 racks for 3 brokers would leave a rack empty']);
    expect(errorsOf({ ...sampleDocument(), cluster: { brokers: 3, racks: ['a', '', 'c'] } })).toEqual([
      'cluster.racks[1]: must be a non-empty rack name, got string ""',
    ]);
  });

  it("applies the producer's own cross-checks with Kafka's messages", () => {
    expect(errorsOf(withSection('producer', { 'enable.idempotence': 'true', acks: '1', 'max.in.flight.requests.per.connection': '6' }))).toEqual([
      'producer["enable.idempotence"]: Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.',
      'producer["enable.idempotence"]: Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer.',
    ]);
    expect(errorsOf(withSection('producer', { acks: 'all', 'delivery.timeout.ms': '1000' }))).toEqual([
      'producer["delivery.timeout.ms"]: delivery.timeout.ms should be equal to or larger than linger.ms + request.timeout.ms',
    ]);
    expect(warningsOf(withSection('producer', { acks: '1' }))).toContain(
      'producer.acks: enable.idempotence is not set, so the producer quietly turns idempotence off because of acks=1: retries may duplicate records.',
    );
  });

  it('requires every note to explain a setting the profile has', () => {
    const notes = { 'producer.linger.ms': 'ok', 'producer.batch.size': 'stale', 'somewhere.else': 'x', 'cluster.racks': ' ' };
    expect(errorsOf(withSection('notes', notes))).toEqual([
      'notes["producer.batch.size"]: explains producer.batch.size, which this profile does not set',
      'notes["somewhere.else"]: must name a setting: cluster.brokers, cluster.racks, topicDefaults.<field>, topicDefaults.configs.<key>, brokerConfigs.<key>, features.<name>, producer.<key> or consumer.<key>',
      'notes["cluster.racks"]: must be a non-empty string, got string " "',
    ]);
  });

  it('reports a "__proto__" key as an unknown config instead of losing it', () => {
    const brokerConfigs = JSON.parse('{"__proto__": "1"}') as unknown;
    expect(errorsOf(withSection('brokerConfigs', brokerConfigs))).toEqual(['brokerConfigs.__proto__: Unknown broker config name: __proto__']);
  });

  it('warns, at the field that sets it, about the durability explainer findings', () => {
    const doc = {
      ...sampleDocument(),
      brokerConfigs: { 'min.insync.replicas': '1', 'unclean.leader.election.enable': 'true' },
      topicDefaults: { partitions: 3, replicationFactor: 3 },
    };
    const warnings = warningsOf(doc);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^brokerConfigs\["min\.insync\.replicas"\]: min\.insync\.replicas 1 with acks=all: .*Jepsen/);
    expect(warnings[1]).toMatch(/^brokerConfigs\["unclean\.leader\.election\.enable"\]: unclean\.leader\.election\.enable=true/);
  });

  it('warns when racks are fewer than replicas or broker defaults contradict the topic defaults', () => {
    const doc = { ...sampleDocument(), cluster: { brokers: 3, racks: ['a', 'a', 'b'] }, brokerConfigs: { 'default.replication.factor': '2' } };
    expect(warningsOf(doc)).toEqual([
      'cluster.racks: 2 racks for replication factor 3: some rack holds two replicas of a partition, so one rack failure takes both.',
      'brokerConfigs["default.replication.factor"]: 2 differs from the topic defaults (3); topics created without explicit settings get 2.',
    ]);
  });

  it('reports JSON syntax errors at the root', () => {
    const r = parseProfileJson('{"version": 1,');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]!.path).toBe('(root)');
    expect(errorsOf([])).toEqual(['(root): a profile must be a JSON object, got an array']);
  });
});
