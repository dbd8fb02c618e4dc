/**
 * The two ways a Kafka message can fail to (de)serialise. Both are ordinary exceptions inside
 * app/protocol; the framing layer catches them at its boundary and turns them into Kafka's
 * answer (an error response or a closed connection), so none escapes to a caller of the
 * connection.
 */

/** The bytes are not a valid message: truncated, a negative or oversized length, a bad varint. */
export class MalformedMessageError extends Error {
  override readonly name = 'MalformedMessageError';
}

/**
 * A version the message does not have, or (when writing) a value the chosen version cannot
 * carry — Kafka's UnsupportedVersionException.
 */
export class UnsupportedVersionError extends Error {
  override readonly name = 'UnsupportedVersionError';
}
