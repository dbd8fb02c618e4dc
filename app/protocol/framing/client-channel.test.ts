import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../dispatcher.js';
import { type ApiHandler } from '../api-handler.js';
import { ApiKey } from '../generated/index.js';
import { concat, readResponse, requestFrame } from '../test-support/frames.js';
import { type ClientChannelSink, ClientChannel } from './client-channel.js';

class RecordingSink implements ClientChannelSink {
  frames: Uint8Array[] = [];
  closes: string[] = [];
  pauses = 0;
  resumes = 0;
  write(parts: Uint8Array[]): void {
    this.frames.push(concat(parts));
  }
  close(reason: string): void {
    this.closes.push(reason);
  }
  pause(): void {
    this.pauses++;
  }
  resume(): void {
    this.resumes++;
  }
}

/** A Metadata handler whose answers wait until released, to pipeline requests behind it. */
function gatedMetadata() {
  const gates: (() => void)[] = [];
  const handler: ApiHandler<typeof ApiKey.Metadata> = {
    apiKey: ApiKey.Metadata,
    advertised: [0, 8],
    handle: async (request) => {
      if (request.topics?.[0]?.name === 'slow') await new Promise<void>((resolve) => gates.push(resolve));
      if (request.topics?.[0]?.name === 'quiet') return null;
      return { topics: (request.topics ?? []).map((t) => ({ name: t.name })) };
    },
    errorResponse: () => ({}),
  };
  return { handler, release: () => gates.splice(0).forEach((g) => g()) };
}

const correlationIds = (sink: RecordingSink): number[] => sink.frames.map((f) => new DataView(f.buffer, f.byteOffset).getInt32(4));

describe('ClientChannel', () => {
  it('answers pipelined requests in the order they came, even when the first one waits', async () => {
    const { handler, release } = gatedMetadata();
    const sink = new RecordingSink();
    const conn = new ClientChannel(createDispatcher([handler]), sink);
    const slow = requestFrame(ApiKey.Metadata, 4, { topics: [{ name: 'slow' }] }, { correlationId: 1 });
    const fast = requestFrame(ApiKey.ApiVersions, 2, {}, { correlationId: 2 });
    conn.receive(concat([slow, fast]));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sink.frames).toEqual([]);
    release();
    await conn.idle();
    expect(correlationIds(sink)).toEqual([1, 2]);
    expect(readResponse(ApiKey.Metadata, 4, sink.frames[0]!).body.topics[0]!.name).toBe('slow');
  });

  it('writes no frame for a request answered with nothing (acks=0) and carries on', async () => {
    const { handler } = gatedMetadata();
    const sink = new RecordingSink();
    const conn = new ClientChannel(createDispatcher([handler]), sink);
    conn.receive(requestFrame(ApiKey.Metadata, 1, { topics: [{ name: 'quiet' }] }, { correlationId: 5 }));
    conn.receive(requestFrame(ApiKey.Metadata, 1, { topics: [{ name: 'a' }] }, { correlationId: 6 }));
    await conn.idle();
    expect(correlationIds(sink)).toEqual([6]);
  });

  it('accepts a request cut into single bytes', async () => {
    const sink = new RecordingSink();
    const conn = new ClientChannel(createDispatcher([]), sink);
    for (const b of requestFrame(ApiKey.ApiVersions, 3, { clientSoftwareName: 'a', clientSoftwareVersion: '1' }, { correlationId: 8 })) {
      conn.receive(Uint8Array.of(b));
    }
    await conn.idle();
    expect(correlationIds(sink)).toEqual([8]);
  });

  it('closes once on a frame above socket.request.max.bytes and ignores everything after', async () => {
    const sink = new RecordingSink();
    const conn = new ClientChannel(createDispatcher([]), sink, { maxFrameBytes: 64 });
    conn.receive(Uint8Array.of(0, 0, 0, 65));
    conn.receive(requestFrame(ApiKey.ApiVersions, 2, {}));
    await conn.idle();
    expect(sink.closes).toEqual(['invalid frame size 65 (socket.request.max.bytes is 64)']);
    expect(sink.frames).toEqual([]);
    expect(conn.closed).toBe(true);
  });

  it('closes on a request the dispatcher refuses, without answering the requests behind it', async () => {
    const sink = new RecordingSink();
    const conn = new ClientChannel(createDispatcher([]), sink);
    conn.receive(concat([requestFrame(ApiKey.Produce, 7, {}), requestFrame(ApiKey.ApiVersions, 2, {})]));
    await conn.idle();
    expect(sink.closes).toEqual(['Produce v7 is not enabled']);
    expect(sink.frames).toEqual([]);
  });

  it('handles the next request only once a full socket buffer has drained (a client that does not read)', async () => {
    const sink = new RecordingSink();
    let full = true;
    sink.write = function (parts) {
      this.frames.push(concat(parts));
      return !full;
    };
    const conn = new ClientChannel(createDispatcher([]), sink);
    conn.receive(concat([1, 2, 3].map((id) => requestFrame(ApiKey.ApiVersions, 2, {}, { correlationId: id }))));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(correlationIds(sink)).toEqual([1]);
    full = false;
    conn.drained();
    await conn.idle();
    expect(correlationIds(sink)).toEqual([1, 2, 3]);
  });

  it('asks the socket to pause while too many requests wait, and to resume once they are answered', async () => {
    const { handler, release } = gatedMetadata();
    const sink = new RecordingSink();
    const conn = new ClientChannel(createDispatcher([handler]), sink, { maxFrameBytes: 1 << 20, maxQueuedRequests: 2 });
    conn.receive(requestFrame(ApiKey.Metadata, 1, { topics: [{ name: 'slow' }] }, { correlationId: 1 }));
    for (let i = 2; i <= 4; i++) conn.receive(requestFrame(ApiKey.ApiVersions, 2, {}, { correlationId: i }));
    expect(sink.pauses).toBe(1);
    release();
    await conn.idle();
    expect(sink.resumes).toBe(1);
    expect(correlationIds(sink)).toEqual([1, 2, 3, 4]);
  });
});
