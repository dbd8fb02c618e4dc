import { describe, expect, it } from 'vitest';
import { createCompressionCodecs } from '../../app/protocol/records/compression.js';
import { validateRecords } from '../../app/protocol/records/log-validator.js';
import { batchHeader, decodeRecordBatch, encodeRecordBatch } from '../../app/protocol/records/record-batch.js';
import { loadZstdCompressor } from './zstd-compressor.js';

describe('the host zstd compressor', () => {
  it('writes Zstandard frames the pure decompressor reads back', async () => {
    const codecs = createCompressionCodecs(await loadZstdCompressor());
    const text = new TextEncoder().encode('a zstd payload, '.repeat(500));
    const compressed = codecs.compress('zstd', text);
    expect(compressed.length).toBeLessThan(text.length / 10);
    expect(codecs.decompress('zstd', compressed, text.length)).toEqual(text);
  });

  it('lets a topic with compression.type=zstd recompress what producers send', async () => {
    const codecs = createCompressionCodecs(await loadZstdCompressor());
    const records = [{ key: null, value: new TextEncoder().encode('hello '.repeat(50)), headers: [], timestamp: 1000 }];
    const sent = encodeRecordBatch({ baseOffset: 0, lastOffset: 0, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0 });
    const result = validateRecords(
      { records: sent, produceVersion: 7, baseOffset: 5, leaderEpoch: 1, nowMs: 1000 },
      {
        'compression.type': 'zstd',
        'max.message.bytes': 1_048_588,
        'message.timestamp.type': 'CreateTime',
        'message.timestamp.before.max.ms': Number.MAX_SAFE_INTEGER,
        'message.timestamp.after.max.ms': 3_600_000,
        compacted: false,
      },
      codecs,
    );
    if (!result.ok) throw new Error(result.message);
    expect(batchHeader(result.batch).compression).toBe('zstd');
    expect(decodeRecordBatch(result.batch, { codecs }).records[0]!.value).toEqual(records[0]!.value);
  });
});
