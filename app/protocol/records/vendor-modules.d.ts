// Types for the two codec packages that ship none; only what app/protocol/records uses.

declare module 'snappyjs' {
  /** Raw Snappy block; throws on a corrupt stream or one longer than `maxLength`. */
  export function uncompress(compressed: Uint8Array, maxLength?: number): Uint8Array;
  export function compress(uncompressed: Uint8Array): Uint8Array;
}

declare module 'lz4js' {
  export function compressBound(n: number): number;
  /** Decodes one block at `sIndex`; returns the next write position (past `dst` if it overflowed). */
  export function decompressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, dIndex: number): number;
  export function compressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, hashTable: Uint32Array): number;
}

declare module 'lz4js/xxh32.js' {
  export function hash(seed: number, src: Uint8Array, index: number, length: number): number;
}
