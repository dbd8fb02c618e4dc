import { describe, expect, it } from 'vitest';
import {
  brokerConfigBoolean,
  brokerConfigNumber,
  brokerConfigValue,
  describeBrokerConfigs,
  describeTopicConfigs,
  topicConfigBoolean,
  topicConfigList,
  topicConfigNumber,
  topicConfigValue,
  validateConfigs,
} from './resolve.js';
import { kafkaErrorOf } from '../test-support/kafka-error.js';

const failure = kafkaErrorOf;

describe('validateConfigs', () => {
  it('accepts good topic values, including a min.insync.replicas above any replica count', () => {
    expect(() =>
      validateConfigs('topic', {
        'retention.ms': '-1',
        'retention.bytes': '-5',
        'segment.bytes': '1048576',
        'min.insync.replicas': '3',
        'unclean.leader.election.enable': 'TRUE',
        'compression.type': 'zstd',
        'min.cleanable.dirty.ratio': '0.25',
        'cleanup.policy': 'delete',
        'message.timestamp.before.max.ms': '9223372036854775807',
        'leader.replication.throttled.replicas': '0:1, 1:2',
        'follower.replication.throttled.replicas': '*',
        'max.message.bytes': null,
      }),
    ).not.toThrow();
  });

  it('rejects bad topic values with INVALID_CONFIG naming the key and the rule', () => {
    const cases: [Record<string, string>, string][] = [
      [{ 'min.insync.replicas': '0' }, 'Invalid value 0 for configuration min.insync.replicas: Value must be at least 1'],
      [{ 'segment.bytes': '1048575' }, 'Invalid value 1048575 for configuration segment.bytes: Value must be at least 1048576'],
      [{ 'segment.bytes': '4294967296' }, 'Invalid value 4294967296 for configuration segment.bytes: Not a number of type INT'],
      [{ 'retention.ms': '-2' }, 'Invalid value -2 for configuration retention.ms: Value must be at least -1'],
      [{ 'retention.ms': '7d' }, 'Invalid value 7d for configuration retention.ms: Not a number of type LONG'],
      [{ 'retention.ms': '9223372036854775808' }, 'Invalid value 9223372036854775808 for configuration retention.ms: Not a number of type LONG'],
      [{ 'unclean.leader.election.enable': 'yes' }, 'Invalid value yes for configuration unclean.leader.election.enable: Expected value to be either true or false'],
      [{ 'compression.type': 'brotli' }, 'Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer'],
      [{ 'min.cleanable.dirty.ratio': '1.5' }, 'Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1'],
      [{ 'cleanup.policy': 'delete,shred' }, 'Invalid value shred for configuration cleanup.policy: String must be one of: compact, delete'],
      [{ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' }, 'conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)'],
    ];
    for (const [set, message] of cases) {
      const err = failure(() => validateConfigs('topic', set));
      expect(err.code).toBe('INVALID_CONFIG');
      expect(err.message).toBe(message);
    }
    const throttle = failure(() => validateConfigs('topic', { 'leader.replication.throttled.replicas': '0-1' }));
    expect(throttle.message).toContain("must be the literal '*' or a list of replicas");
  });

  it('rejects unknown keys, with a hint for configs Kafka 4.0 removed', () => {
    expect(failure(() => validateConfigs('topic', { 'retention.days': '7' })).message).toBe(
      'Unknown topic config name: retention.days',
    );
    expect(failure(() => validateConfigs('topic', { 'message.format.version': '2.8' })).message).toMatch(
      /^Unknown topic config name: message.format.version \(removed in Kafka 4.0\)/,
    );
    const broker = failure(() => validateConfigs('broker', { 'retention.ms': '1' }));
    expect(broker.code).toBe('INVALID_CONFIG');
    expect(broker.message).toBe('Unknown broker config name: retention.ms');
  });

  it('takes every cleanup policy Kafka takes, and refuses less than 1 MiB of dedupe buffer per cleaner thread as KafkaConfig does', () => {
    for (const value of ['compact', 'compact,delete', 'delete, compact', 'delete', '']) expect(() => validateConfigs('topic', { 'cleanup.policy': value })).not.toThrow();
    expect(() => validateConfigs('broker', { 'log.cleanup.policy': 'compact' })).not.toThrow();
    expect(failure(() => validateConfigs('broker', { 'log.cleaner.dedupe.buffer.size': '2097152', 'log.cleaner.threads': '2' })).message).toBe(
      'log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.',
    );
    expect(() => validateConfigs('broker', { 'log.cleaner.dedupe.buffer.size': '2097154', 'log.cleaner.threads': '2' })).not.toThrow();
    expect(failure(() => validateConfigs('broker', { 'log.cleaner.threads': '128' })).message).toContain('1MB per cleaner thread');
  });

  it('refuses a dynamic change to a read-only broker config, but allows it in a static config', () => {
    const err = failure(() =>
      validateConfigs('broker', { 'replica.lag.time.max.ms': '10000', 'broker.session.timeout.ms': '6000', 'min.insync.replicas': '2' }),
    );
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toMatch(
      /^Cannot update these configs dynamically: Set\(broker\.session\.timeout\.ms, replica\.lag\.time\.max\.ms\)\./,
    );
    expect(err.message).toContain('restart');
    expect(() => validateConfigs('broker', { 'log.retention.hours': '24' })).toThrow(/Cannot update these configs dynamically/);
    expect(() => validateConfigs('broker', { 'replica.lag.time.max.ms': '10000' }, { static: true })).not.toThrow();
    expect(() => validateConfigs('broker', { 'replica.lag.time.max.ms': null })).not.toThrow();
  });

  it('accepts dynamic broker changes and still checks their values', () => {
    expect(() =>
      validateConfigs('broker', {
        'min.insync.replicas': '2',
        'unclean.leader.election.enable': 'true',
        'log.retention.ms': '3600000',
        'leader.replication.throttled.rate': '1048576',
        'num.replica.fetchers': '2',
      }),
    ).not.toThrow();
    expect(failure(() => validateConfigs('broker', { 'log.segment.bytes': '1000' })).message).toBe(
      'Invalid value 1000 for configuration log.segment.bytes: Value must be at least 1048576',
    );
    expect(failure(() => validateConfigs('broker', { 'follower.replication.throttled.rate': '-1' })).message).toBe(
      'Invalid value -1 for configuration follower.replication.throttled.rate: Value must be at least 0',
    );
  });
});

describe('resolution', () => {
  it('topic override > dynamic cluster default of the synonym > Kafka default', () => {
    const overrides = { 'retention.ms': '1000' };
    const clusterDefaults = { 'log.retention.ms': '2000', 'min.insync.replicas': '2', 'log.segment.bytes': '2097152' };
    const byName = new Map(describeTopicConfigs(overrides, clusterDefaults).map((c) => [c.name, c]));

    expect(byName.get('retention.ms')).toMatchObject({ value: '1000', default: '604800000', source: 'DYNAMIC_TOPIC_CONFIG', readOnly: false, sensitive: false });
    expect(byName.get('min.insync.replicas')).toMatchObject({ value: '2', default: '1', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect(byName.get('segment.bytes')).toMatchObject({ value: '2097152', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect(byName.get('unclean.leader.election.enable')).toMatchObject({ value: 'false', source: 'DEFAULT_CONFIG' });
    expect(describeTopicConfigs({}, clusterDefaults).find((c) => c.name === 'retention.ms')).toMatchObject({
      value: '2000',
      source: 'DYNAMIC_DEFAULT_BROKER_CONFIG',
    });
  });

  it('lists every topic config, sorted by name, with its doc', () => {
    const all = describeTopicConfigs({}, {});
    const names = all.map((c) => c.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('leader.replication.throttled.replicas');
    expect(all.every((c) => c.source === 'DEFAULT_CONFIG' && c.value === c.default && c.doc !== '')).toBe(true);
  });

  it('converts hour- and minute-based static synonyms to milliseconds, and clamps negative retention to -1', () => {
    expect(topicConfigValue('retention.ms', {}, {}, { 'log.retention.hours': '24' })).toBe('86400000');
    expect(topicConfigValue('retention.ms', {}, {}, { 'log.retention.minutes': '5', 'log.retention.hours': '24' })).toBe('300000');
    expect(topicConfigValue('retention.ms', {}, { 'log.retention.ms': '7' }, { 'log.retention.hours': '24' })).toBe('7');
    expect(topicConfigValue('retention.ms', {}, {}, { 'log.retention.hours': '-1' })).toBe('-1');
    expect(topicConfigValue('segment.ms', {}, {}, { 'log.roll.hours': '1' })).toBe('3600000');
    expect(describeTopicConfigs({}, {}, { 'log.roll.hours': '1' }).find((c) => c.name === 'segment.ms')?.source).toBe(
      'STATIC_BROKER_CONFIG',
    );
    // A read-only synonym in the dynamic map is ignored, as Kafka ignores it.
    expect(topicConfigValue('retention.ms', {}, { 'log.retention.hours': '1' })).toBe('604800000');
  });

  it('broker configs: per-broker > cluster default > static > Kafka default', () => {
    const perBroker = { 'leader.replication.throttled.rate': '1048576' };
    const clusterDefaults = { 'leader.replication.throttled.rate': '2097152', 'min.insync.replicas': '2', 'replica.lag.time.max.ms': '1' };
    const staticConfigs = { 'min.insync.replicas': '3', 'broker.session.timeout.ms': '18000' };
    const byName = new Map(describeBrokerConfigs(perBroker, clusterDefaults, staticConfigs).map((c) => [c.name, c]));

    expect(byName.get('leader.replication.throttled.rate')).toMatchObject({ value: '1048576', source: 'DYNAMIC_BROKER_CONFIG', readOnly: false });
    expect(byName.get('min.insync.replicas')).toMatchObject({ value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect(byName.get('broker.session.timeout.ms')).toMatchObject({ value: '18000', default: '9000', source: 'STATIC_BROKER_CONFIG', readOnly: true });
    // A dynamic value for a read-only config never takes effect.
    expect(byName.get('replica.lag.time.max.ms')).toMatchObject({ value: '30000', source: 'DEFAULT_CONFIG', readOnly: true });
    expect(byName.get('log.retention.ms')).toMatchObject({ value: '', default: '', source: 'DEFAULT_CONFIG' });
  });

  it('typed getters return numbers, booleans and lists; Long.MAX is Infinity', () => {
    expect(topicConfigNumber('retention.ms', {}, {})).toBe(604_800_000);
    expect(topicConfigNumber('min.cleanable.dirty.ratio', {}, {})).toBe(0.5);
    expect(topicConfigNumber('flush.ms', {}, {})).toBe(Infinity);
    expect(topicConfigNumber('min.insync.replicas', { 'min.insync.replicas': '3' }, { 'min.insync.replicas': '2' })).toBe(3);
    expect(topicConfigBoolean('unclean.leader.election.enable', {}, { 'unclean.leader.election.enable': 'true' })).toBe(true);
    expect(topicConfigList('leader.replication.throttled.replicas', { 'leader.replication.throttled.replicas': '0:1, 1:2' }, {})).toEqual(['0:1', '1:2']);
    expect(topicConfigList('follower.replication.throttled.replicas', {}, {})).toEqual([]);
    expect(brokerConfigNumber('replica.lag.time.max.ms', {}, {})).toBe(30_000);
    expect(brokerConfigNumber('leader.replication.throttled.rate', {}, {})).toBe(Infinity);
    expect(brokerConfigNumber('leader.replication.throttled.rate', { 'leader.replication.throttled.rate': '1048576' }, {})).toBe(1_048_576);
    expect(brokerConfigBoolean('auto.leader.rebalance.enable', {}, {})).toBe(true);
    expect(brokerConfigBoolean('auto.leader.rebalance.enable', {}, {}, { 'auto.leader.rebalance.enable': 'false' })).toBe(false);
    expect(brokerConfigValue('log.retention.ms', {}, {})).toBe('');
  });

  it('treats a wrong name or type in the code as a bug (INTERNAL), not as user input', () => {
    expect(failure(() => topicConfigNumber('retention.days', {}, {})).code).toBe('INTERNAL');
    expect(failure(() => topicConfigNumber('cleanup.policy', {}, {})).code).toBe('INTERNAL');
    expect(failure(() => brokerConfigNumber('log.retention.ms', {}, {})).code).toBe('INTERNAL');
    expect(failure(() => brokerConfigBoolean('num.partitions', {}, {})).code).toBe('INTERNAL');
  });
});
