/** Request frames built with our own codecs, and response frames read back, for tests. */
import { type ApiKeyNumber, type ApiMessages, type RequestHeader, apiDefinition, readResponseHeader, requestHeaderVersion, responseHeaderVersion, writeRequestHeader } from '../generated/index.js';
import { type Init, Reader, Writer } from '../runtime/index.js';

/** A whole request frame, size prefix included. */
export function requestFrame<K extends ApiKeyNumber>(
  apiKey: K,
  apiVersion: number,
  body: Init<ApiMessages[K]['request']>,
  header: Partial<RequestHeader> = {},
): Uint8Array {
  const def = apiDefinition(apiKey)!;
  const w = new Writer();
  const setSize = w.reserveInt32();
  writeRequestHeader(w, requestHeaderVersion(def, apiVersion), { requestApiKey: apiKey, requestApiVersion: apiVersion, correlationId: 1, clientId: 'test', ...header });
  def.writeRequest(w, apiVersion, body as never);
  setSize(w.length - 4);
  return w.toBytes();
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Reads a response frame (size prefix included) of `apiKey` at `apiVersion`. */
export function readResponse<K extends ApiKeyNumber>(
  apiKey: K,
  apiVersion: number,
  frame: Uint8Array | readonly Uint8Array[],
): { correlationId: number; body: ApiMessages[K]['response'] } {
  const bytes = frame instanceof Uint8Array ? frame : concat(frame);
  const def = apiDefinition(apiKey)!;
  const r = new Reader(bytes);
  const size = r.int32();
  if (size !== bytes.length - 4) throw new Error(`frame size ${size}, but ${bytes.length - 4} bytes follow`);
  const { correlationId } = readResponseHeader(r, responseHeaderVersion(def, apiVersion));
  const body = def.readResponse(r, apiVersion) as ApiMessages[K]['response'];
  if (r.remaining() !== 0) throw new Error(`${r.remaining()} bytes left after the response`);
  return { correlationId, body };
}
