/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of Kafka's v2 record
 * batches — the same values as the `crc-32` package's CRC32C.buf, computed faster: the bytes are
 * read four at a time as little-endian 32-bit words (slicing-by-16 over sixteen 256-entry
 * tables) instead of one at a time. The word reads need a little-endian host; on a big-endian one
 * every byte goes through the byte-wise loop.
 */

/** The sixteen slicing tables, one after another: T[k * 256 + b]. */
const T = new Int32Array(16 * 256);
for (let n = 0; n < 256; n++) {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  T[n] = c;
}
for (let n = 0; n < 256; n++) {
  let c = T[n]!;
  for (let k = 1; k < 16; k++) {
    c = T[c & 0xff]! ^ (c >>> 8);
    T[k * 256 + n] = c;
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** CRC-32C of `buf[from, to)`, unsigned. */
export function crc32c(buf: Uint8Array, from: number, to: number): number {
  let c = -1;
  let i = from;
  if (LITTLE_ENDIAN) {
    // Byte-wise up to a 4-byte boundary of the underlying buffer, then 16 bytes (four words) a round.
    while (i < to && ((buf.byteOffset + i) & 3) !== 0) c = T[(c ^ buf[i++]!) & 0xff]! ^ (c >>> 8);
    const rounds = (to - i) >> 4;
    if (rounds > 0) {
      const words = new Int32Array(buf.buffer, buf.byteOffset + i, rounds * 4);
      for (let w = 0; w < words.length; w += 4) {
        const a = words[w]! ^ c;
        const b = words[w + 1]!;
        const d = words[w + 2]!;
        const e = words[w + 3]!;
        c =
          T[0xf00 + (a & 0xff)]! ^
          T[0xe00 + ((a >>> 8) & 0xff)]! ^
          T[0xd00 + ((a >>> 16) & 0xff)]! ^
          T[0xc00 + (a >>> 24)]! ^
          T[0xb00 + (b & 0xff)]! ^
          T[0xa00 + ((b >>> 8) & 0xff)]! ^
          T[0x900 + ((b >>> 16) & 0xff)]! ^
          T[0x800 + (b >>> 24)]! ^
          T[0x700 + (d & 0xff)]! ^
          T[0x600 + ((d >>> 8) & 0xff)]! ^
          T[0x500 + ((d >>> 16) & 0xff)]! ^
          T[0x400 + (d >>> 24)]! ^
          T[0x300 + (e & 0xff)]! ^
          T[0x200 + ((e >>> 8) & 0xff)]! ^
          T[0x100 + ((e >>> 16) & 0xff)]! ^
          T[e >>> 24]!;
      }
      i += rounds * 16;
    }
  }
  while (i < to) c = T[(c ^ buf[i++]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
