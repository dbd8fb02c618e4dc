/**
 * One broker's Kafka listener: a TCP server on 127.0.0.1 whose connections are
 * {@link ClientChannel}s over one shared {@link Dispatcher} (the protocol itself is pure, in
 * app/protocol; this file is only the socket side). Runs in the engine's process, so a request
 * crosses no extra process hop.
 *
 * Bounds: at most `maxConnections` sockets (Kafka's max.connections; further ones are closed on
 * arrival), new connections per second per client address (`admit`: the ip quota entities'
 * connection_creation_rate), frames up to `socket.request.max.bytes`, reading paused while requests queue and
 * requests held back while a response waits in a full socket buffer. It binds 127.0.0.1 unless
 * the host was told another address (`serve --bind`).
 *
 * `dropConnections()` is what a killed or isolated broker looks like to clients: every open
 * socket is reset at once; `close()` also stops listening, so new connections are refused.
 */
import type { Server, Socket } from 'node:net';
import type { Dispatcher } from '../../app/protocol/dispatcher.js';
import { ClientChannel, DEFAULT_SOCKET_REQUEST_MAX_BYTES } from '../../app/protocol/framing/client-channel.js';
import { clientHostOf, connectionDispatcher, connectionSession, createListenerServer, type ListenerSecurity } from './listener-security.js';
import type { PrincipalMapper } from './principal-mapper.js';
import type { SaslServerConfig } from './sasl-gate.js';

export interface KafkaListenerOptions {
  dispatcher: Pick<Dispatcher, 'dispatch'>;
  /** 0 takes a free port. */
  port: number;
  /** max.connections for this listener (default 1000). */
  maxConnections?: number;
  /** socket.request.max.bytes (default 104857600). */
  maxFrameBytes?: number;
  /** Told why a connection was closed by the broker (malformed frames, refused versions). */
  onConnectionClosed?: (reason: string) => void;
  /** TLS and/or SASL (listener-security.ts); absent: PLAINTEXT. */
  security?: ListenerSecurity;
  /** The address to listen on (default LOOPBACK; `serve --bind`). */
  host?: string;
  /** Where the SASL gate finds credentials (the broker's metadata); default: the security's users. */
  sasl?: SaslServerConfig;
  /** ssl.principal.mapping.rules, for the principal of a client certificate. */
  principalMapper?: PrincipalMapper;
  /** Wraps every request of every connection (main/kafka/request-time.ts measures the request-time quota's time in it). */
  aroundRequest?: <T>(run: () => T) => T;
  /**
   * A new connection from an address: 0 accepts it, more is the per-IP connection creation rate
   * quota's throttle — the connection is held unread that long, then closed, as Kafka's acceptor does.
   */
  admit?: (clientHost: string) => number;
}

export const LOOPBACK = '127.0.0.1';

export class KafkaListener {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  private constructor(options: KafkaListenerOptions) {
    this.server = createListenerServer(options.security, (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      const throttleMs = options.admit?.(clientHostOf(socket)) ?? 0;
      if (throttleMs > 0) return holdThenClose(socket, throttleMs, options);
      serve(socket, options);
    });
    this.server.maxConnections = options.maxConnections ?? 1000;
  }

  static async listen(options: KafkaListenerOptions): Promise<KafkaListener> {
    const listener = new KafkaListener(options);
    const { server } = listener;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host ?? LOOPBACK, () => {
        server.off('error', reject);
        resolve();
      });
    });
    return listener;
  }

  /** The port it listens on. */
  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the Kafka listener is not listening');
    return address.port;
  }

  /** Open connections right now. */
  get connectionCount(): number {
    return this.sockets.size;
  }

  /** max.connections changed (a dynamic broker config): applies to connections from now on. */
  setMaxConnections(max: number): void {
    this.server.maxConnections = max;
  }

  /** Resets every open connection (a killed or isolated broker); keeps listening. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.resetAndDestroy();
    this.sockets.clear();
  }

  /** Stops listening and drops every connection. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.dropConnections();
    await closed;
  }
}

/** A throttled connection: nothing read or answered, closed once its throttle is over. */
function holdThenClose(socket: Socket, throttleMs: number, options: KafkaListenerOptions): void {
  socket.pause();
  socket.on('error', () => socket.destroy());
  setTimeout(() => {
    if (socket.destroyed) return;
    options.onConnectionClosed?.(`connection creation rate quota of ${clientHostOf(socket)} exceeded: closed after ${throttleMs} ms`);
    socket.destroy();
  }, throttleMs).unref();
}

function serve(socket: Socket, options: KafkaListenerOptions): void {
  let session;
  try {
    session = connectionSession(socket, options.security, options.principalMapper);
  } catch (e) {
    options.onConnectionClosed?.(`failed to map the client certificate's name: ${(e as Error).message}`);
    socket.destroy();
    return;
  }
  const gated = connectionDispatcher(options.dispatcher, options.sasl ?? options.security?.sasl, session);
  const around = options.aroundRequest;
  const channel = new ClientChannel(
    around ? { dispatch: (frame) => around(() => gated.dispatch(frame)) } : gated,
    {
      write: (parts) => {
        if (parts.length === 1) return socket.write(parts[0]!);
        // One write of the whole response (writev), not a system call per part.
        socket.cork();
        let ok = true;
        for (const part of parts) ok = socket.write(part);
        socket.uncork();
        return ok;
      },
      close: (reason) => {
        if (socket.destroyed) return; // the client went first
        options.onConnectionClosed?.(reason);
        socket.destroy();
      },
      pause: () => socket.pause(),
      resume: () => socket.resume(),
      // A quota's throttle: the channel handles nothing meanwhile (what arrives queues, and its
      // backpressure pauses the socket once the queue is full).
      mute: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()),
    },
    { maxFrameBytes: options.maxFrameBytes ?? DEFAULT_SOCKET_REQUEST_MAX_BYTES },
  );
  socket.on('data', (chunk: Buffer) => channel.receive(chunk));
  socket.on('drain', () => channel.drained());
  // A client that goes away mid-request: drop its queue; nothing is written to a dead socket.
  socket.on('close', () => channel.close('the client closed the connection'));
  socket.on('error', () => socket.destroy());
}
