/**
 * An external cluster's configs as the console shows them: the default of a topic config is the
 * DEFAULT_CONFIG synonym Kafka lists, in the config's own unit — Kafka sends retention.ms's default
 * as log.retention.hours=168 (and segment.ms's as log.roll.hours=168), which is 604800000 ms.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigEntryData } from '../../kafka-client/types.js';
import { kafkaConfigEntryViews, synonymInUnitOf } from './config-views.js';

const entry = (name: string, value: string, source: number, synonyms: [string, string | null, number][]): ConfigEntryData =>
  ({ name, value, source, readOnly: false, sensitive: false, synonyms: synonyms.map(([n, v, s]) => ({ name: n, value: v, source: s })) }) as ConfigEntryData;

describe('an external cluster’s topic configs', () => {
  it('reads the default off a synonym in other units in the config’s own unit: log.retention.hours=168 is 604800000 ms', () => {
    const views = kafkaConfigEntryViews('topic', [
      entry('retention.ms', '3600000', 1, [['retention.ms', '3600000', 1], ['log.retention.hours', '168', 5]]),
      entry('segment.ms', '604800000', 5, [['log.roll.hours', '168', 5]]),
      entry('segment.bytes', '1073741824', 5, [['log.segment.bytes', '1073741824', 5]]),
      entry('min.insync.replicas', '2', 1, [['min.insync.replicas', '2', 1], ['min.insync.replicas', '1', 5]]),
    ]);
    const byName = new Map(views.map((v) => [v.name, v]));
    expect(byName.get('retention.ms')).toMatchObject({ value: '3600000', default: '604800000', source: 'DYNAMIC_TOPIC_CONFIG' });
    expect(byName.get('segment.ms')!.default).toBe('604800000');
    expect(byName.get('segment.bytes')!.default).toBe('1073741824');
    expect(byName.get('min.insync.replicas')!.default).toBe('1');
    // The synonyms themselves stay as Kafka sent them.
    expect(byName.get('retention.ms')!.synonyms).toContainEqual({ name: 'log.retention.hours', value: '168', source: 'DEFAULT_CONFIG' });
  });

  it('says what each config would be without the resource’s own setting: the next layer Kafka lists, in the config’s unit', () => {
    const topic = kafkaConfigEntryViews(
      'topic',
      [
        // The cluster default is 2 (a dynamic default): deleting the topic's override of 1 gives 2, not Kafka's 1.
        entry('min.insync.replicas', '1', 1, [['min.insync.replicas', '1', 1], ['min.insync.replicas', '2', 3], ['min.insync.replicas', '1', 5]]),
        entry('retention.ms', '3600000', 1, [['retention.ms', '3600000', 1], ['log.retention.hours', '24', 4], ['log.retention.hours', '168', 5]]),
        entry('cleanup.policy', 'delete', 5, [['log.cleanup.policy', 'delete', 5]]),
      ],
      'orders',
    );
    const byName = new Map(topic.map((v) => [v.name, v]));
    expect(byName.get('min.insync.replicas')!.inherited).toEqual({ value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect(byName.get('retention.ms')!.inherited).toEqual({ value: '86400000', source: 'STATIC_BROKER_CONFIG' });
    expect(byName.get('cleanup.policy')!.inherited).toEqual({ value: 'delete', source: 'DEFAULT_CONFIG' });
    // A broker's own dynamic config is skipped for that broker; the cluster-wide default's own for ''.
    const broker = kafkaConfigEntryViews('broker', [entry('log.retention.ms', '1000', 2, [['log.retention.ms', '1000', 2], ['log.retention.ms', '5000', 3]])], '1');
    expect(broker[0]!.inherited).toEqual({ value: '5000', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    const cluster = kafkaConfigEntryViews('broker', [entry('log.retention.ms', '5000', 3, [['log.retention.ms', '5000', 3]])], '');
    expect(cluster[0]!.inherited).toBeUndefined();
  });

  it('converts only between time units of a .ms config, and leaves what is not a number alone', () => {
    expect(synonymInUnitOf('retention.ms', 'log.retention.minutes', '90')).toBe('5400000');
    expect(synonymInUnitOf('retention.ms', 'log.retention.ms', '-1')).toBe('-1');
    expect(synonymInUnitOf('retention.ms', 'log.retention.hours', '')).toBe('');
    expect(synonymInUnitOf('retention.bytes', 'log.retention.bytes', '-1')).toBe('-1');
  });
});
