/**
 * A bare Kafka client over a TCP socket for host tests: send frames (built with our codecs, or
 * any bytes), read whole response frames back, and see whether the broker closed the connection.
 * Everything is bounded in time.
 */
import { connect, type Socket } from 'node:net';
import type { ApiKeyNumber, ApiMessages } from '../../../app/protocol/generated/index.js';
import type { Init } from '../../../app/protocol/runtime/index.js';
import { readResponse, requestFrame } from '../../../app/protocol/test-support/frames.js';

export class RawKafkaClient {
  private buffered = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  private correlation = 1;
  /** Resolves when the connection is closed (by either side). */
  readonly closed: Promise<void>;
  isClosed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiting?.();
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.isClosed = true;
        this.waiting?.();
        resolve();
      }),
    );
  }

  /** Connect, or reject (ECONNREFUSED for a broker that is down) within `ms`. */
  static connect(port: number, ms = 5_000): Promise<RawKafkaClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no connection to ${port} within ${ms} ms`));
      }, ms);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new RawKafkaClient(socket));
      });
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  }

  write(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The next whole response frame, or null if none arrives within `ms` (or the connection closed). */
  async nextFrame(ms = 5_000): Promise<Buffer | null> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (this.buffered.length >= 4) {
        const size = this.buffered.readInt32BE(0);
        if (this.buffered.length >= 4 + size) {
          const frame = this.buffered.subarray(0, 4 + size);
          this.buffered = this.buffered.subarray(4 + size);
          return frame;
        }
      }
      if (this.isClosed || Date.now() >= deadline) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiting = null;
    }
  }

  /** Send a request and read its response (null when none came within `ms`). */
  async request<K extends ApiKeyNumber>(apiKey: K, version: number, body: Init<ApiMessages[K]['request']>, ms = 5_000): Promise<ApiMessages[K]['response'] | null> {
    const correlationId = this.correlation++;
    this.write(requestFrame(apiKey, version, body, { correlationId, clientId: 'raw-test' }));
    const frame = await this.nextFrame(ms);
    if (!frame) return null;
    const r = readResponse(apiKey, version, frame);
    if (r.correlationId !== correlationId) throw new Error(`correlation id ${r.correlationId}, expected ${correlationId}`);
    return r.body;
  }

  close(): void {
    this.socket.destroy();
  }
}
