/**
 * Every Kafka request the listeners of this process receive on some ports, as they arrive on the
 * socket: a test of what a client sends (how many Metadata, DescribeConfigs, … requests a read
 * costs the brokers). It watches new server sockets (node:diagnostics_channel
 * `net.server.socket`), splits their bytes into frames as the listener does and decodes each
 * request with the generated codecs; it only listens, so the listener's own reading is untouched.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import { FrameReader } from '../../../app/protocol/framing/frame-reader.js';
import { apiDefinition, readRequestHeader, requestHeaderVersion } from '../../../app/protocol/generated/index.js';
import { Reader } from '../../../app/protocol/runtime/index.js';

export interface TappedRequest {
  api: string;
  version: number;
  /** The decoded request body (the generated codec's shape). */
  body: unknown;
}

export interface RequestTap {
  /** Requests received since the tap started or was last cleared, in arrival order. */
  readonly requests: TappedRequest[];
  clear(): void;
  close(): void;
}

/** Tap the requests sent to listeners on `ports` (connections accepted from now on). */
export function tapRequests(ports: readonly number[]): RequestTap {
  const requests: TappedRequest[] = [];
  const watched = new Set(ports);
  const onSocket = (message: unknown): void => {
    const socket = (message as { socket: Socket }).socket;
    if (!watched.has(socket.localPort ?? -1)) return;
    const frames = new FrameReader(Number.MAX_SAFE_INTEGER);
    socket.on('data', (chunk: Buffer) => {
      for (const frame of frames.push(chunk).frames) {
        const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
        const def = apiDefinition(view.getInt16(0));
        const version = view.getInt16(2);
        if (!def) continue;
        const r = new Reader(frame);
        readRequestHeader(r, requestHeaderVersion(def, version));
        requests.push({ api: def.name, version, body: def.readRequest(r, version) });
      }
    });
  };
  subscribe('net.server.socket', onSocket);
  return {
    requests,
    clear: () => void requests.splice(0),
    close: () => void unsubscribe('net.server.socket', onSocket),
  };
}
