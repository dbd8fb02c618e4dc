/**
 * The record-batch codecs kafkajs lacks (it has gzip only and throws for snappy, lz4 and zstd,
 * reading as well as writing): ours (app/protocol/records/compression.ts), the ones the engine's
 * brokers use, installed into kafkajs's codec table so the Kafka driver produces any codec and
 * reads batches a real cluster stores in any. zstd compression needs the host's compressor
 * (`useZstdCompressor`); without one a zstd produce answers UNSUPPORTED_COMPRESSION_TYPE with
 * the reason, while zstd batches decompress in any case.
 */
import { Codecs, Types } from 'kafkajs/src/protocol/message/compression/index.js';
import { CompressionError, createCompressionCodecs, type CompressionCodec, type ZstdCompress } from '../protocol/records/compression.js';

/** What one batch may decompress to (Kafka's default max.message.bytes is far below). */
const MAX_DECOMPRESSED = 256 * 1024 * 1024;

let loadZstd: (() => Promise<ZstdCompress>) | undefined;
const codecs = createCompressionCodecs();

/**
 * Where kafkajs's zstd gets its compressor (the host's WebAssembly build,
 * main/engine/zstd-compressor.ts), loaded on the first zstd batch rather than at start.
 */
export function useZstdCompressor(load: () => Promise<ZstdCompress>): void {
  loadZstd = load;
}

async function compress(name: CompressionCodec, data: Uint8Array): Promise<Uint8Array> {
  if (name !== 'zstd') return codecs.compress(name, data);
  if (!loadZstd) throw new CompressionError('zstd compression needs the host’s compressor, which this process has not been given');
  return (await loadZstd())(data);
}

function codec(name: CompressionCodec) {
  return () => ({
    compress: async (encoder: { buffer: Buffer }): Promise<Buffer> => Buffer.from(await compress(name, new Uint8Array(encoder.buffer))),
    decompress: async (buffer: Buffer): Promise<Buffer> => Buffer.from(codecs.decompress(name, new Uint8Array(buffer), MAX_DECOMPRESSED)),
  });
}

let installed = false;

/** Installs snappy, lz4 and zstd into kafkajs's table (once; gzip stays kafkajs's own). */
export function installKafkajsCodecs(): void {
  if (installed) return;
  installed = true;
  Codecs[Types.Snappy] = codec('snappy');
  Codecs[Types.LZ4] = codec('lz4');
  Codecs[Types.ZSTD] = codec('zstd');
}

/**
 * The codec kafkajs uses for `name` once ours are installed (its table's entry): what a host's
 * bundle is checked with, in a test that cannot run the host itself (Electron's main process).
 */
export function kafkajsCodec(name: CompressionCodec): KafkajsCodec {
  installKafkajsCodecs();
  return Codecs[kafkajsCompression(name)]!() as KafkajsCodec;
}

export interface KafkajsCodec {
  compress(encoder: { buffer: Buffer }): Promise<Buffer>;
  decompress(buffer: Buffer): Promise<Buffer>;
}

/** kafkajs's compression value (its CompressionTypes) for a codec name. */
export function kafkajsCompression(name: CompressionCodec): number {
  return { none: Types.None, gzip: Types.GZIP, snappy: Types.Snappy, lz4: Types.LZ4, zstd: Types.ZSTD }[name];
}
