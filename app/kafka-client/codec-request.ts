/**
 * One request encoded by our generated codecs (app/protocol/generated), sent over a connection
 * kafkajs already opened and authenticated (TLS, SASL) to that broker: the APIs kafkajs lacks
 * travel on the same sockets as the ones it has, so there is one client, not two protocol stacks.
 *
 * kafkajs frames every request with header v1 (api_key, api_version, correlation_id, client_id)
 * followed by what the request's `encode()` returns. Header v2, which flexible versions use, is v1
 * plus an empty tag buffer, so for a flexible version the body is preceded by that one 0 byte, as
 * kafkajs's own flexible requests do. Its response path hands `decode()` everything after the
 * correlation id: for a flexible response (header v1; ApiVersions excepted, KIP-511) that starts
 * with the header's tag buffer, skipped here before the body is read.
 *
 * Version choice: the highest both sides support, within what the caller accepts (`wanted`), as
 * Kafka's clients negotiate; none in common is UNSUPPORTED_VERSION naming both ranges.
 */
import type { Broker } from 'kafkajs';
import { KafkaError } from '../api/errors.js';
import { apiDefinition, type ApiKeyNumber, type ApiMessages } from '../protocol/generated/index.js';
import { type Init, Reader, Writer } from '../protocol/runtime/index.js';

/** What kafkajs's Broker carries beyond its public type: the ApiVersions answer and its pool. */
export interface BrokerInternals {
  versions?: Record<number, { minVersion: number; maxVersion: number }>;
  connectionPool: { send(request: unknown): Promise<unknown> };
  nodeId?: number;
}

const API_VERSIONS = 18;

/** The version to send: the highest in `wanted` the broker advertises. */
export function negotiateVersion(apiKey: number, wanted: readonly [number, number], broker: Pick<BrokerInternals, 'versions'>): number {
  const def = apiDefinition(apiKey);
  if (!def) throw new Error(`no message definition for API key ${apiKey}`);
  const lo = Math.max(wanted[0], def.lowest);
  const hi = Math.min(wanted[1], def.highest);
  const theirs = broker.versions?.[apiKey];
  if (!theirs) throw new KafkaError('UNSUPPORTED_VERSION', `The broker does not support ${def.name} (API key ${apiKey}).`);
  const version = Math.min(hi, theirs.maxVersion);
  if (version < lo || version < theirs.minVersion) {
    throw new KafkaError('UNSUPPORTED_VERSION', `${def.name}: the broker supports versions ${theirs.minVersion}-${theirs.maxVersion}, this client ${lo}-${hi}.`);
  }
  return version;
}

/** The request's bytes after kafkajs's header v1 (a tag buffer first for a flexible version). */
export function encodeBody<K extends ApiKeyNumber>(apiKey: K, version: number, body: Init<ApiMessages[K]['request']>): Uint8Array {
  const def = apiDefinition(apiKey)!;
  const w = new Writer();
  if (def.requestFlexibleFrom !== null && version >= def.requestFlexibleFrom) w.uvarint(0);
  def.writeRequest(w, version, body as never);
  return w.toBytes();
}

/** The response body from what follows the correlation id. */
export function decodeBody<K extends ApiKeyNumber>(apiKey: K, version: number, bytes: Uint8Array): ApiMessages[K]['response'] {
  const def = apiDefinition(apiKey)!;
  const r = new Reader(bytes);
  if (apiKey !== API_VERSIONS && def.responseFlexibleFrom !== null && version >= def.responseFlexibleFrom) r.skipTaggedFields();
  return def.readResponse(r, version) as ApiMessages[K]['response'];
}

/** Send one request to `broker` over its kafkajs connection; resolves with the decoded response. */
export async function sendCodecRequest<K extends ApiKeyNumber>(
  broker: Broker,
  apiKey: K,
  wanted: readonly [number, number],
  body: Init<ApiMessages[K]['request']>,
  requestTimeoutMs?: number,
): Promise<ApiMessages[K]['response']> {
  const internals = broker as unknown as BrokerInternals;
  const version = negotiateVersion(apiKey, wanted, internals);
  const bytes = Buffer.from(encodeBody(apiKey, version, body));
  // kafkajs's Encoder contract, duck-typed: `buf` is checked to be a Buffer, `buffer` is written.
  const encoded = { buf: bytes, buffer: bytes };
  return (await internals.connectionPool.send({
    request: { apiKey, apiVersion: version, apiName: apiDefinition(apiKey)!.name, encode: () => Promise.resolve(encoded) },
    response: { decode: (raw: Buffer) => Promise.resolve(decodeBody(apiKey, version, raw)), parse: (decoded: unknown) => Promise.resolve(decoded) },
    ...(requestTimeoutMs !== undefined ? { requestTimeout: requestTimeoutMs } : {}),
  })) as ApiMessages[K]['response'];
}
