import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Random } from '../random.js';
import { placeReplicas, type PlacementBroker, type PlacementStrategy } from './index.js';
import { kafkaErrorOf } from '../test-support/kafka-error.js';
import { seededRandom } from '../random.js';

const seeded = seededRandom;

function broker(id: number, opts: Partial<Omit<PlacementBroker, 'id'>> = {}): PlacementBroker {
  return { id, rack: null, fenced: false, inControlledShutdown: false, ...opts };
}

const strategies: PlacementStrategy[] = ['classic', 'striped'];

const errorOf = kafkaErrorOf;

describe('placeReplicas', () => {
  it('scenario 20: placement invariants hold for any placer and random seeds', () => {
    const five = [1, 2, 3, 4, 5].map((id) => broker(id));
    const racked = [1, 2, 3, 4, 5, 6].map((id) => broker(id, { rack: `r${Math.ceil(id / 2)}` }));
    const rackOf = new Map(racked.map((b) => [b.id, b.rack]));
    // One and two fenced brokers leave enough unfenced ones for RF 3; three fenced do not.
    const fencings = [[2], [1, 4], [1, 3, 5]].map((ids) => five.map((b) => ({ ...b, fenced: ids.includes(b.id) })));
    const shuttingDown = [...five, broker(6, { inControlledShutdown: true }), broker(7, { inControlledShutdown: true, fenced: true })];

    fc.assert(
      fc.property(fc.constantFrom(...strategies), fc.nat(), (strategy, seed) => {
        const random = seeded(seed);
        const place = (brokers: PlacementBroker[]): number[][] =>
          placeReplicas({ brokers, numPartitions: 10, replicationFactor: 3, strategy, random });
        // Plain checks collected as sentences: 40 000 partitions per run are too many for expect().
        const violations: string[] = [];
        const check = (ok: boolean, what: string, replicas: number[] | string): void => {
          if (!ok) violations.push(`${what}: ${String(replicas)}`);
        };
        for (let topic = 0; topic < 100; topic++) {
          const assignment = place(five);
          check(assignment.length === 10, 'ten partitions', String(assignment.length));
          const leaders = new Map<number, number>();
          for (const replicas of assignment) {
            check(replicas.length === 3 && new Set(replicas).size === 3, 'three distinct replicas', replicas);
            const leader = replicas[0] as number;
            leaders.set(leader, (leaders.get(leader) ?? 0) + 1);
          }
          for (const b of five) check(leaders.get(b.id) === 2, `broker ${b.id} leads exactly 2`, String(leaders.get(b.id)));

          for (const replicas of place(racked)) {
            check(new Set(replicas.map((id) => rackOf.get(id))).size === 3, 'spans 3 racks', replicas);
          }

          for (const brokers of fencings) {
            const fenced = new Set(brokers.filter((b) => b.fenced).map((b) => b.id));
            for (const replicas of place(brokers)) {
              check(new Set(replicas).size === 3, 'three distinct replicas', replicas);
              check(!fenced.has(replicas[0] as number), 'unfenced first replica', replicas);
            }
          }

          for (const replicas of place(shuttingDown)) {
            check(!replicas.includes(6) && !replicas.includes(7), 'nothing on shutting-down brokers', replicas);
          }
        }
        expect(violations).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it('uses no fenced broker while there are enough unfenced ones (single rack)', () => {
    for (const strategy of strategies) {
      const brokers = [1, 2, 3, 4, 5].map((id) => broker(id, { fenced: id === 2 || id === 4 }));
      const assignment = placeReplicas({ brokers, numPartitions: 12, replicationFactor: 3, strategy, random: seeded(1) });
      for (const replicas of assignment) expect([...replicas].sort((a, b) => a - b)).toEqual([1, 3, 5]);
    }
  });

  it('classic: with too few unfenced brokers, every list still leads with an unfenced one', () => {
    const brokers = [1, 2, 3, 4, 5].map((id) => broker(id, { fenced: id !== 3 }));
    const assignment = placeReplicas({ brokers, numPartitions: 10, replicationFactor: 3, strategy: 'classic', random: seeded(9) });
    for (const replicas of assignment) {
      expect(replicas[0]).toBe(3);
      expect(new Set(replicas).size).toBe(3);
    }
  });

  it('classic: runs over the unfenced brokers sorted by id, continuing from startPartitionId', () => {
    const brokers = [5, 1, 4, 2, 3, 9].map((id) => broker(id, { fenced: id === 9 }));
    // A scripted start index and shift of 0 give scenario 19's table over brokers [1..5].
    const zeros: Random = { nextInt: () => 0, nextFloat: () => 0 };
    const assignment = placeReplicas({ brokers, numPartitions: 5, replicationFactor: 3, startPartitionId: 5, strategy: 'classic', random: zeros });
    expect(assignment).toEqual([[1, 3, 4], [2, 4, 5], [3, 5, 1], [4, 1, 2], [5, 2, 3]]);
  });

  it('gives the same assignment for the same seed', () => {
    const brokers = [1, 2, 3, 4, 5, 6].map((id) => broker(id, { rack: `r${id % 3}`, fenced: id === 4 }));
    for (const strategy of strategies) {
      const run = (): number[][] => placeReplicas({ brokers, numPartitions: 30, replicationFactor: 3, strategy, random: seeded(2024) });
      expect(run()).toEqual(run());
    }
  });

  it('rejects a non-positive replication factor or partition count with the controller\'s messages', () => {
    const brokers = [1, 2, 3].map((id) => broker(id));
    for (const strategy of strategies) {
      expect(errorOf(() => placeReplicas({ brokers, numPartitions: 1, replicationFactor: 0, strategy, random: seeded(1) }))).toMatchObject({
        code: 'INVALID_REPLICATION_FACTOR',
        message: 'Replication factor must be larger than 0, or -1 to use the default value.',
      });
      expect(errorOf(() => placeReplicas({ brokers, numPartitions: 0, replicationFactor: 1, strategy, random: seeded(1) }))).toMatchObject({
        code: 'INVALID_PARTITIONS',
        message: 'Number of partitions was set to an invalid non-positive value.',
      });
    }
  });

  it('counts fenced brokers but not shutting-down ones against the replication factor', () => {
    const brokers = [broker(1), broker(2, { fenced: true }), broker(3, { inControlledShutdown: true })];
    for (const strategy of strategies) {
      expect(errorOf(() => placeReplicas({ brokers, numPartitions: 1, replicationFactor: 3, strategy, random: seeded(1) }))).toMatchObject({
        code: 'INVALID_REPLICATION_FACTOR',
        message:
          'Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached ' +
          'because only 2 broker(s) are registered.',
      });
      const ok = placeReplicas({ brokers, numPartitions: 4, replicationFactor: 2, strategy, random: seeded(1) });
      for (const replicas of ok) expect(replicas).toEqual([1, 2]);
    }
  });

  it('refuses when every usable broker is fenced', () => {
    const brokers = [broker(1, { fenced: true }), broker(2, { fenced: true }), broker(3, { inControlledShutdown: true })];
    for (const strategy of strategies) {
      expect(errorOf(() => placeReplicas({ brokers, numPartitions: 1, replicationFactor: 1, strategy, random: seeded(1) }))).toMatchObject({
        code: 'INVALID_REPLICATION_FACTOR',
        message: 'Unable to replicate the partition 1 time(s): All brokers are currently fenced.',
      });
    }
  });

  it('classic places rack-unaware when only some brokers have a rack (KRaft never refuses); striped puts rackless brokers in one rack', () => {
    const brokers = [broker(1, { rack: 'a' }), broker(2), broker(3, { rack: 'b' })];
    const classic = placeReplicas({ brokers, numPartitions: 3, replicationFactor: 2, strategy: 'classic', random: seeded(1) });
    expect(classic.map((r) => r[0]).sort()).toEqual([1, 2, 3]);
    for (const replicas of classic) expect(new Set(replicas).size).toBe(2);
    const striped = placeReplicas({ brokers, numPartitions: 3, replicationFactor: 3, strategy: 'striped', random: seeded(1) });
    for (const replicas of striped) expect([...replicas].sort((a, b) => a - b)).toEqual([1, 2, 3]);
  });
});
