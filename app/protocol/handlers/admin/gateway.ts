/**
 * What the admin request handlers reach the cluster through: the engine's public methods (its one
 * door) and a way to run them as one step of the cluster's clock. Kafka's brokers forward admin
 * requests to the active controller; here every broker's listener calls the controller's
 * operations on the engine directly, with the controller's own validation and errors.
 */
import { KafkaError, type ErrorCode } from '../../../api/errors.js';
import { errorCode } from '../../error-codes.js';
import type { BrokerGateway } from '../broker-gateway.js';

/** The gateway of the data-path handlers: every broker's listener serves both with one. */
export type AdminGateway = BrokerGateway;

/** Run a synchronous engine operation in a step of the cluster's clock. */
export function run<T>(gateway: AdminGateway, fn: () => T): Promise<T> {
  return gateway.call<{ ok: true; value: T } | { ok: false; error: unknown }>((done) => {
    try {
      done({ ok: true, value: fn() });
    } catch (error) {
      done({ ok: false, error });
    }
  }).then((r) => {
    if (r.ok) return r.value;
    throw r.error;
  });
}

/** Our product-only codes as the Kafka code a client understands. */
const PRODUCT_TO_KAFKA: Partial<Record<ErrorCode, ErrorCode>> = {
  INVALID_INPUT: 'INVALID_REQUEST',
  INVALID_STATE: 'INVALID_REQUEST',
  BROKER_NOT_FOUND: 'INVALID_REQUEST',
  UNSUPPORTED_FOR_CONNECTION: 'INVALID_REQUEST',
  CONNECTION_NOT_FOUND: 'INVALID_REQUEST',
  INTERNAL: 'UNKNOWN_SERVER_ERROR',
};

/** The error code and message a per-resource result carries for `error` (a KafkaError keeps its code; anything else is rethrown: our bug). */
export function resultError(error: unknown): { errorCode: number; errorMessage: string } {
  if (!(error instanceof KafkaError) || error.code === 'INTERNAL') throw error;
  const code = PRODUCT_TO_KAFKA[error.code] ?? error.code;
  return { errorCode: errorCode(code as Parameters<typeof errorCode>[0]), errorMessage: error.message };
}

/** Run `fn`; its KafkaError becomes the result's error, success NONE with a null message. */
export async function outcome<T>(fn: () => Promise<T>): Promise<{ errorCode: number; errorMessage: string | null; value?: T }> {
  try {
    return { errorCode: 0, errorMessage: null, value: await fn() };
  } catch (e) {
    return resultError(e);
  }
}
