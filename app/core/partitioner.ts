/**
 * Kafka's default partitioner for keyed records: murmur2 (the Java client's variant, seed
 * 0x9747b28c) of the key bytes, made positive, modulo the partition count. Records without a key
 * go round-robin here (the Java client's sticky partitioner batches them instead; for single
 * records the spread is the same).
 */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  const seed = 0x9747b28c;
  const m = 0x5bd1e995;
  const r = 24;
  let h = (seed ^ length) | 0;
  const length4 = length >> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = (data[i4]! & 0xff) | ((data[i4 + 1]! & 0xff) << 8) | ((data[i4 + 2]! & 0xff) << 16) | ((data[i4 + 3]! & 0xff) << 24);
    k = Math.imul(k, m);
    k ^= k >>> r;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const rest = length & 3;
  const base = length & ~3;
  if (rest === 3) h ^= (data[base + 2]! & 0xff) << 16;
  if (rest >= 2) h ^= (data[base + 1]! & 0xff) << 8;
  if (rest >= 1) {
    h ^= data[base]! & 0xff;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** Partition for a keyed record: `toPositive(murmur2(key)) % numPartitions`, as Kafka computes it. */
export function partitionForKey(key: Uint8Array, numPartitions: number): number {
  return (murmur2(key) & 0x7fffffff) % numPartitions;
}
