/**
 * The idempotent producer in Kafka's bytes: InitProducerId, then batches with producer id, epoch
 * and sequence. Retries are answered with the original offsets and written once, gaps and fenced
 * epochs are refused, and the state survives a leader failover and a restart of the cluster.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpStorages, STORAGES } from '../../sim/scenarios/support.js';
import { ApiKey } from '../generated/index.js';
import { clientBatch, clientRecord, WireSim } from '../test-support/wire-sim.js';

afterEach(cleanUpStorages);

async function initProducerId(w: WireSim, brokerId: number, transactionalId: string | null = null) {
  return w.respond(brokerId, ApiKey.InitProducerId, 1, { transactionalId, transactionTimeoutMs: 60_000 });
}

async function produce(w: WireSim, brokerId: number, pid: bigint, epoch: number, seq: number, values: string[]) {
  const batch = clientBatch(values.map((v) => clientRecord(v)), { producer: { id: Number(pid), epoch, baseSequence: seq } });
  const r = await w.respond(brokerId, ApiKey.Produce, 7, { acks: -1, timeoutMs: 5_000, topicData: [{ name: 't', partitionData: [{ index: 0, records: batch }] }] });
  return r.responses[0]!.partitionResponses[0]!;
}

const logValues = (w: WireSim) => w.sim.consumeAll('t', 0).map((r) => new TextDecoder().decode(r.value!));

describe('InitProducerId (key 22)', () => {
  it('hands out distinct producer ids with epoch 0 on every broker, never again after the cluster restarts', async () => {
    const storage = STORAGES[1]!.make();
    const w = new WireSim({ seed: 3, storage });
    const ids: bigint[] = [];
    for (const broker of [1, 2, 3, 1]) {
      const r = await initProducerId(w, broker);
      expect(r).toMatchObject({ errorCode: 0, producerEpoch: 0 });
      ids.push(r.producerId);
    }
    expect(new Set(ids).size).toBe(4);
    w.sim.engine.shutdown();
    w.sim.waitFor(() => w.sim.engine.isShutDown(), 120_000, 'shutdown');
    const again = new WireSim({ seed: 4, storage });
    const later = await initProducerId(again, 1);
    expect(later.errorCode).toBe(0);
    expect(ids).not.toContain(later.producerId);
  });

  it('sends a transactional id to its coordinator: NOT_COORDINATOR on a broker that is not (transactions.test.ts goes on)', async () => {
    const w = new WireSim({ seed: 5 });
    expect(await initProducerId(w, 1, 'tx')).toMatchObject({ errorCode: 16, producerId: -1n });
  });
});

describe('Idempotent produce', () => {
  it('answers a retried batch with its original offsets and writes it once; a gap is OUT_OF_ORDER_SEQUENCE_NUMBER', async () => {
    const w = new WireSim({ seed: 6 });
    w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    const { producerId } = await initProducerId(w, 1);
    expect(await produce(w, 1, producerId, 0, 0, ['a', 'b'])).toMatchObject({ errorCode: 0, baseOffset: 0n });
    expect(await produce(w, 1, producerId, 0, 2, ['c'])).toMatchObject({ errorCode: 0, baseOffset: 2n });
    expect(await produce(w, 1, producerId, 0, 0, ['a', 'b'])).toMatchObject({ errorCode: 0, baseOffset: 0n });
    expect(await produce(w, 1, producerId, 0, 5, ['e'])).toMatchObject({ errorCode: 45, baseOffset: -1n });
    expect(logValues(w)).toEqual(['a', 'b', 'c']);
  });

  it('fences an older epoch with INVALID_PRODUCER_EPOCH once a newer one wrote', async () => {
    const w = new WireSim({ seed: 8 });
    w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    const { producerId } = await initProducerId(w, 1);
    await produce(w, 1, producerId, 1, 0, ['new']);
    expect(await produce(w, 1, producerId, 0, 1, ['zombie'])).toMatchObject({ errorCode: 47 });
    expect(logValues(w)).toEqual(['new']);
  });

  it('a new leader after a failover still recognises the retry of a batch its predecessor wrote', async () => {
    const w = new WireSim({ seed: 9 });
    w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    const { producerId } = await initProducerId(w, 1);
    await produce(w, 1, producerId, 0, 0, ['a']);
    await produce(w, 1, producerId, 0, 1, ['b']);
    w.sim.engine.killBroker(1);
    w.sim.waitFor(() => w.sim.partition('t').leader > 1, 60_000, 'a new leader');
    const leader = w.sim.partition('t').leader;
    expect(await produce(w, leader, producerId, 0, 1, ['b'])).toMatchObject({ errorCode: 0, baseOffset: 1n });
    expect(await produce(w, leader, producerId, 0, 2, ['c'])).toMatchObject({ errorCode: 0, baseOffset: 2n });
    expect(logValues(w)).toEqual(['a', 'b', 'c']);
  });

  it('rebuilds the producer state from the log of a restarted cluster (SQLite)', async () => {
    const storage = STORAGES[1]!.make();
    const w = new WireSim({ seed: 10, storage });
    w.sim.createTopic('t', 1, 3, {}, [[1, 2, 3]]);
    const { producerId } = await initProducerId(w, 1);
    await produce(w, 1, producerId, 0, 0, ['a', 'b']);
    w.sim.engine.shutdown();
    w.sim.waitFor(() => w.sim.engine.isShutDown(), 120_000, 'shutdown');
    const again = new WireSim({ seed: 11, storage });
    again.sim.waitFor(() => again.sim.partition('t').leader > 0 && again.sim.partition('t').isr.length === 3, 60_000, 'partition online');
    const leader = again.sim.partition('t').leader;
    expect(await produce(again, leader, producerId, 0, 0, ['a', 'b'])).toMatchObject({ errorCode: 0, baseOffset: 0n });
    expect(await produce(again, leader, producerId, 0, 3, ['d'])).toMatchObject({ errorCode: 45 });
    expect(logValues(again)).toEqual(['a', 'b']);
  });
});
