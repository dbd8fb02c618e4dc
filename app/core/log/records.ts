/**
 * Records and batches as the core sees them. A batch is what one leader append writes: the
 * records of one produce request, stamped with the leader epoch of the leader that wrote them
 * (Kafka's `partitionLeaderEpoch`). Offsets inside a batch as appended are dense: record i has
 * offset `baseOffset + i`, so `lastOffset = baseOffset + records.length - 1`.
 *
 * A batch the log cleaner rewrote (compaction, see app/core/log/cleaner) keeps its base and last
 * offset but only some of its records, each at its original offset: `offsetDeltas[i]` is then
 * record i's offset minus `baseOffset` (strictly increasing, at most `lastOffset - baseOffset`),
 * and a batch may even keep no record at all (Kafka keeps such an empty batch for its producer
 * fields, or as the last batch before the uncleanable part of the log). Absent `offsetDeltas`
 * means dense; a batch that is dense never carries it. Always go through {@link recordOffset}.
 *
 * A batch a Kafka client produced also carries `encoded`: its exact v2 bytes as the leader
 * stored them (the client's bytes, compressed as the client sent them, with the base offset and
 * leader epoch patched in), so replicas store and consumers receive those very bytes. Invariant:
 * `encoded`, when present, encodes exactly this batch's offsets, epoch and records; a slice
 * never carries it (it names its whole batch as `source` instead).
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

/** The idempotent producer that wrote a batch (its header's producer fields). */
export interface ProducerInfo {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
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
  /** Set when an idempotent producer wrote the batch (producer id >= 0). */
  producer?: ProducerInfo;
  /** The batch's exact v2 bytes, when known (a client's batch as stored); see the header. */
  encoded?: Uint8Array;
  /** On a slice: the whole batch it was cut from. */
  source?: RecordBatch;
  /** Record i's offset minus baseOffset, when the records are not dense (a cleaned batch); see the header. */
  offsetDeltas?: readonly number[];
  /**
   * Attribute bit 4: written inside a transaction (KIP-98). Its records are invisible to
   * read_committed consumers until their producer's marker; an aborted one is skipped for good.
   */
  transactional?: boolean;
  /**
   * Attribute bit 5: a control batch, a transaction marker (COMMIT or ABORT) written by the
   * coordinator's WriteTxnMarkers; its one record is a control record (control-records.ts) that
   * consumers never see. Always transactional too.
   */
  control?: boolean;
  /**
   * Set by the first cleaning that kept a tombstone in this batch (KIP-534): the time from which
   * the cleaner may remove its tombstones (the clean's time + delete.retention.ms). Kafka stores
   * it as the batch's base timestamp with attribute bit 6.
   */
  deleteHorizonMs?: number;
}

/** The offset of `batch.records[i]`. */
export function recordOffset(batch: RecordBatch, i: number): number {
  const deltas = batch.offsetDeltas;
  return batch.baseOffset + (deltas ? deltas[i]! : i);
}

/** The number of offsets the batch spans (its record count unless the cleaner removed some). */
export function offsetSpan(batch: RecordBatch): number {
  return batch.lastOffset - batch.baseOffset + 1;
}

// Where a v2 batch header keeps its maxTimestamp (int64) and recordCount (int32): see
// app/protocol/records/record-batch.ts for the whole layout.
const MAX_TIMESTAMP_AT = 35;
const RECORD_COUNT_AT = 57;

function headerView(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * How many records the batch holds: its header's recordCount when it carries its bytes (a
 * client's batch, or one read from storage, whose records are built only if read), else its
 * records. A cleaned batch holds fewer than it spans ({@link offsetSpan}).
 */
export function recordCount(batch: RecordBatch): number {
  const bytes = batch.encoded;
  return bytes === undefined ? batch.records.length : headerView(bytes).getInt32(RECORD_COUNT_AT);
}

/**
 * The largest record timestamp of the batch, -1 when it holds no record or none has a larger one
 * (the log's `max_timestamp`, what segment rolling and time lookups compare). A batch that carries
 * its bytes has it in its header's maxTimestamp, which every writer sets so: the largest of a
 * CreateTime batch's records (Kafka's LogValidator and MemoryRecordsBuilder, our encoder), and what
 * every record of a LogAppendTime batch reads as; so its records need not be built for it.
 */
export function batchMaxTimestamp(batch: RecordBatch): number {
  const bytes = batch.encoded;
  if (bytes === undefined) {
    const records = batch.records;
    let max = -1;
    for (let i = 0; i < records.length; i++) if (records[i]!.timestamp > max) max = records[i]!.timestamp;
    return max;
  }
  const view = headerView(bytes);
  if (view.getInt32(RECORD_COUNT_AT) === 0) return -1;
  return Math.max(-1, view.getInt32(MAX_TIMESTAMP_AT) * 2 ** 32 + view.getUint32(MAX_TIMESTAMP_AT + 4));
}

/**
 * Gives `batch` records built by `load` when first read (then kept; assigning replaces them): a
 * property of its own, so a spread copy reads them.
 */
export function withRecordsOnFirstRead(batch: Omit<RecordBatch, 'records'>, load: () => LogRecord[]): RecordBatch {
  let built: LogRecord[] | null = null;
  return Object.defineProperty(batch, 'records', {
    enumerable: true,
    configurable: true,
    get: () => (built ??= load()),
    set: (records: LogRecord[]) => void (built = records),
  }) as RecordBatch;
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

/**
 * The records of `batch` with offsets in [from, until), as a batch (the same one when whole).
 * A slice handed to a reader names its whole batch (`source`); one a store keeps in place of
 * the batch (truncation, retention) does not (`detach`).
 */
export function sliceBatch(batch: RecordBatch, from: number, until: number, detach = false): RecordBatch | null {
  const lo = Math.max(from, batch.baseOffset);
  const hi = Math.min(until, batch.lastOffset + 1);
  if (hi <= lo) return null;
  if (lo === batch.baseOffset && hi === batch.lastOffset + 1) return batch;
  let records: LogRecord[];
  let offsetDeltas: number[] | undefined;
  const deltas = batch.offsetDeltas;
  if (deltas) {
    // A cleaned batch: the records whose offsets fall in [lo, hi), their deltas from the new base.
    let i = 0;
    while (i < deltas.length && batch.baseOffset + deltas[i]! < lo) i++;
    let j = i;
    while (j < deltas.length && batch.baseOffset + deltas[j]! < hi) j++;
    records = batch.records.slice(i, j);
    const shift = lo - batch.baseOffset;
    offsetDeltas = deltas.slice(i, j).map((d) => d - shift);
    if (offsetDeltas.length === hi - lo && offsetDeltas.every((d, k) => d === k)) offsetDeltas = undefined;
  } else {
    records = batch.records.slice(lo - batch.baseOffset, hi - batch.baseOffset);
  }
  const whole = batch.source ?? batch;
  const slice: RecordBatch = {
    baseOffset: lo,
    lastOffset: hi - 1,
    leaderEpoch: batch.leaderEpoch,
    appendTimeMs: batch.appendTimeMs,
    records,
    sizeBytes: estimateBatchSize(records),
  };
  if (offsetDeltas) slice.offsetDeltas = offsetDeltas;
  if (batch.deleteHorizonMs !== undefined) slice.deleteHorizonMs = batch.deleteHorizonMs;
  if (batch.transactional) slice.transactional = true;
  if (batch.control) slice.control = true;
  if (!detach) slice.source = whole;
  // Sequences are dense like offsets: the slice's first record has the sequence of its offset.
  if (batch.producer) slice.producer = { ...batch.producer, baseSequence: (batch.producer.baseSequence + lo - batch.baseOffset) % 0x80000000 };
  return slice;
}

/**
 * What a consumer is sent for a batch read from `fromOffset`: the whole stored batch when only
 * records below `fromOffset` were cut (Kafka sends whole batches; the client skips what it did
 * not ask for), else the batch as read (a cut at the high watermark must not show more).
 */
export function wholeBatchFrom(batch: RecordBatch): RecordBatch {
  const whole = batch.source;
  return whole && whole.lastOffset === batch.lastOffset ? whole : batch;
}
