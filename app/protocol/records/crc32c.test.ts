import CRC32C from 'crc-32/crc32c.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32c } from './crc32c.js';

const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('CRC-32C', () => {
  it('gives the check value of the Castagnoli CRC and of RFC 3720 test vectors', () => {
    expect(crc32c(utf8('123456789'), 0, 9)).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32), 0, 32)).toBe(0x8a9136aa);
    expect(crc32c(new Uint8Array(32).fill(0xff), 0, 32)).toBe(0x62a8ab43);
    expect(crc32c(Uint8Array.from({ length: 32 }, (_, i) => i), 0, 32)).toBe(0x46dd794e);
    expect(crc32c(new Uint8Array(0), 0, 0)).toBe(0);
  });

  it('equals the crc-32 package on any range of any bytes, at any alignment (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 7 }), fc.nat(), fc.nat(), (bytes, shift, a, b) => {
        // A view that starts `shift` bytes into its buffer, so word reads meet every alignment.
        const backing = new Uint8Array(bytes.length + shift);
        backing.set(bytes, shift);
        const view = backing.subarray(shift);
        const from = bytes.length === 0 ? 0 : a % (bytes.length + 1);
        const to = from + (bytes.length - from === 0 ? 0 : b % (bytes.length - from + 1));
        expect(crc32c(view, from, to)).toBe(CRC32C.buf(bytes.subarray(from, to)) >>> 0);
      }),
      { numRuns: 500 },
    );
  });
});
