/**
 * The time a request keeps the broker busy, for the request-time quota (request_percentage,
 * KIP-124: the share of one request-handler thread a client may use per second). Kafka counts
 * the time its request handler and network threads spend on a request; here that is the
 * synchronous part of its dispatch (decoding, the handler until it first waits) and of the engine
 * calls it makes (each call's start within the engine's step: appending a batch, reading a log).
 * Time spent waiting — a long poll, acks=all — is not counted, as in Kafka.
 *
 * Requests are followed across their awaits with AsyncLocalStorage, which costs something on
 * every promise once in use, so it is used only while some client quota sets request_percentage
 * (`measuring`); otherwise a request is not timed and the quota records nothing.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestTime {
  nanos: bigint;
}

const current = new AsyncLocalStorage<RequestTime>();

/** Run one request's dispatch (`run`), timing its synchronous part when `measuring`. */
export function aroundRequest<T>(measuring: boolean, run: () => T): T {
  if (!measuring) return run();
  const time: RequestTime = { nanos: 0n };
  return current.run(time, () => {
    const start = process.hrtime.bigint();
    try {
      return run();
    } finally {
      time.nanos += process.hrtime.bigint() - start;
    }
  });
}

/** The request an engine call is made for (undefined when not measuring). */
export function requestTimer(): RequestTime | undefined {
  return current.getStore();
}

/** Run an engine call's start, charging its time to `time`'s request. */
export function charged<T>(time: RequestTime | undefined, fn: () => T): T {
  if (!time) return fn();
  const start = process.hrtime.bigint();
  try {
    return fn();
  } finally {
    time.nanos += process.hrtime.bigint() - start;
  }
}

/** The current request's time so far, in percent of one thread's second (Kafka's nanosToPercentage). */
export function requestPercent(): number {
  const time = current.getStore();
  return time ? Number(time.nanos) / 1e7 : 0;
}
