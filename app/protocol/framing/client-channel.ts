/**
 * One client's channel (Kafka's KafkaChannel: a TCP connection as the broker sees it) without the
 * socket: bytes in, response frames out, strictly in request order. Like Kafka's Processor,
 * which mutes a channel while its request is being handled, it handles one request at a time, so
 * responses leave in the order the requests came (a Metadata request pipelined after an acks=all
 * Produce waits for it) and one connection cannot occupy more than one handler.
 *
 * Bounds: the frame reader holds at most one frame's worth of unread bytes beyond what is queued
 * (socket.request.max.bytes); when the queued requests reach `maxQueuedBytes` or
 * `maxQueuedRequests` the connection asks its socket to pause reading, and resumes it once
 * drained; and when the socket cannot take a response (a client that does not read), the next
 * request waits until the socket drains, so a slow reader cannot make the broker buffer without
 * limit either. A quota's throttle mutes the channel as Kafka's does: no request is read until
 * it is over (after the response when the client throttles itself, before it otherwise).
 * receive() never throws; a close is final and reported once.
 */
import type { Dispatcher } from '../dispatcher.js';
import { FrameReader } from './frame-reader.js';

/** The socket side: main/kafka implements it over node:net; tests over arrays. */
export interface ClientChannelSink {
  /** Sends a response; false when the socket's buffer is full (then call drained() later). */
  write(parts: Uint8Array[]): boolean | void;
  /** Close the socket; `reason` is for logs. */
  close(reason: string): void;
  pause?(): void;
  resume?(): void;
  /** Resolves after `ms` (a quota's throttle; the channel reads no request meanwhile). Without it, throttles are ignored. */
  mute?(ms: number): Promise<void>;
}

export interface ClientChannelLimits {
  /** socket.request.max.bytes: a larger frame closes the connection. */
  maxFrameBytes: number;
  maxQueuedRequests?: number;
  maxQueuedBytes?: number;
}

export const DEFAULT_SOCKET_REQUEST_MAX_BYTES = 104_857_600;

export class ClientChannel {
  private readonly reader: FrameReader;
  private readonly queue: Uint8Array[] = [];
  private queuedBytes = 0;
  private pumping = false;
  private pumped: Promise<void> = Promise.resolve();
  /** Set while a response waits in a full socket buffer. */
  private draining: { promise: Promise<void>; resolve: () => void } | null = null;
  private paused = false;
  private closedReason: string | null = null;
  private readonly maxQueuedRequests: number;
  private readonly maxQueuedBytes: number;

  constructor(
    private readonly dispatcher: Pick<Dispatcher, 'dispatch'>,
    private readonly sink: ClientChannelSink,
    limits: ClientChannelLimits = { maxFrameBytes: DEFAULT_SOCKET_REQUEST_MAX_BYTES },
  ) {
    this.reader = new FrameReader(limits.maxFrameBytes);
    this.maxQueuedRequests = limits.maxQueuedRequests ?? 64;
    this.maxQueuedBytes = limits.maxQueuedBytes ?? limits.maxFrameBytes;
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  /** Bytes from the socket. */
  receive(chunk: Uint8Array): void {
    if (this.closedReason !== null) return;
    const result = this.reader.push(chunk);
    for (const frame of result.frames) {
      this.queue.push(frame);
      this.queuedBytes += frame.length;
    }
    if ('error' in result) {
      // Kafka closes on an invalid size at once, without answering what came before it.
      this.close(result.error);
      return;
    }
    this.applyBackpressure();
    if (!this.pumping) this.pumped = this.pump();
  }

  /** The socket took everything written so far: the next request may be handled. */
  drained(): void {
    const d = this.draining;
    this.draining = null;
    d?.resolve();
  }

  /** The client went away: drop what is queued. */
  close(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.drained();
    try {
      this.sink.close(reason);
    } catch {
      // The socket is gone either way.
    }
  }

  /** Resolves once every queued request has been answered (for tests and orderly shutdown). */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumped;
  }

  private applyBackpressure(): void {
    const full = this.queue.length >= this.maxQueuedRequests || this.queuedBytes + this.reader.bufferedBytes >= this.maxQueuedBytes;
    if (full && !this.paused) {
      this.paused = true;
      this.sink.pause?.();
    } else if (!full && this.paused) {
      this.paused = false;
      this.sink.resume?.();
    }
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      while (this.queue.length > 0 && this.closedReason === null) {
        const frame = this.queue.shift()!;
        this.queuedBytes -= frame.length;
        const outcome = await this.dispatcher.dispatch(frame);
        if (this.closedReason !== null) break;
        const throttle = outcome.kind === 'close' ? undefined : outcome.throttle;
        // A client that does not throttle itself gets its response only after the throttle (KIP-219).
        if (throttle && !throttle.clientThrottles && this.sink.mute) await this.sink.mute(throttle.ms);
        if (this.closedReason !== null) break;
        if (outcome.kind === 'close') this.close(outcome.reason);
        else if (outcome.kind === 'respond' && this.sink.write(outcome.parts) === false) {
          let resolve!: () => void;
          const promise = new Promise<void>((r) => (resolve = r));
          this.draining = { promise, resolve };
          await promise;
        }
        // Muted: the next request waits until the throttle is over (Kafka mutes the channel).
        if (throttle?.clientThrottles && this.sink.mute) await this.sink.mute(throttle.ms);
        this.applyBackpressure();
      }
    } catch (e) {
      this.close(`connection failed: ${(e as Error).message}`);
    } finally {
      this.pumping = false;
    }
  }
}
