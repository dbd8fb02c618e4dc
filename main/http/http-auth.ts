/**
 * Who may talk to the HTTP host (docs/architecture.md#the-hosts-guards), checked on every request
 * and upgrade, in
 * this order:
 *   1. `Host` must be `127.0.0.1:PORT` or `localhost:PORT` (defeats DNS rebinding) → else 403;
 *   2. an `Origin`, when sent, must be `http://127.0.0.1:PORT` or `http://localhost:PORT` → else 403;
 *   3. the token: `Authorization: Bearer <token>`, the HttpOnly SameSite=Strict cookie, or (on a
 *      GET page load only) `?token=`, which sets the cookie and redirects to drop it from the
 *      address bar; a WebSocket may also carry `?token=` → else 401.
 * Tokens are compared in constant time (`token.ts`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { baseHeaders, HttpError } from './http-common.js';
import { tokenMatches } from './token.js';

export interface HttpAuth {
  /** 403 unless Host (and Origin, when sent) name this host. */
  checkHostAndOrigin(req: IncomingMessage): void;
  /** 401 unless the Bearer token or the cookie is right. */
  requireToken(req: IncomingMessage): void;
  /**
   * A page load with `?token=`: 401 for a wrong one, else answer 303 with the cookie, to the same
   * URL without the token. Returns whether it answered.
   */
  tradeQueryToken(req: IncomingMessage, res: ServerResponse, url: URL): boolean;
  /** For the WebSocket: `?token=` when present, else as `requireToken`. */
  requireUpgradeToken(req: IncomingMessage, url: URL): void;
}

/** The checks of a host holding `token`; `port()` is read on each check (known once listening). */
export function createHttpAuth(token: string, port: () => number): HttpAuth {
  // Cookies ignore ports: one per port, so two hosts on one machine do not overwrite each other's.
  const cookieName = () => `replica_studio_token_${port()}`;

  function presentedToken(req: IncomingMessage): string | undefined {
    const auth = req.headers.authorization;
    if (auth !== undefined) return /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1];
    return readCookie(req.headers.cookie, cookieName());
  }

  function requireToken(req: IncomingMessage): void {
    if (!tokenMatches(token, presentedToken(req))) throw new HttpError(401, 'INVALID_REQUEST', 'Unauthorized: missing or wrong token (open the start URL the host printed).');
  }

  return {
    checkHostAndOrigin(req) {
      const p = port();
      const host = req.headers.host;
      if (host !== `127.0.0.1:${p}` && host !== `localhost:${p}`) throw new HttpError(403, 'INVALID_REQUEST', 'Forbidden: foreign Host header.');
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== `http://127.0.0.1:${p}` && origin !== `http://localhost:${p}`) throw new HttpError(403, 'INVALID_REQUEST', 'Forbidden: foreign Origin.');
    },
    requireToken,
    tradeQueryToken(req, res, url) {
      const queryToken = url.searchParams.get('token');
      if (queryToken === null || req.method !== 'GET' || url.pathname.startsWith('/api/')) return false;
      if (!tokenMatches(token, queryToken)) throw new HttpError(401, 'INVALID_REQUEST', 'Unauthorized: wrong token.');
      url.searchParams.delete('token');
      res.writeHead(303, {
        ...baseHeaders(),
        Location: url.pathname + url.search,
        'Set-Cookie': `${cookieName()}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      });
      res.end();
      return true;
    },
    requireUpgradeToken(req, url) {
      const queryToken = url.searchParams.get('token');
      if (queryToken === null) return requireToken(req);
      if (!tokenMatches(token, queryToken)) throw new HttpError(401, 'INVALID_REQUEST', 'Unauthorized.');
    },
  };
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
