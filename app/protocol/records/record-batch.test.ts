import { describe, expect, it } from 'vitest';
import type { LogRecord, RecordBatch } from '../../core/log/records.js';
import { createCompressionCodecs } from './compression.js';
import { assignOffsetAndEpoch, batchHeader, crc32c, decodeRecordBatch, encodeRecordBatch, hasValidCrc, scanRecordBatch, setLogAppendTime } from './record-batch.js';

const codecs = createCompressionCodecs();
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const record = (value: string, timestamp: number, key: string | null = null): LogRecord => ({ key: key === null ? null : utf8(key), value: utf8(value), headers: [{ key: 'trace', value: utf8('abc') }], timestamp });
const batchOf = (records: LogRecord[], baseOffset = 0): RecordBatch => ({ baseOffset, lastOffset: baseOffset + records.length - 1, leaderEpoch: 0, appendTimeMs: 0, records, sizeBytes: 0 });
const hex = (s: string): Uint8Array => Uint8Array.from(s.match(/../g)!.map((h) => parseInt(h, 16)));

describe('compressed record batches', () => {
  it('decode a real gzip LogAppendTime batch written by a broker (kafkajs fixture v0_recordbatch.json)', () => {
    const gzipBatch = hex(
      '0000000000000000' + '00000071' + '00000000' + '02' + 'e4c324a5' + '0009' + '00000000' + '00000173edf5ffa7' + '00000173edf5ffc9' +
        'ffffffffffffffff' + '0000' + '00000000' + '00000001' +
        '1f8b08000000000000130b636060e0ca4eadd43570284bcc294dd535d035323032d035b0d03534093134b73234b632b0d033b3308a620000b5e3f1a72c000000',
    );
    const batch = decodeRecordBatch(gzipBatch, { codecs });
    expect(batch.records).toHaveLength(1);
    const [r] = batch.records;
    expect(new TextDecoder().decode(r!.key!)).toBe('key-0');
    expect(new TextDecoder().decode(r!.value!)).toMatch(/^value-0-/);
    expect(r!.timestamp).toBe(1597425188809); // LogAppendTime: every record reads the batch's maxTimestamp
    expect(batch.appendTimeMs).toBe(1597425188809);
  });

  it('round-trip through every codec, the count and timestamps left uncompressed in the header', () => {
    const zstd = createCompressionCodecs((data) => data); // a stand-in is enough to exercise the framing
    for (const compression of ['gzip', 'snappy', 'lz4'] as const) {
      const records = Array.from({ length: 50 }, (_, i) => record(`value ${i} `.repeat(10), 1000 + i, `k${i}`));
      const bytes = encodeRecordBatch(batchOf(records, 7), { compression, codecs });
      const header = batchHeader(bytes);
      expect(header).toMatchObject({ compression, count: 50, baseOffset: 7, lastOffset: 56, baseTimestamp: 1000, maxTimestamp: 1049 });
      expect(bytes.length).toBeLessThan(encodeRecordBatch(batchOf(records, 7)).length / 3);
      expect(decodeRecordBatch(bytes, { codecs }).records).toEqual(records);
    }
    expect(() => encodeRecordBatch(batchOf([record('a', 1)]), { compression: 'zstd', codecs: zstd })).not.toThrow();
  });

  it('a corrupt compressed payload behind a valid CRC is CORRUPT_MESSAGE', () => {
    const bytes = encodeRecordBatch(batchOf([record('hello', 1)]), { compression: 'gzip', codecs });
    bytes[71] = 0xff; // the first deflate block header: reserved block type 3
    new DataView(bytes.buffer).setUint32(17, crc32c(bytes, 21, bytes.length)); // reseal
    expect(() => decodeRecordBatch(bytes, { codecs })).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }));
  });
});

describe('what a leader changes in a produced batch', () => {
  it('assigns the base offset and leader epoch without touching the CRC', () => {
    const bytes = encodeRecordBatch(batchOf([record('a', 5), record('b', 6)]));
    const crcBefore = batchHeader(bytes).crc;
    assignOffsetAndEpoch(bytes, 1234, 9);
    const header = batchHeader(bytes);
    expect(header).toMatchObject({ baseOffset: 1234, lastOffset: 1235, leaderEpoch: 9, crc: crcBefore });
    expect(hasValidCrc(bytes, header)).toBe(true);
  });

  it('marks LogAppendTime with the append time as maxTimestamp, keeps the records, reseals the CRC', () => {
    const bytes = encodeRecordBatch(batchOf([record('a', 5), record('b', 6)]));
    setLogAppendTime(bytes, 99_000);
    const header = batchHeader(bytes);
    expect(header).toMatchObject({ timestampType: 'LogAppendTime', maxTimestamp: 99_000, baseTimestamp: 5 });
    expect(hasValidCrc(bytes, header)).toBe(true);
    expect(decodeRecordBatch(bytes).records.map((r) => r.timestamp)).toEqual([99_000, 99_000]);
  });

  it('writes the idempotent producer id, epoch and base sequence', () => {
    const bytes = encodeRecordBatch(batchOf([record('a', 5)]), { producer: { id: 4000, epoch: 2, baseSequence: 17 } });
    expect(batchHeader(bytes)).toMatchObject({ producerId: 4000, producerEpoch: 2, baseSequence: 17 });
  });
});

describe('records built on first read (a stored batch served as its bytes)', () => {
  const records = Array.from({ length: 20 }, (_, i) => record(`v${i}`, 100 + i, i % 2 ? `k${i}` : null));

  it('gives the same batch as decoding at once, building the records only when read', () => {
    const bytes = encodeRecordBatch(batchOf(records, 40));
    const lazy = decodeRecordBatch(bytes, { lazyRecords: true });
    const eager = decodeRecordBatch(bytes);
    expect({ ...lazy, records: undefined }).toEqual({ ...eager, records: undefined });
    expect(lazy.records).toEqual(records);
    expect(lazy.records).toBe(lazy.records); // built once, then kept
    bytes.fill(0); // the built records are a private copy, as decoding at once makes them
    expect(lazy.records).toEqual(records);
  });

  it('refuses a batch whose records do not parse at once, as decoding does, not when they are first read', () => {
    const bytes = encodeRecordBatch(batchOf(records));
    bytes[61] = 0x7e; // the first record's length varint: 63 bytes, past its record
    new DataView(bytes.buffer).setUint32(17, crc32c(bytes, 21, bytes.length)); // reseal: only the records are wrong
    expect(() => decodeRecordBatch(bytes)).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }));
    expect(() => decodeRecordBatch(bytes, { lazyRecords: true })).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }));
    const flipped = encodeRecordBatch(batchOf(records));
    flipped[80] = flipped[80]! ^ 0xff; // a CRC mismatch is found without building anything
    expect(() => decodeRecordBatch(flipped, { lazyRecords: true })).toThrow(/CRC32C/);
  });

  it('checks a compressed batch at once (decompressed to be checked), building its records only when read', () => {
    let decompressed = 0;
    const counting = { ...codecs, decompress: (...args: Parameters<typeof codecs.decompress>) => (decompressed++, codecs.decompress(...args)) };
    for (const compression of ['gzip', 'lz4'] as const) {
      const bytes = encodeRecordBatch(batchOf(records, 40), { compression, codecs });
      decompressed = 0;
      const batch = decodeRecordBatch(bytes, { codecs: counting, lazyRecords: true });
      expect(decompressed, compression).toBe(1);
      expect(Object.getOwnPropertyDescriptor(batch, 'records')?.get, compression).toBeTypeOf('function');
      expect({ ...decodeRecordBatch(bytes, { codecs }), records: undefined }).toEqual({ ...batch, records: undefined });
      expect(batch.records, compression).toEqual(records);
      expect(batch.records).toBe(batch.records);
      expect(decompressed, compression).toBe(2);
    }
    // Records that do not parse are refused at once, as decoding does.
    const broken = encodeRecordBatch(batchOf(records), { compression: 'gzip', codecs: { ...codecs, compress: (codec, data) => codecs.compress(codec, data.subarray(1)) } });
    expect(() => decodeRecordBatch(broken, { codecs, lazyRecords: true })).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }));
  });
});

describe('a batch decoded for its header fields only (recordsUnchecked)', () => {
  it('checks the CRC at once and its records only when they are read', () => {
    const records = [record('a', 5), record('b', 6)];
    const good = encodeRecordBatch(batchOf(records, 10), { compression: 'lz4', codecs });
    expect(decodeRecordBatch(good, { codecs, lazyRecords: true, recordsUnchecked: true }).records).toEqual(records);
    const broken = encodeRecordBatch(batchOf(records, 10), { compression: 'lz4', codecs: { ...codecs, compress: (codec, data) => codecs.compress(codec, data.subarray(1)) } });
    const batch = decodeRecordBatch(broken, { codecs, lazyRecords: true, recordsUnchecked: true });
    expect([batch.baseOffset, batch.lastOffset]).toEqual([10, 11]);
    expect(() => batch.records).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }));
    const flipped = encodeRecordBatch(batchOf(records, 10), { compression: 'lz4', codecs });
    flipped[70] = flipped[70]! ^ 0xff;
    expect(() => decodeRecordBatch(flipped, { codecs, lazyRecords: true, recordsUnchecked: true })).toThrow(/CRC32C/);
  });
});

describe("a leader's scan of a client's batch (what validation needs of its records, none built)", () => {
  const records = [record('a', 500, 'k'), record('b', -1), record('c', 200, 'k'), record('d', 900), record('e', -1, 'k')];
  const reseal = (bytes: Uint8Array): Uint8Array => (new DataView(bytes.buffer, bytes.byteOffset).setUint32(17, crc32c(bytes, 21, bytes.length)), bytes);

  it('counts null keys and finds the smallest and largest timestamp other than -1, uncompressed and compressed', () => {
    for (const compression of ['none', 'lz4', 'gzip'] as const) {
      const bytes = encodeRecordBatch(batchOf(records, 10), { compression, codecs });
      expect(scanRecordBatch(bytes, { codecs, denseOffsets: true }), compression).toEqual({ nullKeys: 2, minTimestamp: 200, maxTimestamp: 900 });
    }
    expect(scanRecordBatch(encodeRecordBatch(batchOf([record('x', -1, 'k')])))).toEqual({ nullKeys: 0, minTimestamp: Infinity, maxTimestamp: -Infinity });
  });

  it('refuses what decoding refuses, as decoding does: records that do not parse, a CRC mismatch, offsets that are not dense, a compressed batch without codecs', () => {
    const garbled = encodeRecordBatch(batchOf(records));
    garbled[61] = 0x7e; // the first record's length varint: 63 bytes, past its record
    expect(() => scanRecordBatch(reseal(garbled))).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE' }));
    const flipped = encodeRecordBatch(batchOf(records));
    flipped[70] = flipped[70]! ^ 0x01;
    expect(() => scanRecordBatch(flipped)).toThrow(/CRC32C/);
    // Records at offsets 0 and 2 of a batch spanning 3: what a cleaner writes, never a client.
    const sparse = encodeRecordBatch({ ...batchOf([records[0]!, records[2]!]), lastOffset: 2, offsetDeltas: [0, 2] });
    expect(scanRecordBatch(sparse).nullKeys).toBe(0);
    expect(() => scanRecordBatch(sparse, { denseOffsets: true })).toThrow(/does not match 2 dense records/);
    // Its header says 2 dense offsets, its records say 1 and 2.
    const shifted = encodeRecordBatch({ ...batchOf([records[0]!, records[2]!]), lastOffset: 2, offsetDeltas: [1, 2] });
    new DataView(shifted.buffer).setInt32(23, 1);
    expect(() => scanRecordBatch(reseal(shifted), { denseOffsets: true })).toThrow(/offsetDelta 1, expected 0/);
    expect(() => scanRecordBatch(encodeRecordBatch(batchOf(records), { compression: 'lz4', codecs }))).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }));
  });
});
