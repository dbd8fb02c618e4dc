/**
 * Kafka's Uuid (topic ids) as the string Kafka prints: the 16 bytes in URL-safe base64 without
 * padding, 22 characters (`Uuid.toString()`); the zero uuid is "AAAAAAAAAAAAAAAAAAAAAA".
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, i]));

export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** 16 bytes → 22 base64url characters. */
export function uuidToString(bytes: Uint8Array): string {
  let s = '';
  // 15 bytes make 20 characters in groups of 3; the 16th byte makes the last 2.
  for (let i = 0; i < 15; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    s += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const last = bytes[15]!;
  return s + ALPHABET[last >> 2]! + ALPHABET[(last & 3) << 4]!;
}

/** 22 base64url characters → 16 bytes; a RangeError for anything else. */
export function uuidFromString(s: string): Uint8Array {
  if (s.length !== 22) throw new RangeError(`uuid "${s}" is not 22 base64url characters`);
  const out = new Uint8Array(16);
  const at = (i: number): number => {
    const v = INDEX.get(s[i]!);
    if (v === undefined) throw new RangeError(`uuid "${s}" has a character outside base64url`);
    return v;
  };
  for (let g = 0; g < 5; g++) {
    const n = (at(g * 4) << 18) | (at(g * 4 + 1) << 12) | (at(g * 4 + 2) << 6) | at(g * 4 + 3);
    out[g * 3] = n >> 16;
    out[g * 3 + 1] = (n >> 8) & 255;
    out[g * 3 + 2] = n & 255;
  }
  const tail = at(21);
  if (tail & 15) throw new RangeError(`uuid "${s}" is not canonical`);
  out[15] = (at(20) << 2) | (tail >> 4);
  return out;
}
