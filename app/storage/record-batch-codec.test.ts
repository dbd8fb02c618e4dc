import CRC32C from 'crc-32/crc32c.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KafkaError } from '../api/errors.js';
import { markerBatch, markerOf } from '../core/log/control-records.js';
import type { LogRecord, RecordBatch } from '../core/log/records.js';
import { batchHeader, decodeRecordBatch, decodeRecordBatches, encodeRecordBatch, storedBytes } from './record-batch-codec.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const ascii = (s: string): number[] => [...Buffer.from(s, 'latin1')];
const FILE = '/data/broker-1.db';

function record(value: string | null, timestamp: number, extra: Partial<LogRecord> = {}): LogRecord {
  return { key: null, value: value === null ? null : utf8(value), headers: [], timestamp, ...extra };
}

function batchOf(records: LogRecord[], baseOffset = 0, leaderEpoch = 0): RecordBatch {
  return { baseOffset, lastOffset: baseOffset + records.length - 1, leaderEpoch, appendTimeMs: 0, records, sizeBytes: 0 };
}

/** What decode gives back for a CreateTime batch: the same, sized by its encoding. */
function roundTrip(batch: RecordBatch): RecordBatch {
  const bytes = encodeRecordBatch(batch);
  const decoded = decodeRecordBatch(bytes);
  expect(decoded).toEqual({ ...batch, appendTimeMs: 0, sizeBytes: bytes.length });
  return decoded;
}

function thrown(fn: () => unknown): KafkaError {
  try {
    fn();
  } catch (e) {
    if (e instanceof KafkaError) return e;
    throw e;
  }
  throw new Error('expected a KafkaError');
}

/** Recomputes the CRC after a deliberate edit, to reach the checks that come after it. */
function resealCrc(bytes: Buffer): Buffer {
  bytes.writeUInt32BE(CRC32C.buf(bytes.subarray(21)) >>> 0, 17);
  return bytes;
}

describe('CRC-32C', () => {
  it('is Castagnoli: the check value of "123456789" is 0xE3069283', () => {
    expect(CRC32C.buf(Buffer.from('123456789')) >>> 0).toBe(0xe3069283);
  });
});

describe('the bytes of a batch, field by field', () => {
  /**
   * One batch exactly as a Kafka 2.0 broker served it to a Fetch (v4) after the Java producer
   * wrote it: the first batch of kafkajs's fixture `fetch/fixtures/v4_from_scala_producer_response.json`.
   * The CRC is the broker's, so this checks our CRC as well as our layout.
   */
  const fromKafka = Buffer.from([
    ...[0, 0, 0, 0, 0, 0, 0, 0], //                   0  baseOffset int64 = 0
    ...[0, 0, 0, 95], //                              8  batchLength int32 = 95 (107 bytes − 12)
    ...[0, 0, 0, 0], //                              12  partitionLeaderEpoch int32 = 0
    2, //                                            16  magic int8 = 2
    ...[0x22, 0xee, 0x4d, 0xf3], //                  17  crc uint32, CRC-32C of bytes 21…106
    ...[0, 0], //                                    21  attributes int16: no codec, CreateTime
    ...[0, 0, 0, 0], //                              23  lastOffsetDelta int32 = 0
    ...[0, 0, 0x01, 0x66, 0x79, 0xfa, 0x31, 0x20], // 27  baseTimestamp int64 = 1539644731680
    ...[0, 0, 0x01, 0x66, 0x79, 0xfa, 0x31, 0x20], // 35  maxTimestamp int64 = the same
    ...[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], // 43  producerId int64 = -1
    ...[0xff, 0xff], //                              51  producerEpoch int16 = -1
    ...[0xff, 0xff, 0xff, 0xff], //                  53  baseSequence int32 = -1
    ...[0, 0, 0, 1], //                              57  recordCount int32 = 1
    0x5a, //                                         61  record length varint 45 (zig-zag 90)
    0, //                                                attributes int8
    0, //                                                timestampDelta varlong 0
    0, //                                                offsetDelta varint 0
    10, //                                               keyLength varint 5 (zig-zag 10)
    ...ascii('KEY-1'),
    68, //                                               valueLength varint 34 (zig-zag 68)
    ...ascii('VALUE-Lorem ipsum dolor sit amet-1'),
    0, //                                                headerCount varint 0
  ]);
  const kafkaBatch = batchOf([
    { key: utf8('KEY-1'), value: utf8('VALUE-Lorem ipsum dolor sit amet-1'), headers: [], timestamp: 1539644731680 },
  ]);

  it('encodes a batch to the very bytes a Kafka broker stores and serves', () => {
    expect(fromKafka).toHaveLength(107);
    expect(encodeRecordBatch(kafkaBatch).toString('hex')).toBe(fromKafka.toString('hex'));
  });

  it("decodes Kafka's bytes, sized by their length", () => {
    expect(decodeRecordBatch(fromKafka)).toEqual({ ...kafkaBatch, sizeBytes: 107 });
  });

  it('lays out null keys and values, headers, UTF-8 header keys and negative deltas as Kafka does', () => {
    const expected = Buffer.from([
      ...[0, 0, 0, 0, 0, 0, 0, 42], //    baseOffset = 42
      ...[0, 0, 0, 73], //                batchLength = 85 − 12
      ...[0, 0, 0, 7], //                 partitionLeaderEpoch = 7
      2, //                               magic
      ...[0, 0, 0, 0], //                 crc: filled in below
      ...[0, 0], //                       attributes
      ...[0, 0, 0, 1], //                 lastOffsetDelta = 1
      ...[0, 0, 0, 0, 0, 0, 0x03, 0xe8], // baseTimestamp = 1000, the first record's
      ...[0, 0, 0, 0, 0, 0, 0x03, 0xe8], // maxTimestamp = 1000 (the second record is older)
      ...Array<number>(8 + 2 + 4).fill(0xff), // producerId, producerEpoch, baseSequence = -1
      ...[0, 0, 0, 2], //                 recordCount = 2
      // record 0: key null, value "v", timestamp 1000, header h = null
      0x14, //                            length 10
      0, //                               attributes
      0x00, //                            timestampDelta 0
      0x00, //                            offsetDelta 0
      0x01, //                            keyLength -1: null
      0x02, ...ascii('v'), //             valueLength 1, "v"
      0x02, //                            headerCount 1
      0x02, ...ascii('h'), //             header keyLength 1, "h"
      0x01, //                            header valueLength -1: null
      // record 1: key "k", value null, timestamp 990, header é = [0x01]
      0x18, //                            length 12
      0, //                               attributes
      0x13, //                            timestampDelta -10 (zig-zag 19)
      0x02, //                            offsetDelta 1
      0x02, ...ascii('k'), //             keyLength 1, "k"
      0x01, //                            valueLength -1: null
      0x02, //                            headerCount 1
      0x04, 0xc3, 0xa9, //                header keyLength 2, "é" in UTF-8
      0x02, 0x01, //                      header valueLength 1, [0x01]
    ]);
    resealCrc(expected);
    const batch = batchOf(
      [
        record('v', 1000, { headers: [{ key: 'h', value: null }] }),
        record(null, 990, { key: utf8('k'), headers: [{ key: 'é', value: Uint8Array.of(1) }] }),
      ],
      42,
      7,
    );
    expect(encodeRecordBatch(batch).toString('hex')).toBe(expected.toString('hex'));
    expect(decodeRecordBatch(expected)).toEqual({ ...batch, sizeBytes: 85 });
  });

  it('writes LogAppendTime as attribute bit 3 with the append time as maxTimestamp', () => {
    const batch = { ...batchOf([record('a', 1000), record('b', 1005)]), appendTimeMs: 2000 };
    const bytes = encodeRecordBatch(batch, { timestampType: 'LogAppendTime' });
    expect(bytes.readInt16BE(21)).toBe(0b1000);
    expect(bytes.readBigInt64BE(27)).toBe(1000n); // records keep their create-time deltas…
    expect(bytes.readBigInt64BE(35)).toBe(2000n);
    // …but, as in Kafka's DefaultRecordBatch, a reader gives every record the append time.
    const decoded = decodeRecordBatch(bytes);
    expect(decoded.appendTimeMs).toBe(2000);
    expect(decoded.records.map((r) => r.timestamp)).toEqual([2000, 2000]);
  });

  it('keeps the CRC valid when a broker rewrites baseOffset and partitionLeaderEpoch in place', () => {
    const bytes = encodeRecordBatch(batchOf([record('x', 5)]));
    bytes.writeBigInt64BE(1234n, 0);
    bytes.writeInt32BE(9, 12);
    expect(decodeRecordBatch(bytes)).toMatchObject({ baseOffset: 1234, lastOffset: 1234, leaderEpoch: 9 });
  });
});

describe('round trips', () => {
  it('an empty batch', () => {
    const bytes = encodeRecordBatch(batchOf([], 10, 2));
    expect(bytes).toHaveLength(61);
    expect(bytes.readBigInt64BE(27)).toBe(-1n); // no records, no timestamp
    roundTrip(batchOf([], 10, 2));
  });

  it('one record, and a thousand', () => {
    roundTrip(batchOf([record('only', 1_700_000_000_000)]));
    const many = Array.from({ length: 1000 }, (_, i) => record(`value-${i}`, 1_700_000_000_000 + i, { key: utf8(`k${i % 7}`) }));
    const decoded = roundTrip(batchOf(many, 5000, 3));
    expect(decoded.lastOffset).toBe(5999);
  });

  it('empty, null and long keys and values', () => {
    roundTrip(
      batchOf([
        record('', 1, { key: new Uint8Array(0) }),
        record(null, 1, { key: null }),
        record('x'.repeat(100_000), 1, { key: new Uint8Array(20_000).fill(7) }),
      ]),
    );
  });

  it('headers, including a null header value, an empty key and repeated keys', () => {
    roundTrip(
      batchOf([
        record('v', 1, {
          headers: [
            { key: 'trace', value: utf8('abc') },
            { key: 'nothing', value: null },
            { key: '', value: new Uint8Array(0) },
            { key: 'trace', value: utf8('def') },
          ],
        }),
      ]),
    );
  });

  it('unicode in values and header keys', () => {
    roundTrip(batchOf([record('héllo wörld 你好 🎉', 1, { key: utf8('ключ'), headers: [{ key: 'ヘッダー🔑', value: utf8('ü') }] })]));
  });

  it('timestamps near 2^52 and deltas of either sign', () => {
    const big = 2 ** 52;
    roundTrip(batchOf([record('a', big), record('b', big - 1_000_000), record('c', big + 2 ** 40), record('d', 0)]));
    const bytes = encodeRecordBatch(batchOf([record('a', big), record('b', big + 5)]));
    expect(bytes.readBigInt64BE(35)).toBe(BigInt(big + 5)); // maxTimestamp
  });

  it('random batches (property)', () => {
    const bytesOrNull = fc.option(fc.uint8Array({ maxLength: 64 }), { nil: null });
    const logRecord = fc.record({
      key: bytesOrNull,
      value: bytesOrNull,
      headers: fc.array(fc.record({ key: fc.string({ unit: 'grapheme', maxLength: 8 }), value: bytesOrNull }), { maxLength: 3 }),
      timestamp: fc.integer({ min: 0, max: 2 ** 52 }),
    });
    const batch = fc
      .record({
        baseOffset: fc.integer({ min: 0, max: 2 ** 50 }),
        leaderEpoch: fc.integer({ min: -1, max: 2 ** 31 - 1 }),
        records: fc.array(logRecord, { maxLength: 20 }),
      })
      .map(({ baseOffset, leaderEpoch, records }) => batchOf(records, baseOffset, leaderEpoch));
    fc.assert(
      fc.property(batch, (b) => {
        const bytes = roundTrip(b);
        const header = batchHeader(encodeRecordBatch(b));
        expect(header).toMatchObject({ baseOffset: b.baseOffset, lastOffset: b.lastOffset, leaderEpoch: b.leaderEpoch, count: b.records.length, sizeBytes: bytes.sizeBytes });
        // What storage writes (into memory it does not zero) is byte for byte the encoding, even
        // when that memory held other bytes before.
        const dirty = encodeRecordBatch(b, { allocate: (size) => new Uint8Array(size).fill(0xa5) });
        expect(dirty.equals(encodeRecordBatch(b))).toBe(true);
        expect(storedBytes(b).equals(encodeRecordBatch(b))).toBe(true);
      }),
    );
  });
});

describe('headers and concatenations', () => {
  const first = encodeRecordBatch(batchOf([record('a', 1), record('b', 2)], 0, 1));
  const second = encodeRecordBatch(batchOf([record('c', 3)], 2, 1));
  const both = Buffer.concat([first, second]);

  it('reads the header alone, for scans', () => {
    expect(batchHeader(both)).toEqual({
      baseOffset: 0,
      lastOffset: 1,
      leaderEpoch: 1,
      count: 2,
      sizeBytes: first.length,
      baseTimestamp: 1,
      maxTimestamp: 2,
      timestampType: 'CreateTime',
      compression: 'none',
      isTransactional: false,
      isControl: false,
      deleteHorizonMs: null,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      crc: first.readUInt32BE(17),
    });
    expect(batchHeader(both.subarray(first.length))).toMatchObject({ baseOffset: 2, lastOffset: 2, count: 1 });
  });

  it('decodes the batches of a Fetch response records field in order', () => {
    expect(decodeRecordBatches(both).map((b) => [b.baseOffset, b.lastOffset])).toEqual([
      [0, 1],
      [2, 2],
    ]);
    expect(decodeRecordBatches(new Uint8Array(0))).toEqual([]);
  });

  it('stops at a partial last batch only when asked to, as a consumer does', () => {
    const cut = both.subarray(0, both.length - 5);
    expect(decodeRecordBatches(cut, { allowPartialTail: true })).toHaveLength(1);
    expect(decodeRecordBatches(both.subarray(0, first.length + 7), { allowPartialTail: true })).toHaveLength(1);
    expect(thrown(() => decodeRecordBatches(cut, { file: FILE })).message).toBe(
      `Record batch at offset 2 (byte ${first.length}) in ${FILE} is corrupt: truncated: batchLength says ${second.length} bytes, only ${second.length - 5} present`,
    );
  });

  it('reads the header of a real gzip LogAppendTime batch, and declines to decode its records', () => {
    // kafkajs's fixture recordBatch/fixtures/v0_recordbatch.json: written by a broker with
    // LogAppendTime, compressed with gzip.
    const gzipBatch = Buffer.from(
      [
        '0000000000000000', // baseOffset 0
        '00000071', //         batchLength 113
        '00000000', //         partitionLeaderEpoch 0
        '02', //               magic 2
        'e4c324a5', //         crc
        '0009', //             attributes: gzip (1) | LogAppendTime (8)
        '00000000', //         lastOffsetDelta 0
        '00000173edf5ffa7', // baseTimestamp 1597425188775
        '00000173edf5ffc9', // maxTimestamp 1597425188809 (the append time)
        'ffffffffffffffff', // producerId -1
        '0000', //             producerEpoch 0
        '00000000', //         baseSequence 0
        '00000001', //         recordCount 1
        // the one record, gzipped
        '1f8b08000000000000130b636060e0ca4eadd43570284bcc294dd535d035323032d035',
        'b0d03534093134b73234b632b0d033b3308a620000b5e3f1a72c000000',
      ].join(''),
      'hex',
    );
    expect(batchHeader(gzipBatch)).toMatchObject({
      sizeBytes: 125,
      compression: 'gzip',
      timestampType: 'LogAppendTime',
      maxTimestamp: 1597425188809,
      count: 1,
    });
    // The CRC passes (the record bytes are what the broker checksummed); the codec is refused.
    const error = thrown(() => decodeRecordBatch(gzipBatch, { file: FILE }));
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toBe(`Record batch at offset 0 in ${FILE} is compressed with gzip; only uncompressed batches are decoded`);
  });
});

describe('corruption', () => {
  const good = (): Buffer => encodeRecordBatch(batchOf([record('hello', 100), record('world', 101)], 42, 3));

  it('a flipped byte in a record fails the CRC, naming the file and the offset', () => {
    const bytes = good();
    const stored = bytes.readUInt32BE(17);
    bytes[bytes.length - 3]! ^= 0x01;
    const computed = CRC32C.buf(bytes.subarray(21)) >>> 0;
    const error = thrown(() => decodeRecordBatch(bytes, { file: FILE }));
    expect(error.code).toBe('CORRUPT_MESSAGE');
    expect(error.message).toBe(
      `Record batch at offset 42 in ${FILE} is corrupt: CRC32C 0x${computed.toString(16).padStart(8, '0')} does not match the stored 0x${stored.toString(16).padStart(8, '0')}`,
    );
    expect(error.details).toEqual({ file: FILE, baseOffset: 42, position: 0 });
    expect(error.toView().retriable).toBe(true);
  });

  it('a flipped byte in the header after the CRC field fails the CRC too', () => {
    const bytes = good();
    bytes[40]! ^= 0x80; // maxTimestamp
    expect(thrown(() => decodeRecordBatch(bytes)).message).toMatch(/^Record batch at offset 42 is corrupt: CRC32C 0x[0-9a-f]{8} does not match/);
  });

  it('a truncated buffer', () => {
    const bytes = good();
    expect(thrown(() => decodeRecordBatch(bytes.subarray(0, bytes.length - 1), { file: FILE })).message).toBe(
      `Record batch at offset 42 in ${FILE} is corrupt: truncated: batchLength says ${bytes.length} bytes, only ${bytes.length - 1} present`,
    );
    expect(thrown(() => decodeRecordBatch(bytes.subarray(0, 30))).message).toBe(
      'Record batch at offset 42 is corrupt: truncated: 30 bytes, shorter than the 61-byte v2 batch header',
    );
    expect(thrown(() => batchHeader(bytes.subarray(0, 5))).message).toBe(
      'Record batch at byte 0 is corrupt: truncated: 5 bytes, shorter than the 61-byte v2 batch header',
    );
  });

  it('bytes beyond the batch', () => {
    const bytes = Buffer.concat([good(), Buffer.from([0])]);
    expect(thrown(() => decodeRecordBatch(bytes)).message).toBe(
      `Record batch at offset 42 is corrupt: batchLength says ${bytes.length - 1} bytes, but ${bytes.length} were given`,
    );
  });

  it('magic 1 (a legacy message set) is refused', () => {
    const bytes = good();
    bytes[16] = 1;
    const error = thrown(() => decodeRecordBatch(bytes, { file: FILE }));
    expect(error.code).toBe('CORRUPT_MESSAGE');
    expect(error.message).toBe(`Record batch at offset 42 in ${FILE} is corrupt: magic 1, but only magic 2 (v2) record batches are supported`);
  });

  it('a batchLength shorter than the header', () => {
    const bytes = good();
    bytes.writeInt32BE(10, 8);
    expect(thrown(() => batchHeader(bytes)).message).toMatch(/batchLength 10 is less than the 49 bytes/);
  });

  it('a record whose length disagrees with its fields, even under a valid CRC', () => {
    const bytes = good();
    bytes[61] = bytes[61]! + 2; // first record's length varint: one more byte than it holds
    const error = thrown(() => decodeRecordBatch(resealCrc(bytes), { file: FILE }));
    expect(error.code).toBe('CORRUPT_MESSAGE');
    expect(error.message).toMatch(new RegExp(`^Record batch at offset 42 in ${FILE} is corrupt: record 0 \\(offset 42\\): `));
  });

  it('records whose offsets are not dense where they must be, or go backwards or past the batch anywhere', () => {
    const bytes = good();
    const second = 61 + 1 + bytes[61]! / 2; // start of record 1
    bytes[second + 3] = 4; // offsetDelta 2 instead of 1
    expect(thrown(() => decodeRecordBatch(resealCrc(bytes), { denseOffsets: true })).message).toBe(
      'Record batch at offset 42 is corrupt: record 1 (offset 43): offsetDelta 2, expected 1 (offsets are dense)',
    );
    bytes[second + 3] = 0; // offsetDelta 0 after 0: not increasing
    expect(thrown(() => decodeRecordBatch(resealCrc(bytes))).message).toBe(
      'Record batch at offset 42 is corrupt: record 1 (offset 43): offsetDelta 0 does not follow 0 within the batch\'s 2 offsets',
    );
  });

  it('a record count the bytes cannot hold', () => {
    const bytes = good();
    bytes.writeInt32BE(1_000_000, 57);
    expect(thrown(() => decodeRecordBatch(resealCrc(bytes))).message).toMatch(/record count 1000000 cannot fit/);
  });

});

describe('transactions (KIP-98): transactional batches and markers', () => {
  it('a COMMIT marker is a control batch laid out as Kafka writes one (MemoryRecords.withEndTransactionMarker)', () => {
    const marker = markerBatch(41, 3, 1_700_000_000_000, { producerId: 4242, producerEpoch: 7 }, { type: 'COMMIT', coordinatorEpoch: 5 });
    const bytes = storedBytes(marker);
    const h = batchHeader(bytes);
    expect(h).toMatchObject({ baseOffset: 41, lastOffset: 41, leaderEpoch: 3, count: 1, isTransactional: true, isControl: true, producerId: 4242, producerEpoch: 7, baseSequence: -1 });
    expect(bytes.readInt16BE(21)).toBe(0x30); // attributes: transactional | control, no codec, CreateTime
    // The record: length, attributes, timestampDelta 0, offsetDelta 0, key (4 bytes), value (6 bytes), no headers.
    const body = [...bytes.subarray(61)];
    expect(body).toEqual([0x20, 0, 0, 0, 8, 0, 0, 0, 1, 12, 0, 0, 0, 0, 0, 5, 0]);
    const decoded = decodeRecordBatch(bytes);
    expect(decoded).toMatchObject({ control: true, transactional: true, producer: { producerId: 4242, producerEpoch: 7, baseSequence: -1 } });
    expect(markerOf(decoded)).toEqual({ type: 'COMMIT', coordinatorEpoch: 5 });
  });

  it('an ABORT marker names its coordinator epoch; a data batch is no marker', () => {
    const abort = decodeRecordBatch(storedBytes(markerBatch(0, 0, 1, { producerId: 1, producerEpoch: 0 }, { type: 'ABORT', coordinatorEpoch: 12 })));
    expect(markerOf(abort)).toEqual({ type: 'ABORT', coordinatorEpoch: 12 });
    expect(markerOf(decodeRecordBatch(encodeRecordBatch(batchOf([record('a', 1)]))))).toBeNull();
  });

  it('a transactional data batch keeps its bit through encode and decode, and a control bit read from the wire is kept', () => {
    const txn: RecordBatch = { ...batchOf([record('a', 1), record('b', 2)], 10), transactional: true };
    const bytes = encodeRecordBatch(txn, { producer: { id: 9, epoch: 1, baseSequence: 0 } });
    expect(batchHeader(bytes)).toMatchObject({ isTransactional: true, isControl: false });
    expect(decodeRecordBatch(bytes)).toMatchObject({ transactional: true, producer: { producerId: 9, producerEpoch: 1, baseSequence: 0 } });
    expect(decodeRecordBatch(bytes).control).toBeUndefined();
    const flipped = Buffer.from(encodeRecordBatch(batchOf([record('m', 1)])));
    flipped.writeInt16BE(0x30, 21);
    expect(decodeRecordBatch(resealCrc(flipped))).toMatchObject({ transactional: true, control: true });
  });
});

describe('encoder preconditions', () => {
  it('refuses a batch whose lastOffset does not match its records', () => {
    expect(() => encodeRecordBatch({ ...batchOf([record('a', 1)]), lastOffset: 5 })).toThrow(RangeError);
  });

  it('refuses non-integer timestamps', () => {
    expect(() => encodeRecordBatch(batchOf([record('a', 1.5)]))).toThrow(RangeError);
  });
});
