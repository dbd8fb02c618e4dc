import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MethodInput, MethodName } from '../../../../app/api/contract.js';
import type { Call } from '../../api/client.js';
import { startStoreHost, type StoreHost } from '../../test-support/store-host.js';
import { offsetRanges } from './data-loss.js';
import { newContext, runStep, type DrillScenario, type StepResult } from './runner.js';
import { SCENARIOS, scenarioById } from './scenarios.js';
import { nextDrillTopicName } from './steps.js';

describe('drill scenario definitions', () => {
  it('offers the eleven drills, each explained, with every wait bounded in cluster time', () => {
    expect(SCENARIOS.map((s) => s.name)).toEqual([
      'Leader failover',
      'acks=all with too few replicas',
      'Unclean election loses data',
      'Power loss with default flush settings',
      'The coordinator’s broker dies while a group consumes',
      'Log compaction: updates, deletes, then the cleaner',
      'A client without permission',
      'A producer over its quota, throttled',
      'A transactional producer dies mid-transaction',
      'A zombie producer is fenced by its successor',
      'The transaction coordinator dies mid-commit',
    ]);
    for (const s of SCENARIOS) {
      expect(s.explanation.length).toBeGreaterThan(200);
      expect(s.watch.length).toBeGreaterThan(50);
      for (const step of s.steps) {
        if (step.kind === 'wait') expect(step.maxClusterMs).toBeGreaterThan(0);
        else expect(step.run).toBeTypeOf('function');
      }
    }
  });

  it('names drill topics drill-<n> after the highest existing one', () => {
    expect(nextDrillTopicName([])).toBe('drill-1');
    expect(nextDrillTopicName(['orders', 'drill-2', 'drill-10', 'drill-x'])).toBe('drill-11');
  });

  it('writes offsets as ranges', () => {
    expect(offsetRanges([5, 6, 7, 9, 0])).toBe('0, 5–7, 9');
    expect(offsetRanges([])).toBe('');
  });
});

describe('drill scenarios run against a real host at 60×', () => {
  let h: StoreHost;
  let call: Call;
  beforeAll(async () => {
    h = await startStoreHost();
    call = <M extends MethodName>(m: M, input: MethodInput<M>) => h.client.result(m, input);
    await h.client.call('clock.setScale', { scale: 60 });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  async function run(scenario: DrillScenario): Promise<{ results: StepResult[]; topic: string }> {
    const ctx = newContext(call);
    const results: StepResult[] = [];
    for (const step of scenario.steps) {
      const r = await runStep(step, ctx);
      results.push(r);
      if (r.status !== 'ok') throw new Error(`${scenario.name}: step "${step.title}" ${r.status}: ${r.summary}`);
    }
    return { results, topic: ctx.topic };
  }

  it('Leader failover: a new leader from the ISR, the old one fenced out of it, and no acknowledged record lost', async () => {
    const { results, topic } = await run(scenarioById('leader-failover')!);
    expect(results.every((r) => r.endedAtMs >= r.startedAtMs)).toBe(true);
    const t = await h.client.call('topics.describe', { name: topic });
    expect(t.partitions[0]!.isr).toHaveLength(3);
    expect(t.partitions[0]!.leaderEpoch).toBeGreaterThanOrEqual(1);
    expect(results.at(-1)!.summary).toMatch(/All 10 acknowledged records are present/);
  });

  it('acks=all with too few replicas: NOT_ENOUGH_REPLICAS while the ISR is the leader alone', async () => {
    const { results } = await run(scenarioById('acks-all-too-few-replicas')!);
    expect(results.some((r) => r.expectedError === 'NOT_ENOUGH_REPLICAS')).toBe(true);
    expect(results.at(-1)!.summary).toMatch(/All 4 acknowledged records are present/);
  });

  it('Unclean election: records acknowledged by the leader alone are truncated away', async () => {
    const { results, topic } = await run(scenarioById('unclean-election')!);
    // 5 acks=all before the stall survive; the acks=1 record and the 5 acked by the lone leader (offsets 5–10) are gone.
    expect(results.at(-1)!.summary).toMatch(/6 of 14 acknowledged records are gone: offsets 5–10/);
    const recent = await h.client.call('events.recent', { types: ['leader.changed', 'replica.truncated'] });
    expect(recent.some((e) => e.type === 'leader.changed' && e.topic === topic && e.unclean)).toBe(true);
    expect(recent.some((e) => e.type === 'replica.truncated' && e.topic === topic && e.reason === 'diverging-epoch' && e.fromOffset === 11 && e.toOffset === 5)).toBe(true);
  });

  it('The coordinator dies while a group consumes: a new leader of its offsets partition takes the group over with every committed offset, no rebalance', async () => {
    const { results, topic } = await run(scenarioById('coordinator-failover')!);
    const killed = results.find((r) => r.summary.startsWith('Killed broker'))!;
    const taken = results.find((r) => r.summary.includes('now leads __consumer_offsets'))!;
    expect(taken.summary).toContain('every committed offset survived (0:5 1:5 2:5)');
    expect(taken.summary).not.toContain(killed.summary.match(/Killed broker (\d+)/)![0].replace('Killed broker', 'Broker'));
    const caughtUp = results.find((r) => r.summary.includes('Same generation as before the failover'));
    expect(caughtUp).toBeDefined();
    const group = await h.client.call('groups.describe', { groupId: `${topic}-consumers` });
    expect(group.state).toBe('Empty');
    expect(group.partitions.map((p) => p.committedOffset)).toEqual([10, 10, 10]);
    const recent = await h.client.call('events.recent', { types: ['coordinator.loaded', 'group.stateChanged'] });
    expect(recent.some((e) => e.type === 'coordinator.loaded' && e.groups.includes(`${topic}-consumers`))).toBe(true);
    // From the kill until the group had read everything again: no rebalance (the members' leaving at the end is one).
    const rebalances = recent.filter((e): e is Extract<typeof e, { type: 'group.stateChanged' }> => e.type === 'group.stateChanged' && e.groupId === `${topic}-consumers` && e.state === 'PreparingRebalance');
    expect(rebalances.filter((e) => e.atMs > killed.startedAtMs && e.atMs <= caughtUp!.endedAtMs)).toEqual([]);
    expect(rebalances.at(-1)!.reason).toContain('the consumer is closing');
  });

  it('Log compaction: the cleaner removes the superseded and deleted values and keeps each key’s latest at its offset', async () => {
    const { results, topic } = await run(scenarioById('compaction')!);
    const report = results.at(-1)!.summary;
    expect(report).toMatch(/^3 of 8 records went, none of them a key’s latest value\./);
    expect(report).toContain('@0 user-1=alice v1: gone, superseded by a later write of user-1 at offset 4');
    expect(report).toContain("@3 user-4=dave v1: gone, deleted: user-4's tombstone at offset 6 superseded it");
    expect(report).toContain('@6 user-4=(tombstone): kept, a tombstone, kept for delete.retention.ms');
    const view = await h.client.call('topics.compaction', { name: topic });
    expect(view.partitions[0]!.replicas.find((r) => r.leader)!.cleanerCheckpoint).toBe(7);
  }, 120_000);

  it('Power loss with default flush settings: one broker recovers from its replicas, a power cut of all three loses every acknowledged record', async () => {
    const { results } = await run(scenarioById('power-loss-default-flush')!);
    expect(results.at(-1)!.summary).toMatch(/10 of 10 acknowledged records are gone: offsets 0–9/);
  });
});
