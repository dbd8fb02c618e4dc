/**
 * Writes Kafka protocol primitives (the forms {@link Reader} reads) into a growing buffer.
 *
 * Large byte fields (record batches in a Fetch response) are not copied: they become parts of
 * their own, so a response is a list of byte arrays that a socket can write as they are
 * (`finish()`), or one array (`toBytes()`). {@link Writer.reserveInt32} leaves room for a length
 * that is only known at the end — the frame size.
 */
import { UnsupportedVersionError } from './errors.js';
import { utf8Encode } from './text.js';
import { uuidFromString } from './uuid.js';

/** Byte fields at least this long are kept as parts of their own instead of being copied. */
const ZERO_COPY_MIN = 4096;

export class Writer {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;
  /** Finished parts before `buf`, and their total length. */
  private readonly parts: Uint8Array[] = [];
  private partsLength = 0;

  constructor(initialCapacity = 256) {
    this.buf = new Uint8Array(initialCapacity);
    this.view = new DataView(this.buf.buffer);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.partsLength + this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n));
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
    this.view = new DataView(grown.buffer);
  }

  int8(v: number): void {
    this.ensure(1);
    this.view.setInt8(this.pos, v);
    this.pos += 1;
  }
  int16(v: number): void {
    this.ensure(2);
    this.view.setInt16(this.pos, v);
    this.pos += 2;
  }
  uint16(v: number): void {
    this.ensure(2);
    this.view.setUint16(this.pos, v);
    this.pos += 2;
  }
  int32(v: number): void {
    this.ensure(4);
    this.view.setInt32(this.pos, v);
    this.pos += 4;
  }
  uint32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, v);
    this.pos += 4;
  }
  int64(v: bigint): void {
    this.ensure(8);
    this.view.setBigInt64(this.pos, v);
    this.pos += 8;
  }
  float64(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v);
    this.pos += 8;
  }
  bool(v: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = v ? 1 : 0;
  }
  uuid(v: string): void {
    this.copy(uuidFromString(v));
  }

  uvarint(v: number): void {
    this.ensure(5);
    let x = v >>> 0;
    while (x >= 0x80) {
      this.buf[this.pos++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[this.pos++] = x;
  }

  private length16or32(n: number, compact: boolean, wide: boolean): void {
    if (compact) this.uvarint(n + 1);
    else if (wide) this.int32(n);
    else this.int16(n);
  }

  nullableString(v: string | null, compact: boolean): void {
    if (v === null) {
      this.length16or32(-1, compact, false);
      return;
    }
    const bytes = utf8Encode(v);
    if (!compact && bytes.length > 0x7fff) throw new RangeError(`string of ${bytes.length} bytes is longer than 32767`);
    this.length16or32(bytes.length, compact, false);
    this.copy(bytes);
  }
  string(v: string | null, compact: boolean, field = 'string'): void {
    if (v === null) throw new UnsupportedVersionError(`non-nullable field ${field} cannot be null in this version`);
    this.nullableString(v, compact);
  }

  nullableBytes(v: Uint8Array | null, compact: boolean): void {
    if (v === null) {
      this.length16or32(-1, compact, true);
      return;
    }
    this.length16or32(v.length, compact, true);
    this.raw(v);
  }
  bytes(v: Uint8Array | null, compact: boolean, field = 'bytes'): void {
    if (v === null) throw new UnsupportedVersionError(`non-nullable field ${field} cannot be null in this version`);
    this.nullableBytes(v, compact);
  }

  /** An array's count; -1 writes null. */
  arrayLength(n: number, compact: boolean): void {
    this.length16or32(n, compact, true);
  }

  array<T>(v: readonly T[] | null, compact: boolean, write: (w: Writer, e: T) => void, field = 'array'): void {
    if (v === null) throw new UnsupportedVersionError(`non-nullable field ${field} cannot be null in this version`);
    this.nullableArray(v, compact, write);
  }
  nullableArray<T>(v: readonly T[] | null, compact: boolean, write: (w: Writer, e: T) => void): void {
    if (v === null) {
      this.arrayLength(-1, compact);
      return;
    }
    this.arrayLength(v.length, compact);
    for (const e of v) write(this, e);
  }

  /** Appends `bytes`; long ones become a part of their own and are not copied. */
  raw(bytes: Uint8Array): void {
    if (bytes.length < ZERO_COPY_MIN) {
      this.copy(bytes);
      return;
    }
    this.parts.push(this.buf.subarray(0, this.pos), bytes);
    this.partsLength += this.pos + bytes.length;
    // The old buffer now belongs to `parts`; carry on in a fresh one.
    this.buf = new Uint8Array(256);
    this.view = new DataView(this.buf.buffer);
    this.pos = 0;
  }

  private copy(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** A tagged field: its tag, the byte size of `value`, then `value` (written by a sub-Writer). */
  taggedField(tag: number, value: Writer): void {
    this.uvarint(tag);
    this.uvarint(value.length);
    for (const part of value.finish()) this.raw(part);
  }

  /**
   * Writes a placeholder int32 and returns a function that fills it in later (the frame size).
   * The four bytes stay contiguous: a growing buffer is copied whole, and a buffer handed to
   * `parts` is handed whole; so the patch finds them by absolute position.
   */
  reserveInt32(): (value: number) => void {
    this.ensure(4);
    const at = this.length;
    this.pos += 4;
    return (value: number) => {
      let start = 0;
      for (const part of [...this.parts, this.buf]) {
        if (at < start + part.length) {
          new DataView(part.buffer, part.byteOffset, part.byteLength).setInt32(at - start, value);
          return;
        }
        start += part.length;
      }
    };
  }

  /** Everything written, as parts in order (views, not copies). */
  finish(): Uint8Array[] {
    const tail = this.buf.subarray(0, this.pos);
    return tail.length > 0 || this.parts.length === 0 ? [...this.parts, tail] : [...this.parts];
  }

  /** Everything written, as one array. */
  toBytes(): Uint8Array {
    const parts = this.finish();
    if (parts.length === 1) return parts[0]!;
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}
