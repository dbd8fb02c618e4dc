import { describe, expect, it } from 'vitest';
import {
  BROKER_CONFIGS,
  LONG_MAX,
  TOPIC_CONFIGS,
  brokerConfigDef,
  topicConfigDef,
  validValuesText,
} from './catalogue.js';
import type { ConfigRule } from './catalogue.js';
import { parseConfigValue } from './values.js';

function ruleOf(name: string): ConfigRule {
  const def = topicConfigDef(name);
  if (def === undefined) throw new Error(`no topic config ${name}`);
  return def.rule;
}

describe('config catalogue', () => {
  it("topic defaults equal Kafka 4.x's", () => {
    const expected: Record<string, string> = {
      'cleanup.policy': 'delete',
      'retention.ms': '604800000',
      'retention.bytes': '-1',
      'segment.bytes': '1073741824',
      'segment.ms': '604800000',
      'min.insync.replicas': '1',
      'unclean.leader.election.enable': 'false',
      'max.message.bytes': '1048588',
      'compression.type': 'producer',
      'message.timestamp.type': 'CreateTime',
      'message.timestamp.before.max.ms': LONG_MAX,
      'message.timestamp.after.max.ms': '3600000',
      'flush.messages': '9223372036854775807',
      'flush.ms': '9223372036854775807',
      'delete.retention.ms': '86400000',
      'min.cleanable.dirty.ratio': '0.5',
      'file.delete.delay.ms': '60000',
      'segment.index.bytes': '10485760',
      'index.interval.bytes': '4096',
      'leader.replication.throttled.replicas': '',
    };
    for (const [name, value] of Object.entries(expected)) expect(topicConfigDef(name)?.default, name).toBe(value);
  });

  it("broker defaults and update modes equal Kafka 4.x's", () => {
    const expected: Record<string, [string | null, string]> = {
      'replica.lag.time.max.ms': ['30000', 'read-only'],
      'broker.session.timeout.ms': ['9000', 'read-only'],
      'broker.heartbeat.interval.ms': ['2000', 'read-only'],
      'min.insync.replicas': ['1', 'cluster-wide'],
      'unclean.leader.election.enable': ['false', 'cluster-wide'],
      'unclean.leader.election.interval.ms': ['300000', 'read-only'],
      'leader.imbalance.check.interval.seconds': ['300', 'read-only'],
      'auto.leader.rebalance.enable': ['true', 'read-only'],
      'controller.quorum.fetch.timeout.ms': ['2000', 'read-only'],
      'controller.quorum.election.timeout.ms': ['1000', 'read-only'],
      'replication.quota.window.num': ['11', 'read-only'],
      'replication.quota.window.size.seconds': ['1', 'read-only'],
      'leader.replication.throttled.rate': [LONG_MAX, 'per-broker'],
      'follower.replication.throttled.rate': [LONG_MAX, 'per-broker'],
      'num.replica.fetchers': ['1', 'cluster-wide'],
      'log.retention.ms': [null, 'cluster-wide'],
      'log.retention.hours': ['168', 'read-only'],
      'log.retention.check.interval.ms': ['300000', 'read-only'],
      'log.segment.bytes': ['1073741824', 'cluster-wide'],
      'message.max.bytes': ['1048588', 'cluster-wide'],
      'delete.topic.enable': ['true', 'read-only'],
      'default.replication.factor': ['1', 'read-only'],
      'num.partitions': ['1', 'read-only'],
    };
    for (const [name, [value, mode]] of Object.entries(expected)) {
      const def = brokerConfigDef(name);
      expect(def?.default, name).toBe(value);
      expect(def?.updateMode, name).toBe(mode);
    }
  });

  it("has Kafka's group coordinator configs with their types, defaults and ranges (GroupCoordinatorConfig)", () => {
    const expected: Record<string, [string, string]> = {
      'offsets.topic.replication.factor': ['short', '3'],
      'offsets.topic.num.partitions': ['int', '50'],
      'offsets.topic.segment.bytes': ['int', '104857600'],
      'offsets.retention.minutes': ['int', '10080'],
      'offsets.retention.check.interval.ms': ['long', '600000'],
      'offsets.commit.timeout.ms': ['int', '5000'],
      'offset.metadata.max.bytes': ['int', '4096'],
      'group.initial.rebalance.delay.ms': ['int', '3000'],
      'group.min.session.timeout.ms': ['int', '6000'],
      'group.max.session.timeout.ms': ['int', '1800000'],
      'group.max.size': ['int', '2147483647'],
    };
    for (const [name, [type, value]] of Object.entries(expected)) {
      const def = brokerConfigDef(name);
      expect(def?.type, name).toBe(type);
      expect(def?.default, name).toBe(value);
      expect(def?.updateMode, name).toBe('read-only');
    }
    const rf = brokerConfigDef('offsets.topic.replication.factor')!;
    expect(() => parseConfigValue(rf, '0')).toThrow('Value must be at least 1');
    expect(() => parseConfigValue(rf, '40000')).toThrow('Not a number of type SHORT');
    expect(parseConfigValue(rf, '2')).toBe(2);
    expect(() => parseConfigValue(brokerConfigDef('group.max.size')!, '0')).toThrow('Value must be at least 1');
  });

  it("has the broker configs a Kafka 4.x operator expects, with Kafka's type, default, range, importance and update mode", () => {
    const expected: Record<string, [string, string | null, string, string]> = {
      'broker.rack': ['string', null, 'medium', 'read-only'],
      'controlled.shutdown.enable': ['boolean', 'true', 'medium', 'read-only'],
      'num.recovery.threads.per.data.dir': ['int', '2', 'high', 'cluster-wide'],
      'log.flush.offset.checkpoint.interval.ms': ['int', '60000', 'high', 'read-only'],
      'log.flush.start.offset.checkpoint.interval.ms': ['int', '60000', 'high', 'read-only'],
      'replica.selector.class': ['string', null, 'medium', 'read-only'],
      'replica.socket.receive.buffer.bytes': ['int', '65536', 'high', 'read-only'],
      'log.cleaner.enable': ['boolean', 'true', 'medium', 'read-only'],
      'log.cleaner.threads': ['int', '1', 'medium', 'cluster-wide'],
      'log.cleaner.backoff.ms': ['long', '15000', 'medium', 'cluster-wide'],
      'log.cleaner.dedupe.buffer.size': ['long', '134217728', 'medium', 'cluster-wide'],
      'log.cleaner.io.buffer.size': ['int', '524288', 'medium', 'cluster-wide'],
      'log.cleaner.io.buffer.load.factor': ['double', '0.9', 'medium', 'cluster-wide'],
      'log.cleaner.io.max.bytes.per.second': ['double', '1.7976931348623157E308', 'medium', 'cluster-wide'],
      'transaction.state.log.replication.factor': ['short', '3', 'high', 'read-only'],
      'transaction.state.log.min.isr': ['int', '2', 'high', 'read-only'],
      'transaction.state.log.num.partitions': ['int', '50', 'high', 'read-only'],
      'transaction.state.log.segment.bytes': ['int', '104857600', 'high', 'read-only'],
      'transaction.state.log.load.buffer.size': ['int', '5242880', 'high', 'read-only'],
      'transaction.max.timeout.ms': ['int', '900000', 'high', 'read-only'],
    };
    for (const [name, [type, value, importance, mode]] of Object.entries(expected)) {
      const def = brokerConfigDef(name);
      expect([def?.type, def?.default, def?.importance, def?.updateMode], name).toEqual([type, value, importance, mode]);
    }
    expect(() => parseConfigValue(brokerConfigDef('num.recovery.threads.per.data.dir')!, '0')).toThrow('Value must be at least 1');
    expect(() => parseConfigValue(brokerConfigDef('transaction.state.log.min.isr')!, '0')).toThrow('Value must be at least 1');
    expect(() => parseConfigValue(brokerConfigDef('log.flush.offset.checkpoint.interval.ms')!, '-1')).toThrow('Value must be at least 0');
    // What the engine does not have, the docs line says so.
    expect(brokerConfigDef('log.cleaner.dedupe.buffer.size')!.doc).toContain('24 bytes');
    expect(brokerConfigDef('transaction.max.timeout.ms')!.doc).toContain('INVALID_TRANSACTION_TIMEOUT');
    expect(brokerConfigDef('num.recovery.threads.per.data.dir')!.doc).toContain('half or more than double');
  });

  it('has unique names and a broker entry for every topic synonym', () => {
    expect(new Set(TOPIC_CONFIGS.map((d) => d.name)).size).toBe(TOPIC_CONFIGS.length);
    expect(new Set(BROKER_CONFIGS.map((d) => d.name)).size).toBe(BROKER_CONFIGS.length);
    for (const def of TOPIC_CONFIGS) {
      expect(def.brokerSynonym).toBe(def.brokerSynonyms[0]?.name ?? null);
      for (const synonym of def.brokerSynonyms) expect(brokerConfigDef(synonym.name), synonym.name).toBeDefined();
      // Only the first synonym is dynamic in Kafka; the later ones (hours, minutes) are read-only.
      const first = def.brokerSynonyms[0];
      if (first) expect(brokerConfigDef(first.name)?.updateMode, first.name).not.toBe('read-only');
    }
  });

  it("every default satisfies its own rule, and nothing is sensitive", () => {
    for (const def of [...TOPIC_CONFIGS, ...BROKER_CONFIGS]) {
      expect(def.sensitive).toBe(false);
      expect(def.doc.length, def.name).toBeGreaterThan(10);
      if (def.default !== null) expect(() => parseConfigValue(def, def.default ?? ''), def.name).not.toThrow();
    }
  });

  it('states the valid values the way Kafka documents them', () => {
    expect(validValuesText(ruleOf('segment.bytes'))).toBe('[1048576,...]');
    expect(validValuesText(ruleOf('min.cleanable.dirty.ratio'))).toBe('[0,...,1]');
    expect(validValuesText(ruleOf('cleanup.policy'))).toBe('[compact, delete]');
    expect(validValuesText(ruleOf('compression.gzip.level'))).toBe('[1,...,9] or -1');
  });
});
