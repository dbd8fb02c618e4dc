import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Random } from '../random.js';
import { assignReplicasToBrokers, rackAlternatedBrokerList, type ClassicBroker } from './classic.js';
import { kafkaErrorOf } from '../test-support/kafka-error.js';
import { seededRandom } from '../random.js';

const seeded = seededRandom;

/** A Random that returns the given ints in order, and fails the test if asked for more. */
function scripted(...ints: number[]): Random {
  return {
    nextInt: () => {
      const value = ints.shift();
      if (value === undefined) throw new Error('unexpected draw');
      return value;
    },
    nextFloat: () => {
      throw new Error('unexpected draw');
    },
  };
}

const noRandom = scripted();
const plain = (...ids: number[]): ClassicBroker[] => ids.map((id) => ({ id, rack: null }));
const racked = (map: Record<number, string>): ClassicBroker[] =>
  Object.entries(map).map(([id, rack]) => ({ id: Number(id), rack }));
const rackMap = { 0: 'r1', 1: 'r3', 2: 'r3', 3: 'r2', 4: 'r2', 5: 'r1' };

const errorOf = kafkaErrorOf;

describe('classic assignment (AdminUtils.assignReplicasToBrokers)', () => {
  it('scenario 19: classic assignment algorithm is exact', () => {
    const unaware = assignReplicasToBrokers(plain(0, 1, 2, 3, 4), 10, 3, noRandom, { fixedStartIndex: 0 });
    expect(unaware).toEqual([
      [0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 0], [4, 0, 1],
      [0, 2, 3], [1, 3, 4], [2, 4, 0], [3, 0, 1], [4, 1, 2],
    ]);
    const aware = assignReplicasToBrokers(racked(rackMap), 7, 3, noRandom, { fixedStartIndex: 0 });
    expect(aware).toEqual([[0, 3, 1], [3, 1, 5], [1, 5, 4], [5, 4, 2], [4, 2, 0], [2, 0, 3], [0, 4, 2]]);
  });

  it('builds the rack-alternated broker list of the Kafka Javadoc', () => {
    const map = new Map(Object.entries(rackMap).map(([id, rack]) => [Number(id), rack]));
    expect(rackAlternatedBrokerList(map)).toEqual([0, 3, 1, 5, 4, 2]);
    const three = new Map([[0, 'rack1'], [1, 'rack1'], [2, 'rack1'], [3, 'rack2'], [4, 'rack2'], [5, 'rack2'], [6, 'rack3'], [7, 'rack3'], [8, 'rack3']]);
    expect(rackAlternatedBrokerList(three)).toEqual([0, 3, 6, 1, 4, 7, 2, 5, 8]);
  });

  it('draws the start index, then the shift, from the random source', () => {
    // Start index 2 and shift 2 drawn at random match a fixed start index of 2.
    const drawn = assignReplicasToBrokers(plain(0, 1, 2, 3, 4), 10, 3, scripted(2, 2));
    expect(drawn).toEqual(assignReplicasToBrokers(plain(0, 1, 2, 3, 4), 10, 3, noRandom, { fixedStartIndex: 2 }));
    // Start 1, shift 3: first replicas start at broker 1, followers begin 1 + 3 places later.
    expect(assignReplicasToBrokers(plain(0, 1, 2, 3, 4), 1, 3, scripted(1, 3))).toEqual([[1, 0, 2]]);
  });

  it('continues the pattern from startPartitionId, as adding partitions does', () => {
    const all = assignReplicasToBrokers(plain(0, 1, 2, 3, 4), 12, 3, noRandom, { fixedStartIndex: 0 });
    const tail = assignReplicasToBrokers(plain(0, 1, 2, 3, 4), 7, 3, noRandom, { fixedStartIndex: 0, startPartitionId: 5 });
    expect(tail).toEqual(all.slice(5));
  });

  it('uses the broker list in the order given', () => {
    expect(assignReplicasToBrokers(plain(7, 3, 5), 3, 2, noRandom, { fixedStartIndex: 0 })).toEqual([[7, 3], [3, 5], [5, 7]]);
  });

  it('spreads each partition over min(#racks, RF) racks and balances leaders', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 30 }),
        fc.nat(),
        (racks, rf, partitions, seed) => {
          fc.pre(rf <= racks.length);
          const brokers = racks.map((rack, id) => ({ id, rack }));
          const rackOf = new Map(brokers.map((b) => [b.id, b.rack]));
          const numRacks = new Set(racks).size;
          const result = assignReplicasToBrokers(brokers, partitions, rf, seeded(seed));
          const leaders = new Map<number, number>();
          for (const replicas of result) {
            expect(new Set(replicas).size).toBe(rf);
            expect(new Set(replicas.map((id) => rackOf.get(id))).size).toBe(Math.min(numRacks, rf));
            const leader = replicas[0] as number;
            leaders.set(leader, (leaders.get(leader) ?? 0) + 1);
          }
          for (const id of rackOf.keys()) {
            const count = leaders.get(id) ?? 0;
            expect(count).toBeGreaterThanOrEqual(Math.floor(partitions / brokers.length));
            expect(count).toBeLessThanOrEqual(Math.ceil(partitions / brokers.length));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the same assignment for the same seed', () => {
    const brokers = racked(rackMap);
    expect(assignReplicasToBrokers(brokers, 20, 3, seeded(42))).toEqual(assignReplicasToBrokers(brokers, 20, 3, seeded(42)));
  });

  it('rejects bad counts with Kafka\'s AdminUtils messages', () => {
    const brokers = plain(0, 1, 2);
    expect(errorOf(() => assignReplicasToBrokers(brokers, 0, 1, noRandom))).toMatchObject({
      code: 'INVALID_PARTITIONS',
      message: 'Number of partitions must be larger than 0.',
    });
    expect(errorOf(() => assignReplicasToBrokers(brokers, 1, 0, noRandom))).toMatchObject({
      code: 'INVALID_REPLICATION_FACTOR',
      message: 'Replication factor must be larger than 0.',
    });
    expect(errorOf(() => assignReplicasToBrokers(brokers, 1, 4, noRandom))).toMatchObject({
      code: 'INVALID_REPLICATION_FACTOR',
      message: 'Replication factor: 4 larger than available brokers: 3.',
    });
  });

  it('refuses partial rack information unless rack awareness is disabled', () => {
    const mixed: ClassicBroker[] = [{ id: 0, rack: 'r1' }, { id: 1, rack: null }, { id: 2, rack: 'r2' }];
    expect(errorOf(() => assignReplicasToBrokers(mixed, 3, 2, noRandom, { fixedStartIndex: 0 }))).toMatchObject({
      code: 'INVALID_REPLICA_ASSIGNMENT',
      message: 'Not all brokers have rack information for replica rack aware assignment.',
    });
    const disabled = assignReplicasToBrokers(mixed, 3, 2, noRandom, { fixedStartIndex: 0, disableRackAware: true });
    expect(disabled).toEqual(assignReplicasToBrokers(plain(0, 1, 2), 3, 2, noRandom, { fixedStartIndex: 0 }));
  });
});
