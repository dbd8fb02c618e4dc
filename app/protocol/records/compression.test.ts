import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompressionError, createCompressionCodecs } from './compression.js';

const codecs = createCompressionCodecs();
const text = new TextEncoder().encode('Kafka record batch payload, repeated. '.repeat(40));
const hex = (s: string): Uint8Array => Uint8Array.from(s.match(/../g)!.map((h) => parseInt(h, 16)));

/**
 * Fixtures made by other implementations, of `text`: kafkajs-snappy 1.1.0 (raw Snappy, as
 * kafkajs producers send it), kafkajs-lz4 1.2.1 (an LZ4 frame with a content checksum) and the
 * reference zstd library through zstd-codec 0.1.5, as a streamed frame (window, no content
 * size) and a one-shot frame (single segment with its content size).
 */
const FIXTURES = {
  snappy:
    'f00b984b61666b61207265636f7264206261746368207061796c6f61642c2072657065617465642e204bfe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe2600fe26001526',
  lz4: '04224d186470b936000000ff174b61666b61207265636f7264206261746368207061796c6f61642c2072657065617465642e202600ffffffffffb7507465642e200000000040e9ff3c',
  zstdStreamed: '28b52ffd00507d010064024b61666b61207265636f7264206261746368207061796c6f61642c2072657065617465642e2001003e2efdea09',
  zstdOneShot: '28b52ffd60f0047d010064024b61666b61207265636f7264206261746368207061796c6f61642c2072657065617465642e2001003e2efdea09',
};

describe('record batch compression codecs', () => {
  it('read what other Kafka client codecs wrote', () => {
    expect(codecs.decompress('snappy', hex(FIXTURES.snappy), 1 << 20)).toEqual(text);
    expect(codecs.decompress('lz4', hex(FIXTURES.lz4), 1 << 20)).toEqual(text);
    expect(codecs.decompress('zstd', hex(FIXTURES.zstdStreamed), 1 << 20)).toEqual(text);
    expect(codecs.decompress('zstd', hex(FIXTURES.zstdOneShot), 1 << 20)).toEqual(text);
  });

  it('round-trip gzip, snappy and lz4 for any bytes', () => {
    fc.assert(
      fc.property(fc.constantFrom('gzip' as const, 'snappy' as const, 'lz4' as const), fc.uint8Array({ maxLength: 3000 }), (codec, data) => {
        expect(codecs.decompress(codec, codecs.compress(codec, data), data.length)).toEqual(data);
      }),
    );
  });

  it('write snappy in the xerial framing Java consumers expect, and lz4 as frames with independent 64 KB blocks', () => {
    const big = new Uint8Array(200_000).map((_, i) => (i * 7) % 251);
    const framed = codecs.compress('snappy', big);
    expect([...framed.subarray(0, 16)]).toEqual([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
    expect(codecs.decompress('snappy', framed, big.length)).toEqual(big);
    const lz4 = codecs.compress('lz4', big);
    expect([...lz4.subarray(0, 6)]).toEqual([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40]);
    expect(codecs.decompress('lz4', lz4, big.length)).toEqual(big);
  });

  it('refuse to decompress past the limit, whatever the stream claims', () => {
    for (const codec of ['gzip', 'snappy', 'lz4'] as const) {
      expect(() => codecs.decompress(codec, codecs.compress(codec, text), text.length - 1)).toThrow(CompressionError);
    }
    expect(() => codecs.decompress('zstd', hex(FIXTURES.zstdOneShot), text.length - 1)).toThrow(/more than/);
    // A zstd frame header claiming a 2 GB window is refused before anything is allocated.
    expect(() => codecs.decompress('zstd', Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8, 0, 0, 0, 0), 1 << 20)).toThrow(/more than/);
  });

  it('fail with CompressionError on corrupt or truncated data, never anything else', () => {
    fc.assert(
      fc.property(fc.constantFrom('gzip' as const, 'snappy' as const, 'lz4' as const, 'zstd' as const), fc.uint8Array({ maxLength: 200 }), (codec, junk) => {
        try {
          codecs.decompress(codec, junk, 1 << 16);
        } catch (e) {
          expect(e).toBeInstanceOf(CompressionError);
        }
      }),
      { numRuns: 400 },
    );
    const gz = codecs.compress('gzip', text);
    expect(() => codecs.decompress('gzip', gz.subarray(0, gz.length - 10), 1 << 20)).toThrow(CompressionError);
  });

  it('refuse at once a raw snappy literal whose 4-byte length has the top bit set (snappyjs alone walked ~2^31 positions)', () => {
    // Found by the property above: varint length 6, then a literal tag with a 4-byte length of 0x88f8a79e.
    expect(() => codecs.decompress('snappy', hex('06fc9ea7f88cec'), 1 << 16)).toThrow(/literal of \d+ bytes runs past the data/);
    // The same inside xerial framing, as a Java producer would send it.
    const framed = Uint8Array.of(0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 7, ...hex('06fc9ea7f88cec'));
    expect(() => codecs.decompress('snappy', framed, 1 << 16)).toThrow(CompressionError);
    // A copy from before the start and a stream shorter than it declares are refused too.
    expect(() => codecs.decompress('snappy', Uint8Array.of(4, 0x01, 0x05), 1 << 16)).toThrow(/before the start/);
    expect(() => codecs.decompress('snappy', Uint8Array.of(5, 0x04, 0x61, 0x62), 1 << 16)).toThrow(/yields 2 of the 5/);
  });

  it('compress zstd only with a compressor the host supplies', () => {
    expect(() => codecs.compress('zstd', text)).toThrow(/no zstd compressor/);
    const withZstd = createCompressionCodecs(() => hex(FIXTURES.zstdOneShot));
    expect(withZstd.decompress('zstd', withZstd.compress('zstd', text), 1 << 20)).toEqual(text);
  });
});
