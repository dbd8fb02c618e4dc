/**
 * Every message in every valid version survives encode → decode: values are built from the
 * message definitions themselves (through the generator's schema model, not the generated
 * code), with every field a version has set at random and every field it lacks at its default.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../scripts/protocol-gen/schema.js';
import * as generated from './generated/index.js';
import { Reader, Writer } from './runtime/index.js';
import { messages, struct } from './test-support/schema-arbitrary.js';

type Codec = { read: (r: Reader, v: number) => unknown; write: (w: Writer, v: number, x: never) => void };
function codecOf(m: Message): Codec {
  const mod = generated as unknown as Record<string, unknown>;
  return { read: mod[`read${m.name}`] as Codec['read'], write: mod[`write${m.name}`] as Codec['write'] };
}

describe('generated codecs', () => {
  for (const m of messages) {
    it(`${m.name} round-trips in every version ${m.valid.lo}-${m.valid.hi}`, () => {
      const { read, write } = codecOf(m);
      for (let v = m.valid.lo; v <= m.valid.hi; v++) {
        fc.assert(
          fc.property(struct(m.fields, v), (x) => {
            const w = new Writer(8);
            write(w, v, x as never);
            const bytes = w.toBytes();
            const r = new Reader(bytes);
            expect(read(r, v)).toEqual(x);
            expect(r.remaining(), `${m.name} v${v} leaves bytes unread`).toBe(0);
          }),
          { numRuns: 25 },
        );
      }
    });
  }

  it('refuse a version the message does not have', () => {
    expect(() => generated.writeMetadataRequest(new Writer(), 13, {})).toThrow(/MetadataRequest has no version 13/);
    expect(() => generated.readProduceRequest(new Reader(new Uint8Array(64)), -1)).toThrow(/no version -1/);
  });

  it('refuse to write a non-default value of a field the version lacks, as Kafka does', () => {
    // FetchResponse.SessionId exists from v7 and is not ignorable.
    expect(() => generated.writeFetchResponse(new Writer(), 6, { sessionId: 5 })).toThrow(/non-default SessionId at version 6/);
    expect(() => generated.writeFetchResponse(new Writer(), 6, { sessionId: 0 })).not.toThrow();
    // ThrottleTimeMs is ignorable: dropped silently below v1.
    expect(() => generated.writeFetchResponse(new Writer(), 0, { throttleTimeMs: 100 })).not.toThrow();
  });

  it('write a tagged field only when it differs from its default, and skip unknown tags when reading', () => {
    const withLeader = new Writer();
    const partition = { partitionIndex: 0, currentLeader: { leaderId: 2, leaderEpoch: 7 } };
    generated.writeFetchResponse(withLeader, 12, { responses: [{ topic: 't', partitions: [partition] }] });
    const plain = new Writer();
    generated.writeFetchResponse(plain, 12, { responses: [{ topic: 't', partitions: [{ partitionIndex: 0 }] }] });
    // tag 1, size, leaderId int32, leaderEpoch int32, the struct's own empty tag section.
    expect(withLeader.length - plain.length).toBe(1 + 1 + 4 + 4 + 1);
    const decoded = generated.readFetchResponse(new Reader(withLeader.toBytes()), 12);
    expect(decoded.responses[0]!.partitions[0]!.currentLeader).toEqual({ leaderId: 2, leaderEpoch: 7 });

    // An ApiVersions v3 request from a future client with an unknown tag 9 at the top level.
    const w = new Writer();
    w.uvarint(3); // ClientSoftwareName "ab": compact length 2+1
    w.raw(new Uint8Array([0x61, 0x62]));
    w.uvarint(2);
    w.raw(new Uint8Array([0x31]));
    w.uvarint(1); // one tagged field
    w.uvarint(9);
    w.uvarint(3);
    w.raw(new Uint8Array([1, 2, 3]));
    const r = new Reader(w.toBytes());
    expect(generated.readApiVersionsRequest(r, 3)).toEqual({ clientSoftwareName: 'ab', clientSoftwareVersion: '1' });
    expect(r.remaining()).toBe(0);
  });
});
