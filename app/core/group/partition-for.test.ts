import { describe, expect, it } from 'vitest';
import { javaStringHashCode, kafkaAbs, offsetsPartitionFor } from './partition-for.js';

describe('the offsets partition of a group', () => {
  it("hashes group ids as Java's String.hashCode does (wrapping 32-bit, UTF-16 code units)", () => {
    expect(javaStringHashCode('')).toBe(0);
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('my-group')).toBe(-1906497762);
    expect(javaStringHashCode('grüße')).toBe(98768023);
  });

  it('maps a hash of Integer.MIN_VALUE to partition 0, as Kafka\'s Utils.abs does', () => {
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648);
    expect(kafkaAbs(-2147483648)).toBe(0);
    expect(offsetsPartitionFor('polygenelubricants', 50)).toBe(0);
  });

  it('puts a group on the partition a real cluster with 50 offsets partitions would', () => {
    expect(offsetsPartitionFor('my-group', 50)).toBe(12);
    expect(offsetsPartitionFor('console-consumer-59563', 50)).toBe(9);
    expect(offsetsPartitionFor('orders-service', 50)).toBe(17);
    expect(offsetsPartitionFor('orders-service', 1)).toBe(0);
  });
});
