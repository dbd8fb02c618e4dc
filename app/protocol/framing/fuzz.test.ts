/**
 * Random and mutated frames thrown at a connection whose dispatcher serves every API in every
 * version its messages have: whatever arrives, nothing throws out of receive(), every request
 * ends in a well-formed response frame, no frame, or one close, and the connection goes idle
 * within a bounded time (no hang).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDispatcher } from '../dispatcher.js';
import { type ApiHandler } from '../api-handler.js';
import { API_DEFINITIONS, type ApiKeyNumber, apiDefinition, requestHeaderVersion, writeRequestHeader } from '../generated/index.js';
import { Writer } from '../runtime/index.js';
import { concat } from '../test-support/frames.js';
import { messages, struct } from '../test-support/schema-arbitrary.js';
import { ClientChannel } from './client-channel.js';

const everyApi: ApiHandler[] = Object.values(API_DEFINITIONS)
  .filter((def) => def.apiKey !== 18)
  .map((def) => ({
    apiKey: def.apiKey as ApiKeyNumber,
    advertised: [def.lowest, def.highest] as const,
    handle: () => ({}),
    errorResponse: () => ({}),
  }));

/** A valid request frame of a random API, version and body. */
const validFrame: fc.Arbitrary<Uint8Array> = fc
  .constantFrom(...messages.filter((m) => m.type === 'request'))
  .chain((m) => fc.integer({ min: m.valid.lo, max: m.valid.hi }).chain((v) => fc.tuple(fc.constant(m), fc.constant(v), struct(m.fields, v), fc.integer())))
  .map(([m, v, body, correlationId]) => {
    const def = apiDefinition(m.apiKey!)!;
    const w = new Writer();
    const setSize = w.reserveInt32();
    writeRequestHeader(w, requestHeaderVersion(def, v), { requestApiKey: def.apiKey, requestApiVersion: v, correlationId, clientId: 'fuzz' });
    def.writeRequest(w, v, body as never);
    setSize(w.length - 4);
    return w.toBytes();
  });

/** Mutations: flip bytes, cut, splice random bytes in, rewrite the size or the header. */
const mutated: fc.Arbitrary<Uint8Array> = fc
  .tuple(validFrame, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'cut', 'insert')), { minLength: 1, maxLength: 4 }))
  .map(([frame, edits]) => {
    let bytes = [...frame];
    for (const [at, value, kind] of edits) {
      const i = bytes.length ? at % bytes.length : 0;
      if (kind === 'set') bytes[i] = value;
      else if (kind === 'cut') bytes = bytes.slice(0, i);
      else bytes.splice(i, 0, value);
    }
    return Uint8Array.from(bytes);
  });

const randomBytes = fc.uint8Array({ maxLength: 300 });
/** Random bytes behind a size prefix that matches them, so they reach the dispatcher. */
const framedRandom = fc.uint8Array({ maxLength: 300 }).map((b) => {
  const out = new Uint8Array(b.length + 4);
  new DataView(out.buffer).setInt32(0, b.length);
  out.set(b, 4);
  return out;
});

async function run(chunks: Uint8Array[]): Promise<{ written: Uint8Array[]; closes: string[] }> {
  const written: Uint8Array[] = [];
  const closes: string[] = [];
  const conn = new ClientChannel(createDispatcher(everyApi, { onHandlerError: () => undefined }), {
    write: (parts) => void written.push(concat(parts)),
    close: (reason) => void closes.push(reason),
  }, { maxFrameBytes: 4096 });
  for (const chunk of chunks) expect(() => conn.receive(chunk)).not.toThrow();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), 2000)));
  expect(await Promise.race([conn.idle().then(() => 'idle' as const), hung])).toBe('idle');
  clearTimeout(timer);
  expect(closes.length).toBeLessThanOrEqual(1);
  for (const frame of written) {
    expect(new DataView(frame.buffer, frame.byteOffset).getInt32(0)).toBe(frame.length - 4);
  }
  return { written, closes };
}

describe('the request path under fuzzed input', () => {
  it('survives valid frames of every API and version (and answers each)', async () => {
    await fc.assert(
      fc.asyncProperty(validFrame, async (frame) => {
        const { written, closes } = await run([frame]);
        // Frames over the test's 4096-byte limit are closed on, as Kafka does.
        if (frame.length - 4 <= 4096) expect({ answered: written.length, closes }).toEqual({ answered: 1, closes: [] });
      }),
      { numRuns: 300 },
    );
  });

  it('survives mutated frames', async () => {
    await fc.assert(fc.asyncProperty(fc.array(mutated, { minLength: 1, maxLength: 4 }), async (frames) => void (await run(frames))), { numRuns: 400 });
  });

  it('survives random bytes, framed or not, in random chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(randomBytes, framedRandom, mutated), { minLength: 1, maxLength: 6 }), async (chunks) => void (await run(chunks))),
      { numRuns: 400 },
    );
  });
});
