/**
 * Transactions in Kafka's bytes (KIP-98): FindCoordinator for a transactional id, InitProducerId
 * on its coordinator, AddPartitionsToTxn, a transactional batch, EndTxn; then what consumers are
 * told — the last stable offset below the high watermark while a transaction is open, the aborted
 * transactions of a read_committed Fetch, ListOffsets read_committed — and how a newer epoch
 * fences the older producer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpStorages } from '../../sim/scenarios/support.js';
import { ApiKey } from '../generated/index.js';
import {
  addPartitions as addPartitionsTo,
  endTxn as endTxnOf,
  fetchPartition,
  findTxnCoordinator as findCoordinatorOf,
  initProducerId as initProducerIdOf,
  plainBatch,
  produce as produceTo,
  txnBatch,
} from '../test-support/txn-wire.js';
import { WireSim } from '../test-support/wire-sim.js';

afterEach(cleanUpStorages);

const TXN_ID = 'payments-tx';

function cluster(seed: number): WireSim {
  const w = new WireSim({ seed });
  w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
  w.sim.createTopic('other', 1, 3, {}, [[1, 2, 3]]);
  return w;
}

const findTxnCoordinator = (w: WireSim): Promise<number> => findCoordinatorOf(w, TXN_ID);
const produce = (w: WireSim, batch: Uint8Array, transactionalId: string | null = TXN_ID, topic = 't', broker = 1) => produceTo(w, batch, transactionalId, topic, broker);
const fetch = (w: WireSim, isolationLevel: 0 | 1, broker = 1) => fetchPartition(w, isolationLevel, broker, 't');

async function latest(w: WireSim, isolationLevel: 0 | 1): Promise<bigint> {
  const r = await w.respond(1, ApiKey.ListOffsets, 5, { replicaId: -1, isolationLevel, topics: [{ name: 't', partitions: [{ partitionIndex: 0, timestamp: -1n, currentLeaderEpoch: -1, maxNumOffsets: 1 }] }] });
  return r.topics[0]!.partitions[0]!.offset;
}

const addPartitions = async (w: WireSim, coordinator: number, pid: bigint, epoch: number, topic = 't') => (await addPartitionsTo(w, coordinator, TXN_ID, pid, epoch, [{ name: topic, partitions: [0] }]))[0]!;
const endTxn = (w: WireSim, coordinator: number, pid: bigint, epoch: number, committed: boolean) => endTxnOf(w, coordinator, TXN_ID, pid, epoch, committed);
const initProducerId = (w: WireSim, brokerId: number, transactionTimeoutMs = 60_000) => initProducerIdOf(w, brokerId, TXN_ID, transactionTimeoutMs);

/** Run the clock until the partition's LSO reaches its HW (the markers are written and replicated). */
async function settle(w: WireSim): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const f = await fetch(w, 1);
    if (f.lso === f.hw) return;
    w.sim.advance(100);
  }
  throw new Error('the LSO never reached the HW');
}

describe('transactions on the wire', () => {
  it('an open transaction holds the LSO below the HW; read_committed stops there, learns of the aborted transaction, and ListOffsets answers the LSO', async () => {
    const w = cluster(31);
    const coordinator = await findTxnCoordinator(w);
    const other = [1, 2, 3].find((b) => b !== coordinator)!;
    expect((await initProducerId(w, other)).errorCode).toBe(16); // NOT_COORDINATOR
    const init = await initProducerId(w, coordinator);
    expect(init).toMatchObject({ errorCode: 0, producerEpoch: 0 });
    const pid = init.producerId;

    expect((await produce(w, plainBatch(['plain']), null)).errorCode).toBe(0); // offset 0
    expect(await addPartitions(w, coordinator, pid, 0)).toBe(0);
    expect(await produce(w, txnBatch(pid, 0, 0, ['a1', 'a2']))).toMatchObject({ errorCode: 0, baseOffset: 1n });

    // Open: HW 3, LSO 1 (the transaction's first offset).
    const open = await fetch(w, 1);
    expect(open).toMatchObject({ hw: 3n, lso: 1n, aborted: [] });
    expect(open.records).toEqual([[0, 'plain']]);
    expect((await fetch(w, 0)).records).toEqual([[0, 'plain'], [1, 'a1'], [2, 'a2']]);
    expect(await latest(w, 1)).toBe(1n);
    expect(await latest(w, 0)).toBe(3n);

    expect(await endTxn(w, coordinator, pid, 0, false)).toBe(0);
    await settle(w);
    const aborted = await fetch(w, 1);
    expect(aborted).toMatchObject({ hw: 4n, lso: 4n, aborted: [{ producerId: pid, firstOffset: 1n }] });
    expect(aborted.records).toEqual([[0, 'plain'], [1, 'a1'], [2, 'a2'], [3, 'ABORT']]);
    expect(await latest(w, 1)).toBe(4n);

    // A committed transaction after it: only the aborted one is listed.
    expect(await addPartitions(w, coordinator, pid, 0)).toBe(0);
    expect(await produce(w, txnBatch(pid, 0, 2, ['c1']))).toMatchObject({ errorCode: 0, baseOffset: 4n });
    expect(await endTxn(w, coordinator, pid, 0, true)).toBe(0);
    await settle(w);
    const committed = await fetch(w, 1);
    expect(committed).toMatchObject({ hw: 6n, lso: 6n, aborted: [{ producerId: pid, firstOffset: 1n }] });
    expect(committed.records.slice(4)).toEqual([[4, 'c1'], [5, 'COMMIT']]);
  });

  it('refuses a transactional batch for a partition not added to the transaction (KIP-890), and fences an older epoch', async () => {
    const w = cluster(32);
    const coordinator = await findTxnCoordinator(w);
    const { producerId: pid } = await initProducerId(w, coordinator);
    expect(await addPartitions(w, coordinator, pid, 0)).toBe(0);
    // `other` was never added: the leader asks the coordinator, and refuses the write.
    expect(await produce(w, txnBatch(pid, 0, 0, ['stray']), TXN_ID, 'other')).toMatchObject({ errorCode: 48 }); // INVALID_TXN_STATE
    expect(await produce(w, txnBatch(pid, 0, 0, ['x']))).toMatchObject({ errorCode: 0, baseOffset: 0n });

    // A new InitProducerId for the id aborts the open transaction and bumps the epoch.
    let again = await initProducerId(w, coordinator);
    for (let i = 0; again.errorCode === 51 && i < 50; i++) {
      w.sim.advance(100);
      again = await initProducerId(w, coordinator); // CONCURRENT_TRANSACTIONS while the abort completes
    }
    expect(again).toMatchObject({ errorCode: 0, producerId: pid, producerEpoch: 2 });
    await settle(w);
    expect((await fetch(w, 1)).aborted).toEqual([{ producerId: pid, firstOffset: 0n }]);
    // The old epoch is fenced at the coordinator and at the partition leader. The coordinator says
    // PRODUCER_FENCED (90) to the versions that know it (KIP-588: EndTxn and AddPartitionsToTxn v2
    // and up) and INVALID_PRODUCER_EPOCH (47) below, as KafkaApis converts it; kafkajs sends v1.
    expect(await endTxn(w, coordinator, pid, 0, true)).toBe(47);
    expect(await endTxnOf(w, coordinator, TXN_ID, pid, 0, true, undefined, 2)).toBe(90);
    expect(await endTxnOf(w, coordinator, TXN_ID, pid, 0, true, undefined, 3)).toBe(90);
    expect(await addPartitions(w, coordinator, pid, 0)).toBe(47);
    expect(await addPartitionsTo(w, coordinator, TXN_ID, pid, 0, [{ name: 't', partitions: [0] }], 2)).toEqual([90]);
    expect(await produce(w, txnBatch(pid, 0, 1, ['zombie']))).toMatchObject({ errorCode: 47 });
    expect((await fetch(w, 0)).records.map((r) => r[1])).not.toContain('zombie');
  });

  it('aborts a transaction left open past its timeout, fencing its producer; a timeout above transaction.max.timeout.ms is refused', async () => {
    const w = cluster(33);
    const coordinator = await findTxnCoordinator(w);
    expect((await initProducerId(w, coordinator, 900_001)).errorCode).toBe(50); // INVALID_TRANSACTION_TIMEOUT
    const { producerId: pid } = await initProducerId(w, coordinator, 5_000);
    expect(await addPartitions(w, coordinator, pid, 0)).toBe(0);
    expect(await produce(w, txnBatch(pid, 0, 0, ['left-open']))).toMatchObject({ errorCode: 0, baseOffset: 0n });
    w.sim.advance(4_000);
    expect(await fetch(w, 1)).toMatchObject({ hw: 1n, lso: 0n });
    // Past 5 s, the next check (every 10 s) aborts it with a bumped epoch.
    w.sim.advance(12_000);
    await settle(w);
    expect(await fetch(w, 1)).toMatchObject({ hw: 2n, lso: 2n, aborted: [{ producerId: pid, firstOffset: 0n }] });
    expect(await endTxn(w, coordinator, pid, 0, true)).toBe(47);
  });

  it('a new coordinator loads the open transaction from __transaction_state and commits it for the same producer', async () => {
    const w = cluster(34);
    const coordinator = await findTxnCoordinator(w);
    const { producerId: pid } = await initProducerId(w, coordinator);
    expect(await addPartitions(w, coordinator, pid, 0)).toBe(0);
    const leader = (): number => w.sim.partition('t').leader;
    expect(await produce(w, txnBatch(pid, 0, 0, ['in-flight']), TXN_ID, 't', leader())).toMatchObject({ errorCode: 0 });
    w.sim.engine.killBroker(coordinator);
    let moved = -1;
    for (let i = 0; i < 100 && (moved < 0 || moved === coordinator); i++) {
      w.sim.advance(500);
      const r = await w.respond(leader(), ApiKey.FindCoordinator, 1, { key: TXN_ID, keyType: 1, coordinatorKeys: [] });
      moved = r.errorCode === 0 ? r.nodeId : -1;
    }
    expect(moved).not.toBe(coordinator);
    // The new coordinator may still be loading (COORDINATOR_LOAD_IN_PROGRESS, 14): clients retry.
    let ended = await endTxn(w, moved, pid, 0, true);
    for (let i = 0; ended === 14 && i < 50; i++) {
      w.sim.advance(100);
      ended = await endTxn(w, moved, pid, 0, true);
    }
    expect(ended).toBe(0);
    for (let i = 0; i < 100; i++) {
      const f = await fetch(w, 1, leader());
      if (f.lso === f.hw) break;
      w.sim.advance(100);
    }
    const done = await fetch(w, 1, leader());
    expect(done).toMatchObject({ lso: done.hw, aborted: [] });
    expect(done.records).toEqual([[0, 'in-flight'], [1, 'COMMIT']]);
  });
});
