import { describe, expect, it } from 'vitest';
import type { LogRecord, RecordBatch } from '../../core/log/records.js';
import { recordOffset } from '../../core/log/records.js';
import { createCleanedBatchWriter, scanStoredRecords } from './cleaned-batch-writer.js';
import { createCompressionCodecs } from './compression.js';
import { batchHeader, decodeRecordBatch, encodeRecordBatch, setLogAppendTime } from './record-batch.js';

const codecs = createCompressionCodecs();
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const rec = (k: string, v: string | null, timestamp: number): LogRecord => ({ key: utf8(k), value: v === null ? null : utf8(v), headers: [], timestamp });

/** A stored batch as a client produced it: its bytes, decoded back. */
function stored(records: LogRecord[], baseOffset: number, options: Parameters<typeof encodeRecordBatch>[1] = {}, logAppendTime?: number): RecordBatch {
  const batch: RecordBatch = { baseOffset, lastOffset: baseOffset + records.length - 1, leaderEpoch: 3, appendTimeMs: 0, records, sizeBytes: 0 };
  const bytes = encodeRecordBatch(batch, { ...options, codecs });
  if (logAppendTime !== undefined) setLogAppendTime(bytes, logAppendTime);
  const decoded = decodeRecordBatch(bytes, { codecs });
  decoded.encoded = bytes;
  return decoded;
}

describe('the batches the log cleaner writes (Kafka MemoryRecords.filterTo)', () => {
  const writer = createCleanedBatchWriter(codecs);

  it('keeps the records it is told to at their own offsets, with the base and last offset, epoch, producer and codec of the original', () => {
    const original = stored([rec('a', '1', 100), rec('b', '2', 101), rec('a', '3', 102), rec('c', '4', 103)], 40, { compression: 'lz4', producer: { id: 7, epoch: 1, baseSequence: 10 } });
    const cleaned = writer.retain(original, [1, 3], undefined);
    const header = batchHeader(cleaned.encoded!);
    expect(header).toMatchObject({ baseOffset: 40, lastOffset: 43, leaderEpoch: 3, count: 2, compression: 'lz4', producerId: 7, producerEpoch: 1, baseSequence: 10, deleteHorizonMs: null });
    const back = decodeRecordBatch(cleaned.encoded!, { codecs });
    expect(back.records.map((r, i) => [recordOffset(back, i), new TextDecoder().decode(r.key!), r.timestamp])).toEqual([
      [41, 'b', 101],
      [43, 'c', 103],
    ]);
    expect(back.offsetDeltas).toEqual([1, 3]);
    expect(cleaned.sizeBytes).toBe(cleaned.encoded!.length);
  });

  it('sets the delete horizon as the base timestamp (attribute bit 6), the records keeping their own timestamps', () => {
    const original = stored([rec('a', '1', 5_000), rec('a', null, 6_000)], 0);
    const cleaned = writer.retain(original, [1], 90_000);
    const header = batchHeader(cleaned.encoded!);
    expect(header.deleteHorizonMs).toBe(90_000);
    expect(header.baseTimestamp).toBe(90_000);
    const back = decodeRecordBatch(cleaned.encoded!);
    expect(back.deleteHorizonMs).toBe(90_000);
    expect(back.records[0]!.timestamp).toBe(6_000);
    expect(back.records[0]!.value).toBeNull();
  });

  it('writes a batch left without records as an empty, uncompressed header with the original max timestamp', () => {
    const original = stored([rec('a', '1', 5_000), rec('b', '2', 7_000)], 10, { compression: 'gzip', producer: { id: 9, epoch: 0, baseSequence: 4 } });
    const empty = writer.retain(original, [], undefined);
    expect(batchHeader(empty.encoded!)).toMatchObject({ baseOffset: 10, lastOffset: 11, count: 0, compression: 'none', maxTimestamp: 7_000, baseTimestamp: -1, producerId: 9, baseSequence: 4 });
    const back = decodeRecordBatch(empty.encoded!);
    expect(back.records).toEqual([]);
    expect(back.offsetDeltas).toEqual([]);
  });

  it('keeps a LogAppendTime batch LogAppendTime, with its append time', () => {
    const original = stored([rec('a', '1', 5), rec('b', '2', 6)], 0, {}, 77_000);
    const cleaned = writer.retain(original, [0], undefined);
    expect(batchHeader(cleaned.encoded!)).toMatchObject({ timestampType: 'LogAppendTime', maxTimestamp: 77_000 });
    expect(decodeRecordBatch(cleaned.encoded!).records[0]!.timestamp).toBe(77_000);
  });

  it('leaves a zstd batch uncompressed when no zstd compressor is at hand, records and offsets the same', () => {
    const zstdCodecs = createCompressionCodecs((data) => data);
    const original = stored([rec('a', '1', 1), rec('b', '2', 2)], 0);
    const bytes = encodeRecordBatch(original, { compression: 'zstd', codecs: zstdCodecs });
    const z = { ...original, encoded: bytes };
    const cleaned = writer.retain(z, [1], undefined);
    expect(batchHeader(cleaned.encoded!).compression).toBe('none');
    expect(decodeRecordBatch(cleaned.encoded!).offsetDeltas).toEqual([1]);
  });

  it('scans keys and tombstones from the stored bytes exactly as the records read, for dense, cleaned and compressed batches', () => {
    const records = [rec('a', '1', 1), { key: null, value: utf8('x'), headers: [], timestamp: 2 }, rec('b', null, 3), rec('c', '4', 4)];
    const seen = (b: RecordBatch): [number, string | null, boolean][] => {
      const out: [number, string | null, boolean][] = [];
      scanStoredRecords(b, (i, key, tombstone) => void out.push([i, key === null ? null : new TextDecoder().decode(key), tombstone]));
      return out;
    };
    const expected: [number, string | null, boolean][] = [[0, 'a', false], [1, null, false], [2, 'b', true], [3, 'c', false]];
    expect(seen(stored(records, 5))).toEqual(expected);
    expect(seen(stored(records, 5, { compression: 'gzip' }))).toEqual(expected);
    const cleaned = writer.retain(stored(records, 5), [0, 2], 9);
    expect(seen(decodeRecordBatch(cleaned.encoded!, { lazyRecords: true }))).toEqual([[0, 'a', false], [1, 'b', true]]);
    // Stop when told to.
    const first: number[] = [];
    scanStoredRecords(stored(records, 5), (i) => (first.push(i), false));
    expect(first).toEqual([0]);
  });
});
