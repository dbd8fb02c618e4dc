/**
 * A Fetch answer's records field as our decoder reads it for the Kafka driver: each record with
 * its batch's codec, timestamp type, producer fields and leader epoch; the offset window; a
 * cleaned batch's own offsets; the batch the byte limit cut; corrupt and old-format batches.
 */
import { describe, expect, it } from 'vitest';
import { createCompressionCodecs, type CompressionCodec } from '../protocol/records/compression.js';
import { encodeRecordBatch } from '../protocol/records/record-batch.js';
import { concat as concatBytes } from '../protocol/test-support/frames.js';
import { recordsOfFetch } from './fetched-batches.js';

const codecs = createCompressionCodecs();
const text = (s: string) => new TextEncoder().encode(s);
type Batch = Parameters<typeof encodeRecordBatch>[0];

function batch(baseOffset: number, values: string[], extra: Partial<Batch> = {}): Batch {
  return {
    baseOffset,
    lastOffset: baseOffset + values.length - 1,
    leaderEpoch: 3,
    appendTimeMs: 0,
    records: values.map((v, i) => ({ key: text(`k-${v}`), value: text(v), headers: [{ key: 'h', value: text(String(i)) }], timestamp: 1_000 + i })),
    sizeBytes: 0,
    ...extra,
  };
}

const concat = (...parts: Uint8Array[]) => concatBytes(parts);

describe('recordsOfFetch', () => {
  it('gives each record its batch’s codec, producer id/epoch/sequence, timestamp type and leader epoch', () => {
    const parts = (['none', 'gzip', 'snappy', 'lz4'] as CompressionCodec[]).map((compression, n) =>
      encodeRecordBatch(batch(n * 2, [`${compression}-a`, `${compression}-b`]), { compression, codecs, producer: { id: 40 + n, epoch: 2, baseSequence: 7 } }),
    );
    const appended = encodeRecordBatch(batch(8, ['late'], { appendTimeMs: 5_555, transactional: true }), { timestampType: 'LogAppendTime', producer: { id: 99, epoch: 0, baseSequence: 0x7fffffff } });
    const got = recordsOfFetch(concat(...parts, appended), 0, 100, 't-0');
    expect(got.map((r) => [r.offset, new TextDecoder().decode(r.value!), r.compression, r.producerId, r.producerEpoch, r.sequence, r.leaderEpoch])).toEqual([
      [0, 'none-a', 'none', 40, 2, 7, 3],
      [1, 'none-b', 'none', 40, 2, 8, 3],
      [2, 'gzip-a', 'gzip', 41, 2, 7, 3],
      [3, 'gzip-b', 'gzip', 41, 2, 8, 3],
      [4, 'snappy-a', 'snappy', 42, 2, 7, 3],
      [5, 'snappy-b', 'snappy', 42, 2, 8, 3],
      [6, 'lz4-a', 'lz4', 43, 2, 7, 3],
      [7, 'lz4-b', 'lz4', 43, 2, 8, 3],
      [8, 'late', 'none', 99, 0, 0x7fffffff, 3],
    ]);
    expect(got[1]).toMatchObject({ timestamp: 1_001, timestampType: 'CreateTime', transactional: false, headers: [{ key: 'h', value: text('1') }] });
    expect(got[8]).toMatchObject({ timestamp: 5_555, timestampType: 'LogAppendTime', transactional: true });
  });

  it('keeps only [from, high watermark), reads a cleaned batch at its own offsets and sequences, and skips the batch the byte limit cut', () => {
    const plain = encodeRecordBatch(batch(0, ['a', 'b', 'c']));
    const cleaned = encodeRecordBatch({ ...batch(3, ['d', 'f']), lastOffset: 6, offsetDeltas: [0, 2] }, { producer: { id: 5, epoch: 1, baseSequence: 10 } });
    const cut = encodeRecordBatch(batch(7, ['g', 'h']));
    const got = recordsOfFetch(concat(plain, cleaned, cut.subarray(0, cut.length - 4)), 1, 6, 't-0');
    expect(got.map((r) => [r.offset, new TextDecoder().decode(r.value!), r.sequence])).toEqual([
      [1, 'b', -1],
      [2, 'c', -1],
      [3, 'd', 10],
      [5, 'f', 12],
    ]);
    expect(recordsOfFetch(null, 0, 10, 't-0')).toEqual([]);
    expect(recordsOfFetch(concat(plain.subarray(0, 10)), 0, 10, 't-0')).toEqual([]);
  });

  it('refuses a corrupt batch with CORRUPT_MESSAGE naming where, and a magic Kafka does not have', () => {
    const bad = encodeRecordBatch(batch(0, ['a', 'b']));
    bad[bad.length - 1]! ^= 0xff;
    expect(() => recordsOfFetch(bad, 0, 10, 'orders-2')).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE', message: expect.stringContaining('orders-2') }));
    const old = encodeRecordBatch(batch(0, ['a']));
    old[16] = 3;
    expect(() => recordsOfFetch(old, 0, 10, 'orders-2')).toThrow(expect.objectContaining({ code: 'CORRUPT_MESSAGE', message: expect.stringContaining('magic 3') }));
  });
});
