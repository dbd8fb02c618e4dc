/**
 * Topic-name rules, as Kafka enforces them (apache/kafka `common/internals/Topic.java`,
 * `ReplicationControlManager.validateNewTopicNames`, `ControllerApis` for `__cluster_metadata`,
 * `TopicCommand` for the CLI warning).
 *
 * Guarantees:
 * - A name is legal iff it is 1–249 UTF-16 units of `[a-zA-Z0-9._-]` and is not "." or "..";
 *   otherwise `validateTopicName` throws INVALID_TOPIC_EXCEPTION with Kafka's own reason text.
 * - `__cluster_metadata` is refused with INVALID_REQUEST, as the KRaft controller does.
 * - Two distinct names collide iff they are equal after mapping '.' to '_'; a name never
 *   collides with itself (an exact duplicate is TOPIC_ALREADY_EXISTS, which the caller reports).
 * - The colliding name reported is the least one in code-unit order, so messages are
 *   deterministic (Kafka reports whichever its hash set yields first).
 */
import { KafkaError } from '../api/errors.js';

/** 255 (file-name limit) minus "-" and a partition number of up to 5 digits. */
export const TOPIC_NAME_MAX_LENGTH = 249;

/** The KRaft metadata log; no client may create it. */
export const CLUSTER_METADATA_TOPIC = '__cluster_metadata';

/** Topics Kafka treats as internal: clients cannot produce to them. */
export const INTERNAL_TOPICS: readonly string[] = ['__consumer_offsets', '__transaction_state', '__share_group_state'];

/** What `kafka-topics.sh --create` prints when the new name contains '.' or '_'. */
export const COLLISION_WARNING =
  "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. " +
  'To avoid issues it is best to use either, but not both.';

function isLegalChar(c: number): boolean {
  return (
    (c >= 0x61 && c <= 0x7a) || // a-z
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x30 && c <= 0x39) || // 0-9
    c === 0x2e || // .
    c === 0x5f || // _
    c === 0x2d // -
  );
}

/** Kafka's reason a name is illegal (without the "Topic name is invalid: " prefix), or undefined. */
export function topicNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the empty string is not allowed';
  if (name === '.') return "'.' is not allowed";
  if (name === '..') return "'..' is not allowed";
  if (name.length > TOPIC_NAME_MAX_LENGTH) {
    return `the length of '${name}' is longer than the max allowed length ${TOPIC_NAME_MAX_LENGTH}`;
  }
  for (let i = 0; i < name.length; i++) {
    if (!isLegalChar(name.charCodeAt(i))) {
      return `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
    }
  }
  return undefined;
}

/** Whether `name` passes Kafka's syntactic rules (it may still collide or be reserved). */
export function isValidTopicName(name: string): boolean {
  return topicNameProblem(name) === undefined;
}

/**
 * Throws unless `name` may be used to create a topic: INVALID_REQUEST for `__cluster_metadata`,
 * INVALID_TOPIC_EXCEPTION ("Topic name is invalid: …") for an illegal name.
 */
export function validateTopicName(name: string): void {
  if (name === CLUSTER_METADATA_TOPIC) {
    throw new KafkaError('INVALID_REQUEST', `Creation of internal topic ${CLUSTER_METADATA_TOPIC} is prohibited.`);
  }
  const problem = topicNameProblem(name);
  if (problem !== undefined) throw new KafkaError('INVALID_TOPIC_EXCEPTION', `Topic name is invalid: ${problem}`);
}

/** Whether `name` is one of Kafka's internal topics. */
export function isInternalTopic(name: string): boolean {
  return INTERNAL_TOPICS.includes(name);
}

/** Whether the name contains '.' or '_' (the CLI then prints `COLLISION_WARNING`). */
export function hasCollisionChars(name: string): boolean {
  return name.includes('.') || name.includes('_');
}

/** The metric-name form used only to detect collisions: every '.' becomes '_'. */
export function unifyCollisionChars(name: string): string {
  return name.replaceAll('.', '_');
}

/**
 * The existing topic that `name` would collide with ('.' vs '_'), or undefined. An existing
 * topic with exactly this name is not a collision (that is TOPIC_ALREADY_EXISTS).
 */
export function collidingTopic(name: string, existingNames: Iterable<string>): string | undefined {
  if (!hasCollisionChars(name)) return undefined;
  const unified = unifyCollisionChars(name);
  let found: string | undefined;
  for (const existing of existingNames) {
    if (existing === name || unifyCollisionChars(existing) !== unified) continue;
    if (found === undefined || existing < found) found = existing;
  }
  return found;
}

/** Kafka's KRaft rejection text: "Topic 'a.b' collides with existing topic: a_b". */
export function collisionMessage(name: string, existing: string): string {
  return `Topic '${name}' collides with existing topic: ${existing}`;
}

/** Throws INVALID_TOPIC_EXCEPTION if `name` collides with one of `existingNames`. */
export function assertNoCollision(name: string, existingNames: Iterable<string>): void {
  const existing = collidingTopic(name, existingNames);
  if (existing !== undefined) throw new KafkaError('INVALID_TOPIC_EXCEPTION', collisionMessage(name, existing));
}
