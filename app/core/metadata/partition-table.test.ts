import { describe, expect, it } from 'vitest';
import { seededRandom } from '../random.js';
import { PartitionTable } from './partition-table.js';

describe('PartitionTable', () => {
  it('answers as a Map of the same partitions does, through creation, growth, replacement and deletion', () => {
    const random = seededRandom(35);
    const table = new PartitionTable<string>();
    const map = new Map<number, string>();
    // A topic created with 8 partitions, grown to 12, its states replaced in any order.
    for (let p = 0; p < 12; p++) {
      const state = p < 8 ? `a${p}` : `b${p}`;
      table.set(p, state);
      map.set(p, state);
    }
    for (let i = 0; i < 200; i++) {
      const p = random.nextInt(12);
      table.set(p, `c${i}`);
      map.set(p, `c${i}`);
      expect(table.get(p)).toBe(map.get(p));
    }
    expect(table.size).toBe(map.size);
    expect([...table]).toEqual([...map]);
    expect([...table.keys()]).toEqual([...map.keys()]);
    expect([...table.values()]).toEqual([...map.values()]);
    const seen: [number, string][] = [];
    table.forEach((v, k) => seen.push([k, v]));
    expect(seen).toEqual([...map.entries()]);
    expect(new Map(table)).toEqual(map);
    expect(table.has(12)).toBe(false);
    expect(table.get(12)).toBeUndefined();
    expect(table.delete(11)).toBe(map.delete(11));
    expect(table.delete(11)).toBe(false);
    expect(table.size).toBe(11);
    expect([...table]).toEqual([...map]);
    table.clear();
    expect(table.size).toBe(0);
    expect([...table]).toEqual([]);
  });

  it('refuses what is not a partition number', () => {
    const table = new PartitionTable<string>();
    expect(() => table.set(-1, 'x')).toThrow(RangeError);
    expect(() => table.set(1.5, 'x')).toThrow(RangeError);
    expect(table.size).toBe(0);
  });

  it('holds a partition set out of order once, its gap empty', () => {
    const table = new PartitionTable<string>([[3, 'd']]);
    expect(table.size).toBe(1);
    expect(table.has(0)).toBe(false);
    expect([...table]).toEqual([[3, 'd']]);
  });
});
