/**
 * Kafka's topic-name rules, checked live as the user types (the engine enforces the same rules
 * with Kafka's errors; this only tells the user earlier). Kafka's own wording where it has one
 * (apache/kafka `common/internals/Topic.java`, `TopicCommand`'s collision warning).
 *
 * - Legal: 1–249 characters of [a-zA-Z0-9._-], not "." or "..".
 * - Taken: an existing topic with exactly this name (TOPIC_ALREADY_EXISTS).
 * - Colliding: an existing topic equal to it once every '.' is read as '_' (Kafka refuses it:
 *   metric names cannot tell them apart) — an error, as the controller rejects it.
 * - A name with '.' or '_' gets Kafka's CLI warning (it could collide later).
 */
export const TOPIC_NAME_MAX_LENGTH = 249;

export interface TopicNameCheck {
  /** Why the name cannot be used, with the Kafka error it would get; absent when it can. */
  error?: { code: 'INVALID_TOPIC_EXCEPTION' | 'TOPIC_ALREADY_EXISTS' | 'INVALID_REQUEST'; message: string };
  /** Things worth knowing that do not stop the creation. */
  warnings: string[];
}

const LEGAL = /^[a-zA-Z0-9._-]+$/;

/** The metric-name form Kafka compares to detect collisions: every '.' becomes '_'. */
export function collisionKey(name: string): string {
  return name.replaceAll('.', '_');
}

/** Check `name` against Kafka's rules and the topics that exist (`existing`, by name). */
export function checkTopicName(name: string, existing: Iterable<string>): TopicNameCheck {
  const warnings: string[] = [];
  const invalid = (message: string): TopicNameCheck => ({ error: { code: 'INVALID_TOPIC_EXCEPTION', message }, warnings });
  if (name.length === 0) return invalid('A topic needs a name.');
  if (name === '.' || name === '..') return invalid(`'${name}' is not allowed.`);
  if (name.length > TOPIC_NAME_MAX_LENGTH) return invalid(`${name.length} characters: at most ${TOPIC_NAME_MAX_LENGTH} are allowed.`);
  if (!LEGAL.test(name)) {
    const bad = [...new Set([...name].filter((c) => !LEGAL.test(c)))].map((c) => (c === ' ' ? 'space' : `'${c}'`));
    return invalid(`Only ASCII letters, digits, '.', '_' and '-' are allowed (not ${bad.join(', ')}).`);
  }
  if (name === '__cluster_metadata') return { error: { code: 'INVALID_REQUEST', message: 'The KRaft metadata log cannot be created by a client.' }, warnings };
  const key = collisionKey(name);
  let collides: string | undefined;
  for (const other of existing) {
    if (other === name) return { error: { code: 'TOPIC_ALREADY_EXISTS', message: `Topic '${name}' already exists.` }, warnings };
    if (collides === undefined && collisionKey(other) === key) collides = other;
  }
  if (collides !== undefined) return invalid(`Topic '${name}' collides with existing topic: ${collides} ('.' and '_' look the same in metric names).`);
  if (name.includes('.') || name.includes('_')) {
    warnings.push("Names with '.' or '_' could collide in metric names: it is best to use either, but not both, across your topics.");
  }
  if (name.startsWith('__')) warnings.push("Names starting with '__' are by convention Kafka's internal topics.");
  return { warnings };
}

/**
 * Whether a topic is one of Kafka's internal topics (`__consumer_offsets`, `__transaction_state`):
 * by Kafka's convention their names start with "__". Clients do not produce to them, so a form
 * never picks one by itself.
 */
export function isInternalTopic(name: string): boolean {
  return name.startsWith('__');
}

/** The topic a form starts on: the first that is not internal, or null when there is none (the user chooses). */
export function firstUserTopic(names: Iterable<string>): string | null {
  for (const n of names) if (!isInternalTopic(n)) return n;
  return null;
}
