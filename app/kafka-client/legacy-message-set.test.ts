/**
 * A Fetch answer holding data a topic kept from before Kafka 0.11 (message formats magic 0 and 1)
 * followed by v2 batches, as a Fetch v4+ returns it: the messages are built here byte by byte from
 * the format Kafka's documentation gives ("Message Set"), with their CRC-32.
 */
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createCompressionCodecs, type CompressionCodec } from '../protocol/records/compression.js';
import { encodeRecordBatch } from '../protocol/records/record-batch.js';
import { recordsOfFetch } from './fetched-batches.js';

const codecs = createCompressionCodecs();
const text = (s: string) => new TextEncoder().encode(s);
const str = (b: Uint8Array | null) => (b === null ? null : new TextDecoder().decode(b));
const CODEC_ID: Partial<Record<CompressionCodec, number>> = { none: 0, gzip: 1, snappy: 2, lz4: 3 };

interface Msg {
  offset: number;
  magic: 0 | 1;
  key: string | null;
  value: Uint8Array | string | null;
  timestamp?: number;
  codec?: CompressionCodec;
  logAppendTime?: boolean;
}

function bytesField(b: Uint8Array | null): Buffer {
  const len = Buffer.alloc(4);
  len.writeInt32BE(b === null ? -1 : b.length);
  return b === null ? len : Buffer.concat([len, b]);
}

/** offset, size, then crc, magic, attributes, [timestamp], key, value. */
function message(m: Msg): Buffer {
  const attributes = (CODEC_ID[m.codec ?? 'none'] ?? 0) | (m.logAppendTime ? 0x08 : 0);
  const ts = Buffer.alloc(8);
  ts.writeBigInt64BE(BigInt(m.timestamp ?? 0));
  const value = typeof m.value === 'string' ? text(m.value) : m.value;
  const body = Buffer.concat([Buffer.from([m.magic, attributes]), m.magic === 1 ? ts : Buffer.alloc(0), bytesField(m.key === null ? null : text(m.key)), bytesField(value)]);
  const head = Buffer.alloc(16);
  head.writeBigInt64BE(BigInt(m.offset), 0);
  head.writeInt32BE(body.length + 4, 8);
  head.writeUInt32BE(crc32(body), 12);
  return Buffer.concat([head, body]);
}

/** A compressed wrapper: its value is the compressed message set of `inner`. */
function wrapper(outer: Omit<Msg, 'value' | 'key'>, inner: Msg[]): Buffer {
  const set = Buffer.concat(inner.map(message));
  return message({ ...outer, key: null, value: codecs.compress(outer.codec!, set) });
}

describe('recordsOfFetch on message formats before 0.11', () => {
  it('reads magic 0 and magic 1 messages, plain and compressed, then the v2 batches after them', () => {
    const answer = Buffer.concat([
      message({ offset: 0, magic: 0, key: 'k0', value: 'v0' }),
      // magic 0 compressed: the inner offsets are the absolute ones
      wrapper({ offset: 2, magic: 0, codec: 'snappy' }, [
        { offset: 1, magic: 0, key: 'k1', value: 'v1' },
        { offset: 2, magic: 0, key: null, value: 'v2' },
      ]),
      message({ offset: 3, magic: 1, key: 'k3', value: null, timestamp: 1_500 }),
      // magic 1 compressed: inner offsets relative, the wrapper carries the last one's absolute offset
      wrapper({ offset: 6, magic: 1, codec: 'gzip', timestamp: 2_002 }, [
        { offset: 0, magic: 1, key: 'k4', value: 'v4', timestamp: 2_000 },
        { offset: 1, magic: 1, key: 'k5', value: 'v5', timestamp: 2_001 },
        { offset: 2, magic: 1, key: 'k6', value: 'v6', timestamp: 2_002 },
      ]),
      // LogAppendTime on the wrapper: every inner message takes the wrapper's time
      wrapper({ offset: 8, magic: 1, codec: 'lz4', timestamp: 9_000, logAppendTime: true }, [
        { offset: 0, magic: 1, key: 'k7', value: 'v7', timestamp: 3_000 },
        { offset: 1, magic: 1, key: 'k8', value: 'v8', timestamp: 3_001 },
      ]),
      encodeRecordBatch({
        baseOffset: 9,
        lastOffset: 9,
        leaderEpoch: 4,
        appendTimeMs: 0,
        records: [{ key: text('k9'), value: text('v9'), headers: [], timestamp: 4_000 }],
        sizeBytes: 0,
      }),
    ]);
    const got = recordsOfFetch(answer, 0, 10, 'old-0');
    expect(got.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(got.map((r) => str(r.key))).toEqual(['k0', 'k1', null, 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9']);
    expect(got.map((r) => str(r.value))).toEqual(['v0', 'v1', 'v2', null, 'v4', 'v5', 'v6', 'v7', 'v8', 'v9']);
    expect(got.map((r) => r.compression)).toEqual(['none', 'snappy', 'snappy', 'none', 'gzip', 'gzip', 'gzip', 'lz4', 'lz4', 'none']);
    // magic 0 has no timestamp (Kafka's NO_TIMESTAMP, -1, and NO_TIMESTAMP_TYPE)
    expect(got.map((r) => r.timestamp)).toEqual([-1, -1, -1, 1_500, 2_000, 2_001, 2_002, 9_000, 9_000, 4_000]);
    expect(got.map((r) => r.timestampType)).toEqual(['NoTimestampType', 'NoTimestampType', 'NoTimestampType', 'CreateTime', 'CreateTime', 'CreateTime', 'CreateTime', 'LogAppendTime', 'LogAppendTime', 'CreateTime']);
    expect(got.slice(0, 9).every((r) => r.producerId === -1 && r.sequence === -1 && r.leaderEpoch === -1 && r.headers.length === 0 && !r.transactional)).toBe(true);
    expect(got[9]).toMatchObject({ leaderEpoch: 4 });
  });

  it('keeps the offset window inside a compressed wrapper, and stops quietly at a message the byte limit cut', () => {
    const whole = Buffer.concat([
      wrapper({ offset: 12, magic: 1, codec: 'gzip', timestamp: 1 }, [10, 11, 12].map((o, i) => ({ offset: i, magic: 1 as const, key: `k${o}`, value: `v${o}`, timestamp: 1 }))),
      message({ offset: 13, magic: 1, key: 'k13', value: 'v13', timestamp: 1 }),
    ]);
    expect(recordsOfFetch(whole, 11, 13, 'old-0').map((r) => r.offset)).toEqual([11, 12]);
    expect(recordsOfFetch(whole.subarray(0, whole.length - 3), 10, 20, 'old-0').map((r) => r.offset)).toEqual([10, 11, 12]);
    // a small message cut before its magic byte (fewer bytes than a v2 batch header) is a cut too
    const small = message({ offset: 13, magic: 1, key: 'k', value: 'v', timestamp: 1 });
    const head = whole.subarray(0, whole.length - message({ offset: 13, magic: 1, key: 'k13', value: 'v13', timestamp: 1 }).length);
    const cutEarly = Buffer.concat([head, small.subarray(0, 14)]);
    expect(recordsOfFetch(cutEarly, 10, 20, 'old-0').map((r) => r.offset)).toEqual([10, 11, 12]);
  });

  it('refuses a compressed wrapper Kafka refuses: no inner messages, a compressed inner message, an offset below its last relative one', () => {
    const inner = (o: number) => ({ offset: o, magic: 1 as const, key: `k${o}`, value: `v${o}`, timestamp: 1 });
    const nested = wrapper({ offset: 0, magic: 1, codec: 'gzip', timestamp: 1 }, [inner(0)]);
    const cases: [Buffer, RegExp][] = [
      [message({ offset: 4, magic: 1, key: null, value: codecs.compress('gzip', Buffer.alloc(0)), timestamp: 1, codec: 'gzip' }), /offset 4 holds no messages/],
      [message({ offset: 5, magic: 1, key: null, value: codecs.compress('snappy', nested), timestamp: 1, codec: 'snappy' }), /offset 5 holds a compressed message/],
      [wrapper({ offset: 1, magic: 1, codec: 'gzip', timestamp: 1 }, [inner(0), inner(1), inner(2)]), /offset 1 is below its last inner message's relative offset 2/],
    ];
    for (const [bytes, said] of cases) expect(() => recordsOfFetch(bytes, 0, 10, 'old-1')).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE', message: expect.stringMatching(said) }));
    // A magic 1 wrapper at offset 0 keeps its inner offsets as they are.
    expect(recordsOfFetch(wrapper({ offset: 0, magic: 1, codec: 'gzip', timestamp: 1 }, [inner(0), inner(1)]), 0, 10, 'old-1').map((r) => r.offset)).toEqual([0, 1]);
  });

  it('refuses a message whose CRC does not match with CORRUPT_MESSAGE naming the partition and offset', () => {
    const bad = message({ offset: 7, magic: 1, key: 'k', value: 'value', timestamp: 5 });
    bad[bad.length - 1]! ^= 0xff;
    expect(() => recordsOfFetch(bad, 0, 10, 'old-3')).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE', message: expect.stringMatching(/old-3.*offset 7.*CRC/) }));
  });
});
