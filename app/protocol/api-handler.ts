/**
 * One Kafka API as a broker serves it: the handler type every file in handlers/ implements and
 * the dispatcher routes to, in a file of its own so that the handlers and the dispatcher (which
 * serves ApiVersions itself) do not import each other.
 */
import type { ApiKeyNumber, ApiMessages, RequestHeader } from './generated/index.js';
import type { Init } from './runtime/index.js';

/**
 * Who sent a request (Kafka's Session: the authenticated principal and the client's address):
 * `User:NAME` after SASL, the TLS client certificate's mapped name, else User:ANONYMOUS.
 */
export interface ClientSession {
  principal: string;
  clientHost: string;
}

/** A connection that did not authenticate, from the loopback address (the listeners bind nothing else). */
export const ANONYMOUS_SESSION: ClientSession = Object.freeze({ principal: 'User:ANONYMOUS', clientHost: '127.0.0.1' });

/** What a handler knows about the request besides its body. */
export interface RequestContext {
  header: RequestHeader;
  apiVersion: number;
  session: ClientSession;
  /** The request's size in bytes (Kafka's request.sizeInBytes: header and body). */
  requestBytes: number;
  /**
   * The throttle a quota gave this request, in ms (0: none). A handler sets it; the dispatcher
   * writes the larger of it and the request-time quota's into the response and mutes the
   * connection for it, as Kafka's ClientQuotaManager.throttle does.
   */
  throttleMs: number;
}

type Response<K extends ApiKeyNumber> = Init<ApiMessages[K]['response']>;

/** One API as a broker serves it (Kafka's KafkaApis.handleXxx plus getErrorResponse). */
export interface ApiHandler<K extends ApiKeyNumber = ApiKeyNumber> {
  apiKey: K;
  /** The versions ApiVersions advertises. */
  advertised: readonly [number, number];
  /** The versions really served, when narrower; the rest of `advertised` gets error 35. */
  implemented?: readonly [number, number];
  /** The response, or null for none (acks=0). May wait (acks=all, a Fetch long poll). */
  handle(request: ApiMessages[K]['request'], ctx: RequestContext): Response<K> | null | Promise<Response<K> | null>;
  /** The response carrying `code` for everything the request asked (Kafka's getErrorResponse). */
  errorResponse(request: ApiMessages[K]['request'], code: number, ctx: RequestContext): Response<K>;
}

/** Thrown by a handler: Kafka closes the connection instead of answering. */
export class CloseConnection extends Error {
  override readonly name = 'CloseConnection';
}
