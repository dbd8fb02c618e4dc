/**
 * kafkajs's errors in the contract's words. A Kafka error code from the cluster keeps Kafka's
 * name (kafkajs spells some differently: its NOT_LEADER_FOR_PARTITION is code 6, Kafka's
 * NOT_LEADER_OR_FOLLOWER), matched by number; a failure to reach or authenticate to the cluster
 * becomes NETWORK_EXCEPTION or SASL_AUTHENTICATION_FAILED with where it failed (`details.stage`):
 *
 *   dns       the host name does not resolve (ENOTFOUND, EAI_AGAIN)
 *   refused   nothing listens on that port (ECONNREFUSED)
 *   tls       the TLS handshake failed: an untrusted or expired certificate, a name mismatch,
 *             or TLS spoken to a plaintext port
 *   sasl      the credentials or the mechanism were refused
 *   timeout   no answer within the connect or request timeout
 *   protocol  the server answered something else (closed the connection, another protocol)
 *   config    our own settings are unusable (a missing certificate file, SASL without a user)
 */
import { KafkaError, kafkaErrorName, type ErrorCode, type KafkaErrorName } from '../api/errors.js';
import type { ConnectionFailureStage } from '../api/connections.js';

interface KafkajsLike {
  name?: string;
  message?: string;
  code?: string | number;
  type?: string;
  cause?: unknown;
  originalError?: unknown;
  errors?: unknown[];
  broker?: string;
}

const TLS_CODES = /^(?:DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|CERT_REVOKED|CERT_UNTRUSTED|CERT_REJECTED|HOSTNAME_MISMATCH|ERR_TLS_.*|ERR_SSL_.*|EPROTO)$/;

/** The innermost error kafkajs wrapped (retries exceeded, non-retriable wrappers). */
export function rootCause(error: unknown): unknown {
  let e = error as KafkajsLike | undefined;
  for (let i = 0; i < 10 && e && typeof e === 'object'; i++) {
    const aggregated = e.name === 'KafkaJSAggregateError' && Array.isArray(e.errors) ? e.errors[0] : undefined;
    const inner = (aggregated ?? e.originalError ?? (e.name === 'KafkaJSNumberOfRetriesExceeded' || e.name === 'KafkaJSNonRetriableError' ? e.cause : undefined)) as KafkajsLike | undefined;
    if (!inner || inner === e) break;
    e = inner;
  }
  return e;
}

/** Where a connection attempt failed, and the message to show. */
export function failureOf(error: unknown): { stage: ConnectionFailureStage; message: string } {
  if (error instanceof KafkaError) {
    const stage = (error.details as { stage?: ConnectionFailureStage } | undefined)?.stage;
    const sasl = error.code === 'SASL_AUTHENTICATION_FAILED' || error.code === 'UNSUPPORTED_SASL_MECHANISM' || error.code === 'ILLEGAL_SASL_STATE';
    return { stage: stage ?? (sasl ? 'sasl' : 'protocol'), message: error.message };
  }
  const e = (rootCause(error) ?? {}) as KafkajsLike;
  const message = e.message ?? String(error);
  const code = typeof e.code === 'string' ? e.code : '';
  const at = e.broker ? ` (${e.broker})` : '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return { stage: 'dns', message: `The host name does not resolve${at}: ${message}` };
  if (code === 'ECONNREFUSED') return { stage: 'refused', message: `Connection refused${at}: nothing listens on that port. ${message}` };
  if (TLS_CODES.test(code) || /certificate|SSL routines|TLS/i.test(message)) return { stage: 'tls', message: `The TLS handshake failed${at}: ${message}${code ? ` (${code})` : ''}` };
  if (e.name === 'KafkaJSSASLAuthenticationError' || e.type === 'SASL_AUTHENTICATION_FAILED' || e.type === 'UNSUPPORTED_SASL_MECHANISM' || e.type === 'ILLEGAL_SASL_STATE') {
    return { stage: 'sasl', message: `SASL authentication failed${at}: ${message}` };
  }
  if (code === 'ETIMEDOUT' || e.name === 'KafkaJSRequestTimeoutError' || /timeout|timed out/i.test(message)) return { stage: 'timeout', message: `No answer in time${at}: ${message}` };
  if (code === 'ECONNRESET' || e.name === 'KafkaJSConnectionClosedError' || /closed/i.test(message)) {
    return { stage: 'protocol', message: `The server closed the connection${at} (a TLS listener needs SSL, a SASL one SASL settings, one that requires client certificates a certificate its CA signed): ${message}` };
  }
  return { stage: 'protocol', message: message + at };
}

/** The contract error for anything the client threw. */
export function toKafkaError(error: unknown, doing: string): KafkaError {
  if (error instanceof KafkaError) return error;
  const e = (rootCause(error) ?? {}) as KafkajsLike;
  if (typeof e.code === 'number') {
    const name: ErrorCode = kafkaErrorName(e.code) ?? 'UNKNOWN_SERVER_ERROR';
    const suffix = name === 'UNKNOWN_SERVER_ERROR' && e.code !== -1 ? ` (Kafka error code ${e.code})` : '';
    return new KafkaError(name, `${doing}: ${e.message ?? name}${suffix}`);
  }
  const failure = failureOf(error);
  const code: ErrorCode = failure.stage === 'sasl' ? 'SASL_AUTHENTICATION_FAILED' : failure.stage === 'config' ? 'INVALID_CONFIG' : failure.stage === 'timeout' ? 'REQUEST_TIMED_OUT' : 'NETWORK_EXCEPTION';
  return new KafkaError(code, `${doing}: ${failure.message}`, { stage: failure.stage });
}

/** Kafka's name for a wire error code (UNKNOWN_SERVER_ERROR for one we do not name). */
export function errorName(code: number): KafkaErrorName {
  return kafkaErrorName(code) ?? 'UNKNOWN_SERVER_ERROR';
}
