import { describe, expect, it } from 'vitest';
import type { ConfigEntryView } from '../../../../app/api/contract.js';
import { defaultOf, defaultText, differsFromDefault, isModified } from './config-format.js';

const entry = (over: Partial<ConfigEntryView>): ConfigEntryView => ({
  name: 'min.insync.replicas',
  value: '1',
  default: '1',
  source: 'DYNAMIC_TOPIC_CONFIG',
  readOnly: false,
  sensitive: false,
  doc: '',
  type: 'int',
  validValues: '[1,...]',
  importance: 'medium',
  ...over,
});

describe('a config’s default as the console shows it', () => {
  it('is what the topic would take without its override, with its layer: the cluster default 2, not Kafka’s 1', () => {
    const e = entry({ inherited: { value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' } });
    expect(defaultOf(e)).toEqual({ value: '2', source: 'DYNAMIC_DEFAULT_BROKER_CONFIG' });
    expect(defaultText(e)).toBe('2 (cluster-wide dynamic)');
    // An override of 1 under a default of 2 differs from it, although it equals Kafka's own default.
    expect(differsFromDefault(e)).toBe(true);
    expect(isModified(e)).toBe(true);
  });

  it('falls back to Kafka’s default where the connection cannot tell the layers', () => {
    const e = entry({ value: '1', source: 'DEFAULT_CONFIG' });
    expect(defaultText(e)).toBe('1 (kafka default)');
    expect(differsFromDefault(e)).toBe(false);
    expect(isModified(e)).toBe(false);
  });
});
