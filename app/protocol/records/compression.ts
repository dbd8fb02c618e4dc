/**
 * The record-batch compression codecs (attributes bits 0-2: 1 gzip, 2 snappy, 3 lz4, 4 zstd),
 * as Kafka's producers and brokers write them:
 *
 *   gzip    one RFC 1952 member (Java's GZIPOutputStream)                         — fflate
 *   snappy  the xerial stream framing Java clients send: 16-byte header (0x82 "SNAPPY" 0,
 *           int32 version 1, int32 compatible 1) then [int32 length, raw Snappy block]*;
 *           raw Snappy (no framing) is accepted too, as snappy-java's reader does — snappyjs
 *   lz4     the LZ4 frame format (magic 0x184D2204), blocks independent, 64 KB blocks as
 *           Kafka's KafkaLZ4BlockOutputStream writes them; the frame is ours, blocks lz4js's
 *   zstd    a Zstandard frame — fzstd decompresses; compression needs the port (`zstd`), since
 *           no pure-JS zstd compressor is published; the host supplies one
 *
 * Invariant: decompression never produces, nor allocates for, more than `maxBytes`; a stream
 * that claims or yields more fails with {@link CompressionError}, as does any malformed stream.
 */
import { Gunzip, gzipSync } from 'fflate';
import { decompress as zstdDecompress } from 'fzstd';
import * as lz4 from 'lz4js';
import { hash as xxh32 } from 'lz4js/xxh32.js';
import * as snappy from 'snappyjs';

export type CompressionCodec = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export const CODECS: readonly CompressionCodec[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

export class CompressionError extends Error {
  override readonly name = 'CompressionError';
}

/** The codecs a broker uses; decompression is bounded by `maxBytes`. */
export interface CompressionCodecs {
  compress(codec: CompressionCodec, data: Uint8Array): Uint8Array;
  decompress(codec: CompressionCodec, data: Uint8Array, maxBytes: number): Uint8Array;
}

/** A zstd compressor from the host (the only codec without a pure-JS compressor). */
export type ZstdCompress = (data: Uint8Array) => Uint8Array;

export function createCompressionCodecs(zstd?: ZstdCompress): CompressionCodecs {
  return {
    compress(codec, data) {
      switch (codec) {
        case 'none':
          return data;
        case 'gzip':
          return gzipSync(data);
        case 'snappy':
          return snappyXerial(data);
        case 'lz4':
          return lz4Frame(data);
        case 'zstd':
          if (!zstd) throw new CompressionError('no zstd compressor was supplied');
          return zstd(data);
      }
    },
    decompress(codec, data, maxBytes) {
      try {
        switch (codec) {
          case 'none':
            return data;
          case 'gzip':
            return gunzipBounded(data, maxBytes);
          case 'snappy':
            return unsnappy(data, maxBytes);
          case 'lz4':
            return unlz4(data, maxBytes);
          case 'zstd':
            return unzstd(data, maxBytes);
        }
      } catch (e) {
        if (e instanceof CompressionError) throw e;
        throw new CompressionError(`${codec} data is corrupt: ${(e as Error).message}`);
      }
    },
  };
}

function tooLarge(codec: string, maxBytes: number): CompressionError {
  return new CompressionError(`${codec} data decompresses to more than ${maxBytes} bytes`);
}

function join(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

// ---- gzip -----------------------------------------------------------------------------------

function gunzipBounded(data: Uint8Array, maxBytes: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let length = 0;
  let ended = false;
  const g = new Gunzip((chunk, final) => {
    length += chunk.length;
    if (length > maxBytes) throw tooLarge('gzip', maxBytes);
    chunks.push(chunk);
    if (final) ended = true;
  });
  g.push(data, true);
  if (!ended) throw new CompressionError('gzip data is truncated');
  return join(chunks, length);
}

// ---- snappy ---------------------------------------------------------------------------------

const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];
const XERIAL_HEADER = 16;
/** snappy-java's default block size. */
const XERIAL_BLOCK = 32 * 1024;

function isXerial(data: Uint8Array): boolean {
  return data.length >= XERIAL_HEADER && XERIAL_MAGIC.every((b, i) => data[i] === b);
}

function unsnappy(data: Uint8Array, maxBytes: number): Uint8Array {
  if (!isXerial(data)) return unsnappyRaw(data, maxBytes);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (let at = XERIAL_HEADER; at < data.length; ) {
    if (at + 4 > data.length) throw new CompressionError('snappy block length is truncated');
    const size = view.getInt32(at);
    at += 4;
    if (size < 0 || at + size > data.length) throw new CompressionError(`snappy block of ${size} bytes runs past the data`);
    const block = unsnappyRaw(data.subarray(at, at + size), maxBytes - length);
    length += block.length;
    chunks.push(block);
    at += size;
  }
  return join(chunks, length);
}

/**
 * One raw Snappy stream, its element tags walked before snappyjs decodes it. snappyjs 0.7 reads
 * a literal's 4-byte length of 2^31 or more as a negative number and then steps through about
 * 2^31 positions before the data (a 7-byte produce held the engine's thread for minutes). The
 * walk follows the format (a varint length, then literals and copies with 1, 2 or 4 offset
 * bytes) and refuses a literal that runs past the data, a copy from before the start, and
 * elements that do not add up to the declared length.
 */
function unsnappyRaw(data: Uint8Array, maxBytes: number): Uint8Array {
  const corrupt = (why: string) => new CompressionError(`snappy data is corrupt: ${why}`);
  let at = 0;
  let declared = 0;
  for (let shift = 0; ; shift += 7) {
    if (at >= data.length || shift > 28) throw corrupt('the length varint is malformed');
    const b = data[at++]!;
    declared += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  if (declared > maxBytes) throw tooLarge('snappy', maxBytes);
  let produced = 0;
  while (at < data.length) {
    const tag = data[at++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let length = (tag >>> 2) + 1;
      if (length > 60) {
        const bytes = length - 60;
        if (at + bytes > data.length) throw corrupt('a literal length is truncated');
        length = 1;
        for (let i = 0; i < bytes; i++) length += data[at + i]! * 2 ** (8 * i);
        at += bytes;
      }
      if (at + length > data.length) throw corrupt(`a literal of ${length} bytes runs past the data`);
      at += length;
      produced += length;
    } else {
      const offsetBytes = kind === 1 ? 1 : kind === 2 ? 2 : 4;
      if (at + offsetBytes > data.length) throw corrupt('a copy is truncated');
      let offset = kind === 1 ? (tag >>> 5) * 256 : 0;
      for (let i = 0; i < offsetBytes; i++) offset += data[at + i]! * 2 ** (8 * i);
      at += offsetBytes;
      if (offset === 0 || offset > produced) throw corrupt(`a copy refers to ${offset} bytes back, before the start`);
      produced += kind === 1 ? ((tag >>> 2) & 7) + 4 : (tag >>> 2) + 1;
    }
    if (produced > declared) throw corrupt(`it yields more than the ${declared} bytes it declares`);
  }
  if (produced !== declared) throw corrupt(`it yields ${produced} of the ${declared} bytes it declares`);
  return snappy.uncompress(data, maxBytes);
}

function snappyXerial(data: Uint8Array): Uint8Array {
  const blocks: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += XERIAL_BLOCK) blocks.push(snappy.compress(data.subarray(at, at + XERIAL_BLOCK)));
  const out = new Uint8Array(XERIAL_HEADER + blocks.reduce((n, b) => n + 4 + b.length, 0));
  const view = new DataView(out.buffer);
  out.set(XERIAL_MAGIC, 0);
  view.setInt32(8, 1);
  view.setInt32(12, 1);
  let at = XERIAL_HEADER;
  for (const b of blocks) {
    view.setInt32(at, b.length);
    out.set(b, at + 4);
    at += 4 + b.length;
  }
  return out;
}

// ---- lz4 ------------------------------------------------------------------------------------

const LZ4_MAGIC = 0x184d2204;
/** FLG: version 01, blocks independent; no checksums, no content size. */
const LZ4_FLG = 0x60;
/** BD: 64 KB maximum block size (Kafka's default). */
const LZ4_BD = 4 << 4;
const LZ4_BLOCK = 64 * 1024;
const LZ4_UNCOMPRESSED = 0x80000000;

function lz4Frame(data: Uint8Array): Uint8Array {
  const blocks = Math.ceil(data.length / LZ4_BLOCK);
  const out = new Uint8Array(7 + blocks * (4 + lz4.compressBound(LZ4_BLOCK)) + 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, LZ4_MAGIC, true);
  out[4] = LZ4_FLG;
  out[5] = LZ4_BD;
  out[6] = (xxh32(0, out, 4, 2) >>> 8) & 0xff;
  let at = 7;
  const scratch = new Uint8Array(lz4.compressBound(LZ4_BLOCK));
  for (let from = 0; from < data.length; from += LZ4_BLOCK) {
    const size = Math.min(LZ4_BLOCK, data.length - from);
    // A fresh hash table per block keeps blocks independent.
    const n = lz4.compressBlock(data, scratch, from, size, new Uint32Array(1 << 16));
    if (n === 0 || n >= size) {
      view.setUint32(at, (LZ4_UNCOMPRESSED | size) >>> 0, true);
      out.set(data.subarray(from, from + size), at + 4);
      at += 4 + size;
    } else {
      view.setUint32(at, n, true);
      out.set(scratch.subarray(0, n), at + 4);
      at += 4 + n;
    }
  }
  view.setUint32(at, 0, true); // end mark
  return out.slice(0, at + 4);
}

/** Maximum block sizes by the BD byte's block-size id. */
const LZ4_BLOCK_MAX: Record<number, number> = { 4: 0x10000, 5: 0x40000, 6: 0x100000, 7: 0x400000 };

/**
 * Reads an LZ4 frame block by block (lz4js decodes each block); checksums are skipped, not
 * verified, as the record batch's CRC-32C covers the compressed bytes already.
 */
function unlz4(data: Uint8Array, maxBytes: number): Uint8Array {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 7 || view.getUint32(0, true) !== LZ4_MAGIC) throw new CompressionError('lz4 data does not start with an LZ4 frame');
  const flg = data[4]!;
  if ((flg & 0xc0) !== 0x40) throw new CompressionError(`lz4 frame version ${flg >> 6} is not 1`);
  const blockMax = LZ4_BLOCK_MAX[(data[5]! >> 4) & 7];
  if (blockMax === undefined) throw new CompressionError('lz4 frame names no valid block size');
  const blockChecksums = (flg & 0x10) !== 0;
  let at = 6 + ((flg & 0x08) !== 0 ? 8 : 0) + 1; // descriptor, content size, header checksum
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    if (at + 4 > data.length) throw new CompressionError('lz4 frame is truncated');
    const word = view.getUint32(at, true);
    at += 4;
    if (word === 0) break; // end mark
    const size = word & 0x7fffffff;
    if (size > blockMax || at + size > data.length) throw new CompressionError(`lz4 block of ${size} bytes is corrupt`);
    const room = Math.min(blockMax, maxBytes - length);
    let block: Uint8Array;
    if (word & LZ4_UNCOMPRESSED) {
      if (size > room) throw tooLarge('lz4', maxBytes);
      block = data.subarray(at, at + size);
    } else {
      const out = new Uint8Array(room);
      const n = lz4.decompressBlock(data, out, at, size, 0);
      if (!(n >= 0)) throw new CompressionError('lz4 block is corrupt');
      if (n > room) throw room < blockMax ? tooLarge('lz4', maxBytes) : new CompressionError('lz4 block is corrupt');
      block = out.subarray(0, n);
    }
    chunks.push(block);
    length += block.length;
    at += size + (blockChecksums ? 4 : 0);
  }
  return join(chunks, length);
}

// ---- zstd -----------------------------------------------------------------------------------

const ZSTD_MAGIC = 0xfd2fb528;

/** The memory the first frame asks for (window or content size), from its header. */
function zstdFrameNeeds(data: Uint8Array): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.length < 6 || view.getUint32(0, true) !== ZSTD_MAGIC) throw new CompressionError('zstd data does not start with a Zstandard frame');
  const fhd = data[4]!;
  const singleSegment = (fhd & 0x20) !== 0;
  const fcsFlag = fhd >> 6;
  let at = 5;
  let window = 0;
  if (!singleSegment) {
    const wd = data[at++]!;
    const base = 2 ** (10 + (wd >> 3));
    window = base + (base / 8) * (wd & 7);
  }
  at += [0, 1, 2, 4][fhd & 3]!; // dictionary id
  const fcsBytes = fcsFlag === 0 ? (singleSegment ? 1 : 0) : [0, 2, 4, 8][fcsFlag]!;
  if (at + fcsBytes > data.length) throw new CompressionError('zstd frame header is truncated');
  let fcs = 0;
  for (let i = fcsBytes - 1; i >= 0; i--) fcs = fcs * 256 + data[at + i]!;
  if (fcsBytes === 2) fcs += 256;
  return Math.max(window, fcs);
}

function unzstd(data: Uint8Array, maxBytes: number): Uint8Array {
  if (zstdFrameNeeds(data) > maxBytes) throw tooLarge('zstd', maxBytes);
  const out = zstdDecompress(data);
  if (out.length > maxBytes) throw tooLarge('zstd', maxBytes);
  return out;
}
