import { describe, expect, it } from 'vitest';
import { checkTopicName, firstUserTopic, isInternalTopic } from './topic-name.js';

describe('topic names', () => {
  it('knows Kafka’s internal topics by their "__" prefix', () => {
    expect(isInternalTopic('__consumer_offsets')).toBe(true);
    expect(isInternalTopic('__transaction_state')).toBe(true);
    expect(isInternalTopic('_orders')).toBe(false);
    expect(isInternalTopic('orders__v2')).toBe(false);
  });

  it('starts a form on the first user topic, never an internal one (which sorts first)', () => {
    expect(firstUserTopic(['__consumer_offsets', 'audit', 'orders'])).toBe('audit');
    expect(firstUserTopic(['__consumer_offsets'])).toBeNull();
    expect(firstUserTopic([])).toBeNull();
  });

  it('still warns about a name that looks internal', () => {
    expect(checkTopicName('__mine', []).warnings.join(' ')).toContain('internal');
  });
});
