/**
 * The headless host: the public contract over HTTP and the event stream over one WebSocket,
 * on 127.0.0.1 only.
 *
 *   POST /api/<method>   JSON body → `service.call` → the result envelope
 *                        200 {ok:true,value} | 200 {ok:false,error} (an engine error, Kafka's code)
 *                        400 INVALID_INPUT (schema) / INVALID_REQUEST (not JSON) · 404 unknown
 *                        method · 405 not POST · 413 body over the limit · 500 INTERNAL
 *   GET  /events         WebSocket upgrade: one JSON engine event per message
 *   GET  /…              the renderer's files from `staticDir`, or a placeholder page
 *
 * Security (CONVENTIONS rule 11), checked on every request and upgrade, in this order:
 *   1. `Host` must be `127.0.0.1:PORT` or `localhost:PORT` (defeats DNS rebinding) → else 403;
 *   2. an `Origin`, when sent, must be `http://127.0.0.1:PORT` or `http://localhost:PORT` → else 403;
 *   3. the token: `Authorization: Bearer <token>`, the HttpOnly SameSite=Strict cookie, or (on a
 *      GET page load only) `?token=`, which sets the cookie and redirects to drop it from the
 *      address bar → else 401.
 * No `Access-Control-Allow-Origin` is ever sent, so other origins cannot read any answer.
 * Every failure is a coded envelope; no input can crash the process.
 */
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, WebSocket } from 'ws';
import { isMethodName, type EngineEvent } from '../../app/api/contract.js';
import type { ErrorCode, ErrorView } from '../../app/api/errors.js';
import type { ClusterService, ServiceLogger } from '../../app/service/cluster-service.js';
import { EventCoalescer } from './event-coalescer.js';
import { tokenMatches } from './token.js';

export interface HttpHostOptions {
  service: Pick<ClusterService, 'call' | 'subscribe'>;
  /** 0 picks a free port. */
  port: number;
  /** Only the loopback address is allowed. */
  host?: '127.0.0.1';
  token: string;
  /** The built renderer; absent: a placeholder page. */
  staticDir?: string;
  /** Largest request body in bytes (default 10 MiB). */
  maxBodyBytes?: number;
  /** Window of the highWatermark.advanced coalescing in ms (default 100). */
  eventWindowMs?: number;
  logger?: ServiceLogger;
}

export interface HttpHost {
  readonly server: Server;
  readonly port: number;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The start URL, with the token: `http://127.0.0.1:PORT/?token=…` */
  readonly url: string;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 10 * 1024 * 1024;
/** A WebSocket client this far behind is dropped rather than buffered without end. */
const MAX_WS_BUFFERED = 8 * 1024 * 1024;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

const PLACEHOLDER = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Replica Studio</title></head>
<body><h1>Replica Studio</h1>
<p>The headless host is running. The browser UI is not built yet; the HTTP API is at
<code>POST /api/&lt;method&gt;</code> and events stream on the WebSocket <code>/events</code>.</p>
</body></html>
`;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const defaultLogger: ServiceLogger = { error: (message, error) => console.error(message, error) };

/** Start the host; resolves once it listens. */
export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const { service, token } = options;
  if ((options.host ?? '127.0.0.1') !== '127.0.0.1') throw new Error('The host binds 127.0.0.1 only.');
  const logger = options.logger ?? defaultLogger;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const staticRoot = options.staticDir ? resolve(options.staticDir) : undefined;
  let port = 0; // known once listening; every check reads it then
  const cookieName = () => `replica_studio_token_${port}`; // cookies ignore ports: name it per port

  // ---- checks ------------------------------------------------------------------------------
  function checkHostAndOrigin(req: IncomingMessage): void {
    const host = req.headers.host;
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) throw new HttpError(403, 'INVALID_REQUEST', 'Forbidden: foreign Host header.');
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://127.0.0.1:${port}` && origin !== `http://localhost:${port}`) {
      throw new HttpError(403, 'INVALID_REQUEST', 'Forbidden: foreign Origin.');
    }
  }

  function presentedToken(req: IncomingMessage): string | undefined {
    const auth = req.headers.authorization;
    if (auth !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
      return m?.[1];
    }
    return readCookie(req.headers.cookie, cookieName());
  }

  function requireToken(req: IncomingMessage): void {
    if (!tokenMatches(token, presentedToken(req))) throw new HttpError(401, 'INVALID_REQUEST', 'Unauthorized: missing or wrong token (open the start URL the host printed).');
  }

  // ---- HTTP ----------------------------------------------------------------------------------
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    checkHostAndOrigin(req);
    const url = parseUrl(req.url);
    const queryToken = url.searchParams.get('token');
    if (queryToken !== null && req.method === 'GET' && !url.pathname.startsWith('/api/')) {
      if (!tokenMatches(token, queryToken)) throw new HttpError(401, 'INVALID_REQUEST', 'Unauthorized: wrong token.');
      url.searchParams.delete('token');
      res.writeHead(303, {
        ...baseHeaders(),
        Location: url.pathname + url.search,
        'Set-Cookie': `${cookieName()}=${token}; HttpOnly; SameSite=Strict; Path=/`,
      });
      res.end();
      return;
    }
    requireToken(req);
    if (url.pathname.startsWith('/api/')) {
      await handleApi(req, res, url.pathname.slice('/api/'.length));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'INVALID_REQUEST', `Method ${req.method ?? ''} not allowed here.`);
    await serveStatic(req, res, url.pathname);
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
    const method = safeDecode(name);
    if (method === undefined || !isMethodName(method)) throw new HttpError(404, 'INVALID_REQUEST', `Unknown method ${JSON.stringify(method ?? name)}.`);
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      throw new HttpError(405, 'INVALID_REQUEST', `Use POST for /api/${method}.`);
    }
    const body = await readBody(req, res, maxBody);
    let input: unknown;
    if (body.length > 0) {
      try {
        input = JSON.parse(body.toString('utf8'));
      } catch (e) {
        throw new HttpError(400, 'INVALID_REQUEST', `The request body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const result = await service.call(method, input);
    const status = result.ok ? 200 : result.error.code === 'INVALID_INPUT' ? 400 : result.error.code === 'INTERNAL' ? 500 : 200;
    sendJson(res, status, result);
  }

  async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    if (!staticRoot) {
      if (pathname !== '/' && pathname !== '/index.html') throw new HttpError(404, 'INVALID_REQUEST', 'Not found.');
      return sendBody(req, res, 200, CONTENT_TYPES['.html']!, Buffer.from(PLACEHOLDER));
    }
    const decoded = safeDecode(pathname);
    if (decoded === undefined || decoded.includes('\0')) throw new HttpError(400, 'INVALID_REQUEST', 'Bad path.');
    let file = normalize(join(staticRoot, decoded));
    if (file !== staticRoot && !file.startsWith(staticRoot + sep)) throw new HttpError(404, 'INVALID_REQUEST', 'Not found.');
    let info = await stat(file).catch(() => undefined);
    if (info?.isDirectory()) {
      file = join(file, 'index.html');
      info = await stat(file).catch(() => undefined);
    }
    if (!info?.isFile()) {
      // A client-side route (history mode): the app's index.html, unless it asked for an asset.
      file = join(staticRoot, 'index.html');
      info = extname(decoded) === '' ? await stat(file).catch(() => undefined) : undefined;
      if (!info?.isFile()) throw new HttpError(404, 'INVALID_REQUEST', 'Not found.');
    }
    const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
    sendBody(req, res, 200, type, await readFile(file));
  }

  function sendBody(req: IncomingMessage, res: ServerResponse, status: number, type: string, body: Buffer): void {
    res.writeHead(status, {
      ...baseHeaders(),
      'Content-Type': type,
      'Content-Length': body.length,
      'Content-Security-Policy': `default-src 'self'; connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'`,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  function fail(res: ServerResponse, error: unknown): void {
    if (!(error instanceof HttpError)) logger.error('Internal error in the HTTP host', error);
    const status = error instanceof HttpError ? error.status : 500;
    const view: ErrorView =
      error instanceof HttpError
        ? { code: error.code, message: error.message, retriable: false }
        : { code: 'INTERNAL', message: `Internal error in the HTTP host: ${error instanceof Error ? error.message : String(error)}`, retriable: false };
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendJson(res, status, { ok: false, error: view });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      try {
        fail(res, e);
      } catch (inner) {
        logger.error('The HTTP host could not answer a failed request', inner);
        res.destroy();
      }
    });
  });
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;
  server.on('clientError', (_err, socket: Duplex) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  // ---- WebSocket -----------------------------------------------------------------------------
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false });
  const clients = new Set<WebSocket>();
  const broadcast = (event: EngineEvent): void => {
    if (clients.size === 0) return;
    const data = JSON.stringify(event);
    for (const ws of clients) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (ws.bufferedAmount > MAX_WS_BUFFERED) {
        ws.terminate(); // too slow to keep up: it reconnects and re-reads the state
        continue;
      }
      ws.send(data);
    }
  };
  const coalescer = new EventCoalescer({ send: broadcast, windowMs: options.eventWindowMs ?? 100 });
  const unsubscribe = service.subscribe((event) => {
    if (clients.size > 0) coalescer.push(event);
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    try {
      checkHostAndOrigin(req);
      const url = parseUrl(req.url);
      if (url.pathname !== '/events') throw new HttpError(404, 'INVALID_REQUEST', 'Not found.');
      const queryToken = url.searchParams.get('token');
      if (queryToken !== null) {
        if (!tokenMatches(token, queryToken)) throw new HttpError(401, 'INVALID_REQUEST', 'Unauthorized.');
      } else requireToken(req);
      wss.handleUpgrade(req, socket, head, (ws) => {
        clients.add(ws);
        ws.on('close', () => clients.delete(ws));
        ws.on('error', () => clients.delete(ws));
        ws.on('message', () => {}); // the stream is one-way; anything sent is ignored
      });
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500;
      if (!(e instanceof HttpError)) logger.error('Internal error on a WebSocket upgrade', e);
      if (socket.writable) socket.end(`HTTP/1.1 ${status} ${statusText(status)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      else socket.destroy();
    }
  });

  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', rejectListen);
      resolveListen();
    });
  });
  server.on('error', (e) => logger.error('HTTP host server error', e));
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    origin,
    url: `${origin}/?token=${token}`,
    close() {
      closing ??= new Promise<void>((done) => {
        unsubscribe();
        coalescer.dispose();
        for (const ws of clients) ws.terminate();
        clients.clear();
        wss.close();
        server.close(() => done());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** The request body, at most `limit` bytes (413 beyond, and the connection is closed). */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    res.setHeader('Connection', 'close');
    return Promise.reject(new HttpError(413, 'INVALID_REQUEST', `The request body exceeds ${limit} bytes.`));
  }
  return new Promise<Buffer>((done, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        res.setHeader('Connection', 'close');
        res.once('finish', () => req.destroy());
        reject(new HttpError(413, 'INVALID_REQUEST', `The request body exceeds ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!over) done(Buffer.concat(chunks));
    });
    req.on('error', (e) => reject(new HttpError(400, 'INVALID_REQUEST', `The request body could not be read: ${e.message}`)));
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { ...baseHeaders(), 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': text.length });
  res.end(text);
}

function baseHeaders(): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

function parseUrl(raw: string | undefined): URL {
  try {
    return new URL(raw ?? '/', 'http://127.0.0.1');
  } catch {
    throw new HttpError(400, 'INVALID_REQUEST', 'Bad request URL.');
  }
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function statusText(status: number): string {
  return ({ 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' } as Record<number, string>)[status] ?? 'Internal Server Error';
}
