/**
 * Turns one request frame into Kafka's answer, as Kafka's SocketServer + RequestContext +
 * KafkaApis do it. The grammar of a request frame (after the size prefix):
 *
 *   RequestApiKey int16, RequestApiVersion int16, CorrelationId int32, ClientId, [tags], body
 *
 * What happens to a frame, in order:
 *   shorter than 8 bytes, or an API key we have no definition for      → close the connection
 *   ApiVersions in a version we do not serve                           → error 35 in a v0 body
 *                                                                        (header v0), listing
 *                                                                        only key 18's range
 *   a version the message does not have, or an API or version we do
 *   not advertise (Kafka: "not enabled")                               → close
 *   header or body that does not decode                                → close
 *   advertised but not implemented (a handler's `implemented` range)   → the handler's error
 *                                                                        response, code 35
 *   the handler throws, or builds a response its version cannot carry  → its error response
 *                                                                        with -1 (UNKNOWN_SERVER_ERROR)
 *   the handler answers null (Produce with acks=0)                     → no frame at all
 *   the handler throws CloseConnection (a refused acks=0 write, a
 *   broker whose process is gone)                                      → close
 *
 * A quota's throttle (a handler's, or the request-time quota's from `requestQuota`) goes into the
 * response's throttle_time_ms and the outcome's `throttle`: the connection is muted that long
 * after the response (versions whose clients throttle themselves, KIP-219) or the response waits
 * that long (older versions), as Kafka's SocketServer does.
 *
 * Invariant: dispatch() never throws and never rejects; every failure is an outcome.
 */
import { type ApiDefinition, apiDefinition, readRequestHeader, requestHeaderVersion, responseHeaderVersion, writeApiVersionsResponse, writeResponseHeader } from './generated/index.js';
import type { RequestHeader } from './generated/index.js';
import { errorCode } from './error-codes.js';
import { ANONYMOUS_SESSION, type ApiHandler, type ClientSession, CloseConnection, type RequestContext } from './api-handler.js';
import { apiVersionsHandler, type FeatureLevels } from './handlers/api-versions.js';
import { Reader, Writer } from './runtime/index.js';

/** A quota's throttle: mute the connection `ms` after the response, or hold the response that long when the client does not throttle itself. */
export interface Throttle {
  ms: number;
  clientThrottles: boolean;
}

export type DispatchOutcome =
  | { kind: 'respond'; parts: Uint8Array[]; throttle?: Throttle }
  | { kind: 'none'; throttle?: Throttle }
  | { kind: 'close'; reason: string };

export interface DispatcherOptions {
  /** Told about handler failures (our bugs); the client gets UNKNOWN_SERVER_ERROR. */
  onHandlerError?: (apiKey: number, error: unknown) => void;
  /** Told about every request whose header decoded (which client sent which API version). */
  onRequest?: (header: RequestHeader) => void;
  /** The cluster's feature levels, which ApiVersions v3+ reports (absent: none). */
  features?: () => FeatureLevels;
  /** The request-time quota (request_percentage): records the request, answers its throttle in ms. */
  requestQuota?: (ctx: RequestContext) => number;
}

/** From which version each API's clients throttle themselves (Kafka's AbstractResponse.shouldClientThrottle); absent: never. */
const CLIENT_THROTTLES_FROM: Readonly<Record<number, number>> = {
  0: 6, 1: 8, 2: 3, 3: 6, 8: 4, 9: 4, 10: 2, 11: 3, 12: 2, 13: 2, 14: 2, 15: 2, 16: 2, 18: 2, 19: 3, 20: 2, 21: 1, 22: 1,
  29: 1, 30: 1, 31: 1, 32: 2, 33: 1, 35: 1, 37: 1, 42: 1, 43: 0, 44: 0, 45: 0, 46: 0, 47: 0, 50: 0, 51: 0, 75: 0,
};

const API_VERSIONS = 18;
const within = (v: number, [lo, hi]: readonly [number, number]): boolean => v >= lo && v <= hi;

export class Dispatcher {
  private readonly handlers = new Map<number, ApiHandler>();

  constructor(
    handlers: readonly ApiHandler[],
    private readonly options: DispatcherOptions = {},
  ) {
    for (const h of handlers) {
      const def = apiDefinition(h.apiKey);
      if (!def) throw new Error(`no message definition for API key ${h.apiKey}`);
      if (h.advertised[0] < def.lowest || h.advertised[1] > def.highest) {
        throw new Error(`${def.name} advertises ${h.advertised.join('-')}, beyond its messages' ${def.lowest}-${def.highest}`);
      }
      if (this.handlers.has(h.apiKey)) throw new Error(`two handlers for ${def.name}`);
      this.handlers.set(h.apiKey, h as unknown as ApiHandler);
    }
  }

  /** The ranges ApiVersions lists: one per handler, by API key. */
  advertisedRanges(): { apiKey: number; minVersion: number; maxVersion: number }[] {
    return [...this.handlers.values()]
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.advertised[0], maxVersion: h.advertised[1] }))
      .sort((a, b) => a.apiKey - b.apiKey);
  }

  async dispatch(frame: Uint8Array, session: ClientSession = ANONYMOUS_SESSION): Promise<DispatchOutcome> {
    if (frame.length < 8) return close(`a ${frame.length}-byte frame cannot hold a request header`);
    const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
    const apiKey = view.getInt16(0);
    const apiVersion = view.getInt16(2);
    const correlationId = view.getInt32(4);
    const def = apiDefinition(apiKey);
    if (!def) return close(`unknown API key ${apiKey}`);
    const handler = this.handlers.get(apiKey);
    if (apiKey === API_VERSIONS && handler && !within(apiVersion, handler.advertised)) {
      return this.unsupportedApiVersions(correlationId, handler.advertised);
    }
    if (!handler || !within(apiVersion, handler.advertised)) {
      return close(`${def.name} v${apiVersion} is not enabled`);
    }

    let header: RequestHeader;
    let request: unknown;
    const r = new Reader(frame);
    try {
      header = readRequestHeader(r, requestHeaderVersion(def, apiVersion));
      request = def.readRequest(r, apiVersion);
    } catch (e) {
      return close(`malformed ${def.name} v${apiVersion} request: ${(e as Error).message}`);
    }
    this.options.onRequest?.(header);
    const ctx: RequestContext = { header, apiVersion, session, requestBytes: frame.length, throttleMs: 0 };
    const respond = (body: unknown): DispatchOutcome => ({ kind: 'respond', parts: encodeResponse(def, apiVersion, correlationId, body) });

    const failWith = (code: number): DispatchOutcome => {
      try {
        return respond(handler.errorResponse(request as never, code, ctx));
      } catch (e) {
        this.options.onHandlerError?.(apiKey, e);
        return close(`${def.name} v${apiVersion}: no error response could be built`);
      }
    };

    if (handler.implemented && !within(apiVersion, handler.implemented)) return failWith(errorCode('UNSUPPORTED_VERSION'));
    try {
      const body = await handler.handle(request as never, ctx);
      const ms = Math.max(ctx.throttleMs, this.options.requestQuota?.(ctx) ?? 0);
      if (ms > 0 && body !== null && typeof body === 'object' && 'throttleTimeMs' in body) (body as { throttleTimeMs: number }).throttleTimeMs = ms;
      const outcome = (body === null ? { kind: 'none' } : respond(body)) as Exclude<DispatchOutcome, { kind: 'close' }>;
      if (ms <= 0) return outcome;
      const from = CLIENT_THROTTLES_FROM[apiKey];
      return { ...outcome, throttle: { ms, clientThrottles: from !== undefined && apiVersion >= from } };
    } catch (e) {
      if (e instanceof CloseConnection) return close(`${def.name} v${apiVersion}: ${e.message}`);
      this.options.onHandlerError?.(apiKey, e);
      return failWith(errorCode('UNKNOWN_SERVER_ERROR'));
    }
  }

  /** KIP-511: a v0 body with error 35 and key 18's range, so the client can retry lower. */
  private unsupportedApiVersions(correlationId: number, range: readonly [number, number]): DispatchOutcome {
    const w = new Writer(32);
    const setSize = w.reserveInt32();
    writeResponseHeader(w, 0, { correlationId });
    writeApiVersionsResponse(w, 0, {
      errorCode: errorCode('UNSUPPORTED_VERSION'),
      apiKeys: [{ apiKey: API_VERSIONS, minVersion: range[0], maxVersion: range[1] }],
    });
    setSize(w.length - 4);
    return { kind: 'respond', parts: w.finish() };
  }
}

function close(reason: string): DispatchOutcome {
  return { kind: 'close', reason };
}

/** A response frame: size, response header (v0/v1 by the API's rule), body. */
export function encodeResponse(def: ApiDefinition, apiVersion: number, correlationId: number, body: unknown): Uint8Array[] {
  const w = new Writer();
  const setSize = w.reserveInt32();
  writeResponseHeader(w, responseHeaderVersion(def, apiVersion), { correlationId });
  def.writeResponse(w, apiVersion, body as never);
  setSize(w.length - 4);
  return w.finish();
}

/**
 * A dispatcher for `handlers` plus the ApiVersions handler, which advertises exactly what the
 * dispatcher serves.
 */
export function createDispatcher(handlers: readonly ApiHandler[], options: DispatcherOptions = {}): Dispatcher {
  let dispatcher: Dispatcher | null = null;
  const versions = apiVersionsHandler(() => dispatcher!.advertisedRanges(), options.features);
  dispatcher = new Dispatcher([versions as unknown as ApiHandler, ...handlers], options);
  return dispatcher;
}
