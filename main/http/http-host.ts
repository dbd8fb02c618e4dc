/**
 * The headless host: the public contract over HTTP and the event stream over one WebSocket,
 * on 127.0.0.1 only. This file puts the parts together; each concern has its own file:
 *
 *   http-auth.ts     Host/Origin checks and the token (Bearer, cookie, `?token=` page load)
 *   http-api.ts      POST /api/<method> → the engine service → the result envelope
 *   http-events.ts   GET /events: the WebSocket event stream
 *   static-files.ts  GET /…: the console's files (the same rules as Electron's app://)
 *
 * Every request passes the checks of `http-auth.ts` first. No `Access-Control-Allow-Origin` is
 * ever sent, so other origins cannot read any answer. Every failure is a coded envelope; no
 * input can crash the process.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { ErrorView } from '../../app/api/errors.js';
import type { EngineService, ErrorLogger } from '../../app/api/service.js';
import { handleApiCall } from './http-api.js';
import { createHttpAuth } from './http-auth.js';
import { HttpError, parseUrl, sendJson } from './http-common.js';
import { attachEventStream } from './http-events.js';
import { contentSecurityPolicy, securityHeaders, serveStatic } from './static-files.js';

export interface HttpHostOptions {
  service: EngineService;
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
  logger?: ErrorLogger;
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
/** The most `close()` waits for the server to report every connection gone. */
const CLOSE_GRACE_MS = 2_000;

const PLACEHOLDER = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Replica Studio</title></head>
<body><h1>Replica Studio</h1>
<p>The headless host is running. The browser UI is not built yet; the HTTP API is at
<code>POST /api/&lt;method&gt;</code> and events stream on the WebSocket <code>/events</code>.</p>
</body></html>
`;

const defaultLogger: ErrorLogger = { error: (message, error) => console.error(message, error) };

/** Start the host; resolves once it listens. */
export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const { service } = options;
  if ((options.host ?? '127.0.0.1') !== '127.0.0.1') throw new Error('The host binds 127.0.0.1 only.');
  const logger = options.logger ?? defaultLogger;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const site = { root: options.staticDir, placeholder: PLACEHOLDER };
  let port = 0; // known once listening; every check reads it then
  const auth = createHttpAuth(options.token, () => port);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    auth.checkHostAndOrigin(req);
    const url = parseUrl(req);
    if (auth.tradeQueryToken(req, res, url)) return;
    auth.requireToken(req);
    if (url.pathname.startsWith('/api/')) return handleApiCall(req, res, url.pathname.slice('/api/'.length), service, maxBody);
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'INVALID_REQUEST', `Method ${req.method ?? ''} not allowed here.`);
    const answer = await serveStatic(site, url.pathname);
    if (!answer.ok) throw new HttpError(answer.status, 'INVALID_REQUEST', answer.message);
    const csp = contentSecurityPolicy([`ws://127.0.0.1:${port}`, `ws://localhost:${port}`]);
    res.writeHead(200, { ...securityHeaders(csp), 'Content-Type': answer.type, 'Content-Length': answer.body.length });
    res.end(req.method === 'HEAD' ? undefined : answer.body);
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
  const closeEvents = attachEventStream({ server, service, auth, windowMs: options.eventWindowMs ?? 100, logger });
  // Every socket, upgraded ones included (the server stops tracking those): close() ends them all.
  const sockets = new Set<Duplex>();
  server.on('connection', (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  try {
    await new Promise<void>((resolveListen, rejectListen) => {
      server.once('error', rejectListen);
      server.listen(options.port, '127.0.0.1', () => {
        server.off('error', rejectListen);
        resolveListen();
      });
    });
  } catch (e) {
    closeEvents();
    throw e;
  }
  server.on('error', (e) => logger.error('HTTP host server error', e));
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  let closing: Promise<void> | undefined;
  return {
    server,
    port,
    origin,
    url: `${origin}/?token=${options.token}`,
    /** Stops listening and ends every connection, whatever state it is in: done within CLOSE_GRACE_MS. */
    close() {
      closing ??= new Promise<void>((done) => {
        const grace = setTimeout(done, CLOSE_GRACE_MS);
        closeEvents();
        server.close(() => {
          clearTimeout(grace);
          done();
        });
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
