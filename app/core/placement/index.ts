/*
 * Replica placement for the KRaft controller (docs/semantics.md#replica-placement): one entry point over the two
 * placers. Invariants, whatever the strategy:
 * - brokers in controlled shutdown get no replica;
 * - replicas[0] is an unfenced broker;
 * - no broker appears twice in a partition;
 * - RF is checked against the registered brokers (fenced included, shutting-down excluded).
 */
import { KafkaError } from '../../api/errors.js';
import type { Random } from '../random.js';
import { assignReplicasToBrokers } from './classic.js';
import { placeStriped } from './striped.js';

export { assignReplicasToBrokers, rackAlternatedBrokerList } from './classic.js';
export type { ClassicBroker, ClassicOptions } from './classic.js';
export { placeStriped } from './striped.js';
export type { StripedBroker } from './striped.js';

/** A registered broker as the placer sees it. */
export interface PlacementBroker {
  id: number;
  rack: string | null;
  fenced: boolean;
  inControlledShutdown: boolean;
}

/**
 * `striped`: KRaft's StripedReplicaPlacer, what Kafka 3.x/4.x controllers use.
 * `classic`: the [ZK]-era `AdminUtils.assignReplicasToBrokers`.
 */
export type PlacementStrategy = 'classic' | 'striped';

export interface PlaceReplicasArgs {
  brokers: PlacementBroker[];
  numPartitions: number;
  /** Already resolved: -1 ("use `default.replication.factor`") is the caller's to replace. */
  replicationFactor: number;
  /** First partition id, for CreatePartitions. Only `classic` uses it; KRaft's placer does not. */
  startPartitionId?: number;
  strategy: PlacementStrategy;
  random: Random;
}

/**
 * Chooses the replicas of `numPartitions` new partitions; element `i` is partition
 * `startPartitionId + i`, and its `replicas[0]` is the preferred (and initial) leader.
 * Throws INVALID_REPLICATION_FACTOR / INVALID_PARTITIONS with the KRaft controller's messages,
 * and INVALID_REPLICA_ASSIGNMENT for `classic` when only some brokers have a rack.
 */
export function placeReplicas(args: PlaceReplicasArgs): number[][] {
  const { numPartitions, replicationFactor, random } = args;
  if (replicationFactor <= 0) {
    throw new KafkaError(
      'INVALID_REPLICATION_FACTOR',
      'Replication factor must be larger than 0, or -1 to use the default value.',
    );
  }
  if (numPartitions <= 0) {
    throw new KafkaError('INVALID_PARTITIONS', 'Number of partitions was set to an invalid non-positive value.');
  }
  // BrokerHeartbeatManager.usableBrokers: shutting-down brokers are not offered to the placer.
  const usable = args.brokers.filter((b) => !b.inControlledShutdown).sort((a, b) => a.id - b.id);
  const unfenced = usable.filter((b) => !b.fenced);
  const prefix = `Unable to replicate the partition ${replicationFactor} time(s): `;
  // Same order of checks as StripedReplicaPlacer.place, for both strategies.
  if (unfenced.length === 0) {
    throw new KafkaError('INVALID_REPLICATION_FACTOR', `${prefix}All brokers are currently fenced.`);
  }
  if (replicationFactor > usable.length) {
    throw new KafkaError(
      'INVALID_REPLICATION_FACTOR',
      `${prefix}The target replication factor of ${replicationFactor} cannot be reached because only ` +
        `${usable.length} broker(s) are registered.`,
    );
  }
  if (args.strategy === 'striped') {
    try {
      return placeStriped(usable, numPartitions, replicationFactor, random);
    } catch (e) {
      // ReplicationControlManager.createTopic adds the prefix to every placer refusal.
      if (e instanceof KafkaError && e.code === 'INVALID_REPLICATION_FACTOR') {
        throw new KafkaError(e.code, prefix + e.message, e.details);
      }
      throw e;
    }
  }
  return placeClassic(usable, unfenced, numPartitions, replicationFactor, args.startPartitionId ?? 0, random);
}

/*
 * The classic algorithm knows nothing about fencing, so we choose the broker list for it:
 * - enough unfenced brokers for the RF: run it over the unfenced brokers only (sorted by id, as
 *   [ZK] did with its live brokers), so no fenced broker gets a replica at all;
 * - otherwise fenced brokers are needed anyway: run it over every usable broker, keeping its
 *   round-robin and rack spread, then make each list lead with an unfenced broker. The first
 *   unfenced replica is moved to the front (the followers keep their order); a list with no
 *   unfenced broker at all has its first replica replaced by an unfenced broker, taken
 *   round-robin by partition id (it cannot already be in that list).
 * Rack rules are those of classic, except that a mixed rack/no-rack list places rack-unaware
 * (KRaft has no such refusal; [ZK] failed the request).
 */
function placeClassic(
  usable: readonly PlacementBroker[],
  unfenced: readonly PlacementBroker[],
  numPartitions: number,
  replicationFactor: number,
  startPartitionId: number,
  random: Random,
): number[][] {
  // KRaft never refuses a topic for partial rack information, so a mixed list places rack-unaware.
  const withRack = usable.filter((b) => b.rack !== null).length;
  const options = { startPartitionId, disableRackAware: withRack > 0 && withRack < usable.length };
  if (unfenced.length >= replicationFactor) {
    return assignReplicasToBrokers(unfenced, numPartitions, replicationFactor, random, options);
  }
  const fenced = new Set(usable.filter((b) => b.fenced).map((b) => b.id));
  const assignment = assignReplicasToBrokers(usable, numPartitions, replicationFactor, random, options);
  const firstPartitionId = Math.max(0, startPartitionId);
  return assignment.map((replicas, i) => {
    const firstUnfenced = replicas.findIndex((id) => !fenced.has(id));
    if (firstUnfenced === 0) return replicas;
    if (firstUnfenced > 0) {
      const [leader] = replicas.splice(firstUnfenced, 1);
      return [leader as number, ...replicas];
    }
    const substitute = unfenced[(firstPartitionId + i) % unfenced.length] as PlacementBroker;
    return [substitute.id, ...replicas.slice(1)];
  });
}
