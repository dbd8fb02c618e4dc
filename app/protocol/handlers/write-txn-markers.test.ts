/**
 * WriteTxnMarkers from an admin (KIP-664, what `kafka-transactions.sh abort` sends through
 * Admin.abortTransaction), in Kafka's bytes: a hanging transaction — a transactional batch no
 * coordinator knows, accepted because KIP-890's verification is off — holds the LSO below the HW
 * until an ABORT marker from the admin ends it; the partition leader checks the marker's producer
 * epoch and coordinator epoch as it checks a coordinator's; and with the StandardAuthorizer on,
 * only a principal allowed CLUSTER_ACTION on the cluster may send it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpStorages } from '../../sim/scenarios/support.js';
import { ApiKey } from '../generated/index.js';
import { encodeRecordBatch } from '../records/record-batch.js';
import { alice, secured } from '../test-support/secured-sim.js';
import { clientRecord, codecs, WireSim } from '../test-support/wire-sim.js';

afterEach(cleanUpStorages);

const NONE = 0;
const INVALID_PRODUCER_EPOCH = 47;
const TRANSACTION_COORDINATOR_FENCED = 52;
const CLUSTER_AUTHORIZATION_FAILED = 31;

function batch(values: string[], producer?: { id: number; epoch: number; baseSequence: number }): Uint8Array {
  const records = values.map((v) => clientRecord(v));
  return encodeRecordBatch({ baseOffset: 0, lastOffset: records.length - 1, leaderEpoch: -1, appendTimeMs: 0, records, sizeBytes: 0, transactional: producer !== undefined }, { codecs, ...(producer ? { producer } : {}) });
}

async function produce(w: WireSim, records: Uint8Array, transactionalId: string | null) {
  const r = await w.respond(1, ApiKey.Produce, 7, { transactionalId, acks: -1, timeoutMs: 5_000, topicData: [{ name: 't', partitionData: [{ index: 0, records }] }] });
  return r.responses[0]!.partitionResponses[0]!.errorCode;
}

async function offsets(w: WireSim) {
  const latest = async (isolationLevel: 0 | 1) =>
    (await w.respond(1, ApiKey.ListOffsets, 5, { replicaId: -1, isolationLevel, topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1, maxNumOffsets: 1 }] }] })).topics[0]!.partitions[0]!.offset;
  return { lso: await latest(1), hw: await latest(0) };
}

async function abortMarker(w: WireSim, pid: number, producerEpoch: number, coordinatorEpoch: number, session?: typeof alice) {
  const a = await w.request(1, ApiKey.WriteTxnMarkers, 1, { markers: [{ producerId: BigInt(pid), producerEpoch, transactionResult: false, coordinatorEpoch, topics: [{ name: 't', partitionIndexes: [0] }] }] }, session ? { session } : {});
  if (a.kind !== 'respond') throw new Error(a.kind);
  return a.body.markers[0]!.topics[0]!.partitions[0]!.errorCode;
}

async function readCommitted(w: WireSim) {
  const r = await w.respond(1, ApiKey.Fetch, 11, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 1_000_000,
    isolationLevel: 1,
    topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1_000_000, currentLeaderEpoch: -1 }] }],
  });
  return r.responses[0]!.partitions[0]!.abortedTransactions;
}

/** Run the clock until the LSO has caught up with the HW after the marker. */
async function settled(w: WireSim) {
  for (let i = 0; i < 50; i++) {
    const o = await offsets(w);
    if (o.lso === o.hw) return o;
    w.sim.advance(100);
  }
  return offsets(w);
}

describe('an admin aborts a hanging transaction with WriteTxnMarkers', () => {
  it('moves the LSO past the marker; a stale producer epoch or coordinator epoch is refused as Kafka refuses it', async () => {
    const w = new WireSim({ seed: 664, staticConfigs: { 'transaction.partition.verification.enable': 'false' } });
    w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    const pid = 4242;
    expect(await produce(w, batch(['g1', 'g2'], { id: pid, epoch: 3, baseSequence: 0 }), 'lost')).toBe(NONE); // offsets 0-1, open
    expect(await produce(w, batch(['plain']), null)).toBe(NONE); // offset 2
    w.sim.advance(200);
    expect(await offsets(w)).toEqual({ lso: 0n, hw: 3n });

    const described = await w.respond(1, ApiKey.DescribeProducers, 0, { topics: [{ name: 't', partitionIndexes: [0] }] });
    expect(described.topics[0]!.partitions[0]!.activeProducers).toEqual([expect.objectContaining({ producerId: BigInt(pid), producerEpoch: 3, coordinatorEpoch: -1, currentTxnStartOffset: 0n })]);

    expect(await abortMarker(w, pid, 2, 0)).toBe(INVALID_PRODUCER_EPOCH);
    expect(await offsets(w)).toEqual({ lso: 0n, hw: 3n });
    expect(await abortMarker(w, pid, 3, 0)).toBe(NONE); // the marker at offset 3
    expect(await settled(w)).toEqual({ lso: 4n, hw: 4n });
    expect(await readCommitted(w)).toEqual([{ producerId: BigInt(pid), firstOffset: 0n }]);

    // Its next transaction: a marker older than the coordinator epoch of its last one is a zombie's.
    expect(await produce(w, batch(['g3'], { id: pid, epoch: 3, baseSequence: 2 }), 'lost')).toBe(NONE);
    w.sim.advance(200);
    expect(await offsets(w)).toEqual({ lso: 4n, hw: 5n });
    expect(await abortMarker(w, pid, 3, -1)).toBe(TRANSACTION_COORDINATOR_FENCED);
    expect(await offsets(w)).toEqual({ lso: 4n, hw: 5n });
  });

  it('needs CLUSTER_ACTION on the cluster: CLUSTER_AUTHORIZATION_FAILED for every partition otherwise, and nothing is written', async () => {
    const w = secured({ 'transaction.partition.verification.enable': 'false' });
    w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    expect(await produce(w, batch(['g1'], { id: 77, epoch: 0, baseSequence: 0 }), 'lost')).toBe(NONE); // admin: a super user
    w.sim.advance(200);
    expect(await abortMarker(w, 77, 0, 0, alice)).toBe(CLUSTER_AUTHORIZATION_FAILED);
    expect(await offsets(w)).toEqual({ lso: 0n, hw: 1n });
    expect(await abortMarker(w, 77, 0, 0)).toBe(NONE);
    expect(await settled(w)).toEqual({ lso: 2n, hw: 2n });
  });
});
