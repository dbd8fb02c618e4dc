/**
 * Time- and size-based retention (docs/semantics.md#retention-and-deleterecords; Kafka's `UnifiedLog.deleteOldSegments`):
 * every broker deletes whole segments of the replicas it hosts, leader or follower, never past its
 * own high watermark, and the log start offset moves to the first segment kept.
 */
import { describe, expect, it } from 'vitest';
import type { ListOffsetsResult } from '../../core/engine.js';
import { Simulation } from '../simulation.js';
import { replica } from './support.js';

const MINUTE = 60_000;
/** 100 KiB, shared by every record: a batch of one is 102469 bytes, so ten fill a 1 MiB segment. */
const PAYLOAD = 'x'.repeat(100 * 1024);

function logStartOffsets(sim: Simulation, topic: string): number[] {
  return sim.partition(topic, 0).replicaStates.map((r) => r.logStartOffset);
}

function earliestOffset(sim: Simulation, topic: string): ListOffsetsResult {
  return sim.await<ListOffsetsResult>((done) => sim.engine.listOffsets({ topic, partition: 0, timestamp: -2 }, done));
}

describe('log retention', () => {
  it('retention.bytes deletes the oldest 1 MiB segments on the leader and the followers alike', () => {
    const sim = new Simulation({ seed: 91 });
    sim.createTopic('big', 1, 3, { 'segment.bytes': '1048576', 'retention.bytes': '1048576' }, [[1, 2, 3]]);
    for (let i = 0; i < 32; i++) expect(sim.produce('big', 0, [PAYLOAD]).errorCode).toBe('NONE');
    const leader = replica(sim, 1, 'big');
    expect(leader.log.segments().map((s) => s.baseOffset)).toEqual([0, 10, 20, 30]);
    expect(leader.log.sizeBytes()).toBe(32 * 102_469);
    expect(sim.now).toBeLessThan(25_000);

    sim.advance(25_000 - sim.now);
    expect(logStartOffsets(sim, 'big')).toEqual([0, 0, 0]);
    // The first check runs 30 s after the brokers start (Kafka's log.initial.task.delay.ms), then
    // every log.retention.check.interval.ms (5 min).
    sim.advance(10_000);
    // 3.1 MiB over a 1 MiB limit: [0,10) and [10,20) go; deleting [20,30) too would leave less than 1 MiB.
    expect(logStartOffsets(sim, 'big')).toEqual([20, 20, 20]);
    for (const id of [1, 2, 3]) expect(replica(sim, id, 'big').log.segments().map((s) => s.baseOffset)).toEqual([20, 30]);
    expect(leader.log.sizeBytes()).toBe(12 * 102_469);
    expect(leader.log.sizeBytes()).toBeGreaterThanOrEqual(1_048_576);

    expect(sim.consume('big', 0, 0).errorCode).toBe('OFFSET_OUT_OF_RANGE');
    expect(sim.consume('big', 0, 19).errorCode).toBe('OFFSET_OUT_OF_RANGE');
    expect(sim.consumeAll('big', 0, 20).map((r) => r.offset)).toEqual(Array.from({ length: 12 }, (_, i) => 20 + i));
    expect(earliestOffset(sim, 'big')).toMatchObject({ error: 'NONE', offset: 20 });
  });

  it('retention.ms deletes segments whose records are all older than it and keeps the one still being written', () => {
    const sim = new Simulation({ seed: 92, staticConfigs: { 'log.retention.check.interval.ms': '10000' } });
    sim.createTopic('timed', 1, 3, { 'retention.ms': String(MINUTE), 'segment.ms': '30000' }, [[1, 2, 3]]);
    // One record every 10 s for 10 minutes; segments roll every 40 s (the first append more than 30 s after creation).
    for (let i = 0; i < 60; i++) {
      expect(sim.produce('timed', 0, [`m${i}`]).errorCode).toBe('NONE');
      sim.advance(10_000);
    }
    // Four records per segment. At 601 s, [48,52) (last written at 511 s) has gone; [52,56) (last
    // written at 551 s) is 50 s old and stays, as does the active segment [56,60).
    for (const id of [1, 2, 3]) {
      const segments = replica(sim, id, 'timed').log.segmentStats();
      expect(segments.map((s) => [s.baseOffset, sim.now - s.maxAppendTimeMs])).toEqual([
        [52, 50_000],
        [56, 10_000],
      ]);
    }
    expect(logStartOffsets(sim, 'timed')).toEqual([52, 52, 52]);
    expect(sim.consume('timed', 0, 51).errorCode).toBe('OFFSET_OUT_OF_RANGE');
    expect(sim.consumeAll('timed', 0, 52).map((r) => r.offset)).toEqual([52, 53, 54, 55, 56, 57, 58, 59]);
  });

  it('once every record is older than retention.ms, even the active segment goes: Kafka rolls an empty one first', () => {
    const sim = new Simulation({ seed: 93, staticConfigs: { 'log.retention.check.interval.ms': '10000' } });
    sim.createTopic('timed', 1, 3, { 'retention.ms': String(MINUTE), 'segment.ms': '30000' }, [[1, 2, 3]]);
    for (let i = 0; i < 5; i++) expect(sim.produce('timed', 0, [`m${i}`]).errorCode).toBe('NONE');
    sim.advance(10 * MINUTE);
    expect(sim.partition('timed', 0).replicaStates.map((r) => [r.logStartOffset, r.logEndOffset, r.highWatermark])).toEqual([
      [5, 5, 5],
      [5, 5, 5],
      [5, 5, 5],
    ]);
    expect(replica(sim, 1, 'timed').log.segments().map((s) => s.baseOffset)).toEqual([5]);
    const atEnd = sim.consume('timed', 0, 5);
    expect(atEnd.errorCode).toBe('NONE');
    expect(atEnd.records).toHaveLength(0);
    expect(sim.consume('timed', 0, 4).errorCode).toBe('OFFSET_OUT_OF_RANGE');
    expect(sim.produce('timed', 0, ['m5']).baseOffset).toBe(5);
    expect(sim.consumeAll('timed', 0, 5).map((r) => r.offset)).toEqual([5]);
  });

  it('a leader deletes only below its high watermark, which a stalled ISR follower holds back', () => {
    const sim = new Simulation({
      seed: 94,
      staticConfigs: { 'log.retention.check.interval.ms': '10000', 'replica.lag.time.max.ms': '600000' },
    });
    sim.createTopic('lag', 1, 3, { 'retention.ms': String(MINUTE), 'segment.ms': '1000' }, [[1, 2, 3]]);
    for (let i = 0; i < 3; i++) {
      expect(sim.produce('lag', 0, [`m${i}`]).errorCode).toBe('NONE');
      sim.advance(2_000); // every append rolls a new segment
    }
    sim.engine.stallFollower(3);
    for (let i = 3; i < 6; i++) {
      expect(sim.produce('lag', 0, [`m${i}`], 1).errorCode).toBe('NONE');
      sim.advance(2_000);
    }
    const leader = replica(sim, 1, 'lag');
    expect(leader.log.segments().map((s) => s.baseOffset)).toEqual([0, 1, 2, 3, 4, 5]);

    sim.advance(5 * MINUTE);
    expect(sim.partition('lag', 0).isr).toEqual([1, 2, 3]);
    // Everything is past retention.ms, but the HW is 3: segments [3], [4], [5] stay on the leader.
    expect([leader.log.logStartOffset, leader.log.highWatermark, leader.log.logEndOffset]).toEqual([3, 3, 6]);
    expect(leader.log.segments().map((s) => s.baseOffset)).toEqual([3, 4, 5]);
    expect(logStartOffsets(sim, 'lag')).toEqual([3, 3, 3]);
    expect(sim.consume('lag', 0, 2).errorCode).toBe('OFFSET_OUT_OF_RANGE');
    expect(sim.consume('lag', 0, 3)).toMatchObject({ errorCode: 'NONE', records: [] });

    sim.engine.stallFollower(3, false);
    sim.advance(MINUTE);
    expect(sim.partition('lag', 0).replicaStates.map((r) => [r.logStartOffset, r.highWatermark, r.logEndOffset])).toEqual([
      [6, 6, 6],
      [6, 6, 6],
      [6, 6, 6],
    ]);
  });
});
