/**
 * Requests that offer an upgrade the host does not do — `Upgrade: h2c`, sent by Java's HttpClient
 * (HTTP/2 is its default) and `curl --http2` — answered as the HTTP/1.1 requests they also are.
 * RFC 9110 §7.8 lets a server ignore Upgrade; Node's server hands every request with one to the
 * 'upgrade' listener (the event stream's, `http-events.ts`) instead, so such a request would get
 * the WebSocket path's 404 and a script's `brokers.kill` would silently do nothing.
 *
 * How: the request's head is written again without its upgrade headers, put back in front of
 * what the socket had already read past it (the body's start), and the socket is handed to the
 * server as a new connection, whose HTTP/1.1 parser reads the request (body included) and any that
 * follow on it, as for any connection.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** Whether this is the one upgrade the host does: a WebSocket. */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  return (req.headers.upgrade ?? '').toLowerCase().split(',').some((p) => p.trim() === 'websocket');
}

const UPGRADE_TOKENS = new Set(['upgrade', 'http2-settings']);

/** The request's head without Upgrade, HTTP2-Settings and their Connection tokens. */
function headWithoutUpgrade(req: IncomingMessage): Buffer {
  const lines = [`${req.method ?? 'GET'} ${req.url ?? '/'} HTTP/${req.httpVersion}`];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    const lower = name.toLowerCase();
    if (UPGRADE_TOKENS.has(lower)) continue;
    if (lower === 'connection') {
      const kept = value.split(',').map((t) => t.trim()).filter((t) => t !== '' && !UPGRADE_TOKENS.has(t.toLowerCase()));
      if (kept.length > 0) lines.push(`${name}: ${kept.join(', ')}`);
      continue;
    }
    lines.push(`${name}: ${value}`);
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** Serve `req` over HTTP/1.1 on its own socket, as if it had offered no upgrade. */
export function answerOverHttp1(server: Server, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  socket.unshift(Buffer.concat([headWithoutUpgrade(req), head]));
  server.emit('connection', socket as Socket);
}
