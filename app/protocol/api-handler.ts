/**
 * One Kafka API as a broker serves it: the handler type every file in handlers/ implements and
 * the dispatcher routes to, in a file of its own so that the handlers and the dispatcher (which
 * serves ApiVersions itself) do not import each other.
 */
import type { ApiKeyNumber, ApiMessages, RequestHeader } from './generated/index.js';
import type { Init } from './runtime/index.js';

/** What a handler knows about the request besides its body. */
export interface RequestContext {
  header: RequestHeader;
  apiVersion: number;
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
