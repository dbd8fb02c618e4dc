import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../core/log/records.js';
import { createCompressionCodecs } from './compression.js';
import { type LogValidatorConfig, type ValidateRecordsInput, validateRecords } from './log-validator.js';
import { type EncodeOptions, batchHeader, crc32c, decodeRecordBatch, encodeRecordBatch, hasValidCrc } from './record-batch.js';

const codecs = createCompressionCodecs();
const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const record = (value: string, timestamp = NOW - 1000, key: string | null = 'k'): LogRecord => ({ key: key === null ? null : utf8(key), value: utf8(value), headers: [], timestamp });

/** A batch as a producer sends it: base offset 0, epoch -1 (kafkajs, librdkafka). */
function produced(records: LogRecord[], options: EncodeOptions = {}): Uint8Array {
  return encodeRecordBatch({ baseOffset: 0, lastOffset: records.length - 1, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0 }, { codecs, ...options });
}

const topic = (over: Partial<LogValidatorConfig> = {}): LogValidatorConfig => ({
  'compression.type': 'producer',
  'max.message.bytes': 1_048_588,
  'message.timestamp.type': 'CreateTime',
  'message.timestamp.before.max.ms': Number.MAX_SAFE_INTEGER,
  'message.timestamp.after.max.ms': HOUR,
  compacted: false,
  ...over,
});

/** `bytes` copied into the middle of a buffer twice their size (as several requests read at once lie). */
const amongOtherBytes = (bytes: Uint8Array): Uint8Array => {
  const wide = new Uint8Array(bytes.length * 2);
  wide.set(bytes, 8);
  return wide.subarray(8, 8 + bytes.length);
};
const input = (records: Uint8Array | null, over: Partial<ValidateRecordsInput> = {}): ValidateRecordsInput => ({ records, produceVersion: 7, baseOffset: 120, leaderEpoch: 4, nowMs: NOW, ...over });

/** Rewrites a header field and reseals the CRC, as a buggy (not a corrupting) producer would. */
function tamper(bytes: Uint8Array, change: (view: DataView) => void): Uint8Array {
  const copy = bytes.slice();
  const view = new DataView(copy.buffer);
  change(view);
  view.setUint32(17, crc32c(copy, 21, copy.length));
  return copy;
}

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

describe('LogValidator: what a leader accepts', () => {
  it('assigns offsets from the log end and the leader epoch, keeping the client bytes and CRC (compression.type=producer)', () => {
    const sent = produced([record('a'), record('b'), record('c')], { compression: 'lz4' });
    const result = validateRecords(input(sent), topic(), codecs);
    if (!result.ok) throw new Error(result.message);
    expect(result.header).toMatchObject({ baseOffset: 120, lastOffset: 122, leaderEpoch: 4, compression: 'lz4', count: 3, crc: batchHeader(sent).crc });
    expect(result.batch.subarray(16)).toEqual(sent.subarray(16)); // from magic on: byte for byte as sent
    expect(result.recompressed).toBe(false);
    expect(result.logAppendTimeMs).toBe(-1);
    // Filling its buffer (a socket read of this one request), the batch is the log's, patched in
    // place as Kafka's LogValidator does; one among other bytes is copied, and they stay as they were.
    expect(result.batch.buffer).toBe(sent.buffer);
    expect(batchHeader(sent)).toMatchObject({ baseOffset: 120, leaderEpoch: 4 });
    const alone = produced([record('a')], { compression: 'lz4' });
    const view = amongOtherBytes(alone);
    const copied = validateRecords(input(view), topic(), codecs);
    if (!copied.ok) throw new Error(copied.message);
    expect(copied.batch.buffer).not.toBe(view.buffer);
    expect(copied.header).toMatchObject({ baseOffset: 120, leaderEpoch: 4 });
    expect(view).toEqual(alone);
  });

  it('recompresses when the topic compression.type names another codec, keeping producer id, epoch and sequence', () => {
    const sent = produced([record('x'.repeat(200)), record('y'.repeat(200))], { compression: 'snappy', producer: { id: 77, epoch: 1, baseSequence: 5 } });
    const result = validateRecords(input(sent), topic({ 'compression.type': 'gzip' }), codecs);
    if (!result.ok) throw new Error(result.message);
    expect(result.recompressed).toBe(true);
    expect(result.header).toMatchObject({ compression: 'gzip', baseOffset: 120, lastOffset: 121, leaderEpoch: 4, producerId: 77, producerEpoch: 1, baseSequence: 5 });
    expect(decodeRecordBatch(result.batch, { codecs }).records.map((r) => r.value)).toEqual([utf8('x'.repeat(200)), utf8('y'.repeat(200))]);
    const uncompressed = validateRecords(input(sent), topic({ 'compression.type': 'uncompressed' }), codecs);
    expect(uncompressed.ok && uncompressed.header.compression).toBe('none');
  });

  it('LogAppendTime sets the batch timestamp type and maxTimestamp to the append time, leaving the records their own', () => {
    const sent = produced([record('a', NOW - 5000), record('b', NOW - 4000)]);
    const result = validateRecords(input(sent), topic({ 'message.timestamp.type': 'LogAppendTime' }), codecs);
    if (!result.ok) throw new Error(result.message);
    expect(result.header).toMatchObject({ timestampType: 'LogAppendTime', maxTimestamp: NOW, baseTimestamp: NOW - 5000 });
    expect(result.logAppendTimeMs).toBe(NOW);
    expect(hasValidCrc(result.batch, result.header)).toBe(true);
    // The record bytes are untouched: from byte 61 on, identical to what the producer sent.
    expect(result.batch.subarray(61)).toEqual(sent.subarray(61));
  });

  it('corrects a CreateTime batch whose maxTimestamp is not the largest record timestamp', () => {
    const sent = tamper(produced([record('a', NOW - 10), record('b', NOW - 20)]), (v) => v.setBigInt64(35, BigInt(NOW - 999)));
    const result = validateRecords(input(sent), topic(), codecs);
    expect(result.ok && result.header.maxTimestamp).toBe(NOW - 10);
  });
});

describe('LogValidator: the records of an accepted batch, decoded only when read', () => {
  it('gives the records a consumer will read, from the stored bytes: CreateTime keeps their own, LogAppendTime reads the append time, a recompressed batch its new bytes', () => {
    const records = [record('a', NOW - 5000), record('b', NOW - 4000, null)];
    for (const compression of ['none', 'lz4'] as const) {
      const sent = amongOtherBytes(produced(records, { compression }));
      const kept = validateRecords(input(sent), topic(), codecs);
      const stamped = validateRecords(input(sent), topic({ 'message.timestamp.type': 'LogAppendTime' }), codecs);
      const recompressed = validateRecords(input(sent), topic({ 'compression.type': compression === 'none' ? 'gzip' : 'uncompressed' }), codecs);
      if (!kept.ok || !stamped.ok || !recompressed.ok) throw new Error('refused');
      sent.fill(0); // the request's buffer is the client's: nothing is read from it afterwards
      expect([kept.count, stamped.count, recompressed.count]).toEqual([2, 2, 2]);
      expect(kept.records, compression).toEqual(records);
      expect(kept.records).toBe(kept.records); // decoded once, then kept
      expect(stamped.records.map((r) => r.timestamp)).toEqual([NOW, NOW]);
      expect(recompressed.records).toEqual(records);
    }
  });

  it('accepts timestamps on the bounds, and -1 (no timestamp) however tight the bounds; keyed records on a compacted topic, compressed', () => {
    const config = topic({ 'message.timestamp.before.max.ms': 10, 'message.timestamp.after.max.ms': 10, compacted: true });
    const sent = produced([record('low', NOW - 10), record('none', -1), record('high', NOW + 10)], { compression: 'lz4' });
    const result = validateRecords(input(sent), config, codecs);
    if (!result.ok) throw new Error(result.message);
    expect(result.header.maxTimestamp).toBe(NOW + 10);
    const none = validateRecords(input(produced([record('none', -1)])), config, codecs);
    expect(none.ok && none.header.maxTimestamp).toBe(-1);
  });

  it('keeps a transactional batch transactional, with its producer fields, kept as sent or recompressed', () => {
    const sent = encodeRecordBatch({ baseOffset: 0, lastOffset: 1, leaderEpoch: -1, appendTimeMs: 0, records: [record('a'), record('b')], sizeBytes: 0, transactional: true }, { codecs, producer: { id: 31, epoch: 2, baseSequence: 40 } });
    for (const config of [topic(), topic({ 'compression.type': 'lz4' })]) {
      const result = validateRecords(input(sent), config, codecs);
      if (!result.ok) throw new Error(result.message);
      expect(result.header).toMatchObject({ isTransactional: true, isControl: false, producerId: 31, producerEpoch: 2, baseSequence: 40, count: 2 });
      expect(decodeRecordBatch(result.batch, { codecs }).transactional).toBe(true);
    }
  });
});

describe('LogValidator: what a leader refuses, with Kafka error', () => {
  const refuse = (records: Uint8Array | null, config = topic(), over: Partial<ValidateRecordsInput> = {}) => {
    const result = validateRecords(input(records, over), config, codecs);
    if (result.ok) throw new Error('accepted');
    return result;
  };

  it('INVALID_RECORD: no batch, a truncated one, or two batches in one partition entry', () => {
    expect(refuse(null).error).toBe('INVALID_RECORD');
    const one = produced([record('a')]);
    expect(refuse(one.subarray(0, one.length - 3)).error).toBe('INVALID_RECORD');
    expect(refuse(concat(one, one))).toMatchObject({ error: 'INVALID_RECORD', message: expect.stringMatching(/exactly one record batch/) });
  });

  it('INVALID_RECORD at the request for magic 0/1 batches in Produce v3+, UNSUPPORTED_FOR_MESSAGE_FORMAT at the log for older requests', () => {
    const v1 = tamper(produced([record('a')]), (v) => v.setInt8(16, 1));
    expect(refuse(v1)).toMatchObject({ error: 'INVALID_RECORD', message: expect.stringMatching(/magic version 2/) });
    expect(refuse(v1, topic(), { produceVersion: 2 }).error).toBe('UNSUPPORTED_FOR_MESSAGE_FORMAT');
  });

  it('UNSUPPORTED_COMPRESSION_TYPE: zstd below Produce v7', () => {
    const zstd = tamper(produced([record('a')]), (v) => v.setInt16(21, 4));
    expect(refuse(zstd, topic(), { produceVersion: 6 }).error).toBe('UNSUPPORTED_COMPRESSION_TYPE');
  });

  it('MESSAGE_TOO_LARGE: a batch larger than max.message.bytes, before or after recompression', () => {
    const sent = produced([record('x'.repeat(500))]);
    expect(refuse(sent, topic({ 'max.message.bytes': sent.length - 1 })).error).toBe('MESSAGE_TOO_LARGE');
    expect(validateRecords(input(sent), topic({ 'max.message.bytes': sent.length }), codecs).ok).toBe(true);
    let seed = 1;
    const random = Uint8Array.from({ length: 300 }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24); // incompressible
    const small = produced([{ key: null, value: random, headers: [], timestamp: NOW }]);
    expect(refuse(small, topic({ 'compression.type': 'gzip', 'max.message.bytes': small.length })).error).toBe('MESSAGE_TOO_LARGE');
  });

  it('CORRUPT_MESSAGE: a flipped bit under the CRC, or a compressed payload that does not decompress', () => {
    const sent = produced([record('hello')]);
    const flipped = sent.slice();
    flipped[sent.length - 2]! ^= 1;
    expect(refuse(flipped).error).toBe('CORRUPT_MESSAGE');
    const gz = produced([record('hello')], { compression: 'gzip' });
    expect(refuse(tamper(gz, (v) => v.setUint8(71, 0xff))).error).toBe('CORRUPT_MESSAGE');
  });

  it('CORRUPT_MESSAGE at once for a snappy payload whose literal claims 2^31 bytes or more (it held the engine for minutes)', () => {
    // A well-sealed batch (length and CRC right) whose raw Snappy payload is 7 bytes: length 6,
    // then a literal with a 4-byte length of 0x88f8a79e.
    const header = produced([record('hello')], { compression: 'snappy' }).subarray(0, 61);
    const payload = Uint8Array.of(0x06, 0xfc, 0x9e, 0xa7, 0xf8, 0x88, 0xec);
    const evil = tamper(concat(header, payload), (v) => v.setInt32(8, 61 + payload.length - 12));
    const result = refuse(evil);
    expect(result.error).toBe('CORRUPT_MESSAGE');
    expect(result.message).toMatch(/snappy data is corrupt: a literal of \d+ bytes runs past the data/);
  });

  it('INVALID_RECORD: offsets that disagree with the count, a non-positive count, control batches, a producer id without a sequence', () => {
    const sent = produced([record('a'), record('b')]);
    expect(refuse(tamper(sent, (v) => v.setInt32(23, 5))).message).toMatch(/Inconsistent batch offset range \[0, 5\] and count of records 2/);
    expect(refuse(tamper(sent, (v) => v.setInt32(23, -1))).message).toMatch(/invalid offset range/);
    expect(refuse(tamper(sent, (v) => (v.setInt32(23, -1), v.setInt32(57, 0)))).error).toBe('INVALID_RECORD');
    expect(refuse(tamper(sent, (v) => v.setInt16(21, 0x30))).message).toMatch(/control records/);
    const idempotent = produced([record('a')], { producer: { id: 9, epoch: 0, baseSequence: 0 } });
    expect(refuse(tamper(idempotent, (v) => v.setInt32(53, -1))).message).toMatch(/Invalid sequence number -1/);
  });

  it('INVALID_RECORD: records that do not parse as the header says (the CRC being right)', () => {
    const sent = produced([record('a'), record('b')]);
    expect(refuse(tamper(sent, (v) => (v.setInt32(23, 2), v.setInt32(57, 3)))).error).toBe('INVALID_RECORD');
  });

  it('INVALID_RECORD with a RecordError per keyless record on a compacted topic, uncompressed or compressed', () => {
    for (const compression of ['none', 'lz4'] as const) {
      const sent = produced([record('a', NOW, 'k1'), record('b', NOW, null), record('c', NOW, null)], { compression });
      expect(refuse(sent, topic({ compacted: true }))).toMatchObject({
        error: 'INVALID_RECORD',
        recordErrors: [expect.objectContaining({ batchIndex: 1 }), expect.objectContaining({ batchIndex: 2 })],
      });
    }
  });

  it('INVALID_RECORD: records whose offset deltas are not 0, 1, 2, … (a cleaned batch is no client batch), the CRC being right', () => {
    // Two records at offset deltas 1 and 2 under a header that says deltas 0 and 1.
    const shifted = encodeRecordBatch({ baseOffset: 0, lastOffset: 2, leaderEpoch: -1, appendTimeMs: 0, records: [record('a'), record('b')], sizeBytes: 0, offsetDeltas: [1, 2] });
    const result = refuse(tamper(shifted, (v) => v.setInt32(23, 1)));
    expect(result.error).toBe('INVALID_RECORD');
    expect(result.message).toMatch(/offsetDelta 1, expected 0/);
  });

  it('INVALID_TIMESTAMP: CreateTime before now - before.max.ms or after now + after.max.ms, naming each record', () => {
    const config = topic({ 'message.timestamp.before.max.ms': HOUR, 'message.timestamp.after.max.ms': HOUR });
    const sent = produced([record('ok', NOW), record('old', NOW - HOUR - 1), record('future', NOW + HOUR + 1), record('edge', NOW + HOUR)]);
    const result = refuse(sent, config);
    expect(result.error).toBe('INVALID_TIMESTAMP');
    expect(result.recordErrors.map((e) => e.batchIndex)).toEqual([1, 2]);
    expect(result.recordErrors[0]!.message).toMatch(/out of range/);
    // A LogAppendTime topic does not look at the records' CreateTime.
    expect(validateRecords(input(sent), { ...config, 'message.timestamp.type': 'LogAppendTime' }, codecs).ok).toBe(true);
  });

  it('INVALID_TIMESTAMP: a producer that marks its batch LogAppendTime', () => {
    const sent = tamper(produced([record('a', NOW)]), (v) => v.setInt16(21, 8));
    expect(refuse(sent).error).toBe('INVALID_TIMESTAMP');
  });

  it('UNSUPPORTED_COMPRESSION_TYPE when the topic wants zstd and the host supplied no zstd compressor', () => {
    expect(refuse(produced([record('a')]), topic({ 'compression.type': 'zstd' })).error).toBe('UNSUPPORTED_COMPRESSION_TYPE');
  });
});
