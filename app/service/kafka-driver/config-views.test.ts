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

  it('converts only between time units of a .ms config, and leaves what is not a number alone', () => {
    expect(synonymInUnitOf('retention.ms', 'log.retention.minutes', '90')).toBe('5400000');
    expect(synonymInUnitOf('retention.ms', 'log.retention.ms', '-1')).toBe('-1');
    expect(synonymInUnitOf('retention.ms', 'log.retention.hours', '')).toBe('');
    expect(synonymInUnitOf('retention.bytes', 'log.retention.bytes', '-1')).toBe('-1');
  });
});
