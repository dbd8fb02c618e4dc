/**
 * The event stream: `GET /events` upgrades to a WebSocket whose every message is a JSON array of
 * engine events, in order: those of one turn of the host's event loop, at most EVENTS_PER_MESSAGE
 * (`main/events/event-batcher.ts`), high-watermark updates coalesced first (`main/events/event-coalescer.ts`). One message
 * per event made a browser handle each as a task of its own, and the tens of thousands of events of
 * a big cluster's controlled shutdown left the console's page far behind the cluster. The stream is
 * one-way;
 * anything a client sends is ignored. The upgrade passes the same checks as any request
 * (`http-auth.ts`), and a refused one is answered on the raw socket with its status. Only a
 * WebSocket upgrade is taken: a request offering another (h2c) is served over HTTP/1.1
 * (`upgrade-fallback.ts`).
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket } from 'ws';
import type { EngineEvent } from '../../app/api/contract.js';
import type { EngineService, ErrorLogger } from '../../app/api/service.js';
import type { HttpAuth } from './http-auth.js';
import { HttpError, parseUrl, statusText } from './http-common.js';
import { EventBatcher } from '../events/event-batcher.js';
import { EventCoalescer } from '../events/event-coalescer.js';
import { answerOverHttp1, isWebSocketUpgrade } from './upgrade-fallback.js';

/** A WebSocket client this far behind is dropped rather than buffered without end. */
const MAX_WS_BUFFERED = 8 * 1024 * 1024;

export interface EventStreamOptions {
  server: Server;
  service: Pick<EngineService, 'subscribe'>;
  auth: HttpAuth;
  /** Window of the highWatermark.advanced coalescing in ms. */
  windowMs: number;
  logger: ErrorLogger;
}

/** Serve `/events` on `server`; returns the function that closes every stream. */
export function attachEventStream({ server, service, auth, windowMs, logger }: EventStreamOptions): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false });
  const clients = new Set<WebSocket>();
  const broadcast = (events: EngineEvent[]): void => {
    if (clients.size === 0) return;
    const data = JSON.stringify(events);
    for (const ws of clients) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (ws.bufferedAmount > MAX_WS_BUFFERED) {
        ws.terminate(); // too slow to keep up: it reconnects and re-reads the state
        continue;
      }
      ws.send(data);
    }
  };
  const batcher = new EventBatcher({ send: broadcast });
  const coalescer = new EventCoalescer({ send: (event) => batcher.push(event), windowMs });
  const unsubscribe = service.subscribe((event) => {
    if (clients.size > 0) coalescer.push(event);
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Only /events upgrades, to a WebSocket; any other offer (h2c) is answered over HTTP/1.1.
    if (!isWebSocketUpgrade(req)) return answerOverHttp1(server, req, socket, head);
    socket.on('error', () => socket.destroy());
    try {
      auth.checkHostAndOrigin(req);
      const url = parseUrl(req);
      if (url.pathname !== '/events') throw new HttpError(404, 'INVALID_REQUEST', 'Not found.');
      auth.requireUpgradeToken(req, url);
      wss.handleUpgrade(req, socket, head, (ws) => {
        clients.add(ws);
        ws.on('close', () => clients.delete(ws));
        ws.on('error', () => clients.delete(ws));
        ws.on('message', () => {});
      });
    } catch (e) {
      const status = e instanceof HttpError ? e.status : 500;
      if (!(e instanceof HttpError)) logger.error('Internal error on a WebSocket upgrade', e);
      if (socket.writable) socket.end(`HTTP/1.1 ${status} ${statusText(status)}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      else socket.destroy();
    }
  });

  return () => {
    unsubscribe();
    coalescer.dispose();
    for (const ws of clients) ws.terminate();
    clients.clear();
    wss.close();
  };
}
