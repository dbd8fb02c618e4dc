import { describe, expect, it } from 'vitest';
import {
  COLLISION_WARNING,
  assertNoCollision,
  collidingTopic,
  hasCollisionChars,
  isInternalTopic,
  isValidTopicName,
  validateTopicName,
} from './topic-names.js';
import { kafkaErrorOf } from './test-support/kafka-error.js';

describe('topic names', () => {
  it("topic names follow Kafka's rules (scenario 21 names)", () => {
    const cases: [string, string][] = [
      ['', 'Topic name is invalid: the empty string is not allowed'],
      ['.', "Topic name is invalid: '.' is not allowed"],
      ['..', "Topic name is invalid: '..' is not allowed"],
      ['a b', "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"],
      ['é', "Topic name is invalid: 'é' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"],
      ['a'.repeat(250), `Topic name is invalid: the length of '${'a'.repeat(250)}' is longer than the max allowed length 249`],
    ];
    for (const [name, message] of cases) {
      const err = kafkaErrorOf(() => validateTopicName(name));
      expect(err.code).toBe('INVALID_TOPIC_EXCEPTION');
      expect(err.message).toBe(message);
    }
    expect(() => validateTopicName('a'.repeat(249))).not.toThrow();
    expect(isValidTopicName('orders.v1_final-2')).toBe(true);

    const meta = kafkaErrorOf(() => validateTopicName('__cluster_metadata'));
    expect(meta.code).toBe('INVALID_REQUEST');
    expect(meta.message).toBe('Creation of internal topic __cluster_metadata is prohibited.');
  });

  it("rejects 'a_b' once 'a.b' exists, but an exact duplicate is not a collision", () => {
    const existing = ['a.b'];
    const err = kafkaErrorOf(() => assertNoCollision('a_b', existing));
    expect(err.code).toBe('INVALID_TOPIC_EXCEPTION');
    expect(err.message).toBe("Topic 'a_b' collides with existing topic: a.b");
    expect(collidingTopic('a.b', ['a_b'])).toBe('a_b');
    // "a.b" again is TOPIC_ALREADY_EXISTS, which the caller reports; it is not a collision.
    expect(collidingTopic('a.b', existing)).toBeUndefined();
    expect(collidingTopic('ab', ['a_b', 'a.b'])).toBeUndefined();
  });

  it('reports the least colliding name so the message is deterministic', () => {
    expect(collidingTopic('x.y.z', ['x_y_z', 'x.y_z', 'other'])).toBe('x.y_z');
  });

  it("marks names with '.' or '_' for the CLI warning", () => {
    expect(hasCollisionChars('a.b')).toBe(true);
    expect(hasCollisionChars('a_b')).toBe(true);
    expect(hasCollisionChars('a-b')).toBe(false);
    expect(COLLISION_WARNING).toContain("topics with a period ('.') or underscore ('_') could collide");
  });

  it('knows the internal topics', () => {
    expect(isInternalTopic('__consumer_offsets')).toBe(true);
    expect(isInternalTopic('__transaction_state')).toBe(true);
    expect(isInternalTopic('__share_group_state')).toBe(true);
    expect(isInternalTopic('__my_topic')).toBe(false);
  });
});
