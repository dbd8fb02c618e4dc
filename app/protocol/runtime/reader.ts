/**
 * Reads Kafka protocol primitives from a byte array (docs/protocol.html "Protocol Primitive
 * Types"), big-endian:
 *
 *   int8 int16 uint16 int32 uint32 int64 (bigint) float64 bool uuid(16 bytes)
 *   string   int16 length, or compact: unsigned varint length+1        (null: -1 / 0)
 *   bytes    int32 length, or compact: unsigned varint length+1        (null: -1 / 0)
 *   array    int32 count,  or compact: unsigned varint count+1         (null: -1 / 0)
 *   tagged fields  uvarint count, then per field: uvarint tag, uvarint size, size bytes
 *
 * Invariant: a Reader never reads outside `[start, end)` and never allocates in proportion to a
 * length it was told but has not seen: a string, byte or array length beyond the bytes remaining
 * is refused before anything is allocated (as Kafka's "Tried to allocate a collection of size
 * N, but there are only M bytes remaining"). Every failure is a {@link MalformedMessageError}.
 * Byte and record fields are views of the input, not copies.
 */
import { MalformedMessageError } from './errors.js';
import { utf8Decode } from './text.js';
import { uuidToString } from './uuid.js';

export class Reader {
  pos: number;
  private readonly view: DataView;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    if (start < 0 || end > buf.length || start > end) throw new RangeError(`bad reader bounds [${start}, ${end})`);
    this.pos = start;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number, what: string): number {
    const at = this.pos;
    if (n > this.end - at) {
      throw new MalformedMessageError(`${what} needs ${n} bytes at byte ${at}, only ${this.end - at} remain`);
    }
    this.pos = at + n;
    return at;
  }

  int8(): number {
    return this.view.getInt8(this.need(1, 'int8'));
  }
  int16(): number {
    return this.view.getInt16(this.need(2, 'int16'));
  }
  uint16(): number {
    return this.view.getUint16(this.need(2, 'uint16'));
  }
  int32(): number {
    return this.view.getInt32(this.need(4, 'int32'));
  }
  uint32(): number {
    return this.view.getUint32(this.need(4, 'uint32'));
  }
  int64(): bigint {
    return this.view.getBigInt64(this.need(8, 'int64'));
  }
  float64(): number {
    return this.view.getFloat64(this.need(8, 'float64'));
  }
  bool(): boolean {
    return this.buf[this.need(1, 'bool')] !== 0;
  }
  uuid(): string {
    const at = this.need(16, 'uuid');
    return uuidToString(this.buf.subarray(at, at + 16));
  }

  /** Kafka's readUnsignedVarint: at most 5 bytes; the value as an unsigned number. */
  uvarint(): number {
    let value = 0;
    let shift = 0;
    for (;;) {
      if (this.pos >= this.end) throw new MalformedMessageError(`varint runs past the end at byte ${this.pos}`);
      const b = this.buf[this.pos++]!;
      if (shift === 28) {
        if (b & 0x80) throw new MalformedMessageError('varint is longer than 5 bytes');
        return (value + (b & 0x0f) * 2 ** 28) >>> 0;
      }
      value |= (b & 0x7f) << shift;
      if (b < 0x80) return value >>> 0;
      shift += 7;
    }
  }

  /** A length or count: -1 for null. Compact forms store length+1 with 0 for null. */
  private length(compact: boolean, what: string, wide: boolean): number {
    let n: number;
    if (compact) {
      const raw = this.uvarint();
      if (raw > 0x7fffffff) throw new MalformedMessageError(`${what} length ${raw - 1} is out of range`);
      n = raw - 1;
    } else {
      n = wide ? this.int32() : this.int16();
    }
    if (n < -1) throw new MalformedMessageError(`${what} has negative length ${n}`);
    if (n > this.end - this.pos) {
      throw new MalformedMessageError(`${what} of ${n} needs more than the ${this.end - this.pos} bytes remaining`);
    }
    return n;
  }

  nullableString(compact: boolean): string | null {
    const n = this.length(compact, 'string', false);
    if (n < 0) return null;
    const at = this.need(n, 'string');
    return utf8Decode(this.buf, at, at + n);
  }
  string(compact: boolean, field = 'string'): string {
    const s = this.nullableString(compact);
    if (s === null) throw new MalformedMessageError(`non-nullable field ${field} was serialized as null`);
    return s;
  }

  nullableBytes(compact: boolean): Uint8Array | null {
    const n = this.length(compact, 'bytes', true);
    if (n < 0) return null;
    const at = this.need(n, 'bytes');
    return this.buf.subarray(at, at + n);
  }
  bytes(compact: boolean, field = 'bytes'): Uint8Array {
    const b = this.nullableBytes(compact);
    if (b === null) throw new MalformedMessageError(`non-nullable field ${field} was serialized as null`);
    return b;
  }

  /** An array's element count, -1 for null; never more than the bytes remaining. */
  nullableArrayLength(compact: boolean): number {
    return this.length(compact, 'array', true);
  }
  arrayLength(compact: boolean, field = 'array'): number {
    const n = this.nullableArrayLength(compact);
    if (n < 0) throw new MalformedMessageError(`non-nullable field ${field} was serialized as null`);
    return n;
  }

  /** An array read element by element; memory grows only with the bytes actually read. */
  array<T>(compact: boolean, read: (r: Reader) => T, field = 'array'): T[] {
    const n = this.arrayLength(compact, field);
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(read(this));
    return out;
  }
  nullableArray<T>(compact: boolean, read: (r: Reader) => T): T[] | null {
    const n = this.nullableArrayLength(compact);
    if (n < 0) return null;
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(read(this));
    return out;
  }

  /**
   * The tagged-field section: `known(tag, r)` reads a field it knows from `r`, bounded to the
   * field's declared size, and returns false for a tag it does not know, which is skipped.
   */
  taggedFields(known: (tag: number, r: Reader) => boolean): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint();
      const size = this.uvarint();
      const at = this.need(size, `tagged field ${tag}`);
      known(tag, new Reader(this.buf, at, at + size));
    }
  }

  /** Skips a tagged-field section whose fields are all unknown. */
  skipTaggedFields(): void {
    this.taggedFields(() => false);
  }
}
