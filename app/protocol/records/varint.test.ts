import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  readInt64BE,
  readUnsignedVarint,
  readVarint,
  readVarlong,
  sizeOfUnsignedVarint,
  sizeOfVarint,
  sizeOfVarlong,
  writeInt64BE,
  writeUnsignedVarint,
  writeVarint,
  writeVarlong,
} from './varint.js';

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function encodeVarint(value: number): number[] {
  const buf = new Uint8Array(5);
  return [...buf.subarray(0, writeVarint(buf, 0, value))];
}
function encodeVarlong(value: number): number[] {
  const buf = new Uint8Array(10);
  return [...buf.subarray(0, writeVarlong(buf, 0, value))];
}
function decodeVarint(bytes: number[]): number {
  return readVarint(Uint8Array.from(bytes), { pos: 0 });
}
function decodeVarlong(bytes: number[]): number {
  return readVarlong(Uint8Array.from(bytes), { pos: 0 });
}

/** Kafka's ByteUtils.writeVarlong, transcribed over BigInt, as the oracle for the property test. */
function referenceVarlong(value: number): number[] {
  let z = BigInt.asUintN(64, (BigInt(value) << 1n) ^ (BigInt(value) >> 63n));
  const out: number[] = [];
  while ((z & ~0x7fn) !== 0n) {
    out.push(Number((z & 0x7fn) | 0x80n));
    z >>= 7n;
  }
  out.push(Number(z));
  return out;
}

describe('zig-zag varint', () => {
  // The vectors of Kafka's ByteUtilsTest.testVarintSerde.
  const vectors: [number, number[]][] = [
    [0, [0x00]],
    [-1, [0x01]],
    [1, [0x02]],
    [63, [0x7e]],
    [-64, [0x7f]],
    [64, [0x80, 0x01]],
    [-65, [0x81, 0x01]],
    [8191, [0xfe, 0x7f]],
    [-8192, [0xff, 0x7f]],
    [8192, [0x80, 0x80, 0x01]],
    [-8193, [0x81, 0x80, 0x01]],
    [1048575, [0xfe, 0xff, 0x7f]],
    [-1048576, [0xff, 0xff, 0x7f]],
    [1048576, [0x80, 0x80, 0x80, 0x01]],
    [-1048577, [0x81, 0x80, 0x80, 0x01]],
    [134217727, [0xfe, 0xff, 0xff, 0x7f]],
    [-134217728, [0xff, 0xff, 0xff, 0x7f]],
    [134217728, [0x80, 0x80, 0x80, 0x80, 0x01]],
    [-134217729, [0x81, 0x80, 0x80, 0x80, 0x01]],
    [INT32_MAX, [0xfe, 0xff, 0xff, 0xff, 0x0f]],
    [INT32_MIN, [0xff, 0xff, 0xff, 0xff, 0x0f]],
  ];

  it.each(vectors)('writes %d as Kafka does', (value, bytes) => {
    expect(encodeVarint(value)).toEqual(bytes);
    expect(sizeOfVarint(value)).toBe(bytes.length);
    expect(decodeVarint(bytes)).toBe(value);
  });

  it('refuses values that are not int32', () => {
    expect(() => sizeOfVarint(INT32_MAX + 1)).toThrow(RangeError);
    expect(() => writeVarint(new Uint8Array(5), 0, 1.5)).toThrow(RangeError);
  });

  it('rejects a continuation bit on the fifth byte, as Kafka does', () => {
    expect(() => decodeVarint([0xff, 0xff, 0xff, 0xff, 0xff, 0x01])).toThrow(/longer than 5 bytes/);
  });

  it('drops the spare high bits of the fifth byte, as Java int arithmetic does', () => {
    // 0x7f << 28 keeps only 4 bits: the same int as 0x0f in the fifth byte.
    expect(decodeVarint([0xfe, 0xff, 0xff, 0xff, 0x7f])).toBe(decodeVarint([0xfe, 0xff, 0xff, 0xff, 0x0f]));
  });

  it('never reads past the end it is given', () => {
    expect(() => decodeVarint([0x80])).toThrow(/runs past the end/);
    expect(() => readVarint(Uint8Array.from([0x80, 0x01]), { pos: 0 }, 1)).toThrow(/runs past the end/);
    expect(() => decodeVarint([])).toThrow(/runs past the end/);
  });

  it('advances the cursor over exactly the bytes it read', () => {
    const buf = Uint8Array.from([0x7f, 0x80, 0x01, 0x02]);
    const cur = { pos: 0 };
    expect([readVarint(buf, cur), readVarint(buf, cur), readVarint(buf, cur)]).toEqual([-64, 64, 1]);
    expect(cur.pos).toBe(4);
  });

  it('round-trips every int32 (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: INT32_MIN, max: INT32_MAX }), (value) => {
        const bytes = encodeVarint(value);
        expect(bytes.length).toBe(sizeOfVarint(value));
        expect(decodeVarint(bytes)).toBe(value);
      }),
    );
  });
});

describe('unsigned varint', () => {
  it('writes lengths without zig-zag, up to 2^32-1', () => {
    const buf = new Uint8Array(5);
    expect([...buf.subarray(0, writeUnsignedVarint(buf, 0, 300))]).toEqual([0xac, 0x02]);
    expect([...buf.subarray(0, writeUnsignedVarint(buf, 0, 2 ** 32 - 1))]).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
    expect(readUnsignedVarint(buf, { pos: 0 })).toBe(2 ** 32 - 1);
    expect(sizeOfUnsignedVarint(0)).toBe(1);
    expect(sizeOfUnsignedVarint(2 ** 28)).toBe(5);
  });
});

describe('zig-zag varlong', () => {
  it('matches Kafka for int32-sized and 64-bit values', () => {
    expect(encodeVarlong(0)).toEqual([0x00]);
    expect(encodeVarlong(-1)).toEqual([0x01]);
    expect(encodeVarlong(INT32_MIN)).toEqual([0xff, 0xff, 0xff, 0xff, 0x0f]);
    expect(encodeVarlong(2 ** 31)).toEqual([0x80, 0x80, 0x80, 0x80, 0x10]);
    // 2^52 zig-zags to 2^53: 53 zero bits then a one, in 7-bit groups.
    expect(encodeVarlong(2 ** 52)).toEqual([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]);
    expect(encodeVarlong(Number.MAX_SAFE_INTEGER)).toEqual(referenceVarlong(Number.MAX_SAFE_INTEGER));
  });

  it('round-trips millisecond timestamps and deltas of either sign', () => {
    for (const v of [1_700_000_000_000, -1_700_000_000_000, 2 ** 52, -(2 ** 52), Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      const bytes = encodeVarlong(v);
      expect(bytes.length).toBe(sizeOfVarlong(v));
      expect(decodeVarlong(bytes)).toBe(v);
    }
  });

  it('refuses an int64 beyond the safe integer range rather than rounding it', () => {
    // Long.MAX_VALUE as Kafka writes it (ByteUtilsTest).
    expect(() => decodeVarlong([0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])).toThrow(/safe integer/);
    expect(() => writeVarlong(new Uint8Array(10), 0, 2 ** 53)).toThrow(RangeError);
  });

  it('rejects a continuation bit on the tenth byte, and a truncated value', () => {
    expect(() => decodeVarlong(Array<number>(11).fill(0xff))).toThrow(/longer than 10 bytes/);
    expect(() => decodeVarlong([0x80, 0x80, 0x80, 0x80, 0x80])).toThrow(/runs past the end/);
  });

  it('writes what Kafka writes for every safe integer (property)', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (value) => {
        const bytes = encodeVarlong(value);
        expect(bytes).toEqual(referenceVarlong(value));
        expect(sizeOfVarlong(value)).toBe(bytes.length);
        expect(decodeVarlong(bytes)).toBe(value);
      }),
    );
  });
});

describe('int64 as a number', () => {
  it('round-trips safe integers big-endian and refuses the rest', () => {
    const buf = Buffer.alloc(8);
    const view = new DataView(buf.buffer, buf.byteOffset, 8);
    for (const v of [0, -1, 1_539_644_731_680, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      writeInt64BE(view, 0, v);
      expect(buf.readBigInt64BE(0)).toBe(BigInt(v));
      expect(readInt64BE(view, 0)).toBe(v);
    }
    buf.writeBigInt64BE(2n ** 53n, 0);
    expect(readInt64BE(view, 0)).toBeNull();
    buf.writeBigInt64BE(-(2n ** 63n), 0);
    expect(readInt64BE(view, 0)).toBeNull();
  });
});
