/**
 * Messages in Kafka's message formats before 0.11 (magic 0 and 1, "message sets"), as a Fetch of
 * v4 or later returns them unconverted when a topic still holds data written in those formats
 * (Kafka's documentation, "Message Set"; Kafka's AbstractLegacyRecordBatch and LegacyRecord):
 *
 *   offset int64, message size int32, then the message:
 *   crc int32 (CRC-32 of everything after it), magic int8, attributes int8 (bits 0–2 the codec:
 *   none, gzip, snappy, lz4; bit 3 LogAppendTime, magic 1 only), timestamp int64 (magic 1 only),
 *   key bytes, value bytes (int32 length, -1 for null).
 *
 * A compressed message is a wrapper whose value is a compressed message set. In magic 1 its inner
 * offsets are relative (0…n-1) and the wrapper carries the last inner message's absolute offset; in
 * magic 0 the inner offsets are absolute. A magic 1 wrapper with LogAppendTime gives every inner
 * message the wrapper's timestamp. Format 0 has no timestamp at all (NoTimestampType, -1). These
 * formats have no headers, producer ids, sequences or leader epochs: those read as none (-1).
 */
import { crc32 } from 'node:zlib';
import { KafkaError } from '../api/errors.js';
import type { CompressionCodec, CompressionCodecs } from '../protocol/records/compression.js';
import type { RawFetchedRecord } from './fetched-record.js';

const LEGACY_CODECS: readonly (CompressionCodec | undefined)[] = ['none', 'gzip', 'snappy', 'lz4'];
/** offset + size + crc + magic + attributes. */
const MIN_ENTRY = 8 + 4 + 4 + 1 + 1;

export interface LegacyReadOptions {
  where: string;
  codecs: CompressionCodecs;
  maxDecompressedBytes: number;
}

interface LegacyMessage {
  offset: number;
  magic: number;
  codec: CompressionCodec;
  logAppendTime: boolean;
  timestamp: number;
  key: Uint8Array | null;
  value: Uint8Array | null;
}

/**
 * Reads one legacy message at `pos` of `bytes`: the message and the position after it, or null when
 * the message is cut by the end of the buffer (a Fetch's byte limit cuts the last one quietly).
 */
export function readLegacyMessage(bytes: Uint8Array, pos: number, where: string): { message: LegacyMessage; next: number } | null {
  if (bytes.length - pos < 12) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const offset = Number(view.getBigInt64(pos));
  const size = view.getInt32(pos + 8);
  const start = pos + 12;
  if (size < MIN_ENTRY - 12 || start + size > bytes.length) {
    if (size >= MIN_ENTRY - 12) return null;
    throw new KafkaError('CORRUPT_MESSAGE', `${where}: the message at offset ${offset} has a size of ${size} bytes`);
  }
  const end = start + size;
  const stored = view.getUint32(start);
  if (crc32(bytes.subarray(start + 4, end)) !== stored) throw new KafkaError('CORRUPT_MESSAGE', `${where}: the message at offset ${offset} fails its CRC check`);
  const magic = bytes[start + 4]!;
  const attributes = bytes[start + 5]!;
  if (magic > 1) throw new KafkaError('CORRUPT_MESSAGE', `${where}: the message at offset ${offset} has magic ${magic} inside a message set`);
  const codec = LEGACY_CODECS[attributes & 0x07];
  if (!codec) throw new KafkaError('CORRUPT_MESSAGE', `${where}: the message at offset ${offset} names compression codec ${attributes & 0x07}, which message format ${magic} does not have`);
  let at = start + 6;
  let timestamp = -1;
  if (magic === 1) {
    timestamp = Number(view.getBigInt64(at));
    at += 8;
  }
  const field = (): Uint8Array | null => {
    if (at + 4 > end) throw new KafkaError('CORRUPT_MESSAGE', `${where}: the message at offset ${offset} is shorter than its fields`);
    const length = view.getInt32(at);
    at += 4;
    if (length < 0) return null;
    if (at + length > end) throw new KafkaError('CORRUPT_MESSAGE', `${where}: the message at offset ${offset} is shorter than its fields`);
    const out = bytes.subarray(at, at + length);
    at += length;
    return out;
  };
  const key = field();
  const value = field();
  return { message: { offset, magic, codec, logAppendTime: magic === 1 && (attributes & 0x08) !== 0, timestamp, key, value }, next: end };
}

/** The records of the legacy message at `pos`, a compressed wrapper's inner messages in order. */
export function legacyRecords(bytes: Uint8Array, pos: number, options: LegacyReadOptions): { records: RawFetchedRecord[]; next: number } | null {
  const read = readLegacyMessage(bytes, pos, options.where);
  if (!read) return null;
  const { message: outer, next } = read;
  if (outer.codec === 'none') return { records: [record(outer, outer.offset, outer.timestamp, outer.logAppendTime, 'none')], next };
  if (!outer.value) throw new KafkaError('CORRUPT_MESSAGE', `${options.where}: the compressed message at offset ${outer.offset} has no value`);
  let inner: Uint8Array;
  try {
    inner = options.codecs.decompress(outer.codec, outer.value, options.maxDecompressedBytes);
  } catch (e) {
    throw new KafkaError('CORRUPT_MESSAGE', `${options.where}: the compressed message at offset ${outer.offset}: ${(e as Error).message}`);
  }
  const messages: LegacyMessage[] = [];
  for (let at = 0; at < inner.length; ) {
    const one = readLegacyMessage(inner, at, options.where);
    if (!one) throw new KafkaError('CORRUPT_MESSAGE', `${options.where}: the compressed message at offset ${outer.offset} holds a cut message`);
    messages.push(one.message);
    at = one.next;
  }
  const bad = (what: string) => new KafkaError('CORRUPT_MESSAGE', `${options.where}: the compressed message at offset ${outer.offset} ${what}`);
  // What Kafka's legacy deep iterator (AbstractLegacyRecordBatch) refuses too.
  const last = messages[messages.length - 1];
  if (!last) throw bad('holds no messages');
  if (messages.some((m) => m.codec !== 'none')) throw bad('holds a compressed message; inner messages must not be compressed');
  if (outer.magic === 1 && outer.offset !== 0 && outer.offset < last.offset) throw bad(`is below its last inner message's relative offset ${last.offset}`);
  // A magic 1 wrapper at offset 0 keeps its inner offsets as they are, as Kafka reads it.
  const base = outer.magic === 0 || outer.offset === 0 ? 0 : outer.offset - last.offset;
  const records = messages.map((m) => record(m, base + m.offset, outer.logAppendTime ? outer.timestamp : m.timestamp, outer.logAppendTime, outer.codec));
  return { records, next };
}

function record(m: LegacyMessage, offset: number, timestamp: number, logAppendTime: boolean, compression: CompressionCodec): RawFetchedRecord {
  return {
    offset,
    key: m.key,
    value: m.value,
    headers: [],
    timestamp,
    timestampType: m.magic === 0 ? 'NoTimestampType' : logAppendTime ? 'LogAppendTime' : 'CreateTime',
    leaderEpoch: -1,
    producerId: -1,
    producerEpoch: -1,
    sequence: -1,
    transactional: false,
    compression,
  };
}
