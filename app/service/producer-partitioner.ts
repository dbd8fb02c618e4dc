/**
 * Where the in-app producer sends each record when the request names no partition — as the Java
 * producer's built-in partitioner does (Kafka 3.3+, KIP-794; the key rule is the
 * DefaultPartitioner's since 0.8):
 *
 * - a record with a key goes to `toPositive(murmur2(key)) % numPartitions`, each record by its
 *   own key, so one key always lands on one partition while the count stays the same;
 * - records without a key "stick" to one partition, picked at random among the partitions that
 *   have a leader, until `batch.size` bytes (16384 by default) have gone to it; then another is
 *   picked. Null-key records of one request therefore go out as one batch, as they would from a
 *   Java producer that filled one batch.
 *
 * Invariant: `assign` returns one partition per record, in the records' order, each within
 * [0, partitionCount). Records for one partition keep their relative order when grouped.
 */
import type { LogRecord } from '../core/log/records.js';
import { partitionForKey } from '../core/partitioner.js';
import type { Random } from '../core/random.js';

/** The Java producer's default `batch.size`. */
export const DEFAULT_BATCH_SIZE = 16_384;

/** A partition as the partitioner sees it: its number and whether it has a leader to send to. */
export interface PartitionAvailability {
  partition: number;
  hasLeader: boolean;
}

/** Roughly the bytes a record adds to a batch (key, value and headers; the framing is ignored). */
function recordBytes(r: LogRecord): number {
  let n = (r.key?.length ?? 0) + (r.value?.length ?? 0);
  for (const h of r.headers) n += h.key.length + (h.value?.length ?? 0);
  return n;
}

export class ProducerPartitioner {
  /** Per topic: the sticky partition for null-key records and the bytes already sent to it. */
  private readonly sticky = new Map<string, { partition: number; bytes: number }>();

  constructor(
    private readonly random: Random,
    private readonly batchSize = DEFAULT_BATCH_SIZE,
  ) {}

  /** The partition of each record, in order. `partitions` lists every partition of the topic. */
  assign(topic: string, partitions: readonly PartitionAvailability[], records: readonly LogRecord[]): number[] {
    const count = partitions.length;
    return records.map((r) => {
      if (r.key) return partitionForKey(r.key, count);
      let s = this.sticky.get(topic);
      if (!s || s.partition >= count) {
        s = { partition: this.pick(partitions), bytes: 0 };
        this.sticky.set(topic, s);
      }
      const partition = s.partition;
      s.bytes += recordBytes(r);
      // Kafka switches once the sticky partition has received batch.size bytes.
      if (s.bytes >= this.batchSize) this.sticky.delete(topic);
      return partition;
    });
  }

  /** A random partition among those with a leader; among all when none has one (the send then fails there). */
  private pick(partitions: readonly PartitionAvailability[]): number {
    const available = partitions.filter((p) => p.hasLeader);
    const from = available.length > 0 ? available : partitions;
    return from[this.random.nextInt(from.length)]!.partition;
  }
}
