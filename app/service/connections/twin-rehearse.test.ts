/**
 * A rehearsal's comparison and its report, where the engine and the prediction disagree (the
 * HTTP and Chromium tests only ever see them agree): what differs is named, an unclean election
 * the controller reported is called one, a partition gone is said, disagreements come first in the
 * report, the journal survives a reread and its Markdown cells stay cells.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PartitionImpactView } from '../../api/impact-contract.js';
import type { StopRehearsalView } from '../../api/rehearsal-contract.js';
import type { PartitionView } from '../../api/views.js';
import { appendJournal, journalReport, readJournal, twinEntry } from './twin-journal.js';
import { compareCoordinators, compareStop } from './twin-rehearse.js';

function predicted(topic: string, partition: number, replicas: number[], after: Partial<PartitionImpactView['after']>, minIsr = 1): PartitionImpactView {
  const moment = { leader: replicas[0]!, isr: replicas, elr: [], lastKnownElr: [], outcome: 'available' as const };
  return { topic, partition, replicas, effectiveMinIsr: minIsr, uncleanLeaderElectionEnable: false, before: moment, after: { ...moment, ...after }, leaderMoves: false, electedFrom: null, elrLost: false };
}
function seen(leader: number, isr: number[], replicas: number[], more: Partial<PartitionView> = {}): PartitionView {
  return { partition: 0, leader, leaderEpoch: 1, partitionEpoch: 1, replicas, isr, addingReplicas: [], removingReplicas: [], leaderRecoveryState: 'RECOVERED', eligibleLeaderReplicas: [], lastKnownElr: [], highWatermark: 0, logStartOffset: 0, replicaStates: [], ...more };
}

const dir = mkdtempSync(join(tmpdir(), 'rs-rehearse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a rehearsed stop compared with its prediction', () => {
  const live = (b: number) => b !== 2;
  const { rows, predictedCounts, observedCounts } = compareStop(
    [
      predicted('orders', 0, [1, 2, 3], { leader: 1, isr: [1, 3] }, 2),
      predicted('orders', 1, [2, 3, 1], { leader: 3, isr: [3, 1] }, 2),
      predicted('audit', 0, [2, 3], { leader: -1, isr: [2], outcome: 'unclean-only' }),
      predicted('gone', 0, [2, 1], { leader: 1, isr: [1] }),
    ],
    new Map([
      ['orders-0', seen(1, [3, 1], [1, 2, 3])],
      // The engine chose 1, not 3, and 3 fell out: a leader and an ISR of one below min ISR 2.
      ['orders-1', seen(1, [1], [2, 3, 1])],
      // The controller reported an unclean election of 3.
      ['audit-0', seen(3, [3], [2, 3])],
    ]),
    new Set(['audit-0']),
    live,
  );

  it('agrees where leader, ISR (in any order), ELR and outcome are equal, and names each difference elsewhere', () => {
    expect(rows.map((r) => [`${r.topic}-${r.partition}`, r.agrees, r.difference])).toEqual([
      ['orders-0', true, ''],
      ['orders-1', false, 'leader 1 where 3 was predicted; ISR 1 where 1,3 was predicted; under-min-isr where available was predicted'],
      ['audit-0', false, 'leader 3 where -1 was predicted; ISR 3 where 2 was predicted; unclean-elected where unclean-only was predicted'],
      ['gone-0', false, 'the partition is gone'],
    ]);
    expect(predictedCounts).toMatchObject({ available: 3, 'unclean-only': 1 });
    expect(observedCounts).toMatchObject({ available: 1, 'under-min-isr': 1, 'unclean-elected': 1, offline: 1 });
  });

  it('reports the disagreements first, in Markdown cells that stay cells, and the journal survives a reread', () => {
    const view: StopRehearsalView = {
      kind: 'stop',
      fault: 'power-loss',
      brokers: [],
      racks: ['rack|b'],
      stopped: [2],
      alreadyDown: [],
      startedAtMs: Date.UTC(2026, 0, 2, 3, 4, 5),
      wallMs: 1500,
      clusterMs: 42_000,
      compared: rows.length,
      agreed: 1,
      predictedCounts,
      observedCounts,
      partitions: [...rows.filter((r) => !r.agrees), ...rows.filter((r) => r.agrees)],
    };
    appendJournal(dir, { kind: 'rehearsal', rehearsal: view });
    const entries = readJournal(dir);
    expect(entries).toHaveLength(1);
    const { markdown, fileName } = journalReport('Staging Twin', undefined, entries, Date.UTC(2026, 0, 2, 4, 0, 0));
    expect(fileName).toMatch(/^rehearsal-staging-twin\.md$/);
    expect(markdown).toContain('## 2026-01-02 03:04:05 UTC: stop rack rack|b');
    expect(markdown).toContain('Broker 2 power lost, each once the controller had fenced the one before. Took 42.0 s of cluster time (1.5 s wall).');
    expect(markdown).toContain('**3 of 4 disagree.**');
    const table = markdown.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Partition') && !l.startsWith('| ---'));
    expect(table.map((l) => l.split(' | ')[0])).toEqual(['| orders-1', '| audit-0', '| gone-0', '| orders-0']);
    expect(table[1]).toBe('| audit-0 | 2, 3 | none | 3 | 2 | 3 | unclean-only | unclean-elected | no: leader 3 where -1 was predicted; ISR 3 where 2 was predicted; unclean-elected where unclean-only was predicted |');
  });

  it('sets each group coordinator the prediction names beside the one the cluster names, disagreements first, and reports them', () => {
    const moved = (groupId: string, partition: number, before: number, after: number) => ({ groupId, partition, before, after, moves: before !== after });
    const coordinators = compareCoordinators(
      [moved('billing', 4, 2, 3), moved('audit', 7, 2, 1), moved('orphans', 9, 2, -1), moved('stays', 1, 1, 1)],
      // audit's coordinator went to 2's other follower; orphans' partition has no leader: FindCoordinator names none.
      new Map([['billing', 3], ['audit', 3], ['orphans', -1], ['stays', 1]]),
    );
    expect(coordinators.map((c) => [c.groupId, c.predicted, c.observed, c.agrees, c.difference])).toEqual([
      ['audit', 1, 3, false, 'coordinator broker 3 where broker 1 was predicted'],
      ['billing', 3, 3, true, ''],
      ['orphans', -1, -1, true, ''],
      ['stays', 1, 1, true, ''],
    ]);
    // A group the cluster no longer names a coordinator for, where one was predicted.
    expect(compareCoordinators([moved('late', 2, 1, 3)], new Map())[0]).toMatchObject({ observed: -1, agrees: false, difference: 'coordinator none where broker 3 was predicted' });

    const rehearsalDir = mkdtempSync(join(dir, 'groups-'));
    const none = { offline: 0, 'unclean-only': 0, 'unclean-elected': 0, 'under-min-isr': 0, available: 0 };
    const view: StopRehearsalView = { kind: 'stop', fault: 'kill', brokers: [2], racks: [], stopped: [2], alreadyDown: [], startedAtMs: 0, wallMs: 1, clusterMs: 1, compared: 0, agreed: 0, predictedCounts: none, observedCounts: none, partitions: [], coordinators };
    appendJournal(rehearsalDir, { kind: 'rehearsal', rehearsal: view });
    const { markdown } = journalReport('groups', undefined, readJournal(rehearsalDir), 0);
    expect(markdown).toContain('**1 of 4 groups have their coordinator elsewhere than predicted.**');
    expect(markdown).toContain('| audit | 7 | 1 | 3 | no: coordinator broker 3 where broker 1 was predicted |');
    expect(markdown).toContain('| orphans | 9 | none | none | yes |');
  });

  it("lists a twin's making with its changes, a pipe in a value escaped so the row keeps its cells", () => {
    const twinDir = mkdtempSync(join(dir, 'twin-'));
    const origin = { sourceId: 'c-1', sourceName: 'production', sourceClusterId: 'abc', createdAtMs: Date.UTC(2026, 0, 1), refreshedAtMs: Date.UTC(2026, 0, 1) };
    appendJournal(twinDir, twinEntry('created', { connection: {} as never, origin, changes: [{ kind: 'acl-added', subject: 'TOPIC a|b LITERAL', twin: '', source: 'User:x ALLOW WRITE' }], notes: ['No record is copied.'], recordsWritten: 7, dryRun: false }));
    const { markdown } = journalReport('production twin', origin, readJournal(twinDir), Date.UTC(2026, 0, 2));
    expect(markdown).toContain('A twin of **production** (cluster `abc`), made by Replica Studio.');
    expect(markdown).toContain('## 2026-01-01 00:00:00 UTC: made from production');
    expect(markdown).toContain('1 thing copied, 1 applied; 7 synthetic records written.');
    expect(markdown).toContain('| acl-added | TOPIC a\\|b LITERAL |  | User:x ALLOW WRITE |  |');
    expect(markdown).toContain('- No record is copied.');
  });
});
