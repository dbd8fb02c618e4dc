/**
 * Confluent's wire format for a record key or value written through a Schema Registry serializer:
 *
 *   byte 0      magic byte, always 0
 *   bytes 1–4   the schema's global id, a big-endian int32
 *   (Protobuf)  the message indexes: which message of the .proto file, as a path of indexes into
 *               nested message declarations, written as zigzag varints — first the count, then
 *               each index; the common path [0] (the file's first message) is the single byte 0
 *   the rest    the payload: Avro binary, Protobuf binary, or JSON text
 *
 * Pure byte arithmetic, shared by the console's decoder and encoder and the registry's tests.
 */

export const MAGIC_BYTE = 0;

/** What the five (or more) leading bytes say, and where the payload starts. */
export interface WireHeader {
  schemaId: number;
  /** Protobuf only: the message's index path ([0] for the first message). */
  messageIndexes?: number[];
  payloadOffset: number;
}

/** Whether `bytes` starts as a registry-framed payload could (magic byte and room for an id). */
export function looksFramed(bytes: Uint8Array | null): bytes is Uint8Array {
  return bytes !== null && bytes.length >= 5 && bytes[0] === MAGIC_BYTE;
}

/** The magic byte and schema id; `null` when `bytes` is not framed. */
export function readHeader(bytes: Uint8Array): WireHeader | null {
  if (!looksFramed(bytes)) return null;
  const id = ((bytes[1]! << 24) | (bytes[2]! << 16) | (bytes[3]! << 8) | bytes[4]!) >>> 0;
  if (id > 0x7fffffff) return null;
  return { schemaId: id, payloadOffset: 5 };
}

/** The Protobuf message indexes after the header; throws on a truncated or absurd list. */
export function readMessageIndexes(bytes: Uint8Array, offset: number): { indexes: number[]; next: number } {
  const count = readZigzag(bytes, offset);
  if (count.value === 0) return { indexes: [0], next: count.next };
  if (count.value < 0 || count.value > 100) throw new Error(`message index count ${count.value} at byte ${offset} is not a valid Protobuf message path`);
  const indexes: number[] = [];
  let at = count.next;
  for (let i = 0; i < count.value; i++) {
    const v = readZigzag(bytes, at);
    if (v.value < 0) throw new Error(`message index ${v.value} at byte ${at} is negative`);
    indexes.push(v.value);
    at = v.next;
  }
  return { indexes, next: at };
}

/** The header bytes for `schemaId` (and, for Protobuf, the message indexes). */
export function writeHeader(schemaId: number, messageIndexes?: readonly number[]): Uint8Array {
  const out: number[] = [MAGIC_BYTE, (schemaId >>> 24) & 0xff, (schemaId >>> 16) & 0xff, (schemaId >>> 8) & 0xff, schemaId & 0xff];
  if (messageIndexes !== undefined) {
    if (messageIndexes.length === 1 && messageIndexes[0] === 0) out.push(0);
    else {
      writeZigzag(out, messageIndexes.length);
      for (const i of messageIndexes) writeZigzag(out, i);
    }
  }
  return Uint8Array.from(out);
}

/** `header` followed by `payload`. */
export function frame(header: Uint8Array, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(header.length + payload.length);
  out.set(header, 0);
  out.set(payload, header.length);
  return out;
}

function readZigzag(bytes: Uint8Array, offset: number): { value: number; next: number } {
  let result = 0;
  let shift = 0;
  let at = offset;
  for (;;) {
    if (at >= bytes.length) throw new Error(`truncated varint at byte ${offset}`);
    const b = bytes[at++]!;
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
    if (shift > 35) throw new Error(`varint at byte ${offset} is longer than 5 bytes`);
  }
  const value = result % 2 === 0 ? result / 2 : -(result + 1) / 2;
  return { value, next: at };
}

function writeZigzag(out: number[], value: number): void {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}
