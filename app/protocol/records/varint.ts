/**
 * Kafka's variable-length integers, exactly as `org.apache.kafka.common.utils.ByteUtils` writes
 * and reads them (the Protocol Buffers encoding):
 *
 *   unsigned varint  7 bits a byte, least significant group first, high bit set on every byte
 *                    but the last. At most 5 bytes for an int32, 10 for an int64.
 *   varint / varlong the signed value zig-zag encoded first, so small magnitudes of either sign
 *                    stay short: 0 → 0, -1 → 1, 1 → 2, -2 → 3, … i.e. (v << 1) ^ (v >> 31|63).
 *
 * The record format (record length, deltas, key/value/header lengths) uses the zig-zag forms;
 * flexible request versions use the unsigned one. Reading is as lenient and as strict as Kafka's:
 * a varint with a continuation bit on its 5th byte (10th for a varlong) is illegal; the spare
 * high bits of the last byte are dropped as Java's int arithmetic drops them.
 *
 * Writers take the target array and a position and return the position after the value, so a
 * codec can size a buffer first and then fill it without intermediate arrays. Readers advance a
 * {@link Cursor} and never read at or past `end`; malformed input throws a RangeError, which the
 * record-batch codec turns into CORRUPT_MESSAGE.
 *
 * varlong values are JavaScript numbers, so they must be safe integers (|v| < 2^53): enough for
 * any millisecond timestamp or delta. Values within int32 take a bit-operation fast path; larger
 * ones go through BigInt.
 */

/** A read position inside a byte array; readers advance `pos`. */
export interface Cursor {
  pos: number;
}

const TWO_POW_32 = 4294967296;

function truncated(what: string): RangeError {
  return new RangeError(`${what} runs past the end of its field`);
}

// ---- unsigned varint (int32) ----------------------------------------------------------------

/** Bytes taken by `value` (0 ≤ value < 2^32) as an unsigned varint. */
export function sizeOfUnsignedVarint(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/** Writes `value` (an int32 read as unsigned, or 0 ≤ value < 2^32); returns the next position. */
export function writeUnsignedVarint(buf: Uint8Array, pos: number, value: number): number {
  let v = value >>> 0;
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[pos++] = v;
  return pos;
}

/**
 * Reads an unsigned varint as Kafka's `readUnsignedVarint` does, as a Java int; returned here as
 * an unsigned number (0 … 2^32-1).
 */
export function readUnsignedVarint(buf: Uint8Array, cur: Cursor, end: number = buf.length): number {
  return readRawVarint32(buf, cur, end, 'varint') >>> 0;
}

/** The shared loop of Kafka's readVarint/readUnsignedVarint; the result is an int32. */
function readRawVarint32(buf: Uint8Array, cur: Cursor, end: number, what: string): number {
  let pos = cur.pos;
  if (pos >= end) throw truncated(what);
  let b = buf[pos++]!;
  if (b < 0x80) {
    cur.pos = pos;
    return b;
  }
  let value = b & 0x7f;
  let shift = 7;
  for (;;) {
    if (pos >= end) throw truncated(what);
    b = buf[pos++]!;
    if (b < 0x80) break;
    value |= (b & 0x7f) << shift;
    shift += 7;
    if (shift > 28) throw new RangeError(`${what} is longer than 5 bytes`);
  }
  cur.pos = pos;
  return value | (b << shift);
}

// ---- zig-zag varint (int32) -----------------------------------------------------------------

function zigZag32(value: number): number {
  return ((value << 1) ^ (value >> 31)) >>> 0;
}

function assertInt32(value: number): void {
  if ((value | 0) !== value) throw new RangeError(`varint value ${value} is not an int32`);
}

/** Bytes taken by the int32 `value` as a zig-zag varint (1 to 5). */
export function sizeOfVarint(value: number): number {
  assertInt32(value);
  return sizeOfUnsignedVarint(zigZag32(value));
}

/** Writes the int32 `value` as a zig-zag varint; returns the next position. */
export function writeVarint(buf: Uint8Array, pos: number, value: number): number {
  assertInt32(value);
  return writeUnsignedVarint(buf, pos, zigZag32(value));
}

/** Reads a zig-zag varint (an int32). */
export function readVarint(buf: Uint8Array, cur: Cursor, end: number = buf.length): number {
  const raw = readRawVarint32(buf, cur, end, 'varint');
  return (raw >>> 1) ^ -(raw & 1);
}

// ---- zig-zag varlong (int64, as a safe-integer number) --------------------------------------

function assertSafe(value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`varlong value ${value} is not a safe integer`);
}

function zigZag64(value: number): bigint {
  const v = BigInt(value);
  return BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
}

/** Bytes taken by `value` (a safe integer) as a zig-zag varlong (1 to 10). */
export function sizeOfVarlong(value: number): number {
  // For int32 values the 64-bit zig-zag equals the 32-bit one read as unsigned.
  if ((value | 0) === value) return sizeOfUnsignedVarint(zigZag32(value));
  assertSafe(value);
  let z = zigZag64(value);
  let size = 1;
  while (z >= 0x80n) {
    z >>= 7n;
    size++;
  }
  return size;
}

/** Writes `value` (a safe integer) as a zig-zag varlong; returns the next position. */
export function writeVarlong(buf: Uint8Array, pos: number, value: number): number {
  if ((value | 0) === value) return writeUnsignedVarint(buf, pos, zigZag32(value));
  assertSafe(value);
  let z = zigZag64(value);
  while (z >= 0x80n) {
    buf[pos++] = Number(z & 0x7fn) | 0x80;
    z >>= 7n;
  }
  buf[pos++] = Number(z);
  return pos;
}

/**
 * Reads a zig-zag varlong. Throws a RangeError when it is malformed or when the int64 it holds
 * is not a safe integer (no timestamp or delta of Kafka's comes near 2^53 ms).
 */
export function readVarlong(buf: Uint8Array, cur: Cursor, end: number = buf.length): number {
  const start = cur.pos;
  // Fast path: up to 4 bytes (28 bits of zig-zag value) fit int32 arithmetic.
  let pos = start;
  let raw = 0;
  for (let shift = 0; shift <= 21; shift += 7) {
    if (pos >= end) throw truncated('varlong');
    const b = buf[pos++]!;
    raw |= (b & 0x7f) << shift;
    if (b < 0x80) {
      cur.pos = pos;
      return (raw >>> 1) ^ -(raw & 1);
    }
  }
  // Slow path: Kafka's readVarlong over BigInt.
  pos = start;
  let z = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= end) throw truncated('varlong');
    const b = buf[pos++]!;
    if (b < 0x80) {
      z |= BigInt(b) << shift;
      break;
    }
    z |= BigInt(b & 0x7f) << shift;
    shift += 7n;
    if (shift > 63n) throw new RangeError('varlong is longer than 10 bytes');
  }
  z = BigInt.asUintN(64, z);
  const value = BigInt.asIntN(64, (z >> 1n) ^ -(z & 1n));
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`varlong value ${value} is beyond the safe integer range`);
  }
  cur.pos = pos;
  return Number(value);
}

// ---- fixed-width int64 as a number --------------------------------------------------------

/** Writes the safe integer `value` as a big-endian int64 (no BigInt allocation). */
export function writeInt64BE(view: DataView, pos: number, value: number): number {
  assertSafe(value);
  const hi = Math.floor(value / TWO_POW_32);
  view.setInt32(pos, hi);
  view.setUint32(pos + 4, value - hi * TWO_POW_32);
  return pos + 8;
}

/** Reads a big-endian int64; null when it is not a safe integer. */
export function readInt64BE(view: DataView, pos: number): number | null {
  // Exact whenever the result is safe; beyond ±2^53 it rounds, but stays unsafe, so is refused.
  const value = view.getInt32(pos) * TWO_POW_32 + view.getUint32(pos + 4);
  return Number.isSafeInteger(value) ? value : null;
}
