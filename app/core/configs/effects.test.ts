import { describe, expect, it } from 'vitest';
import { BROKER_CONFIGS, TOPIC_CONFIGS, brokerConfigDef, topicConfigDef } from './catalogue.js';
import type { ConfigEffect } from './catalogue.js';
import { BROKER_EFFECTS, TOPIC_EFFECTS } from './effects.js';
import { describeBrokerConfigs, describeTopicConfigs } from './resolve.js';

/**
 * Configs the replication rules (docs/semantics.md) name, spelled out or through
 * a wildcard such as `log.retention.*`, `replica.fetch.*` or `log.cleaner.*`.
 */
const NAMED_IN_BRIEF = {
  topic: [
    'cleanup.policy', 'compression.type', 'delete.retention.ms', 'file.delete.delay.ms', 'flush.messages', 'flush.ms',
    'follower.replication.throttled.replicas', 'index.interval.bytes', 'leader.replication.throttled.replicas',
    'max.compaction.lag.ms', 'max.message.bytes', 'message.timestamp.after.max.ms', 'message.timestamp.before.max.ms',
    'message.timestamp.type', 'min.cleanable.dirty.ratio', 'min.compaction.lag.ms', 'min.insync.replicas', 'preallocate',
    'retention.bytes', 'retention.ms', 'segment.bytes', 'segment.index.bytes', 'segment.jitter.ms', 'segment.ms',
    'unclean.leader.election.enable',
  ],
  broker: [
    'auto.create.topics.enable', 'auto.leader.rebalance.enable', 'broker.heartbeat.interval.ms', 'broker.session.timeout.ms',
    'compression.type', 'controller.quorum.election.timeout.ms', 'controller.quorum.fetch.timeout.ms',
    'default.replication.factor', 'delete.topic.enable',
    'follower.replication.throttled.rate', 'leader.imbalance.check.interval.seconds', 'leader.replication.throttled.rate',
    'log.cleaner.delete.retention.ms', 'log.cleaner.max.compaction.lag.ms', 'log.cleaner.min.cleanable.ratio',
    'log.cleaner.min.compaction.lag.ms', 'log.cleanup.policy', 'log.flush.interval.messages', 'log.flush.interval.ms',
    'log.index.interval.bytes', 'log.index.size.max.bytes', 'log.message.timestamp.after.max.ms',
    'log.message.timestamp.before.max.ms', 'log.message.timestamp.type', 'log.preallocate', 'log.retention.bytes',
    'log.retention.hours', 'log.retention.minutes', 'log.retention.ms', 'log.roll.hours', 'log.roll.jitter.ms', 'log.roll.ms',
    'log.segment.bytes', 'log.segment.delete.delay.ms', 'message.max.bytes', 'min.insync.replicas', 'num.partitions',
    'num.replica.fetchers', 'replica.fetch.backoff.ms', 'replica.fetch.max.bytes', 'replica.fetch.min.bytes',
    'replica.fetch.response.max.bytes', 'replica.fetch.wait.max.ms', 'replica.high.watermark.checkpoint.interval.ms',
    'replica.lag.time.max.ms', 'replica.socket.timeout.ms', 'replication.quota.window.num',
    'replication.quota.window.size.seconds', 'unclean.leader.election.enable', 'unclean.leader.election.interval.ms',
  ],
} as const;

function sentences(effect: ConfigEffect | undefined): string[] {
  return [effect?.durability, effect?.availability, effect?.performance].filter((s): s is string => s !== undefined);
}

describe('config importance', () => {
  it('every topic and broker config carries one of Kafka\'s three importances', () => {
    for (const def of [...TOPIC_CONFIGS, ...BROKER_CONFIGS]) {
      expect(['high', 'medium', 'low'], `${def.scope} ${def.name}`).toContain(def.importance);
    }
  });

  it("matches Kafka's ConfigDef: topic configs are all MEDIUM in LogConfig, even where the broker synonym is HIGH", () => {
    for (const def of TOPIC_CONFIGS) expect(def.importance, def.name).toBe('medium');
    expect(topicConfigDef('min.insync.replicas')?.importance).toBe('medium');
    expect(brokerConfigDef('min.insync.replicas')?.importance).toBe('high');
    expect(topicConfigDef('unclean.leader.election.enable')?.importance).toBe('medium');
    expect(brokerConfigDef('unclean.leader.election.enable')?.importance).toBe('high');
    expect(topicConfigDef('retention.ms')?.importance).toBe('medium');
    expect(brokerConfigDef('log.retention.ms')?.importance).toBe('high');
  });

  it("matches Kafka's broker config table for replication, liveness and topic-creation configs", () => {
    const expected: Record<string, string> = {
      'replica.lag.time.max.ms': 'high',
      'log.retention.hours': 'high',
      'log.segment.bytes': 'high',
      'message.max.bytes': 'high',
      'auto.leader.rebalance.enable': 'high',
      'leader.imbalance.check.interval.seconds': 'high',
      'delete.topic.enable': 'high',
      'replica.fetch.max.bytes': 'medium',
      'replica.fetch.wait.max.ms': 'high',
      'num.partitions': 'medium',
      'default.replication.factor': 'medium',
      'broker.session.timeout.ms': 'medium',
      'broker.heartbeat.interval.ms': 'medium',
      'controller.quorum.fetch.timeout.ms': 'high',
      'log.cleanup.policy': 'medium',
      'log.retention.check.interval.ms': 'medium',
      'replication.quota.window.num': 'low',
    };
    for (const [name, importance] of Object.entries(expected)) expect(brokerConfigDef(name)?.importance, name).toBe(importance);
  });
});

describe('config effects', () => {
  it('every config the replication rules name states its effect in at least one sentence', () => {
    for (const name of NAMED_IN_BRIEF.topic) {
      expect(sentences(topicConfigDef(name)?.effect).length, `topic ${name}`).toBeGreaterThan(0);
    }
    for (const name of NAMED_IN_BRIEF.broker) {
      expect(sentences(brokerConfigDef(name)?.effect).length, `broker ${name}`).toBeGreaterThan(0);
    }
  });

  it('so does every other config in the catalogue', () => {
    for (const def of [...TOPIC_CONFIGS, ...BROKER_CONFIGS]) {
      expect(sentences(def.effect).length, `${def.scope} ${def.name}`).toBeGreaterThan(0);
    }
  });

  it('each aspect is one plain sentence', () => {
    for (const def of [...TOPIC_CONFIGS, ...BROKER_CONFIGS]) {
      for (const sentence of sentences(def.effect)) {
        expect(sentence, def.name).toMatch(/^\S.{20,}\.$/);
        expect(sentence, def.name).not.toMatch(/\.\s+[A-Z]/);
      }
    }
  });

  it('says what min.insync.replicas and unclean.leader.election.enable trade between durability and availability', () => {
    const minIsr = topicConfigDef('min.insync.replicas')?.effect;
    expect(minIsr?.durability).toContain('acks=all');
    expect(minIsr?.availability).toContain('NOT_ENOUGH_REPLICAS');
    const unclean = topicConfigDef('unclean.leader.election.enable')?.effect;
    expect(unclean?.durability).toMatch(/lost/);
    expect(unclean?.availability).toMatch(/offline/);
  });

  it("gives a broker synonym its topic config's effect, and every effect key names a known config", () => {
    expect(brokerConfigDef('log.retention.hours')?.effect).toEqual(topicConfigDef('retention.ms')?.effect);
    expect(brokerConfigDef('message.max.bytes')?.effect).toEqual(topicConfigDef('max.message.bytes')?.effect);
    expect(brokerConfigDef('log.flush.interval.ms')?.effect).toEqual(topicConfigDef('flush.ms')?.effect);
    // A synonym with a role of its own keeps its own text.
    expect(brokerConfigDef('log.flush.scheduler.interval.ms')?.effect).toEqual(BROKER_EFFECTS['log.flush.scheduler.interval.ms']);
    for (const name of Object.keys(TOPIC_EFFECTS)) expect(topicConfigDef(name), name).toBeDefined();
    for (const name of Object.keys(BROKER_EFFECTS)) expect(brokerConfigDef(name), name).toBeDefined();
  });

  it('describe carries importance and effect with every entry, as copies', () => {
    const topic = describeTopicConfigs({}, {});
    const minIsr = topic.find((c) => c.name === 'min.insync.replicas');
    expect(minIsr).toMatchObject({ importance: 'medium', effect: topicConfigDef('min.insync.replicas')?.effect });
    expect(minIsr?.effect).not.toBe(topicConfigDef('min.insync.replicas')?.effect);
    const broker = describeBrokerConfigs({}, {});
    expect(broker.find((c) => c.name === 'replica.lag.time.max.ms')).toMatchObject({ importance: 'high', readOnly: true });
    expect(broker.every((c) => ['high', 'medium', 'low'].includes(c.importance))).toBe(true);
  });
});
