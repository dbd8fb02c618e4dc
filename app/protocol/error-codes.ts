/**
 * Kafka's error codes as the wire carries them (apache/kafka Errors.java). The contract's table
 * (app/api/errors.ts) names the errors the console shows; the protocol also needs the ones only
 * a client ever sees, so this table extends it by number.
 */
import { KAFKA_ERRORS, type KafkaErrorName } from '../api/errors.js';

const PROTOCOL_ONLY = {
  CLUSTER_AUTHORIZATION_FAILED: 31,
} as const;

export type ProtocolErrorName = KafkaErrorName | keyof typeof PROTOCOL_ONLY;

/** The wire code of a Kafka error name. */
export function errorCode(name: ProtocolErrorName): number {
  return name in PROTOCOL_ONLY ? PROTOCOL_ONLY[name as keyof typeof PROTOCOL_ONLY] : KAFKA_ERRORS[name as KafkaErrorName].code;
}
