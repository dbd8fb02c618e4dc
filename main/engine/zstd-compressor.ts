/**
 * The zstd compressor the wire protocol's record codecs take as a port: no pure-JS zstd
 * compressor is published, so the host supplies the reference library compiled to WebAssembly
 * (zstd-codec, which loads itself with Node's fs and so cannot live in app/protocol). Its
 * WebAssembly heap is fixed at 16 MiB; an input it cannot compress fails with a
 * CompressionError instead of taking the process down.
 */
import { ZstdCodec } from 'zstd-codec';
import { CompressionError, type ZstdCompress } from '../../app/protocol/records/compression.js';

/** Kafka's default zstd level (compression.zstd.level). */
export const DEFAULT_ZSTD_LEVEL = 3;

let loaded: Promise<ZstdCompress> | null = null;

/** Loads the library once; resolves to a synchronous compressor. */
export function loadZstdCompressor(level = DEFAULT_ZSTD_LEVEL): Promise<ZstdCompress> {
  loaded ??= new Promise((resolve) => {
    ZstdCodec.run((zstd) => {
      const simple = new zstd.Simple();
      resolve((data) => {
        let out: Uint8Array | null;
        try {
          out = simple.compress(data, level);
        } catch (e) {
          throw new CompressionError(`zstd could not compress ${data.length} bytes: ${String(e)}`);
        }
        if (!out) throw new CompressionError(`zstd could not compress ${data.length} bytes`);
        return out;
      });
    });
  });
  return loaded;
}
