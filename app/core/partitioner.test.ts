import { describe, expect, it } from 'vitest';
import { murmur2, partitionForKey } from './partitioner.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('Kafka default partitioner', () => {
  it('matches the murmur2 values of the Java client (UtilsTest.testMurmur2)', () => {
    // Expected values from apache/kafka clients UtilsTest: the Java client's murmur2 of these strings.
    expect(murmur2(bytes('21'))).toBe(-973932308);
    expect(murmur2(bytes('foobar'))).toBe(-790332482);
    expect(murmur2(bytes('a-little-bit-long-string'))).toBe(-985981536);
    expect(murmur2(bytes('a-little-bit-longer-string'))).toBe(-1486304829);
    expect(murmur2(bytes('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'))).toBe(-58897971);
    expect(murmur2(new Uint8Array(['a'.charCodeAt(0), 'b'.charCodeAt(0), 'c'.charCodeAt(0)]))).toBe(479470107);
  });
  it('maps a key to the same partition every time, inside the range', () => {
    for (const k of ['a', 'order-17', 'user:42']) {
      const p = partitionForKey(bytes(k), 6);
      expect(p).toBeGreaterThanOrEqual(0);
      expect(p).toBeLessThan(6);
      expect(partitionForKey(bytes(k), 6)).toBe(p);
    }
  });
});
