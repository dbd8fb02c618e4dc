/**
 * The transaction coordinator dies between markers (Kafka's TransactionMarkerChannelManager and
 * the coordinator failover of TransactionStateManager): PrepareCommit is in `__transaction_state`,
 * one partition has its COMMIT marker and the other does not. The new coordinator loads
 * PrepareCommit from the log and writes the markers again; read_committed consumers of every
 * partition then see each committed record exactly once, and the producer carries on.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpStorages } from '../../sim/scenarios/support.js';
import { ApiKey } from '../generated/index.js';
import {
  addPartitions,
  endTxn,
  fetchPartition,
  findTxnCoordinator,
  initProducerId,
  produce,
  readCommittedValues,
  txnBatch,
  type FetchedPartition,
} from '../test-support/txn-wire.js';
import { WireSim } from '../test-support/wire-sim.js';

afterEach(cleanUpStorages);

const TXN_ID = 'orders-tx';
const TOPIC = 'orders';

describe('the transaction coordinator killed between markers', () => {
  it('the new coordinator finishes the commit: every partition gets its marker and read_committed sees each record once', async () => {
    // A follower cut off leaves the ISR within EndTxn's 30 s request timeout.
    const w = new WireSim({ seed: 3101, staticConfigs: { 'replica.lag.time.max.ms': '10000' } });
    const coordinator = await findTxnCoordinator(w, TXN_ID);
    // Each partition led by a broker other than the coordinator, so one link can be cut alone.
    const [a, b] = [1, 2, 3].filter((x) => x !== coordinator) as [number, number];
    w.sim.createTopic(TOPIC, 2, 3, { 'min.insync.replicas': '2' }, [
      [a, b, coordinator],
      [b, a, coordinator],
    ]);
    const leaderOf = (p: number): number => w.sim.partition(TOPIC, p).leader;
    const read = (p: number, isolation: 0 | 1 = 1): Promise<FetchedPartition> => fetchPartition(w, isolation, leaderOf(p), TOPIC, p);
    const both = [{ name: TOPIC, partitions: [0, 1] }];
    const seq = [0, 0];
    const send = async (pid: bigint, epoch: number, tag: string): Promise<void> => {
      for (const p of [0, 1]) {
        expect(await produce(w, txnBatch(pid, epoch, seq[p]!, [`${tag}-${p}`]), TXN_ID, TOPIC, leaderOf(p), p)).toMatchObject({ errorCode: 0 });
        seq[p]!++;
      }
    };
    const settled = async (p: number): Promise<FetchedPartition> => {
      for (let i = 0; i < 300; i++) {
        const f = await read(p).catch(() => null); // NOT_LEADER_OR_FOLLOWER while leadership moves
        if (f && f.lso === f.hw) return f;
        w.sim.advance(100);
      }
      throw new Error(`${TOPIC}-${p}: the LSO never reached the HW`);
    };

    const init = await initProducerId(w, coordinator, TXN_ID);
    expect(init.errorCode).toBe(0);
    const { producerId: pid, producerEpoch: epoch } = init;

    // A committed transaction before the fault.
    expect(await addPartitions(w, coordinator, TXN_ID, pid, epoch, both)).toEqual([0, 0]);
    await send(pid, epoch, 'first');
    expect(await endTxn(w, coordinator, TXN_ID, pid, epoch, true)).toBe(0);
    await settled(0);
    await settled(1);

    // The second transaction; the coordinator cannot reach partition 1's leader when it commits.
    expect(await addPartitions(w, coordinator, TXN_ID, pid, epoch, both)).toEqual([0, 0]);
    await send(pid, epoch, 'second');
    w.sim.engine.cutLink(coordinator, b);
    // EndTxn answers once PrepareCommit is replicated (after the cut-off follower leaves the ISR).
    expect(await endTxn(w, coordinator, TXN_ID, pid, epoch, true)).toBe(0);
    await settled(0);
    w.sim.advance(5_000);
    const p0 = await read(0);
    const held = await read(1);
    expect(p0.records.filter((r) => r[1] === 'COMMIT')).toHaveLength(2);
    expect(readCommittedValues(p0)).toEqual(['first-0', 'second-0']);
    // Partition 1 has no marker for the second transaction: its LSO stays at the transaction's first offset.
    expect(held.records.filter((r) => r[1] === 'COMMIT')).toHaveLength(1);
    expect(held.lso).toBe(2n);
    expect(held.hw).toBe(3n);
    expect(readCommittedValues(held)).toEqual(['first-1']);
    expect(await endTxn(w, coordinator, TXN_ID, pid, epoch, true)).toBe(51); // CONCURRENT_TRANSACTIONS: the commit is still being completed

    w.sim.engine.killBroker(coordinator);
    let successor = -1;
    for (let i = 0; i < 200 && (successor < 0 || successor === coordinator); i++) {
      w.sim.advance(500);
      const r = await w.respond(a, ApiKey.FindCoordinator, 1, { key: TXN_ID, keyType: 1, coordinatorKeys: [] });
      successor = r.errorCode === 0 ? r.nodeId : -1;
    }
    expect(successor).not.toBe(coordinator);

    // The successor loaded PrepareCommit and wrote the markers again: partition 1 commits.
    const p1 = await settled(1);
    expect(readCommittedValues(p1)).toEqual(['first-1', 'second-1']);
    expect(readCommittedValues(await settled(0))).toEqual(['first-0', 'second-0']);
    expect((await read(1, 0)).records.filter((r) => r[1] === 'ABORT')).toEqual([]);

    // The transaction is complete at the successor: the same producer begins and commits the next one.
    let added = await addPartitions(w, successor, TXN_ID, pid, epoch, both);
    for (let i = 0; i < 100 && added.some((e) => e === 51 || e === 14); i++) {
      w.sim.advance(200); // CONCURRENT_TRANSACTIONS until CompleteCommit is written, which needs a second ISR member back
      added = await addPartitions(w, successor, TXN_ID, pid, epoch, both);
    }
    expect(added).toEqual([0, 0]);
    await send(pid, epoch, 'third');
    expect(await endTxn(w, successor, TXN_ID, pid, epoch, true)).toBe(0);

    // The old coordinator comes back and the link heals: nothing it left behind is written twice.
    w.sim.engine.cutLink(coordinator, b, false);
    w.sim.engine.startBroker(coordinator);
    w.sim.advance(20_000);
    for (const p of [0, 1]) {
      const f = await settled(p);
      expect(readCommittedValues(f)).toEqual([`first-${p}`, `second-${p}`, `third-${p}`]);
      expect(f.aborted).toEqual([]);
    }
  });
});
