import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PartitionState } from '../metadata/records.js';
import { LeadersByReplica } from './leaders-by-replica.js';

const SELF = 1;
const BROKERS = [1, 2, 3, 4, 5];

/**
 * What a recheck of `ids` must visit, by the walk the index replaces: every replica hosted here
 * (a Map in insertion order, as ReplicaManager.partitions) whose state names this broker leader
 * and one of `ids` a replica.
 */
function walk(hosted: Map<string, PartitionState>, ids: readonly number[]): string[] {
  const out: string[] = [];
  for (const [k, s] of hosted) if (s.leader === SELF && s.replicas.some((r) => ids.includes(r))) out.push(k);
  return out;
}

function state(key: string, replicas: number[], leaderAt: number): PartitionState {
  const [topicId, partition] = key.split(':') as [string, string];
  const leader = leaderAt >= 0 && leaderAt < replicas.length ? replicas[leaderAt]! : -1;
  return { topicId, partition: Number(partition), replicas, isr: [...replicas], leader, leaderEpoch: 0, partitionEpoch: 0, addingReplicas: [], removingReplicas: [], leaderRecoveryState: 'RECOVERED' };
}

/** One step of a replica map's life: a replica reconciled to a state, removed, or every replica dropped (a restart). */
const stepArb = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      key: fc.constantFrom('a:0', 'a:1', 'a:2', 'b:0', 'b:1', 'c:0'),
      replicas: fc.shuffledSubarray(BROKERS, { minLength: 1, maxLength: 3 }),
      leaderAt: fc.integer({ min: -1, max: 2 }),
      mine: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), key: fc.constantFrom('a:0', 'a:1', 'a:2', 'b:0', 'b:1', 'c:0') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const) }) },
);

describe('LeadersByReplica', () => {
  it('equals a walk of the hosted replicas, in their order, for any set of brokers after random histories', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 60 }), fc.array(fc.subarray(BROKERS), { minLength: 1, maxLength: 6 }), (steps, queries) => {
        const index = new LeadersByReplica(SELF);
        const hosted = new Map<string, PartitionState>();
        for (const step of steps) {
          if (step.kind === 'update') {
            // A replica reconciled here names this broker (most of the time as leader, to exercise moves).
            const replicas = step.mine && !step.replicas.includes(SELF) ? [SELF, ...step.replicas.slice(0, 2)] : step.replicas;
            const s = state(step.key, replicas, step.mine ? replicas.indexOf(SELF) : step.leaderAt);
            hosted.set(step.key, s);
            index.update(step.key, s);
          } else if (step.kind === 'remove') {
            hosted.delete(step.key);
            index.remove(step.key);
          } else {
            hosted.clear();
            index.clear();
          }
        }
        for (const ids of queries) expect(index.of(ids)).toEqual(walk(hosted, ids));
        for (const id of BROKERS) expect(index.sizeOf(id)).toBe(walk(hosted, [id]).length);
      }),
      { numRuns: 400 },
    );
  });

  it('a replica removed and hosted again comes after the ones hosted meanwhile, as in the replica map', () => {
    const index = new LeadersByReplica(SELF);
    index.update('a:0', state('a:0', [1, 2], 0));
    index.update('a:1', state('a:1', [1, 3], 0));
    index.remove('a:0');
    index.update('a:2', state('a:2', [1, 2], 0));
    index.update('a:0', state('a:0', [1, 2, 3], 0));
    expect(index.of([2, 3])).toEqual(['a:1', 'a:2', 'a:0']);
    // Leadership moves away: the partition is no longer rechecked here.
    index.update('a:1', state('a:1', [1, 3], 1));
    expect(index.of([3])).toEqual(['a:0']);
    expect(index.of([9])).toEqual([]);
  });
});
