/**
 * One Kafka connection to a listener of `npm run serve`, speaking requests encoded by our
 * generated codecs (for the APIs no client library here sends: UpdateFeatures,
 * DescribeTopicPartitions, ApiVersions v4's feature fields). One request in flight at a time, as
 * the tests use it; every read is bounded by a timeout.
 */
import { connect, type Socket } from 'node:net';
import type { ApiKeyNumber, ApiMessages } from '../../app/protocol/generated/index.js';
import type { Init } from '../../app/protocol/runtime/index.js';
import { readResponse, requestFrame } from '../../app/protocol/test-support/frames.js';

export interface KafkaWire {
  send<K extends ApiKeyNumber>(apiKey: K, version: number, body: Init<ApiMessages[K]['request']>): Promise<ApiMessages[K]['response']>;
  close(): void;
}

/** Connect to `hostPort` (`127.0.0.1:9092`). */
export async function kafkaWire(hostPort: string, timeoutMs = 10_000): Promise<KafkaWire> {
  const [host, port] = hostPort.split(':');
  const socket: Socket = await new Promise((resolve, reject) => {
    const s = connect({ host: host!, port: Number(port) }, () => resolve(s));
    s.once('error', reject);
  });
  let buffered = Buffer.alloc(0);
  let waiting: ((frame: Buffer) => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    if (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0) && waiting) {
      const size = 4 + buffered.readInt32BE(0);
      const frame = buffered.subarray(0, size);
      buffered = buffered.subarray(size);
      const w = waiting;
      waiting = null;
      w(frame);
    }
  });
  let correlationId = 0;
  return {
    async send(apiKey, version, body) {
      const frame = await new Promise<Buffer>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer to API ${apiKey} v${version} in ${timeoutMs} ms`)), timeoutMs);
        waiting = (f) => {
          clearTimeout(timer);
          resolve(f);
        };
        socket.write(requestFrame(apiKey, version, body, { correlationId: ++correlationId, clientId: 'replica-studio-e2e' }));
      });
      const r = readResponse(apiKey, version, new Uint8Array(frame));
      if (r.correlationId !== correlationId) throw new Error(`correlation id ${r.correlationId}, expected ${correlationId}`);
      return r.body;
    },
    close: () => socket.destroy(),
  };
}
