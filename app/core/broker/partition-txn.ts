/**
 * The writes a transaction makes through a partition's leader: the verification guard a
 * producer's transactional write carries (KIP-890), the COMMIT or ABORT markers of
 * WriteTxnMarkers, and the records a coordinator writes inside a producer's transaction.
 *
 * Apart from the partition (partition.ts), which appends and answers them as any leader append:
 * these are the transaction coordinator's side of a replica, each a check against the log's
 * producer state (producer-state.ts) and a batch built for it.
 */
import { markerBatch, type TxnMarker } from '../log/control-records.js';
import type { VerificationGuard } from '../log/producer-state.js';
import { estimateBatchSize, type LogRecord, type RecordBatch } from '../log/records.js';
import type { ProduceOutcome } from './partition-answers.js';
import type { ReplicaPartition } from './partition.js';

/**
 * KIP-890 part 1: the guard a producer's transactional write here must carry once the
 * transaction coordinator confirmed the partition is in its transaction; null when none is
 * needed (its transaction is already open here). Kafka's UnifiedLog.maybeStartTransactionVerification.
 */
export function startTxnVerification(p: ReplicaPartition, producerId: number, producerEpoch: number): VerificationGuard | null {
  const state = p.log.producerState();
  return state.hasOpenTransaction(producerId) ? null : state.startVerification(producerId, producerEpoch);
}

/**
 * A COMMIT or ABORT marker from the transaction coordinator (WriteTxnMarkers, or an admin's
 * abort), appended as a control batch with acks=-1: refused with INVALID_PRODUCER_EPOCH or
 * TRANSACTION_COORDINATOR_FENCED when a newer producer or coordinator epoch was seen here.
 */
export function appendMarkerAsLeader(p: ReplicaPartition, producer: { producerId: number; producerEpoch: number }, marker: TxnMarker, timeoutMs: number, respond: (o: ProduceOutcome) => void): void {
  if (p.role !== 'leader') return respond({ errorCode: 'NOT_LEADER_OR_FOLLOWER', baseOffset: -1 });
  const refusal = p.minIsrRefusal(-1);
  if (refusal) return respond(refusal);
  const base = p.log.logEndOffset;
  const verdict = p.log.producerState().checkMarker(producer.producerId, producer.producerEpoch, marker.coordinatorEpoch, base);
  if (verdict.kind === 'error') return respond({ errorCode: verdict.error, baseOffset: -1, errorMessage: verdict.message });
  p.appendBuilt(markerBatch(base, p.leaderEpoch, p.now(), producer, marker), -1, timeoutMs, respond);
}

/**
 * Records a coordinator writes inside a producer's transaction (the group coordinator's
 * TxnOffsetCommit): a transactional batch of that producer id and epoch, epoch-checked but not
 * sequence-checked (Kafka's AppendOrigin.COORDINATOR).
 */
export function appendTxnRecordsAsLeader(p: ReplicaPartition, records: LogRecord[], producer: { producerId: number; producerEpoch: number }, timeoutMs: number, respond: (o: ProduceOutcome) => void, guard?: VerificationGuard): void {
  if (p.role !== 'leader') return respond({ errorCode: 'NOT_LEADER_OR_FOLLOWER', baseOffset: -1 });
  const refusal = p.minIsrRefusal(-1);
  if (refusal) return respond(refusal);
  const base = p.log.logEndOffset;
  const info = { ...producer, baseSequence: 0 };
  const verdict = p.log.producerState().check({ ...info, count: records.length, transactional: true }, base, guard, 'coordinator');
  if (verdict.kind === 'error') return respond({ errorCode: verdict.error, baseOffset: -1, errorMessage: verdict.message });
  const now = p.now();
  const batch: RecordBatch = { baseOffset: base, lastOffset: base + records.length - 1, leaderEpoch: p.leaderEpoch, appendTimeMs: now, records, sizeBytes: estimateBatchSize(records), producer: info, transactional: true };
  p.appendBuilt(batch, -1, timeoutMs, respond);
}
