import { type Socket, connect } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../app/protocol/dispatcher.js';
import { ApiKey } from '../../app/protocol/generated/index.js';
import { readResponse, requestFrame } from '../../app/protocol/test-support/frames.js';
import { KafkaListener } from './kafka-listener.js';

const listeners: KafkaListener[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const l of listeners.splice(0)) await l.close();
});

async function start(options: Partial<Parameters<typeof KafkaListener.listen>[0]> = {}): Promise<KafkaListener> {
  const listener = await KafkaListener.listen({ dispatcher: createDispatcher([]), port: 0, ...options });
  listeners.push(listener);
  return listener;
}

/** A raw client socket: what it receives, and whether the broker closed it. */
async function client(port: number): Promise<{ socket: Socket; received: () => Buffer; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  return { socket, received: () => Buffer.concat(chunks), closed };
}

/** Polls until `check` holds, for at most `ms` of real time. */
async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('KafkaListener', () => {
  it('listens on 127.0.0.1 only and answers ApiVersions over TCP', async () => {
    const listener = await start();
    expect((listener as unknown as { server: { address(): { address: string } } }).server.address().address).toBe('127.0.0.1');
    const c = await client(listener.port);
    c.socket.write(requestFrame(ApiKey.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' }, { correlationId: 5 }));
    await until(() => c.received().length >= 4 && c.received().length >= c.received().readInt32BE(0) + 4);
    const { correlationId, body } = readResponse(ApiKey.ApiVersions, 3, new Uint8Array(c.received()));
    expect(correlationId).toBe(5);
    expect(body.apiKeys).toEqual([{ apiKey: 18, minVersion: 0, maxVersion: 4 }]);
  });

  it('closes a connection that sends a frame above socket.request.max.bytes, and keeps serving others', async () => {
    const reasons: string[] = [];
    const listener = await start({ maxFrameBytes: 1024, onConnectionClosed: (r) => reasons.push(r) });
    const bad = await client(listener.port);
    bad.socket.write(Buffer.from([0, 0, 0x10, 0]));
    await bad.closed;
    expect(reasons).toEqual(['invalid frame size 4096 (socket.request.max.bytes is 1024)']);
    const good = await client(listener.port);
    good.socket.write(requestFrame(ApiKey.ApiVersions, 0, {}));
    await until(() => good.received().length > 0);
  });

  it('refuses connections beyond max.connections', async () => {
    const listener = await start({ maxConnections: 2 });
    await client(listener.port);
    await client(listener.port);
    await until(() => listener.connectionCount === 2);
    const third = await client(listener.port);
    await third.closed;
    expect(listener.connectionCount).toBe(2);
  });

  it('drops every open connection when its broker dies, and refuses new ones once closed', async () => {
    const listener = await start();
    const c = await client(listener.port);
    await until(() => listener.connectionCount === 1);
    listener.dropConnections();
    await c.closed;
    const port = listener.port;
    await listener.close();
    listeners.splice(listeners.indexOf(listener), 1);
    await expect(client(port)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('survives random and mutated frames on live sockets, and still answers a well-behaved client', async () => {
    const listener = await start({ maxFrameBytes: 4096 });
    const valid = requestFrame(ApiKey.ApiVersions, 3, { clientSoftwareName: 'fuzz', clientSoftwareVersion: '1' });
    const frames = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })).map(([at, v]) => {
        const copy = Buffer.from(valid);
        copy[at] = v;
        return new Uint8Array(copy);
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(frames, { minLength: 1, maxLength: 5 }), async (chunks) => {
        const c = await client(listener.port);
        for (const chunk of chunks) c.socket.write(chunk);
        // Give the broker a moment, then leave; either side may have closed by now.
        await new Promise((resolve) => setTimeout(resolve, 5));
        c.socket.destroy();
      }),
      { numRuns: 60 },
    );
    const c = await client(listener.port);
    c.socket.write(valid);
    await until(() => c.received().length >= 4 && c.received().length >= c.received().readInt32BE(0) + 4);
    expect(readResponse(ApiKey.ApiVersions, 3, new Uint8Array(c.received())).body.errorCode).toBe(0);
  });
});
