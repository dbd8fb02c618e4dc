import { KafkaError } from '../../api/errors.js';

/** The KafkaError `fn` throws (anything else is rethrown; no error fails the test). */
export function kafkaErrorOf(fn: () => unknown): KafkaError {
  try {
    fn();
  } catch (e) {
    if (e instanceof KafkaError) return e;
    throw e;
  }
  throw new Error('expected a KafkaError, but the call succeeded');
}
