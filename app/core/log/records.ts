/**
 * Records and batches as the core sees them. A batch is what one leader append writes: the
 * records of one produce request, stamped with the leader epoch of the leader that wrote them
 * (Kafka's `partitionLeaderEpoch`). Offsets inside a batch are dense: record i has offset
 * `baseOffset + i`, so `lastOffset = baseOffset + records.length - 1`.
 */
export interface RecordHeader {
  key: string;
  value: Uint8Array | null;
}

export interface LogRecord {
  key: Uint8Array | null;
  value: Uint8Array | null;
  headers: RecordHeader[];
  /** CreateTime (producer) or LogAppendTime, in ms. */
  timestamp: number;
}

export interface RecordBatch {
  baseOffset: number;
  lastOffset: number;
  /** Epoch of the leader that appended the batch. */
  leaderEpoch: number;
  /** Broker time when the leader appended it (used for retention and segment rolling). */
  appendTimeMs: number;
  records: LogRecord[];
  /** Approximate encoded size in bytes (Kafka v2 framing), used for limits, quotas and retention. */
  sizeBytes: number;
}

/** Kafka v2 batch header (61 bytes) plus a per-record estimate; close to the real encoding. */
export function estimateBatchSize(records: readonly LogRecord[]): number {
  let size = 61;
  for (const r of records) {
    size += 8 + (r.key?.length ?? 0) + (r.value?.length ?? 0);
    for (const h of r.headers) size += 2 + h.key.length + (h.value?.length ?? 0);
  }
  return size;
}

/** The records of `batch` with offsets in [from, until), as a batch (the same one when whole). */
export function sliceBatch(batch: RecordBatch, from: number, until: number): RecordBatch | null {
  const lo = Math.max(from, batch.baseOffset);
  const hi = Math.min(until, batch.lastOffset + 1);
  if (hi <= lo) return null;
  if (lo === batch.baseOffset && hi === batch.lastOffset + 1) return batch;
  const records = batch.records.slice(lo - batch.baseOffset, hi - batch.baseOffset);
  return { ...batch, baseOffset: lo, lastOffset: hi - 1, records, sizeBytes: estimateBatchSize(records) };
}
