/**
 * The port through which the cleaner writes a batch it kept only some records of (Kafka's
 * MemoryRecords.filterTo). Kafka rebuilds such a batch with the original's base and last offset,
 * leader epoch, producer id, epoch and base sequence, transactional and control bits, timestamp
 * type and compression, each kept
 * record at its own offset, and the delete horizon as its base timestamp when one is set; a batch
 * kept with no record is an empty header (uncompressed, no horizon). The bytes need the
 * compression codecs, which the core may not import: app/protocol implements the port
 * (`records/cleaned-batch-writer.ts`) and the hosts inject it as `EngineOptions.cleanedBatches`.
 * Without it, {@link PLAIN_CLEANED_BATCHES} builds the batch without bytes and storage encodes it
 * uncompressed, which every reader reads the same.
 */
import { estimateBatchSize, type LogRecord, type RecordBatch } from '../records.js';

/** Called per record by a scan: its index in the batch, its key, whether it is a tombstone; false stops the scan. */
export type RecordVisitor = (index: number, key: Uint8Array | null, tombstone: boolean) => boolean | void;

export interface CleanedBatchWriter {
  /** `original` with only its records at indexes `keep` (ascending), and `deleteHorizonMs` when set. */
  retain(original: RecordBatch, keep: readonly number[], deleteHorizonMs: number | undefined): RecordBatch;
  /**
   * Visit each record's key and whether it is a tombstone, in order, without building the records
   * (the offset map and the filter need nothing else; a batch kept whole is then never decoded).
   * Absent: the cleaner reads `batch.records`.
   */
  scan?(batch: RecordBatch, visit: RecordVisitor): void;
}

/** Visit `batch`'s records through its `records` (a writer without a scan of its own). */
export function scanRecords(batch: RecordBatch, visit: RecordVisitor): void {
  const records = batch.records;
  for (let i = 0; i < records.length; i++) if (visit(i, records[i]!.key, records[i]!.value === null) === false) return;
}

/** The kept records and their offset deltas (undefined when they are dense from the base). */
export function keptRecords(original: RecordBatch, keep: readonly number[]): { records: LogRecord[]; offsetDeltas: number[] | undefined } {
  const from = original.offsetDeltas;
  const records = keep.map((i) => original.records[i]!);
  const deltas = keep.map((i) => (from ? from[i]! : i));
  const dense = deltas.length === original.lastOffset - original.baseOffset + 1 && deltas.every((d, k) => d === k);
  return { records, offsetDeltas: dense ? undefined : deltas };
}

/** The cleaned batch as a RecordBatch without bytes (storage encodes it). */
export function plainCleanedBatch(original: RecordBatch, keep: readonly number[], deleteHorizonMs: number | undefined): RecordBatch {
  const { records, offsetDeltas } = keptRecords(original, keep);
  const batch: RecordBatch = {
    baseOffset: original.baseOffset,
    lastOffset: original.lastOffset,
    leaderEpoch: original.leaderEpoch,
    appendTimeMs: original.appendTimeMs,
    records,
    sizeBytes: estimateBatchSize(records),
  };
  if (offsetDeltas) batch.offsetDeltas = offsetDeltas;
  if (original.producer) batch.producer = original.producer;
  if (original.transactional) batch.transactional = true;
  if (original.control) batch.control = true;
  if (deleteHorizonMs !== undefined && records.length > 0) batch.deleteHorizonMs = deleteHorizonMs;
  return batch;
}

export const PLAIN_CLEANED_BATCHES: CleanedBatchWriter = { retain: plainCleanedBatch, scan: scanRecords };
