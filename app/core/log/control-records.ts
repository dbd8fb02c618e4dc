/**
 * Transaction markers as they sit in a partition's log (KIP-98; Kafka's ControlRecordType and
 * EndTransactionMarker): a control batch of the transaction's producer id and epoch, with one
 * control record whose key says what it is and whose value names the coordinator epoch that
 * wrote it.
 *
 *   key   => version int16 (0) type int16 (0 ABORT, 1 COMMIT)
 *   value => version int16 (0) coordinator_epoch int32
 *
 * A batch a Kafka client produced never holds one (LogValidator refuses control batches); only
 * the partition leader writes them, when the transaction coordinator (or `kafka-transactions.sh
 * abort`) sends WriteTxnMarkers.
 */
import { estimateBatchSize, type LogRecord, type RecordBatch } from './records.js';

export type MarkerType = 'ABORT' | 'COMMIT';

export interface TxnMarker {
  type: MarkerType;
  coordinatorEpoch: number;
}

const CONTROL_KEY_VERSION = 0;
const END_TXN_MARKER_VERSION = 0;

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The control record of a COMMIT or ABORT marker. */
export function markerRecord(marker: TxnMarker, timestamp: number): LogRecord {
  const key = new Uint8Array(4);
  view(key).setInt16(0, CONTROL_KEY_VERSION);
  view(key).setInt16(2, marker.type === 'COMMIT' ? 1 : 0);
  const value = new Uint8Array(6);
  view(value).setInt16(0, END_TXN_MARKER_VERSION);
  view(value).setInt32(2, marker.coordinatorEpoch);
  return { key, value, headers: [], timestamp };
}

/** The marker a control batch holds; null for a data batch or an empty (cleaned) control batch. */
export function markerOf(batch: RecordBatch): TxnMarker | null {
  if (!batch.control) return null;
  const record = batch.records[0];
  if (!record?.key || record.key.length < 4) return null;
  const type = view(record.key).getInt16(2);
  if (type !== 0 && type !== 1) return null;
  const coordinatorEpoch = record.value && record.value.length >= 6 ? view(record.value).getInt32(2) : -1;
  return { type: type === 1 ? 'COMMIT' : 'ABORT', coordinatorEpoch };
}

/** The control batch a leader appends for `marker` at `baseOffset` (Kafka's MemoryRecords.withEndTransactionMarker). */
export function markerBatch(
  baseOffset: number,
  leaderEpoch: number,
  nowMs: number,
  producer: { producerId: number; producerEpoch: number },
  marker: TxnMarker,
): RecordBatch {
  const records = [markerRecord(marker, nowMs)];
  return {
    baseOffset,
    lastOffset: baseOffset,
    leaderEpoch,
    appendTimeMs: nowMs,
    records,
    sizeBytes: estimateBatchSize(records),
    producer: { producerId: producer.producerId, producerEpoch: producer.producerEpoch, baseSequence: -1 },
    transactional: true,
    control: true,
  };
}
