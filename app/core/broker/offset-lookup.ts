/**
 * ListOffsets on a leader (Kafka's Partition.fetchOffsetForTimestamp): which offset a timestamp
 * names.
 *
 * Rules: latest is the high watermark, or for read_committed the last stable offset (KIP-98: an
 * open transaction's first offset holds it back), and a
 * new leader whose HW is still below the start offset of its epoch answers OFFSET_NOT_AVAILABLE
 * rather than a "latest" that would seem to go backwards (KIP-207); earliest is the log start
 * offset; a time names the first record whose timestamp is at or after it, and the max-timestamp
 * lookup (KIP-734) the first record with the largest timestamp — either only when that record is
 * below the HW (read_committed: the LSO), else no offset (-1). There is no time index: the log is scanned, batch by batch.
 */
import type { KafkaErrorName } from '../../api/errors.js';
import { recordOffset, type RecordBatch } from '../log/records.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP } from './messages.js';
import type { ReplicaPartition } from './partition.js';

export interface OffsetAnswer {
  error: KafkaErrorName;
  timestamp: number;
  offset: number;
  leaderEpoch: number;
}

const NOT_FOUND = { timestamp: -1, offset: -1, leaderEpoch: -1 };
/** Bytes read per step of a scan. */
const SCAN_CHUNK_BYTES = 1_048_576;

type Read = (from: number, until: number, maxBytes: number) => RecordBatch[] | null;

/** `lastStableOffset`: given for read_committed, whose consumers read below it (Kafka's lastFetchableOffset); else the HW bounds. */
export function offsetForTimestamp(p: ReplicaPartition, timestamp: number, read: Read, lastStableOffset?: number): OffsetAnswer {
  const log = p.log;
  const notAvailable = p.leaderEpochStartOffset > log.highWatermark;
  const hw = lastStableOffset ?? log.highWatermark;
  if (timestamp === LATEST_TIMESTAMP) {
    if (notAvailable) return { error: 'OFFSET_NOT_AVAILABLE', ...NOT_FOUND };
    return { error: 'NONE', timestamp: -1, offset: hw, leaderEpoch: p.leaderEpoch };
  }
  if (timestamp === EARLIEST_TIMESTAMP) {
    return { error: 'NONE', timestamp: -1, offset: log.logStartOffset, leaderEpoch: log.epochCache.epochForOffset(log.logStartOffset) };
  }
  if (timestamp !== MAX_TIMESTAMP && timestamp < 0) return { error: 'INVALID_REQUEST', ...NOT_FOUND };
  let found: { timestamp: number; offset: number; leaderEpoch: number } | null = null;
  const ok = scan(read, log.logStartOffset, log.logEndOffset, (batch, offset, recordTimestamp) => {
    if (timestamp === MAX_TIMESTAMP) {
      if (!found || recordTimestamp > found.timestamp) found = { timestamp: recordTimestamp, offset, leaderEpoch: batch.leaderEpoch };
      return false;
    }
    if (recordTimestamp < timestamp) return false;
    found = { timestamp: recordTimestamp, offset, leaderEpoch: batch.leaderEpoch };
    return true;
  });
  if (!ok) return { error: 'KAFKA_STORAGE_ERROR', ...NOT_FOUND };
  const hit = found as { timestamp: number; offset: number; leaderEpoch: number } | null;
  if (hit && hit.offset < hw) return { error: 'NONE', ...hit };
  return notAvailable ? { error: 'OFFSET_NOT_AVAILABLE', ...NOT_FOUND } : { error: 'NONE', ...NOT_FOUND };
}

/** Visit every record in [from, until) in offset order until `visit` says stop; false if the log could not be read. */
function scan(read: Read, from: number, until: number, visit: (batch: RecordBatch, offset: number, timestamp: number) => boolean): boolean {
  let next = from;
  while (next < until) {
    const batches = read(next, until, SCAN_CHUNK_BYTES);
    if (!batches) return false;
    if (batches.length === 0) return true;
    for (const b of batches) {
      for (let i = 0; i < b.records.length; i++) if (visit(b, recordOffset(b, i), b.records[i]!.timestamp)) return true;
      next = b.lastOffset + 1;
    }
  }
  return true;
}
