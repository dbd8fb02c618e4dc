/**
 * `__consumer_offsets` compacted as Kafka compacts it: every commit and every group metadata
 * record is superseded per key (group, or group-topic-partition), DeleteGroups, OffsetDelete and
 * offsets.retention.minutes expiry write tombstones that remove their key after
 * delete.retention.ms, and a new coordinator loads the compacted log — the same groups and
 * offsets from far fewer records.
 */
import { describe, expect, it } from 'vitest';
import { OFFSETS_TOPIC } from '../../core/engine.js';
import { groupRecordCodec } from '../../protocol/group-records.js';
import { commitRequest, committedOffsets, findCoordinator, groupCall, offsetsPartitionOf } from '../group-support.js';
import { Simulation } from '../simulation.js';
import { replica } from './support.js';

/** The keys of the records of one replica of an offsets partition, decoded, with each key's count. */
function keysOf(sim: Simulation, brokerId: number, partition: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const b of replica(sim, brokerId, OFFSETS_TOPIC, partition).log.read(0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)) {
    for (const r of b.records) {
      const k = groupRecordCodec.readKey(r.key!);
      const name = k.kind === 'offset' ? `offset ${k.group} ${k.topic}-${k.partition}` : k.kind === 'group' ? `group ${k.group}` : `unknown ${k.version}`;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
  }
  return counts;
}

describe('__consumer_offsets compacted', () => {
  it('keeps one record per key, drops what DeleteGroups, OffsetDelete and expiry removed once their tombstones age, and a new coordinator loads the compacted log', () => {
    const sim = new Simulation({
      seed: 401,
      staticConfigs: { 'log.cleaner.backoff.ms': '1000', 'offsets.topic.num.partitions': '1', 'offsets.retention.minutes': '3', 'offsets.retention.check.interval.ms': '10000' },
    });
    sim.createTopic('t', 3, 3);
    const c = findCoordinator(sim, 'keep');
    expect(findCoordinator(sim, 'gone')).toBe(c);
    // Segments roll every 10 s and the cleaner takes the log at 1% dirty; tombstones live 30 s.
    sim.engine.alterConfigs('topic', OFFSETS_TOPIC, { 'segment.ms': '10000', 'min.cleanable.dirty.ratio': '0.01', 'delete.retention.ms': '30000' });
    expect(sim.engine.metadata.topicsByName.get(OFFSETS_TOPIC)!.configs['cleanup.policy']).toBe('compact');
    for (let i = 1; i <= 200; i++) {
      expect(groupCall(sim, c, commitRequest('keep', { 't-0': i, 't-1': 2 * i, 't-2': 3 * i })).topics[0]!.partitions.every((p) => p.errorCode === 'NONE')).toBe(true);
      groupCall(sim, c, commitRequest('gone', { 't-0': i }));
      groupCall(sim, c, commitRequest('stale', { 't-1': i }));
      if (i % 20 === 0) sim.advance(11_000);
    }
    const part = offsetsPartitionOf(sim, 'keep');
    expect(groupCall(sim, c, { api: 'deleteGroups', groups: ['gone'] }).results[0]!.errorCode).toBe('NONE');
    const deleted = groupCall(sim, c, { api: 'offsetDelete', groupId: 'keep', topics: [{ name: 't', partitions: [2] }] });
    expect([deleted.errorCode, deleted.topics[0]!.partitions[0]!.errorCode]).toEqual(['NONE', 'NONE']);
    expect(committedOffsets(sim, 'keep', c)).toEqual({ 't-0': 200, 't-1': 400 });
    // 'stale' stops committing: its offsets expire after offsets.retention.minutes (3 min).
    for (let i = 201; i <= 230; i++) {
      groupCall(sim, c, commitRequest('keep', { 't-0': i, 't-1': 2 * i }));
      sim.advance(11_000);
    }
    expect(committedOffsets(sim, 'stale', c)).toEqual({});
    sim.advance(60_000);
    for (const id of sim.partition(OFFSETS_TOPIC, part).replicas) {
      const after = keysOf(sim, id, part);
      // Each key once at most below the active segment; the active segment holds the last commits only.
      expect(after.get('offset keep t-0'), `broker ${id}`).toBeLessThanOrEqual(2);
      expect(after.has('offset gone t-0'), `broker ${id}: a deleted group's offset`).toBe(false);
      expect(after.has('offset keep t-2'), `broker ${id}: an OffsetDelete'd offset`).toBe(false);
      expect(after.has('offset stale t-1'), `broker ${id}: an expired offset`).toBe(false);
      // Over 1,000 records written (5 commits a round, 230 rounds, group metadata, tombstones): a few dozen left.
      expect([...after.values()].reduce((a, b) => a + b, 0), `broker ${id}`).toBeLessThan(40);
    }
    // The coordinator's broker dies: its successor loads the compacted log and answers the same.
    const loadsBefore = sim.eventsOf('coordinator.loaded').length;
    sim.engine.killBroker(c);
    sim.waitFor(() => sim.eventsOf('coordinator.loaded').slice(loadsBefore).some((e) => e.offsetsPartition === part), 60_000, 'a new coordinator');
    const successor = findCoordinator(sim, 'keep', sim.partition(OFFSETS_TOPIC, part).replicas.find((b) => b !== c)!);
    expect(successor).not.toBe(c);
    expect(committedOffsets(sim, 'keep', successor)).toEqual({ 't-0': 230, 't-1': 460 });
    expect(committedOffsets(sim, 'gone', successor)).toEqual({});
    expect(committedOffsets(sim, 'stale', successor)).toEqual({});
    const listed = groupCall(sim, successor, { api: 'listGroups', statesFilter: [] }).groups.map((g) => g.groupId);
    expect(listed).toContain('keep');
    expect(listed).not.toContain('gone');
  });
});
