/**
 * A topic's partitions in a metadata image, by partition number. A topic's partitions are
 * numbered 0..n-1 and only ever added at the end (CreatePartitions) or dropped with the topic, so
 * an array indexed by partition holds them in a pointer each, where a `Map` entry costs about
 * four (key, value, chain link and its share of the hash buckets). Every broker and the
 * controller keep an image of every partition, so this is paid (brokers + 1) times per partition.
 *
 * It is a `Map` to its readers: iteration runs in partition order, which is the order a topic's
 * partitions are first set in (creation, then CreatePartitions), as a `Map` would iterate them.
 */
export class PartitionTable<V> implements Map<number, V> {
  private readonly slots: (V | undefined)[] = [];
  private count = 0;

  constructor(entries?: Iterable<readonly [number, V]> | null) {
    if (entries) for (const [k, v] of entries) this.set(k, v);
  }

  get size(): number {
    return this.count;
  }

  get [Symbol.toStringTag](): string {
    return 'PartitionTable';
  }

  get(partition: number): V | undefined {
    return this.slots[partition];
  }

  has(partition: number): boolean {
    return this.slots[partition] !== undefined;
  }

  set(partition: number, value: V): this {
    if (!Number.isInteger(partition) || partition < 0) throw new RangeError(`not a partition number: ${partition}`);
    if (value === undefined) throw new TypeError('a partition table holds no undefined values');
    if (this.slots[partition] === undefined) this.count++;
    // Filling the gap keeps the array packed (holes would turn it into a dictionary).
    while (this.slots.length < partition) this.slots.push(undefined);
    this.slots[partition] = value;
    return this;
  }

  delete(partition: number): boolean {
    if (this.slots[partition] === undefined) return false;
    this.slots[partition] = undefined;
    this.count--;
    while (this.slots.length > 0 && this.slots[this.slots.length - 1] === undefined) this.slots.pop();
    return true;
  }

  clear(): void {
    this.slots.length = 0;
    this.count = 0;
  }

  forEach(fn: (value: V, key: number, map: Map<number, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
  }

  *entries(): MapIterator<[number, V]> {
    for (let i = 0; i < this.slots.length; i++) {
      const v = this.slots[i];
      if (v !== undefined) yield [i, v];
    }
  }

  *keys(): MapIterator<number> {
    for (let i = 0; i < this.slots.length; i++) if (this.slots[i] !== undefined) yield i;
  }

  *values(): MapIterator<V> {
    for (let i = 0; i < this.slots.length; i++) {
      const v = this.slots[i];
      if (v !== undefined) yield v;
    }
  }

  [Symbol.iterator](): MapIterator<[number, V]> {
    return this.entries();
  }
}
