/**
 * What every part of the HTTP host shares: the coded error a check throws (`HttpError`, answered
 * as a result envelope with its status), the headers of every answer, and request parsing that
 * cannot throw anything but an `HttpError`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorCode } from '../../app/api/errors.js';

/** A refused request: its HTTP status and the envelope's code and message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Headers of every answer that is not a console file (those carry `securityHeaders`). */
export function baseHeaders(): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { ...baseHeaders(), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': text.length });
  res.end(text);
}

/** The request's URL; 400 when it does not parse. */
export function parseUrl(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'http://127.0.0.1');
  } catch {
    throw new HttpError(400, 'INVALID_REQUEST', 'Bad request URL.');
  }
}

export function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** The status line's words, for answers written straight to a socket (a refused upgrade). */
export function statusText(status: number): string {
  return ({ 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' } as Record<number, string>)[status] ?? 'Internal Server Error';
}
