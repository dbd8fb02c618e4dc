/*
 * KRaft's `StripedReplicaPlacer` (apache/kafka: metadata/src/main/java/org/apache/kafka/metadata/
 * placement/StripedReplicaPlacer.java, 3.0+; docs/semantics.md#replica-placement), as of Kafka 4.0: it does not
 * look at a topic's existing partitions, so CreatePartitions starts a fresh stripe.
 *
 * Invariants:
 * - replicas[0] is always an unfenced broker; a call fails if every broker is fenced;
 * - no broker appears twice in a partition;
 * - replicas go to racks round-robin from a rack offset that advances by one per partition, so a
 *   partition spans min(#racks, RF) racks when every rack has enough brokers;
 * - inside a rack, unfenced brokers are taken before fenced ones;
 * - after as many partitions as there are unfenced brokers, racks and brokers are reshuffled.
 * Brokers without a rack share one "empty" rack, which sorts first.
 */
import { KafkaError } from '../../api/errors.js';
import type { Random } from '../random.js';

export interface StripedBroker {
  id: number;
  rack: string | null;
  fenced: boolean;
}

/**
 * Places `numPartitions` partitions of `replicationFactor` replicas on the usable brokers (the
 * caller has already left out brokers in controlled shutdown). Throws INVALID_REPLICATION_FACTOR
 * with the placer's own messages; the controller prefixes them with "Unable to replicate the
 * partition N time(s): ". Like Kafka's placer, it does not validate `numPartitions`.
 */
export function placeStriped(
  brokers: readonly StripedBroker[],
  numPartitions: number,
  replicationFactor: number,
  random: Random,
): number[][] {
  const rackList = new RackList(random, brokers);
  if (replicationFactor <= 0) {
    throw new KafkaError(
      'INVALID_REPLICATION_FACTOR',
      `Invalid replication factor ${replicationFactor}: the replication factor must be positive.`,
    );
  }
  if (rackList.numUnfencedBrokers === 0) {
    throw new KafkaError('INVALID_REPLICATION_FACTOR', 'All brokers are currently fenced.');
  }
  if (replicationFactor > rackList.numTotalBrokers) {
    throw new KafkaError(
      'INVALID_REPLICATION_FACTOR',
      `The target replication factor of ${replicationFactor} cannot be reached because only ` +
        `${rackList.numTotalBrokers} broker(s) are registered.`,
    );
  }
  const placements: number[][] = [];
  for (let p = 0; p < numPartitions; p++) placements.push(rackList.place(replicationFactor));
  return placements;
}

/** Java's `Collections.shuffle(list, random)`: Fisher–Yates from the end. */
function shuffleInPlace<T>(list: T[], random: Random): void {
  for (let i = list.length; i > 1; i--) {
    const j = random.nextInt(i);
    const a = list[i - 1] as T;
    list[i - 1] = list[j] as T;
    list[j] = a;
  }
}

/**
 * A rotating list of broker ids. Each "iteration epoch" (one per partition) starts one position
 * further on and returns every broker at most once.
 */
class BrokerList {
  readonly brokers: number[] = [];
  /** How many brokers this epoch has returned. */
  private index = 0;
  private offset = 0;
  /** Starts at 0 like the rack list's epoch, so the first partition uses the random offset as is. */
  private epoch = 0;

  initialize(random: Random): void {
    if (this.brokers.length === 0) return;
    this.brokers.sort((a, b) => a - b);
    this.offset = random.nextInt(this.brokers.length);
  }

  shuffle(random: Random): void {
    shuffleInPlace(this.brokers, random);
  }

  next(epoch: number): number | undefined {
    const size = this.brokers.length;
    if (size === 0) return undefined;
    if (this.epoch !== epoch) {
      this.epoch = epoch;
      this.index = 0;
      this.offset = (this.offset + 1) % size;
    }
    if (this.index >= size) return undefined;
    const broker = this.brokers[(this.index + this.offset) % size];
    this.index++;
    return broker;
  }
}

class Rack {
  readonly fenced = new BrokerList();
  readonly unfenced = new BrokerList();

  initialize(random: Random): void {
    this.fenced.initialize(random);
    this.unfenced.initialize(random);
  }

  shuffle(random: Random): void {
    this.fenced.shuffle(random);
    this.unfenced.shuffle(random);
  }

  /** Unfenced first; fenced only once this rack's unfenced brokers are used up for the epoch. */
  next(epoch: number): number | undefined {
    return this.unfenced.next(epoch) ?? this.fenced.next(epoch);
  }
}

type RackName = string | null;

/** Kafka's OptionalStringComparator: no rack first, then UTF-16 order as Java's compareTo. */
function compareRackNames(a: RackName, b: RackName): number {
  if (a === null) return b === null ? 0 : -1;
  if (b === null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

class RackList {
  private readonly racks = new Map<RackName, Rack>();
  /** Iteration order for the rack list: sorted at first, reshuffled after each round. */
  private readonly rackNames: RackName[];
  /**
   * Java walks a HashMap when it initialises and shuffles the racks; we walk them in sorted
   * order instead, so the same seed gives the same placement whatever order brokers come in.
   */
  private readonly sortedRackNames: RackName[];
  readonly numTotalBrokers: number;
  readonly numUnfencedBrokers: number;
  private epoch = 0;
  private offset: number;

  private readonly random: Random;

  constructor(random: Random, brokers: readonly StripedBroker[]) {
    this.random = random;
    let unfencedCount = 0;
    for (const broker of brokers) {
      let rack = this.racks.get(broker.rack);
      if (!rack) {
        rack = new Rack();
        this.racks.set(broker.rack, rack);
      }
      if (broker.fenced) {
        rack.fenced.brokers.push(broker.id);
      } else {
        rack.unfenced.brokers.push(broker.id);
        unfencedCount++;
      }
    }
    this.sortedRackNames = [...this.racks.keys()].sort(compareRackNames);
    for (const name of this.sortedRackNames) this.rack(name).initialize(random);
    this.rackNames = [...this.sortedRackNames];
    this.numTotalBrokers = brokers.length;
    this.numUnfencedBrokers = unfencedCount;
    this.offset = this.rackNames.length === 0 ? 0 : random.nextInt(this.rackNames.length);
  }

  place(replicationFactor: number): number[] {
    // After as many partitions as there are unfenced brokers, reshuffle so the next round does
    // not repeat this one (never with one unfenced broker: the epoch would never advance).
    if (this.epoch === this.numUnfencedBrokers && this.numUnfencedBrokers > 1) {
      this.shuffle();
      this.epoch = 0;
    }
    const numRacks = this.rackNames.length;
    if (this.offset === numRacks) this.offset = 0;

    // The leader: the next unfenced broker of the first rack, from the offset on, that has one.
    const replicas: number[] = [];
    let firstRackIndex = this.offset;
    for (let tries = 0; ; tries++) {
      if (tries > numRacks) throw new KafkaError('INTERNAL', 'striped placer found no unfenced leader');
      const leader = this.rackAt(firstRackIndex).unfenced.next(this.epoch);
      if (leader !== undefined) {
        replicas.push(leader);
        break;
      }
      firstRackIndex = (firstRackIndex + 1) % numRacks;
    }

    // Followers: one broker from each rack in turn, starting again at the offset and skipping
    // the leader's rack the first time round.
    let rackIndex = this.offset;
    let leaderRackIndex = firstRackIndex;
    let misses = 0;
    while (replicas.length < replicationFactor) {
      let broker: number | undefined;
      if (rackIndex === leaderRackIndex) leaderRackIndex = -1;
      else broker = this.rackAt(rackIndex).next(this.epoch);
      rackIndex = (rackIndex + 1) % numRacks;
      if (broker !== undefined) {
        replicas.push(broker);
        misses = 0;
      } else if (++misses > 2 * numRacks) {
        // Kafka would loop for ever here; with RF <= #brokers it should be unreachable.
        throw new KafkaError('INTERNAL', 'striped placer ran out of brokers');
      }
    }
    this.epoch++;
    this.offset++;
    return replicas;
  }

  private shuffle(): void {
    shuffleInPlace(this.rackNames, this.random);
    for (const name of this.sortedRackNames) this.rack(name).shuffle(this.random);
  }

  private rackAt(index: number): Rack {
    const name = this.rackNames[index];
    if (name === undefined) throw new KafkaError('INTERNAL', `rack index ${index} out of range`);
    return this.rack(name);
  }

  private rack(name: RackName): Rack {
    const rack = this.racks.get(name);
    if (!rack) throw new KafkaError('INTERNAL', `unknown rack ${String(name)}`);
    return rack;
  }
}
