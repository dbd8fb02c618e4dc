import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../app/api/contract.js';
import { narrate } from './event-narrator.js';

const at = { atMs: 1_000 };
const e = (x: Record<string, unknown>): EngineEvent => ({ ...at, ...x }) as unknown as EngineEvent;

describe('the event narrator', () => {
  it('tells a failover as Kafka’s tools would: partition, brokers by id, epoch and the reason name', () => {
    expect(narrate(e({ type: 'leader.changed', topic: 'orders', partition: 0, leader: 2, previousLeader: 1, leaderEpoch: 3, unclean: false, reason: 'broker-fenced' }))).toEqual({
      label: 'Leader changed',
      severity: 'info',
      group: 'replication',
      partition: 0,
      text: 'orders-0: leader 1 → 2, epoch 3 (broker-fenced)',
    });
    const shrunk = narrate(e({ type: 'isr.shrunk', topic: 'orders', partition: 0, isr: [2, 3], previousIsr: [1, 2, 3], removed: [1], partitionEpoch: 7, reason: 'broker-fenced' }));
    expect(shrunk.text).toBe('orders-0: ISR [1, 2, 3] → [2, 3], removed 1 (broker-fenced), partition epoch 7');
    expect(shrunk.severity).toBe('warning');
  });

  it('marks an unclean election and an offline partition as errors and says what they cost', () => {
    const unclean = narrate(e({ type: 'leader.changed', topic: 't', partition: 1, leader: 3, previousLeader: -1, leaderEpoch: 2, unclean: true, reason: 'unclean-election' }));
    expect(unclean).toMatchObject({ label: 'Unclean election', severity: 'error' });
    expect(unclean.text).toBe('t-1: leader none → 3, epoch 2 (unclean-election): chosen from outside the ISR, records it lacks are lost');
    const offline = narrate(e({ type: 'leader.changed', topic: 't', partition: 1, leader: -1, previousLeader: 3, leaderEpoch: 3, unclean: false, reason: 'broker-fenced' }));
    expect(offline).toMatchObject({ label: 'Leader lost', severity: 'error', text: 't-1: leader 3 → none, epoch 3 (broker-fenced): the partition is offline' });
  });

  it('counts what a truncation removed and why', () => {
    const t = narrate(e({ type: 'replica.truncated', topic: 'drill-1', partition: 0, brokerId: 2, fromOffset: 11, toOffset: 5, leaderEpoch: 1, reason: 'diverging-epoch' }));
    expect(t.text).toBe('drill-1-0: broker 2 truncated its log from offset 11 to 5, removing 6 offsets (diverged from the leader at epoch 1)');
    const p = narrate(e({ type: 'replica.truncated', topic: 'drill-1', partition: 0, brokerId: 3, fromOffset: 1, toOffset: 0, leaderEpoch: -1, reason: 'power-loss' }));
    expect(p.text).toContain('removing 1 offset (its unflushed tail was lost with the power)');
  });

  it("tells what a broker's log cleaner removed and kept, and when it gives up on a log", () => {
    const cleaned = narrate(
      e({ type: 'log.cleaned', topic: 'profiles', partition: 0, brokerId: 2, firstDirtyOffset: 40, endOffset: 120, bytesRead: 9_000, bytesWritten: 2_500, recordsRead: 120, recordsWritten: 30, tombstonesRemoved: 2, tombstonesKept: 1 }),
    );
    expect(cleaned).toMatchObject({ label: 'Cleaned', group: 'replication', partition: 0 });
    expect(cleaned.text).toBe("profiles-0: broker 2's log cleaner cleaned offsets 40–119: kept 30 records of 120 (6500 bytes freed), removed 2 tombstones past delete.retention.ms, 1 tombstone kept for delete.retention.ms");
    expect(narrate(e({ type: 'log.uncleanable', topic: 'profiles', partition: 1, brokerId: 3, reason: 'disk said no' }))).toMatchObject({
      label: 'Uncleanable',
      severity: 'error',
      text: "profiles-1: broker 3's log cleaner failed and leaves this log until the broker restarts: disk said no",
    });
  });

  it('tells how far a long open got, then that the cluster opened', () => {
    expect(narrate(e({ type: 'cluster.opening', brokersRunning: 4, brokers: 12, elapsedMs: 14_600, done: false }))).toMatchObject({
      label: 'Opening',
      severity: 'info',
      group: 'brokers',
      text: 'Opening the cluster: 4 of 12 brokers running after 15 s',
    });
    expect(narrate(e({ type: 'cluster.opening', brokersRunning: 12, brokers: 12, elapsedMs: 31_000, done: true }))).toMatchObject({
      label: 'Opened',
      severity: 'success',
      text: 'The cluster opened after 31 s: 12 of 12 brokers running',
    });
  });

  it('says a broker state change without repeating a reason its new state already names', () => {
    expect(narrate(e({ type: 'broker.stateChanged', brokerId: 2, previous: 'running', state: 'killed', reason: 'killed' })).text).toBe('Broker 2: running → killed');
    expect(narrate(e({ type: 'broker.stateChanged', brokerId: 2, previous: 'running', state: 'fenced', reason: 'session timed out' }))).toMatchObject({
      text: 'Broker 2: running → fenced (session timed out)',
      severity: 'warning',
      group: 'brokers',
      partition: null,
    });
  });

  it('names the controller’s moves and topic changes in the overview’s groups', () => {
    expect(narrate(e({ type: 'controller.changed', controllerId: 1, previousControllerId: null, reason: 'cluster started' })).text).toBe('Controller is now on broker 1 (cluster started)');
    expect(narrate(e({ type: 'topic.created', topic: 'orders', topicId: 'x', partitions: 6, replicationFactor: 3 }))).toMatchObject({ group: 'topics', text: 'Topic orders created: 6 partitions, replication factor 3' });
    expect(narrate(e({ type: 'config.changed', resourceType: 'broker', resourceName: '', name: 'log.retention.ms', value: null })).text).toBe(
      'log.retention.ms on the cluster-wide broker default deleted: back to its inherited value',
    );
  });
});
