/**
 * A transactional producer and a consumer in Kafka's bytes over a WireSim, for the transaction
 * tests: FindCoordinator (key type 1), InitProducerId, AddPartitionsToTxn, transactional batches,
 * EndTxn, and a Fetch that reports the HW, the LSO, the aborted transactions and every batch
 * (markers as 'COMMIT' / 'ABORT'). The clock runs while a request waits (WireSim.respond).
 */
import { ApiKey } from '../generated/index.js';
import { decodeRecordBatches, encodeRecordBatch } from '../records/record-batch.js';
import { clientRecord, codecs, type WireSim } from './wire-sim.js';

/** FindCoordinator (key type 1) until `__transaction_state` exists and the id's partition has a leader. */
export async function findTxnCoordinator(w: WireSim, transactionalId: string, askBroker = 1): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const r = await w.respond(askBroker, ApiKey.FindCoordinator, 1, { key: transactionalId, keyType: 1, coordinatorKeys: [] });
    if (r.errorCode === 0) return r.nodeId;
    if (r.errorCode !== 15) throw new Error(`FindCoordinator answered ${r.errorCode}`); // COORDINATOR_NOT_AVAILABLE while the topic is being created
    w.sim.advance(500);
  }
  throw new Error('no transaction coordinator');
}

export function txnBatch(pid: bigint, epoch: number, seq: number, values: string[]): Uint8Array {
  const records = values.map((v) => clientRecord(v));
  return encodeRecordBatch({ baseOffset: 0, lastOffset: records.length - 1, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0, transactional: true }, { codecs, producer: { id: Number(pid), epoch, baseSequence: seq } });
}

/** A batch of no producer (producer id -1), as a plain producer sends it. */
export function plainBatch(values: string[]): Uint8Array {
  const records = values.map((v) => clientRecord(v));
  return encodeRecordBatch({ baseOffset: 0, lastOffset: records.length - 1, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0 }, { codecs });
}

export async function produce(w: WireSim, batch: Uint8Array, transactionalId: string | null, topic: string, broker: number, partition = 0) {
  const r = await w.respond(broker, ApiKey.Produce, 7, { transactionalId, acks: -1, timeoutMs: 5_000, topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }] });
  return r.responses[0]!.partitionResponses[0]!;
}

export interface FetchedPartition {
  hw: bigint;
  lso: bigint;
  aborted: { producerId: bigint; firstOffset: bigint }[] | null;
  /** Data records as [offset, value]; markers as [offset, 'COMMIT' | 'ABORT']. */
  records: [number, string][];
}

export async function fetchPartition(w: WireSim, isolationLevel: 0 | 1, broker: number, topic: string, partition = 0): Promise<FetchedPartition> {
  const r = await w.respond(broker, ApiKey.Fetch, 11, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 10_000_000,
    isolationLevel,
    topics: [{ topic, partitions: [{ partition, fetchOffset: 0n, partitionMaxBytes: 10_000_000, currentLeaderEpoch: -1 }] }],
  });
  const p = r.responses[0]!.partitions[0]!;
  if (p.errorCode !== 0) throw new Error(`Fetch ${topic}-${partition} from broker ${broker} answered ${p.errorCode}`);
  const batches = decodeRecordBatches(p.records!, { codecs });
  return {
    hw: p.highWatermark,
    lso: p.lastStableOffset,
    aborted: p.abortedTransactions,
    records: batches.flatMap((b): [number, string][] =>
      b.control
        ? [[b.baseOffset, new DataView(b.records[0]!.key!.buffer, b.records[0]!.key!.byteOffset).getInt16(2) === 1 ? 'COMMIT' : 'ABORT']]
        : b.records.map((rec, i): [number, string] => [b.baseOffset + i, new TextDecoder().decode(rec.value!)]),
    ),
  };
}

/**
 * What a read_committed consumer keeps of a partition (Kafka's Fetcher): records below the LSO,
 * minus those of an aborted transaction (from its first offset to its producer's next ABORT
 * marker), minus markers. The fetch does not say which producer wrote a record, so this holds
 * for a partition one transactional producer writes.
 */
export function readCommittedValues(f: FetchedPartition): string[] {
  const abortedFrom = (f.aborted ?? []).map((a) => Number(a.firstOffset)).sort((a, b) => a - b);
  const kept: string[] = [];
  let skipping = false;
  for (const [offset, value] of f.records) {
    if (offset >= Number(f.lso)) break;
    if (abortedFrom.includes(offset)) skipping = true;
    if (value === 'COMMIT' || value === 'ABORT') {
      if (value === 'ABORT') skipping = false;
      continue;
    }
    if (!skipping) kept.push(value);
  }
  return kept;
}

export async function addPartitions(w: WireSim, coordinator: number, transactionalId: string, pid: bigint, epoch: number, topics: { name: string; partitions: number[] }[], version = 1) {
  const r = await w.respond(coordinator, ApiKey.AddPartitionsToTxn, version, {
    transactions: [],
    v3AndBelowTransactionalId: transactionalId,
    v3AndBelowProducerId: pid,
    v3AndBelowProducerEpoch: epoch,
    v3AndBelowTopics: topics,
  });
  return r.resultsByTopicV3AndBelow.flatMap((t) => t.resultsByPartition.map((p) => p.partitionErrorCode));
}

export async function endTxn(w: WireSim, coordinator: number, transactionalId: string, pid: bigint, epoch: number, committed: boolean, maxMs?: number, version = 1): Promise<number> {
  return (await w.respond(coordinator, ApiKey.EndTxn, version, { transactionalId, producerId: pid, producerEpoch: epoch, committed }, maxMs)).errorCode;
}

export async function initProducerId(w: WireSim, brokerId: number, transactionalId: string, transactionTimeoutMs = 60_000) {
  return w.respond(brokerId, ApiKey.InitProducerId, 3, { transactionalId, transactionTimeoutMs, producerId: -1n, producerEpoch: -1 });
}
