/*
 * Kafka's classic replica assignment, `AdminUtils.assignReplicasToBrokers` (apache/kafka:
 * server-common/src/main/java/org/apache/kafka/admin/AdminUtils.java): what [ZK] topic creation
 * and `kafka-reassign-partitions.sh --generate` (up to 4.0) use; docs/semantics.md#replica-placement, KIP-36.
 *
 * Invariants:
 * - first replicas go round-robin over the broker list from a start index, so each broker is the
 *   first replica of ⌊P/n⌋ or ⌈P/n⌉ partitions of a call;
 * - no broker appears twice in a partition;
 * - the followers are offset by a shift that grows by one after every full round of n partitions;
 * - rack-aware (every broker has a rack): the list is rack-alternated and a partition spans
 *   min(#racks, RF) racks.
 * The broker list is used in the order given (the [ZK] caller sorts it by id); the rack-aware
 * variant builds its own order from the sorted racks.
 */
import { KafkaError } from '../../api/errors.js';
import type { Random } from '../random.js';

export interface ClassicBroker {
  id: number;
  /** Rack id (`broker.rack`), or null when the broker has none. */
  rack: string | null;
}

export interface ClassicOptions {
  /**
   * Kafka's `fixedStartIndex`: the position in the broker list of partition 0's first replica,
   * and also the initial follower shift. When absent or negative both are drawn from `random`.
   */
  fixedStartIndex?: number;
  /** Id of the first partition to assign (CreatePartitions continues from the current count). */
  startPartitionId?: number;
  /** `--disable-rack-aware`: ignore racks even when brokers have them. */
  disableRackAware?: boolean;
}

/**
 * Assigns `numPartitions` partitions of `replicationFactor` replicas to `brokers`. Element `i` of
 * the result holds the replicas of partition `startPartitionId + i`; `replicas[0]` is the preferred
 * leader. Throws INVALID_PARTITIONS / INVALID_REPLICATION_FACTOR with Kafka's messages, and
 * INVALID_REPLICA_ASSIGNMENT when only some brokers have a rack (Kafka throws
 * AdminOperationException there, which has no error code of its own).
 */
export function assignReplicasToBrokers(
  brokers: readonly ClassicBroker[],
  numPartitions: number,
  replicationFactor: number,
  random: Random,
  options: ClassicOptions = {},
): number[][] {
  if (numPartitions <= 0) {
    throw new KafkaError('INVALID_PARTITIONS', 'Number of partitions must be larger than 0.');
  }
  if (replicationFactor <= 0) {
    throw new KafkaError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0.');
  }
  if (replicationFactor > brokers.length) {
    throw new KafkaError(
      'INVALID_REPLICATION_FACTOR',
      `Replication factor: ${replicationFactor} larger than available brokers: ${brokers.length}.`,
    );
  }
  const fixedStartIndex = options.fixedStartIndex ?? -1;
  const startPartitionId = Math.max(0, options.startPartitionId ?? 0);
  const withRack = options.disableRackAware ? 0 : brokers.filter((b) => b.rack !== null).length;
  if (withRack === 0) {
    const ids = brokers.map((b) => b.id);
    return assignRackUnaware(ids, numPartitions, replicationFactor, fixedStartIndex, startPartitionId, random);
  }
  if (withRack < brokers.length) {
    throw new KafkaError(
      'INVALID_REPLICA_ASSIGNMENT',
      'Not all brokers have rack information for replica rack aware assignment.',
    );
  }
  const rackByBroker = new Map<number, string>();
  for (const b of brokers) rackByBroker.set(b.id, b.rack ?? '');
  return assignRackAware(rackByBroker, numPartitions, replicationFactor, fixedStartIndex, startPartitionId, random);
}

/**
 * Kafka's `getRackAlternatedBrokerList`: racks sorted, brokers sorted by id inside each rack, then
 * one broker per rack in turn. {0:r1, 1:r3, 2:r3, 3:r2, 4:r2, 5:r1} gives [0, 3, 1, 5, 4, 2].
 */
export function rackAlternatedBrokerList(rackByBroker: ReadonlyMap<number, string>): number[] {
  const byRack = new Map<string, number[]>();
  for (const [id, rack] of rackByBroker) {
    const list = byRack.get(rack);
    if (list) list.push(id);
    else byRack.set(rack, [id]);
  }
  // Java's String.compareTo compares UTF-16 code units, as `<` does; localeCompare would not.
  const racks = [...byRack.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const queues = racks.map((rack) => (byRack.get(rack) ?? []).sort((a, b) => a - b));
  const result: number[] = [];
  for (let round = 0; result.length < rackByBroker.size; round++) {
    for (const queue of queues) {
      const id = queue[round];
      if (id !== undefined) result.push(id);
    }
  }
  return result;
}

/** Kafka's `replicaIndex`: the position of a follower, never the first replica's own position. */
function replicaIndex(firstReplicaIndex: number, shift: number, replica: number, nBrokers: number): number {
  const offset = 1 + ((shift + replica) % (nBrokers - 1));
  return (firstReplicaIndex + offset) % nBrokers;
}

/** Kafka draws the start index first, then the shift; both are the fixed index when one is given. */
function startAndShift(fixedStartIndex: number, n: number, random: Random): [number, number] {
  if (fixedStartIndex >= 0) return [fixedStartIndex, fixedStartIndex];
  const startIndex = random.nextInt(n);
  const shift = random.nextInt(n);
  return [startIndex, shift];
}

function assignRackUnaware(
  brokerIds: readonly number[],
  numPartitions: number,
  replicationFactor: number,
  fixedStartIndex: number,
  startPartitionId: number,
  random: Random,
): number[][] {
  const n = brokerIds.length;
  const [startIndex, initialShift] = startAndShift(fixedStartIndex, n, random);
  let shift = initialShift;
  const result: number[][] = [];
  for (let partitionId = startPartitionId; partitionId < startPartitionId + numPartitions; partitionId++) {
    if (partitionId > 0 && partitionId % n === 0) shift += 1;
    const first = (partitionId + startIndex) % n;
    const replicas = [at(brokerIds, first)];
    for (let j = 0; j < replicationFactor - 1; j++) {
      replicas.push(at(brokerIds, replicaIndex(first, shift, j, n)));
    }
    result.push(replicas);
  }
  return result;
}

function assignRackAware(
  rackByBroker: ReadonlyMap<number, string>,
  numPartitions: number,
  replicationFactor: number,
  fixedStartIndex: number,
  startPartitionId: number,
  random: Random,
): number[][] {
  const numRacks = new Set(rackByBroker.values()).size;
  const arranged = rackAlternatedBrokerList(rackByBroker);
  const n = arranged.length;
  const [startIndex, initialShift] = startAndShift(fixedStartIndex, n, random);
  let shift = initialShift;
  const result: number[][] = [];
  for (let partitionId = startPartitionId; partitionId < startPartitionId + numPartitions; partitionId++) {
    if (partitionId > 0 && partitionId % n === 0) shift += 1;
    const first = (partitionId + startIndex) % n;
    const leader = at(arranged, first);
    const replicas = [leader];
    const racksWithReplicas = new Set<string>([rackOf(rackByBroker, leader)]);
    const brokersWithReplicas = new Set<number>([leader]);
    // `k` keeps counting across followers: a skipped candidate is not offered again.
    let k = 0;
    for (let j = 0; j < replicationFactor - 1; j++) {
      for (;;) {
        const broker = at(arranged, replicaIndex(first, shift * numRacks, k, n));
        const rack = rackOf(rackByBroker, broker);
        k += 1;
        // Skip a broker whose rack already has a replica while some rack has none, and a broker
        // that already has a replica while some broker has none.
        const rackOk = !racksWithReplicas.has(rack) || racksWithReplicas.size === numRacks;
        const brokerOk = !brokersWithReplicas.has(broker) || brokersWithReplicas.size === n;
        if (rackOk && brokerOk) {
          replicas.push(broker);
          racksWithReplicas.add(rack);
          brokersWithReplicas.add(broker);
          break;
        }
      }
    }
    result.push(replicas);
  }
  return result;
}

function at(list: readonly number[], index: number): number {
  const value = list[index];
  if (value === undefined) throw new KafkaError('INTERNAL', `placement index ${index} out of range`);
  return value;
}

function rackOf(rackByBroker: ReadonlyMap<number, string>, broker: number): string {
  const rack = rackByBroker.get(broker);
  if (rack === undefined) throw new KafkaError('INTERNAL', `broker ${broker} has no rack`);
  return rack;
}
