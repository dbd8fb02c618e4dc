/**
 * One produce path: records written from inside the engine (the contract's `records.produce`,
 * drills) pass the LogValidator rules a Kafka client's batch passes, so a Kafka consumer fetches
 * the same batch whichever way the records came in.
 */
import { describe, expect, it } from 'vitest';
import { serviceOver } from '../../sim/virtual-service.js';
import { ApiKey } from '../generated/index.js';
import { batchHeader, decodeRecordBatches } from '../records/record-batch.js';
import { codecs, WireSim } from '../test-support/wire-sim.js';

async function fetchAll(w: WireSim, topic: string) {
  const r = await w.respond(1, ApiKey.Fetch, 11, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 10_000_000,
    topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 10_000_000, currentLeaderEpoch: -1 }] }],
  });
  return r.responses[0]!.partitions[0]!;
}

function cluster(configs: Record<string, string>) {
  const w = new WireSim({ seed: 29 });
  w.sim.createTopic('t', 1, 3, configs, [[1, 2, 3]]);
  const service = serviceOver(w.sim, { seed: 29 });
  return { w, service };
}

describe('records.produce takes the Kafka listener\'s produce path (LogValidator)', () => {
  it('a LogAppendTime topic: the stored batch says LogAppendTime with the append time as its max timestamp, as for a client', async () => {
    const { w, service } = cluster({ 'message.timestamp.type': 'LogAppendTime' });
    w.sim.advance(7_000);
    const r = await service.call('records.produce', { topic: 't', partition: 0, acks: 'all', records: [{ value: 'a', timestamp: 1_000 }, { value: 'b', timestamp: 1_001 }] });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.errorCode).toBe('NONE');
    const stored = (await fetchAll(w, 't')).records!;
    const h = batchHeader(stored);
    expect(h.timestampType).toBe('LogAppendTime');
    expect(h.maxTimestamp).toBe(r.value.appendedAtMs);
    expect(h.maxTimestamp).toBeGreaterThanOrEqual(7_000);
    const consumed = await service.call('records.consume', { topic: 't', partition: 0, offset: 0 });
    if (!consumed.ok) throw new Error(consumed.error.message);
    expect(consumed.value.records.map((x) => x.timestamp)).toEqual([h.maxTimestamp, h.maxTimestamp]);
  });

  it('compression.type=gzip: records written from the console are stored gzip, as a client\'s are recompressed', async () => {
    const { w, service } = cluster({ 'compression.type': 'gzip' });
    const r = await service.call('records.produce', { topic: 't', partition: 0, acks: 'all', records: [{ key: 'k', value: 'x'.repeat(200) }] });
    if (!r.ok) throw new Error(r.error.message);
    const stored = (await fetchAll(w, 't')).records!;
    expect(batchHeader(stored).compression).toBe('gzip');
    const [batch] = decodeRecordBatches(stored, { codecs });
    expect(new TextDecoder().decode(batch!.records[0]!.value!)).toBe('x'.repeat(200));
  });

  it('message.timestamp.before.max.ms / after.max.ms: a record outside the bounds is refused with INVALID_TIMESTAMP and nothing is written', async () => {
    const { w, service } = cluster({ 'message.timestamp.before.max.ms': '60000', 'message.timestamp.after.max.ms': '60000' });
    w.sim.advance(600_000);
    const old = await service.call('records.produce', { topic: 't', partition: 0, acks: 'all', records: [{ value: 'ok' }, { value: 'old', timestamp: 1_000 }] });
    if (!old.ok) throw new Error(old.error.message);
    expect(old.value.errorCode).toBe('INVALID_TIMESTAMP');
    const future = await service.call('records.produce', { topic: 't', partition: 0, acks: 'all', records: [{ value: 'future', timestamp: w.sim.now + 3_600_000 }] });
    if (!future.ok) throw new Error(future.error.message);
    expect(future.value.errorCode).toBe('INVALID_TIMESTAMP');
    expect((await fetchAll(w, 't')).highWatermark).toBe(0n);
    const fine = await service.call('records.produce', { topic: 't', partition: 0, acks: 'all', records: [{ value: 'now' }] });
    expect(fine.ok && fine.value.errorCode).toBe('NONE');
  });
});
