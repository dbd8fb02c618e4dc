import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createDispatcher } from './dispatcher.js';
import { type ApiHandler } from './api-handler.js';
import { ApiKey } from './generated/index.js';
import { ADVERTISED_VERSIONS } from './handlers/api-versions.js';
import { concat, readResponse, requestFrame } from './test-support/frames.js';

/** The frame without its size prefix, as the dispatcher gets it from the frame reader. */
const payload = (frame: Uint8Array): Uint8Array => frame.subarray(4);

/** A Metadata handler that answers with the topics asked for, to watch the dispatcher. */
function metadataProbe(overrides: Partial<ApiHandler<typeof ApiKey.Metadata>> = {}): ApiHandler<typeof ApiKey.Metadata> {
  return {
    apiKey: ApiKey.Metadata,
    advertised: [0, 8],
    handle: (request) => ({ topics: (request.topics ?? []).map((t) => ({ name: t.name, errorCode: 0 })) }),
    errorResponse: (request, code) => ({ topics: (request.topics ?? []).map((t) => ({ name: t.name, errorCode: code })) }),
    ...overrides,
  };
}

describe('Dispatcher: ApiVersions', () => {
  it('advertises exactly the APIs it has handlers for, with the ranges of docs/kafka-compatibility.md#apis-and-versions', async () => {
    const d = createDispatcher([metadataProbe()]);
    const outcome = await d.dispatch(payload(requestFrame(ApiKey.ApiVersions, 2, {}, { correlationId: 9 })));
    expect(outcome.kind).toBe('respond');
    if (outcome.kind !== 'respond') return;
    const { correlationId, body } = readResponse(ApiKey.ApiVersions, 2, outcome.parts);
    expect(correlationId).toBe(9);
    expect(body.errorCode).toBe(0);
    expect(body.apiKeys).toEqual([
      { apiKey: 3, minVersion: 0, maxVersion: 8 },
      { apiKey: 18, minVersion: 0, maxVersion: 4 },
    ]);
  });

  it('answers v3 with a flexible body behind a v0 response header (KIP-511): the bytes of a one-API broker', async () => {
    const d = createDispatcher([]);
    const frame = requestFrame(ApiKey.ApiVersions, 3, { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' }, { correlationId: 7 });
    const outcome = await d.dispatch(payload(frame));
    if (outcome.kind !== 'respond') throw new Error(outcome.kind);
    // size 19 | correlation id | error 0 | compact array of 1 | key 18, 0, 4, no tags | throttle 0 | no tags
    expect([...concat(outcome.parts)]).toEqual([0, 0, 0, 19, 0, 0, 0, 7, 0, 0, 2, 0, 18, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0]);
  });

  it('answers a version it does not know with error 35 in a v0 body listing its own range, so the client retries lower', async () => {
    const d = createDispatcher([metadataProbe()]);
    // A v5 request from a future client: header v2, a body we cannot know.
    const frame = requestFrame(ApiKey.ApiVersions, 4, { clientSoftwareName: 'x', clientSoftwareVersion: '1' }, { correlationId: 11 });
    new DataView(frame.buffer).setInt16(6, 5);
    const outcome = await d.dispatch(payload(frame));
    if (outcome.kind !== 'respond') throw new Error(outcome.kind);
    const { correlationId, body } = readResponse(ApiKey.ApiVersions, 0, outcome.parts);
    expect(correlationId).toBe(11);
    expect(body).toMatchObject({ errorCode: 35, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }] });
    // size, correlation id, then the v0 body only: error, int32 count 1, one entry. No tags.
    expect(concat(outcome.parts).length).toBe(4 + 4 + 2 + 4 + 6);
  });

  it('refuses client software names outside Kafka pattern with INVALID_REQUEST', async () => {
    const d = createDispatcher([]);
    const outcome = await d.dispatch(payload(requestFrame(ApiKey.ApiVersions, 3, { clientSoftwareName: 'bad name!', clientSoftwareVersion: '1' })));
    if (outcome.kind !== 'respond') throw new Error(outcome.kind);
    expect(readResponse(ApiKey.ApiVersions, 3, outcome.parts).body).toMatchObject({ errorCode: 42, apiKeys: [] });
  });

  it('never advertises SASL or KIP-848 groups, advertises WriteTxnMarkers 0-1 (Admin.abortTransaction, KIP-664) and the client transaction APIs below KIP-890 part 2, and Produce from v0', () => {
    // DescribeCluster (60) is served since issue 14 (admin APIs).
    for (const key of [17, 36, 68]) expect(ADVERTISED_VERSIONS[key]).toBeUndefined();
    expect(ADVERTISED_VERSIONS[ApiKey.WriteTxnMarkers]).toEqual([0, 1]);
    for (const key of [24, 25, 26, 28]) expect(ADVERTISED_VERSIONS[key]).toEqual([0, 3]);
    expect(ADVERTISED_VERSIONS[ApiKey.InitProducerId]).toEqual([0, 4]);
    expect(ADVERTISED_VERSIONS[ApiKey.Produce]).toEqual([0, 8]);
    expect(ADVERTISED_VERSIONS[ApiKey.Fetch]).toEqual([0, 11]);
  });

  it('answers ApiVersions v2 in a form kafkajs 2.2.4 decodes', async () => {
    const require = createRequire(import.meta.url);
    const request = (require('kafkajs/src/protocol/requests/apiVersions/v2/request.js') as () => { encode(): Promise<unknown> })();
    const frameOf = require('kafkajs/src/protocol/request.js') as (a: unknown) => Promise<{ buffer: Buffer }>;
    const { buffer } = await frameOf({ correlationId: 3, clientId: 'kafkajs', request });
    const outcome = await createDispatcher([metadataProbe()]).dispatch(new Uint8Array(buffer.subarray(4)));
    if (outcome.kind !== 'respond') throw new Error(outcome.kind);
    const bytes = Buffer.from(concat(outcome.parts));
    expect(bytes.readInt32BE(4)).toBe(3);
    const { decode } = require('kafkajs/src/protocol/requests/apiVersions/v2/response.js') as { decode(b: Buffer): Promise<{ apiVersions: unknown }> };
    expect((await decode(bytes.subarray(8))).apiVersions).toContainEqual({ apiKey: 3, minVersion: 0, maxVersion: 8 });
  });
});

describe('Dispatcher: what Kafka closes the connection for', () => {
  const d = createDispatcher([metadataProbe()]);
  const outcomeOf = (frame: Uint8Array) => d.dispatch(frame);

  it('a frame too short for a request header', async () => {
    expect(await outcomeOf(Uint8Array.from([0, 3, 0]))).toMatchObject({ kind: 'close' });
  });

  it('an unknown API key', async () => {
    const frame = payload(requestFrame(ApiKey.Metadata, 1, {}));
    new DataView(frame.buffer, frame.byteOffset).setInt16(0, 999);
    expect(await outcomeOf(frame)).toEqual({ kind: 'close', reason: 'unknown API key 999' });
  });

  it('a known API it serves no handler for, or a version beyond what it advertises', async () => {
    expect(await outcomeOf(payload(requestFrame(ApiKey.Produce, 7, {})))).toMatchObject({ kind: 'close', reason: 'Produce v7 is not enabled' });
    expect(await outcomeOf(payload(requestFrame(ApiKey.Metadata, 9, {})))).toMatchObject({ kind: 'close', reason: 'Metadata v9 is not enabled' });
  });

  it('a body that does not decode', async () => {
    const frame = payload(requestFrame(ApiKey.Metadata, 1, { topics: [{ name: 'orders' }] }));
    expect(await outcomeOf(frame.subarray(0, frame.length - 2))).toMatchObject({ kind: 'close', reason: expect.stringMatching(/malformed Metadata v1/) });
  });
});

describe('Dispatcher: answers from handlers', () => {
  it('sends the handler response under the request correlation id', async () => {
    const outcome = await createDispatcher([metadataProbe()]).dispatch(payload(requestFrame(ApiKey.Metadata, 4, { topics: [{ name: 'a' }] }, { correlationId: 77 })));
    if (outcome.kind !== 'respond') throw new Error(outcome.kind);
    const { correlationId, body } = readResponse(ApiKey.Metadata, 4, outcome.parts);
    expect(correlationId).toBe(77);
    expect(body.topics.map((t) => t.name)).toEqual(['a']);
  });

  it('sends nothing when the handler answers null (Produce with acks=0)', async () => {
    const d = createDispatcher([metadataProbe({ handle: () => null })]);
    expect(await d.dispatch(payload(requestFrame(ApiKey.Metadata, 1, {})))).toEqual({ kind: 'none' });
  });

  it('answers advertised-but-unimplemented versions with UNSUPPORTED_VERSION from the handler error response', async () => {
    const d = createDispatcher([metadataProbe({ implemented: [1, 8] })]);
    const outcome = await d.dispatch(payload(requestFrame(ApiKey.Metadata, 0, { topics: [{ name: 'a' }] })));
    if (outcome.kind !== 'respond') throw new Error(outcome.kind);
    expect(readResponse(ApiKey.Metadata, 0, outcome.parts).body.topics).toEqual([expect.objectContaining({ name: 'a', errorCode: 35 })]);
  });

  it('turns a handler failure into UNKNOWN_SERVER_ERROR and reports it', async () => {
    const errors: unknown[] = [];
    const d = createDispatcher(
      [
        metadataProbe({
          handle: () => {
            throw new Error('bug');
          },
        }),
      ],
      { onHandlerError: (_key, e) => errors.push(e) },
    );
    const outcome = await d.dispatch(payload(requestFrame(ApiKey.Metadata, 1, { topics: [{ name: 'a' }] })));
    if (outcome.kind !== 'respond') throw new Error(outcome.kind);
    expect(readResponse(ApiKey.Metadata, 1, outcome.parts).body.topics[0]!.errorCode).toBe(-1);
    expect(errors).toHaveLength(1);
  });

  it('refuses two handlers for one API and ranges beyond the messages', () => {
    expect(() => createDispatcher([metadataProbe(), metadataProbe()])).toThrow(/two handlers for Metadata/);
    expect(() => createDispatcher([metadataProbe({ advertised: [0, 13] })])).toThrow(/beyond its messages/);
  });
});
