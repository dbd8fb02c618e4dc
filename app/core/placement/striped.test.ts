import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Random } from '../random.js';
import { placeStriped, type StripedBroker } from './striped.js';
import { kafkaErrorOf } from '../test-support/kafka-error.js';
import { seededRandom } from '../random.js';

const seeded = seededRandom;

/** Every draw is 0: all offsets start at the first broker and rack. */
const zeros: Random = { nextInt: () => 0, nextFloat: () => 0 };

const broker = (id: number, rack: string | null = null, fenced = false): StripedBroker => ({ id, rack, fenced });

const errorOf = kafkaErrorOf;

function count<T>(values: T[]): Map<T, number> {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

describe('StripedReplicaPlacer', () => {
  it('gives a single-rack cluster consecutive brokers from a rotating start', () => {
    const brokers = [1, 2, 3, 4, 5].map((id) => broker(id));
    expect(placeStriped(brokers, 5, 3, zeros)).toEqual([[1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 1], [5, 1, 2]]);
  });

  it('stripes racks A,B,C / B,C,A / C,A,B as in the Kafka Javadoc', () => {
    const brokers = [
      broker(0, 'A'), broker(1, 'A'), broker(2, 'A'),
      broker(3, 'B'), broker(4, 'B'), broker(5, 'B'),
      broker(6, 'C'), broker(7, 'C'), broker(8, 'C'),
    ];
    // A0,B0,C0 / B1,C1,A1 / C2,A2,B2
    expect(placeStriped(brokers, 3, 3, zeros)).toEqual([[0, 3, 6], [4, 7, 1], [8, 2, 5]]);
  });

  it('in a single rack, each broker leads ⌊P/n⌋ or ⌈P/n⌉ partitions and rounds use consecutive brokers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 40 }), fc.nat(), (n, partitions, seed) => {
        const brokers = Array.from({ length: n }, (_, id) => broker(id));
        const rf = Math.min(3, n);
        const result = placeStriped(brokers, partitions, rf, seeded(seed));
        const leaders = count(result.map((r) => r[0]));
        for (let id = 0; id < n; id++) {
          expect(leaders.get(id) ?? 0).toBeGreaterThanOrEqual(Math.floor(partitions / n));
          expect(leaders.get(id) ?? 0).toBeLessThanOrEqual(Math.ceil(partitions / n));
        }
        for (const replicas of result) expect(new Set(replicas).size).toBe(rf);
      }),
      { numRuns: 300 },
    );
  });

  it('with 3 racks × 2 brokers and RF 3: every partition spans 3 racks, leaders are even per rack and per broker', () => {
    const brokers = [broker(0, 'a'), broker(1, 'a'), broker(2, 'b'), broker(3, 'b'), broker(4, 'c'), broker(5, 'c')];
    const rackOf = (id: number): string | null => brokers.find((b) => b.id === id)?.rack ?? null;
    fc.assert(
      fc.property(fc.nat(), fc.integer({ min: 1, max: 30 }), (seed, partitions) => {
        const result = placeStriped(brokers, partitions, 3, seeded(seed));
        for (const replicas of result) expect(new Set(replicas.map(rackOf)).size).toBe(3);
        const perRack = count(result.map((r) => rackOf(r[0] as number)));
        for (const rack of ['a', 'b', 'c']) {
          expect(perRack.get(rack) ?? 0).toBeGreaterThanOrEqual(Math.floor(partitions / 3));
          expect(perRack.get(rack) ?? 0).toBeLessThanOrEqual(Math.ceil(partitions / 3));
        }
        const perBroker = count(result.map((r) => r[0]));
        for (const b of brokers) {
          expect(perBroker.get(b.id) ?? 0).toBeGreaterThanOrEqual(Math.floor(partitions / 6));
          expect(perBroker.get(b.id) ?? 0).toBeLessThanOrEqual(Math.ceil(partitions / 6));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('favours rack spread over broker balance: a lone broker in a third rack joins every RF=3 partition', () => {
    const brokers = [
      ...[0, 1, 2, 3, 4].map((id) => broker(id, 'a')),
      ...[5, 6, 7, 8, 9].map((id) => broker(id, 'b')),
      broker(10, 'c'),
    ];
    for (const replicas of placeStriped(brokers, 30, 3, seeded(7))) expect(replicas).toContain(10);
  });

  it('never leads with a fenced broker and, within a rack, uses fenced brokers only after unfenced ones', () => {
    // Rack a has one unfenced and one fenced broker; rack b only fenced ones.
    const brokers = [broker(1, 'a'), broker(2, 'a', true), broker(3, 'b', true), broker(4, 'b', true)];
    for (const replicas of placeStriped(brokers, 20, 2, seeded(3))) {
      expect(replicas[0]).toBe(1);
      expect(replicas[1] === 3 || replicas[1] === 4).toBe(true);
    }
    const single = [broker(1), broker(2, null, true), broker(3), broker(4, null, true), broker(5)];
    for (const replicas of placeStriped(single, 20, 3, seeded(5))) expect([...replicas].sort((a, b) => a - b)).toEqual([1, 3, 5]);
  });

  it('keeps its invariants on any cluster shape, fencing and seed', () => {
    const brokerArb = fc.record({ rack: fc.constantFrom(null, 'x', 'y', 'z'), fenced: fc.boolean() });
    fc.assert(
      fc.property(
        fc.array(brokerArb, { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 25 }),
        fc.nat(),
        (shape, rf, partitions, seed) => {
          const brokers = shape.map((b, id) => broker(id, b.rack, b.fenced));
          fc.pre(rf <= brokers.length && brokers.some((b) => !b.fenced));
          const fenced = new Set(brokers.filter((b) => b.fenced).map((b) => b.id));
          const result = placeStriped(brokers, partitions, rf, seeded(seed));
          expect(result).toHaveLength(partitions);
          for (const replicas of result) {
            expect(new Set(replicas).size).toBe(rf);
            expect(fenced.has(replicas[0] as number)).toBe(false);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('gives the same placement for the same seed, whatever order the brokers come in', () => {
    const brokers = [broker(0, 'a'), broker(1, 'b'), broker(2, 'a', true), broker(3, 'c'), broker(4, null), broker(5, 'b')];
    const again = [...brokers].reverse();
    expect(placeStriped(brokers, 25, 3, seeded(11))).toEqual(placeStriped(again, 25, 3, seeded(11)));
  });

  it('refuses with the placer\'s own messages', () => {
    const three = [broker(0), broker(1), broker(2)];
    expect(errorOf(() => placeStriped(three, 1, 0, zeros))).toMatchObject({
      code: 'INVALID_REPLICATION_FACTOR',
      message: 'Invalid replication factor 0: the replication factor must be positive.',
    });
    expect(errorOf(() => placeStriped(three, 1, 4, zeros))).toMatchObject({
      code: 'INVALID_REPLICATION_FACTOR',
      message: 'The target replication factor of 4 cannot be reached because only 3 broker(s) are registered.',
    });
    const allFenced = three.map((b) => ({ ...b, fenced: true }));
    expect(errorOf(() => placeStriped(allFenced, 1, 4, zeros))).toMatchObject({
      code: 'INVALID_REPLICATION_FACTOR',
      message: 'All brokers are currently fenced.',
    });
  });
});
