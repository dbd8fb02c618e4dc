/**
 * The cleaner's key → last offset map (Kafka's OffsetMap / SkimpyOffsetMap), with Kafka's
 * capacity: `log.cleaner.dedupe.buffer.size / log.cleaner.threads` bytes per cleaner, each entry
 * costing 24 bytes (a 16-byte MD5 of the key and an 8-byte offset), filled up to
 * `log.cleaner.io.buffer.load.factor` of its slots. Kafka's map keeps only the key's hash (two
 * keys that collide count as one); this one keys by the bytes themselves, so it never confuses
 * two keys, but it holds exactly as many keys as Kafka's would, which is what decides how much of
 * the dirty log one cleaning covers.
 *
 * `latestOffset` is the last offset the map has seen (not only the last keyed one): records past
 * it were not looked at, so the cleaner keeps them.
 */

/** Bytes per entry of Kafka's SkimpyOffsetMap: an MD5 hash (16) and an offset (8). */
export const OFFSET_MAP_BYTES_PER_ENTRY = 24;

/** A key's bytes as a string (one UTF-16 unit per byte), the map's key. */
export function keyString(key: Uint8Array): string {
  let out = '';
  for (let i = 0; i < key.length; i += 4096) out += String.fromCharCode.apply(null, key.subarray(i, i + 4096) as unknown as number[]);
  return out;
}

export class OffsetMap {
  /** Entries the memory holds (Kafka's `slots`). */
  readonly slots: number;
  private readonly offsets = new Map<string, number>();
  private latest = -1;

  constructor(memoryBytes: number) {
    this.slots = Math.max(0, Math.floor(memoryBytes / OFFSET_MAP_BYTES_PER_ENTRY));
  }

  get size(): number {
    return this.offsets.size;
  }

  /** The last offset seen, -1 when none. */
  get latestOffset(): number {
    return this.latest;
  }

  put(key: Uint8Array, offset: number): void {
    this.offsets.set(keyString(key), offset);
    if (offset > this.latest) this.latest = offset;
  }

  /** The key's last offset, or -1 when the map does not hold the key. */
  get(key: Uint8Array): number {
    return this.offsets.get(keyString(key)) ?? -1;
  }

  updateLatestOffset(offset: number): void {
    if (offset > this.latest) this.latest = offset;
  }

  /** The share of the slots in use (Kafka's `utilization`, the max-buffer-utilization-percent metric). */
  get utilization(): number {
    return this.slots === 0 ? 1 : this.offsets.size / this.slots;
  }

  clear(): void {
    this.offsets.clear();
    this.latest = -1;
  }
}
